"""The integration kit against the real thing: ``evidex serve`` and ``evidex worker`` processes on
a private Redis, a local OpenAI-wire server for the model. The Python client (sync and async),
``evidex submit``, the ``/metrics`` scrape with the workers' figures, and the JSON logs.

The stack is started once for the module; each test submits its own documents and compares
figures before and after, so the tests do not depend on their order.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai import RESPONSES, FakeOpenAI, Reply, fixture
from sample_answers import SAMPLES, perfect_fields
from service_stack import Service, running_stack, skip_without_redis

from evidex.client import AsyncClient, Client, JobFailed
from evidex.extractors.llm.scripted import build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.schemas import get_schema
from evidex.service.cli import main

INVOICE = SAMPLES / "invoice.pdf"
IBAN_TEXT = "DE45 1004 0000 0482 7002 03"  # a line of the invoice: must never reach a log
OPENAI_KEY = "sk-local-never-logged-7f3a"

skip_without_redis()

Scraped = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def _client(stack: Service) -> Client:
    return Client(stack.base, stack.key, backoff_s=0.05)


def _scrape(stack: Service) -> Scraped:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for s in stack.metrics()}


def _ended(scraped: Scraped) -> float:
    return sum(v for (name, _), v in scraped.items() if name == "evidex_jobs_total")


def _counted(stack: Service, ended: float | None = None) -> Scraped:
    """The figures once the workers have counted every job that ended (``ended`` of them, or as
    many as stop changing for a second): a worker counts a job just after storing its final
    state, so a client that saw it end may scrape a moment before it is counted."""
    scraped, steady = _scrape(stack), time.monotonic()
    deadline = steady + 30
    while time.monotonic() < deadline:
        if ended is not None and _ended(scraped) >= ended:
            return scraped
        if ended is None and time.monotonic() - steady >= 1.0:
            return scraped
        time.sleep(0.1)
        again = _scrape(stack)
        if _ended(again) != _ended(scraped):
            steady = time.monotonic()
        scraped = again
    return scraped


def _openai_reply() -> Reply:
    lines = PyMuPDFParser().parse(INVOICE.read_bytes(), "invoice.pdf").lines
    body = copy.deepcopy(fixture("responses_completed"))
    answer = build_answer(get_schema("invoice"), perfect_fields("invoice", lines))
    body["output"][0]["content"][0]["text"] = json.dumps(answer)
    return Reply(200, body)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, openai_wire: FakeOpenAI) -> Iterator[Service]:
    variables = {
        "EVIDEX_LLM": "rules",
        "EVIDEX_LOG_FORMAT": "json",
        "OPENAI_API_KEY": OPENAI_KEY,
    }
    tmp = tmp_path_factory.mktemp("kit")
    with running_stack(tmp, ("kit",), openai_wire.base_url, **variables) as stack:
        yield stack


def test_client_submits_waits_and_fetches_result_and_pdf(stack: Service) -> None:
    with _client(stack) as evidex:
        job = evidex.submit(INVOICE, "invoice", {"pages": "1"})
        assert job.status == "queued" and job.id.startswith("job_")
        result = evidex.result(job)
        assert result["fields"]["payment.iban"]["status"] == "verified"
        assert evidex.wait(job).status == "succeeded"
        assert evidex.annotated_pdf(job).startswith(b"%PDF-")
        # The same file, schema and options: the same job, nothing queued twice.
        assert evidex.submit(INVOICE, "invoice", {"pages": "1"}).id == job.id
        assert evidex.submit(INVOICE, "invoice").id != job.id  # other options: another job
        url = evidex.review_link(job, "Ana", expires_in=600)
        assert httpx.get(url).status_code == 200  # no API key


def test_async_client_with_a_model_and_a_failing_job(
    stack: Service, openai_wire: FakeOpenAI
) -> None:
    openai_wire.add(RESPONSES, _openai_reply(), Reply(200, fixture("responses_refusal")))

    async def run() -> tuple[dict[str, Any], str | None]:
        async with AsyncClient(stack.base, stack.key, backoff_s=0.05) as evidex:
            ok = await evidex.submit(INVOICE, "invoice", {"llm": "openai"})
            result = await evidex.result(ok)
            refused = await evidex.submit(INVOICE, "invoice", {"llm": "openai", "pages": "1"})
            try:
                await evidex.result(refused)
            except JobFailed as exc:
                return result, exc.job.error_code
            return result, None

    result, code = asyncio.run(run())
    assert result["trace"]["llm"] == "openai"
    assert result["trace"]["usage"]["input_tokens"] == 1830
    assert result["fields"]["total"]["status"] == "verified"
    assert code == "llm_refused"


def test_submit_command_writes_results_and_counts(
    stack: Service,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot really\n")
    out = tmp_path / "out"
    monkeypatch.setenv("EVIDEX_API_KEY", stack.key)
    argv = ["submit", str(INVOICE), str(broken), "--server", stack.base, "--schema", "invoice"]
    assert main([*argv, "--out-dir", str(out), "--options", '{"llm": "rules"}']) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "2 files: 1 succeeded, 1 failed"
    assert any(line.startswith(f"{broken}: failed: pdf_corrupt") for line in printed)
    result = json.loads((out / "invoice.result.json").read_text())
    assert result["fields"]["payment.iban"]["status"] == "verified"
    monkeypatch.delenv("EVIDEX_API_KEY")
    assert main(argv) == 2
    assert "EVIDEX_API_KEY" in capsys.readouterr().err


def test_metrics_count_the_workers_jobs_stages_and_tokens(
    stack: Service, openai_wire: FakeOpenAI
) -> None:
    assert httpx.get(f"{stack.base}/metrics").status_code == 401
    bad = httpx.get(f"{stack.base}/metrics", headers={"Authorization": f"Bearer {stack.key}"})
    assert bad.status_code == 401  # an API key is not the metrics token
    before = _counted(stack)
    openai_wire.add(RESPONSES, _openai_reply(), Reply(200, fixture("responses_refusal")))
    with _client(stack) as evidex:
        jobs = [
            evidex.submit(INVOICE, "invoice", {"llm": "rules", "pages": "1-1"}),
            evidex.submit(INVOICE, "invoice", {"llm": "openai", "pages": "1-1"}),
            evidex.submit(INVOICE, "invoice", {"llm": "openai", "model": "m2"}),
        ]
        ended = [evidex.wait(job) for job in jobs]
    assert sorted(j.status for j in ended) == ["failed", "succeeded", "succeeded"]
    after = _counted(stack, _ended(before) + len(jobs))

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert delta("evidex_jobs_total", status="succeeded", error_code="") == 2
    assert delta("evidex_jobs_total", status="failed", error_code="llm_refused") == 1
    assert delta("evidex_job_duration_seconds_count", status="succeeded") == 2
    for stage in ("parse", "llm", "verify", "total"):
        assert delta("evidex_stage_duration_seconds_count", stage=stage) == 2
        assert delta("evidex_stage_duration_seconds_bucket", stage=stage, le="+Inf") == 2
    assert delta("evidex_model_tokens_total", direction="input") == 1830
    assert delta("evidex_model_tokens_total", direction="output") == 912
    assert after[("evidex_queue_depth", ())] == 0
    assert ("evidex_rate_limit_hits_total", ()) in after


def _records(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text(errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records


def test_logs_are_json_with_job_context_and_hold_no_text_or_keys(stack: Service) -> None:
    with _client(stack) as evidex:
        job = evidex.submit(INVOICE, "invoice", {"llm": "rules", "pages": "1,1"})
        evidex.wait(job)
        url = evidex.review_link(job, "Ana", expires_in=600)
    assert httpx.get(url).status_code == 200
    token = url.rsplit("/", 1)[1]
    time.sleep(0.5)  # let the processes flush
    worker, api = _records(stack.logs / "worker.log"), _records(stack.logs / "api.log")
    mine = [r for r in worker if r.get("job_id") == job.id]
    stages = {r["stage"]: r for r in mine if "stage" in r}
    assert {"parse", "llm", "verify", "total", "job"} <= set(stages)
    parse = stages["parse"]
    assert parse["tenant"] == "kit" and parse["attempt"] == 1 and parse["duration_ms"] >= 0
    assert parse["level"] == "info" and parse["timestamp"].endswith("Z")
    assert stages["job"]["status"] == "succeeded"
    requests = [r for r in api if r.get("stage") == "request" and r.get("job_id") == job.id]
    assert requests and all(r["tenant"] == "kit" for r in requests)
    assert all(isinstance(r["duration_ms"], float) for r in requests)
    opened = [r for r in api if r.get("stage") == "request" and "/review/" in r["path"]]
    assert opened and all(r["path"] == "/review/evr1.[redacted]" for r in opened)
    raw = (stack.logs / "worker.log").read_text() + (stack.logs / "api.log").read_text()
    for secret in (stack.key, stack.metrics_token, OPENAI_KEY, token, IBAN_TEXT):
        assert secret not in raw
