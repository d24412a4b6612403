"""The pre-call gate over REST, against the real processes (``evidex serve``, ``evidex worker``,
a private Redis) and a local OpenAI-wire server that records every request.

The tenant's monthly budget is one token, so any reservation fails the job ``budget_exceeded``:
a refused job ending ``document_empty`` or ``document_mismatch`` instead shows the gate ran
before the reservation, and the model server's empty request log that no call was made. A
refused job is never offered for review, and ``/metrics`` counts it by code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from gate_documents import CV, write_pdf
from service_stack import Service, running_stack, skip_without_redis

skip_without_redis()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, openai_wire: FakeOpenAI) -> Iterator[Service]:
    variables = {
        "EVIDEX_LLM": "openai",
        "EVIDEX_MONTHLY_TOKEN_BUDGET": "1",
        "EVIDEX_RATE_LIMIT_PER_MINUTE": "100000",
    }
    tmp = tmp_path_factory.mktemp("gate")
    with running_stack(tmp, ("gate",), openai_wire.base_url, **variables) as stack:
        yield stack


def _run(stack: Service, pdf: bytes, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Submit ``pdf`` as an invoice and wait for its job to end."""
    sent = stack.submit(pdf, "invoice", {"llm": "openai", **(options or {})})
    assert sent.status_code == 202, sent.text
    return stack.ended(sent.json()["id"])


def _refusals(stack: Service) -> dict[str, float]:
    return {s.labels["code"]: s.value for s in stack.metrics() if s.name == "evidex_refusals_total"}


def _not_reviewable(stack: Service, job_id: str) -> None:
    page = stack.request("GET", f"/v1/jobs/{job_id}/review")
    assert page.status_code == 409 and page.json()["code"] == "job_not_ready"
    link = stack.request(
        "POST", f"/v1/jobs/{job_id}/review-links", json={"reviewer": "Ana", "expires_in": 600}
    )
    assert link.status_code == 409 and link.json()["code"] == "job_not_ready"


@pytest.mark.parametrize(
    ("text", "code", "said"),
    [
        pytest.param("", "document_empty", "no model is called", id="a blank pdf"),
        pytest.param(
            CV, "document_mismatch", "reads like a CV (schema 'candidate_profile')", id="a cv"
        ),
    ],
)
def test_a_refused_document_fails_with_no_reservation_and_no_call(
    stack: Service, openai_wire: FakeOpenAI, tmp_path: Any, text: str, code: str, said: str
) -> None:
    before = _refusals(stack).get(code, 0.0)
    job = _run(stack, write_pdf(tmp_path / "upload.pdf", text).read_bytes())
    assert job["status"] == "failed"
    assert job["error"]["code"] == code, job["error"]
    assert said in job["error"]["message"]
    assert "result" not in job or job["result"] is None
    assert openai_wire.requests == []
    _not_reviewable(stack, job["id"])
    assert _refusals(stack)[code] == before + 1


def test_without_the_gate_the_budget_is_reserved_first(
    stack: Service, openai_wire: FakeOpenAI, tmp_path: Any
) -> None:
    """The same blank page with ``options.gate = false``: now the reservation is tried (and
    the one-token budget refuses it), so the refusals above came before any reservation."""
    before = _refusals(stack)
    job = _run(stack, write_pdf(tmp_path / "blank.pdf").read_bytes(), {"gate": False})
    assert job["status"] == "failed"
    assert job["error"]["code"] == "budget_exceeded", job["error"]
    assert job["options"]["gate"] is False
    assert openai_wire.requests == []
    assert _refusals(stack) == before  # not a refusal of the gate
