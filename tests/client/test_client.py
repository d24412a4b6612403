"""The client's own rules, at the HTTP level (httpx's shipped ``MockTransport``): retries on
429/503 after ``Retry-After``, the idempotency key, problem errors, polling, webhook checks.
The client against a real service is in ``tests/service/test_service_kit.py``."""

from __future__ import annotations

import asyncio
import json
import time
from email.utils import formatdate
from pathlib import Path
from typing import Any

import httpx
import pytest

from evidex.client import (
    ApiError,
    AsyncClient,
    Client,
    JobFailed,
    WaitTimeout,
    idempotency_key,
    verify_webhook,
)
from evidex.workers.webhooks import signature_header

INVOICE = Path(__file__).resolve().parents[2] / "samples" / "invoice.pdf"
JOB = {"id": "job_1", "status": "queued"}


def problem(status: int, code: str, **headers: str) -> httpx.Response:
    body = {"type": f"urn:evidex:problem:{code}", "title": code, "status": status,
            "detail": f"{code} detail", "code": code}  # fmt: skip
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """Answers in order; records each request."""

    def __init__(self, *answers: httpx.Response) -> None:
        self.answers = list(answers)
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        return self.answers.pop(0)


def client(script: Script, **kw: Any) -> tuple[Client, list[float]]:
    slept: list[float] = []
    c = Client("http://evidex.test", "k-123", transport=httpx.MockTransport(script), **kw)
    c.sleep = slept.append  # type: ignore[assignment]
    return c, slept


def test_submit_retries_429_and_503_after_retry_after_with_one_idempotency_key() -> None:
    date = formatdate(time.time() + 30, usegmt=True)
    script = Script(
        problem(429, "rate_limited", **{"Retry-After": "7"}),
        problem(503, "queue_unavailable", **{"Retry-After": date}),
        problem(503, "store_unavailable"),
        httpx.Response(202, json=JOB),
    )
    c, slept = client(script, backoff_s=0.2)
    job = c.submit(INVOICE, "invoice", {"llm": "rules"})
    assert job.id == "job_1" and job.status == "queued"
    assert slept[0] == 7.0
    assert 25 <= slept[1] <= 30  # an HTTP date: seconds until then
    assert 0.2 * 4 * 0.5 <= slept[2] <= 0.2 * 4  # no header: backoff, 3rd attempt, jittered
    keys = {r.headers["idempotency-key"] for r in script.seen}
    assert len(keys) == 1 and len(script.seen) == 4
    assert keys == {idempotency_key(INVOICE.read_bytes(), "invoice", '{"llm": "rules"}')}
    body = script.seen[0].content
    assert b'name="schema"\r\n\r\ninvoice' in body and b'{"llm": "rules"}' in body
    assert script.seen[0].headers["authorization"] == "Bearer k-123"


def test_gives_up_after_max_retries_and_does_not_retry_other_errors() -> None:
    script = Script(*[problem(429, "rate_limited", **{"Retry-After": "1"})] * 3)
    c, slept = client(script, max_retries=2)
    with pytest.raises(ApiError) as caught:
        c.job("job_1")
    assert (caught.value.status, caught.value.code) == (429, "rate_limited")
    assert slept == [1.0, 1.0] and len(script.seen) == 3
    script = Script(problem(422, "pdf_corrupt"))
    c, slept = client(script)
    with pytest.raises(ApiError) as caught:
        c.submit(INVOICE, "invoice")
    assert caught.value.code == "pdf_corrupt" and caught.value.detail == "pdf_corrupt detail"
    assert slept == [] and len(script.seen) == 1


def test_retry_after_is_capped_and_connection_errors_are_retried() -> None:
    calls: list[int] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        if len(calls) == 2:
            return problem(503, "not_ready", **{"Retry-After": "3600"})
        return httpx.Response(200, json={**JOB, "status": "running"})

    slept: list[float] = []
    c = Client("http://evidex.test", "k", transport=httpx.MockTransport(flaky),
               max_retry_after_s=10)  # fmt: skip
    c.sleep = slept.append  # type: ignore[assignment]
    assert c.job("job_1").status == "running"
    assert len(slept) == 2 and slept[1] == 10.0


def test_a_schema_file_or_dict_is_sent_as_schema_json(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"po": {"type": "string"}}}
    path = tmp_path / "po.json"
    path.write_text(json.dumps(schema))
    script = Script(httpx.Response(202, json=JOB), httpx.Response(202, json=JOB))
    c, _ = client(script)
    c.submit(INVOICE, path)
    c.submit(INVOICE, schema)
    for request in script.seen:
        assert b'name="schema_json"' in request.content and b'"po"' in request.content
    assert idempotency_key(b"a", "invoice") != idempotency_key(b"b", "invoice")
    assert idempotency_key(b"a", "invoice") != idempotency_key(b"a", "contract")
    assert idempotency_key(b"a", "invoice", "{}") != idempotency_key(b"a", "invoice")


def test_wait_polls_with_backoff_then_result_or_job_failed() -> None:
    result = {"schema": "invoice", "fields": {}}
    script = Script(
        httpx.Response(200, json=JOB),
        httpx.Response(200, json={**JOB, "status": "running"}),
        httpx.Response(200, json={**JOB, "status": "running"}),
        httpx.Response(200, json={**JOB, "status": "succeeded", "result": result}),
    )
    c, slept = client(script)
    assert c.result("job_1") == result
    assert slept == [0.25, 0.375, 0.5625]  # growing pauses
    failed = {**JOB, "status": "failed", "error": {"code": "llm_refused", "message": "no"}}
    c, _ = client(Script(httpx.Response(200, json=failed)))
    with pytest.raises(JobFailed) as caught:
        c.result("job_1")
    assert caught.value.job.error_code == "llm_refused"
    c, _ = client(Script(*[httpx.Response(200, json=JOB)] * 50))
    with pytest.raises(WaitTimeout):
        c.wait("job_1", timeout=0)


def test_async_client_retries_and_waits_the_same_way() -> None:
    script = Script(
        problem(429, "rate_limited", **{"Retry-After": "2"}),
        httpx.Response(202, json=JOB),
        httpx.Response(200, json={**JOB, "status": "succeeded", "result": {"ok": True}}),
        httpx.Response(200, content=b"%PDF-1.7 x", headers={"content-type": "application/pdf"}),
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def run() -> tuple[dict[str, Any], bytes]:
        async with AsyncClient(
            "http://evidex.test", "k", transport=httpx.MockTransport(script)
        ) as c:
            c.sleep = sleep  # type: ignore[assignment]
            job = await c.submit(INVOICE, "invoice")
            return await c.result(job), await c.annotated_pdf(job)

    result, pdf = asyncio.run(run())
    assert result == {"ok": True} and pdf.startswith(b"%PDF")
    assert slept == [2.0]
    assert script.seen[0].headers["idempotency-key"] == script.seen[1].headers["idempotency-key"]


def test_verify_webhook_accepts_what_the_sender_signs_and_nothing_else() -> None:
    body = b'{"job_id": "job_1", "status": "succeeded"}'
    now = int(time.time())
    header = signature_header("whsec", now, body)  # what the workers send
    assert verify_webhook({"Evidex-Signature": header}, body, "whsec")
    assert verify_webhook({"evidex-signature": header}, body.decode(), "whsec")
    assert not verify_webhook({"Evidex-Signature": header}, body + b" ", "whsec")
    assert not verify_webhook({"Evidex-Signature": header}, body, "other")
    assert not verify_webhook({}, body, "whsec")
    old = signature_header("whsec", now - 3600, body)
    assert not verify_webhook({"Evidex-Signature": old}, body, "whsec")
    assert verify_webhook({"Evidex-Signature": old}, body, "whsec", now=now - 3500)
