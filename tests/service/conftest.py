"""Fixtures the service tests share: the app over memory stores (``api``, from
``test_api.harness``; a module needing other settings defines its own) and a succeeded,
reviewable invoice job in it (``job``); one Chromium a module and tabs opened on a served app
(``tests/browser.py``, imported only when a test asks for them); a local OpenAI-wire server."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from browser import chromium as launch

    with launch() as browser:
        yield browser


@pytest.fixture
def open_tab(chromium: Any) -> Iterator[Callable[..., Any]]:
    """``open_tab(base, **options)``: a :class:`browser.Tab` (see ``browser.tab``)."""
    from browser import tab

    with contextlib.ExitStack() as tabs:
        yield lambda base, **options: tabs.enter_context(tab(chromium, base, **options))


@pytest.fixture(scope="module")
def openai_wire() -> Iterator[Any]:
    """A local OpenAI-wire server (``fake_openai.FakeOpenAI``) for the module's tests."""
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def api() -> Iterator[Any]:
    """``test_api.Harness``: the app over memory stores with the test keys."""
    from test_api import harness

    with harness() as h:
        yield h


@pytest.fixture
def job(api: Any) -> str:
    """A succeeded invoice job of ``acme`` whose result has something to review."""
    from test_review import reviewable_result, succeed_with

    job_id: str = api.submit().json()["id"]
    succeed_with(api.jobs, api.blobs, job_id, reviewable_result())
    return job_id
