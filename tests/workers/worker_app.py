"""Test-only worker bootstrap: ``celery -A worker_app worker`` (with ``tests/workers`` on the path).

The real app from :func:`make_celery`, with everything a test needs kept apart from other users
of the same Redis: job records under ``EVIDEX_TEST_PREFIX``, broker keys (queues, the unacked
set) under the same prefix, a queue of its own (``EVIDEX_TEST_QUEUE``), a short visibility
timeout (``EVIDEX_TEST_VISIBILITY_S``) swept every second, and, with ``EVIDEX_TEST_LLM_DELAY_S``,
a model that takes that long, so a test can kill the worker in the middle of a job. A document
holding :data:`STALL_TEXT` makes its verification stage backtrack for ever in Python's ``re``
(holding the GIL of the process it runs in), as a hostile pattern did before client patterns ran
in RE2. None of these variables is read by evidex itself.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Mapping
from typing import Any

import pandas as pd
from celery import Celery

from evidex.extractors.backends import make_llm
from evidex.extractors.llm.base import LLMBackend, LLMRequest, LLMResponse
from evidex.extractors.settings import Settings
from evidex.extractors.verify.fields import Verification
from evidex.schemas import SchemaDef
from evidex.workers.blobstore_local import LocalBlobStore
from evidex.workers.celery_app import build_deps, make_celery
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.runner import Deps
from evidex.workers.settings import WorkerSettings
from evidex.workers.stages import ProcessStages

SLOW_CALL = "evidex-test: slow model call started"
STALL_TEXT = "evidex-test: stall verification"


def backtrack() -> Any:
    """Never ends in practice: 2**64 ways to split the a's, and the GIL held throughout."""
    return re.match(r"^(a+)+$", "a" * 64 + "!")


class StallingStages(ProcessStages):
    """The worker's stages; verifying a document that holds :data:`STALL_TEXT` never ends."""

    def verify(
        self, schema: SchemaDef, output: Any, lines: pd.DataFrame, timeout_s: float
    ) -> Verification:
        if lines["text"].str.contains(STALL_TEXT, regex=False).any():
            what = f"schema {schema.name!r}"
            stalled: Verification = self.run("verification", what, backtrack, (), timeout_s)
            return stalled
        return super().verify(schema, output, lines, timeout_s)


class SlowLLM:
    """The configured backend, after a pause; says in the worker's log when the pause begins.

    It stands for a model that answers slowly: I/O, waited for on the worker's thread, not a
    computing backend sent to a child process (so its name is not ``rules``)."""

    def __init__(self, inner: LLMBackend, delay_s: float) -> None:
        self.inner, self.delay_s, self.name = inner, delay_s, f"slow {inner.name}"

    def complete(self, request: LLMRequest) -> LLMResponse:
        logging.getLogger(__name__).warning(SLOW_CALL)
        time.sleep(self.delay_s)
        return self.inner.complete(request)


def configure(app: Celery, env: Mapping[str, str]) -> Celery:
    """Point ``app`` (a worker's, or a test's client) at the test's queue and key prefix."""
    app.conf.task_default_queue = env["EVIDEX_TEST_QUEUE"]
    app.conf.broker_transport_options = {
        "visibility_timeout": float(env.get("EVIDEX_TEST_VISIBILITY_S", "3600")),
        "global_keyprefix": env["EVIDEX_TEST_PREFIX"] + ":",
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": 5,  # a worker killed mid-sweep must not block the others long
    }
    return app


def build(env: Mapping[str, str]) -> Celery:
    settings = WorkerSettings()
    delay = float(env.get("EVIDEX_TEST_LLM_DELAY_S", "0"))

    def llm(chosen: Settings) -> LLMBackend:
        inner = make_llm(chosen)
        return SlowLLM(inner, delay) if delay else inner

    def deps(app: Celery) -> Deps:
        return build_deps(
            app,
            settings,
            jobs=RedisJobStore.from_url(
                settings.redis_url,
                prefix=env["EVIDEX_TEST_PREFIX"],
                due_after_s=settings.lease_ttl_s,
            ),
            blobs=LocalBlobStore(settings.data_dir),
            llm_factory=llm,
            stages=StallingStages(settings.parse_processes, settings.parse_tasks_per_process),
        )

    return configure(make_celery(settings, deps=deps), env)


_app: Celery | None = None


def __getattr__(name: str) -> Celery:
    """``app``, built from the environment on first access (so tests can import ``configure``)."""
    global _app
    if name != "app":
        raise AttributeError(name)
    if _app is None:
        _app = build(os.environ)
    return _app
