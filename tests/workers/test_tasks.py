"""``process()``: one delivery of a job, with memory stores, offline backends and a real PDF.

Each test plays the broker's part by hand: it calls ``process`` as a delivery would, and again
where the task would be retried or redelivered.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import redis
from celery.exceptions import SoftTimeLimitExceeded
from local_http import serving
from sample_answers import SAMPLES, perfect_fields
from test_blobstores import aws_env  # noqa: F401 -- the fixture, used by name

from evidex.extractors.errors import LLMRefused, LLMUnavailable
from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError, get_schema
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.blobstore_s3 import S3BlobStore
from evidex.workers.budget import Budget
from evidex.workers.celery_app import check_settings, make_celery
from evidex.workers.jobs import Job, JobOptions, JobStatus, new_job_id
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.runner import Deps, RetryJob, process, result_key
from evidex.workers.settings import WorkerSettings

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
Answer = Callable[[LLMRequest], dict[str, Any]]


@cache
def perfect_answer() -> dict[str, Any]:
    doc = PyMuPDFParser().parse(INVOICE, "invoice.pdf")
    return build_answer(get_schema("invoice"), perfect_fields("invoice", doc.lines))


class CountingLLM(ScriptedLLM):
    """A scripted model that fails as told first, and reports usage when given some."""

    def __init__(self, *failures: Exception, usage: dict[str, int] | None = None) -> None:
        super().__init__(self._answer_or_fail)
        self.failures, self.usage = list(failures), usage or {}
        self.during: list[Callable[[], None]] = []

    def _answer_or_fail(self, request: LLMRequest) -> dict[str, Any]:
        for check in self.during:
            check()
        if self.failures:
            raise self.failures.pop(0)
        return perfect_answer()

    def complete(self, request: LLMRequest) -> LLMResponse:
        return dataclasses.replace(super().complete(request), usage=dict(self.usage))

    @property
    def calls(self) -> int:
        return len(self.requests)


class CountingBlobs(MemoryBlobStore):
    def __init__(self) -> None:
        super().__init__()
        self.puts: list[str] = []

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        self.puts.append(key)
        super().put(key, data, content_type)


@dataclasses.dataclass
class World:
    jobs: MemoryJobStore
    blobs: CountingBlobs
    llm: CountingLLM
    deps: Deps
    finals: list[str]

    def submit(self, data: bytes = INVOICE, **fields: Any) -> Job:
        job_id = new_job_id()
        key = f"acme/{job_id}/document"
        self.blobs.put(key, data, "application/pdf")
        values: dict[str, Any] = {
            "id": job_id,
            "tenant": fields.pop("tenant", "acme"),
            "filename": "invoice.pdf",
            "size": len(data),
            "sha256": "0" * 64,
            "schema_name": "invoice",
            "document_key": key,
        }
        values.update(fields)
        return self.jobs.create(Job(**values))

    def job(self, job_id: str) -> Job:
        found = self.jobs.get(job_id)
        assert found is not None
        return found


def world(llm: CountingLLM | None = None, budget: Budget | None = None, **settings: Any) -> World:
    jobs, blobs, llm = MemoryJobStore(), CountingBlobs(), llm or CountingLLM()
    finals: list[str] = []
    config = WorkerSettings(task_max_retries=2, **settings)
    deps = Deps(
        jobs=jobs,
        blobs=blobs,
        settings=config,
        make_llm=lambda _: llm,
        budget=budget,
        on_final=lambda job: finals.append(job.id),
        rand=lambda: 0.0,
    )
    return World(jobs, blobs, llm, deps, finals)


def statuses(job: Job) -> list[str]:
    return [event.status.value for event in job.events]


def test_a_job_succeeds_with_its_result_stored() -> None:
    w = world()
    job = w.submit()
    process(job.id, w.deps)
    done = w.job(job.id)
    assert done.status is JobStatus.SUCCEEDED
    assert done.result_key == f"acme/{job.id}/result.json" == result_key(job)
    assert (done.attempts, done.error, statuses(done)) == (1, None, ["running", "succeeded"])
    result = json.loads(w.blobs.get(done.result_key))
    assert result["schema"] == "invoice"
    assert result["fields"]["total"]["status"] == "verified"
    assert result["fields"]["total"]["value"] == {"value": 19953.8, "currency": "EUR"}
    assert w.llm.calls == 1
    assert w.finals == []  # no webhook_url: nothing to notify


def test_the_rules_backend_runs_without_a_model() -> None:
    w = world()
    job = w.submit(options=JobOptions(llm="rules"))
    w.deps = dataclasses.replace(w.deps, make_llm=_real_make_llm)
    process(job.id, w.deps)
    done = w.job(job.id)
    assert done.status is JobStatus.SUCCEEDED
    assert done.result_key is not None
    result = json.loads(w.blobs.get(done.result_key))
    assert result["trace"]["llm"] == "rules"
    assert result["summary"]["verified"] >= 15


def _real_make_llm(settings: Settings) -> Any:
    from evidex.extractors.backends import make_llm

    return make_llm(settings)


def test_a_redelivered_finished_job_does_nothing() -> None:
    w = world()
    job = w.submit(options=JobOptions(webhook_url="https://hooks.example.com/x"))
    process(job.id, w.deps)
    first = w.job(job.id)
    stored = w.blobs.get(f"acme/{job.id}/result.json")
    process(job.id, w.deps)  # the same message again (acks_late)
    assert w.job(job.id) == first
    assert w.llm.calls == 1
    assert w.blobs.puts.count(f"acme/{job.id}/result.json") == 1
    assert w.blobs.get(f"acme/{job.id}/result.json") == stored
    assert w.finals == [job.id]  # the webhook is queued once


def test_a_transient_model_outage_is_retried_then_succeeds() -> None:
    w = world(CountingLLM(LLMUnavailable("the model server answered 503")))
    job = w.submit()
    with pytest.raises(RetryJob) as retry:
        process(job.id, w.deps)
    assert retry.value.delay_s == 5.0  # 10 s base, attempt 1, jitter factor 0.5 (rand 0)
    waiting = w.job(job.id)
    assert waiting.status is JobStatus.QUEUED
    assert waiting.attempts == 1
    assert waiting.error is not None and waiting.error.code == "llm_unavailable"
    assert waiting.error.message.startswith("attempt 1 failed, retrying in 5 s: the model")
    process(job.id, w.deps)  # the retried task
    done = w.job(job.id)
    assert done.status is JobStatus.SUCCEEDED
    assert (done.attempts, done.error) == (2, None)
    assert statuses(done) == ["running", "queued", "running", "succeeded"]
    assert w.llm.calls == 2


@pytest.mark.parametrize(
    ("submit", "failure", "code", "calls"),
    [
        ({"data": INVOICE[:2000]}, None, "pdf_corrupt", 0),
        ({"data": b"hello"}, None, "unsupported_media_type", 0),
        (
            {"custom_schema": {"type": "object", "properties": {"x": {"type": "frobnicate"}}}},
            None,
            "schema_invalid",
            0,
        ),
        ({"schema_name": "recipe"}, None, "schema_invalid", 0),
        ({}, LLMRefused("the model refused: no", refusal="no"), "llm_refused", 1),
        ({}, SoftTimeLimitExceeded(), "job_timeout", 1),
    ],
)
def test_a_permanent_error_fails_at_once(
    submit: dict[str, Any], failure: Exception | None, code: str, calls: int
) -> None:
    w = world(CountingLLM(*([failure] if failure else [])))
    job = w.submit(options=JobOptions(webhook_url="https://hooks.example.com/x"), **submit)
    process(job.id, w.deps)  # no RetryJob
    failed = w.job(job.id)
    assert failed.status is JobStatus.FAILED
    assert failed.error is not None and failed.error.code == code
    assert (failed.attempts, statuses(failed)) == (1, ["running", "failed"])
    assert w.llm.calls == calls
    assert w.finals == [job.id]


def test_a_missing_document_fails_as_document_missing() -> None:
    w = world()
    job = w.submit()
    w.blobs.delete(job.document_key)
    process(job.id, w.deps)
    failed = w.job(job.id)
    assert failed.error is not None and failed.error.code == "document_missing"


def test_a_page_selection_is_applied_and_one_outside_the_document_fails() -> None:
    w = world()
    ok, bad = w.submit(options=JobOptions(pages="1")), w.submit(options=JobOptions(pages="2-3"))
    process(ok.id, w.deps)
    process(bad.id, w.deps)
    assert w.job(ok.id).status is JobStatus.SUCCEEDED
    failed = w.job(bad.id)
    assert failed.error is not None and failed.error.code == "options_invalid"
    assert "the document has 1 page(s)" in failed.error.message
    assert w.llm.calls == 1


def test_retries_used_up_fail_with_the_last_errors_code() -> None:
    outage = [LLMUnavailable(f"503 number {i}") for i in range(5)]
    w = world(CountingLLM(*outage))  # task_max_retries=2: three attempts in all
    job = w.submit()
    delays = []
    for _ in range(2):
        with pytest.raises(RetryJob) as retry:
            process(job.id, w.deps)
        delays.append(retry.value.delay_s)
    process(job.id, w.deps)
    failed = w.job(job.id)
    assert delays == [5.0, 10.0]
    assert failed.status is JobStatus.FAILED
    assert failed.error is not None and failed.error.code == "llm_unavailable"
    assert failed.error.message == "503 number 2 (gave up after 3 attempts)"
    assert failed.attempts == 3
    assert w.llm.calls == 3


def test_a_job_found_running_was_lost_with_its_worker_and_runs_again() -> None:
    w = world()
    job = w.submit()
    w.jobs.transition(job.id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING, attempts=1)
    process(job.id, w.deps)  # the message, given back after the worker died
    done = w.job(job.id)
    assert done.status is JobStatus.SUCCEEDED
    assert (done.attempts, statuses(done)) == (2, ["running", "running", "succeeded"])


def test_a_job_that_killed_or_stalled_two_workers_is_quarantined_as_poisoned() -> None:
    w = world()
    once, twice = w.submit(), w.submit()
    queued, running = frozenset({JobStatus.QUEUED}), JobStatus.RUNNING
    w.jobs.transition(once.id, queued, running, attempts=1)
    w.jobs.transition(twice.id, queued, running, attempts=2, lost_runs=1)
    process(once.id, w.deps)  # its worker died: run again, the lost run counted
    again = w.job(once.id)
    assert (again.status, again.lost_runs, w.llm.calls) == (JobStatus.SUCCEEDED, 1, 1)
    process(twice.id, w.deps)  # its second worker died too: quarantined, not run a third time
    failed = w.job(twice.id)
    assert failed.status is JobStatus.FAILED and failed.lost_runs == 2
    assert failed.error is not None and failed.error.code == "job_poisoned"
    assert "died or stalled 2 times" in failed.error.message
    assert w.llm.calls == 1


def test_a_job_handed_back_by_a_live_worker_is_not_counted_as_lost() -> None:
    w = world()
    job = w.submit()
    w.jobs.transition(job.id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING, attempts=1)
    process(job.id, w.deps, handed_back=True)  # a store was down: the task was retried
    done = w.job(job.id)
    assert (done.status, done.lost_runs) == (JobStatus.SUCCEEDED, 0)


def test_a_job_retried_past_its_limit_while_running_is_quarantined() -> None:
    w = world()
    job = w.submit()
    w.jobs.transition(job.id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING, attempts=3)
    process(job.id, w.deps, handed_back=True)
    failed = w.job(job.id)
    assert failed.error is not None and failed.error.code == "job_poisoned"
    assert w.llm.calls == 0


# -- the budget, on the real Redis -------------------------------------------------------------


@pytest.fixture
def budget_client(redis_url: str) -> Iterator[tuple[redis.Redis, str]]:
    client = redis.Redis.from_url(redis_url)
    prefix = f"evidex-test-{uuid.uuid4().hex[:8]}:budget"
    yield client, prefix
    for key in client.scan_iter(match=f"{prefix}*"):
        client.delete(key)
    client.close()


def test_over_budget_fails_without_calling_the_model(
    budget_client: tuple[redis.Redis, str],
) -> None:
    client, prefix = budget_client
    budget = Budget(client, 1000, prefix=prefix)
    w = world(budget=budget, monthly_token_budget=1000)
    job = w.submit()
    process(job.id, w.deps)
    failed = w.job(job.id)
    assert failed.status is JobStatus.FAILED
    assert failed.error is not None and failed.error.code == "budget_exceeded"
    assert w.llm.calls == 0
    assert budget.used("acme") == 0


def test_an_unreachable_budget_counter_retries_and_never_calls_the_model() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    budget = Budget.from_url(f"redis://127.0.0.1:{port}/0", 10**9)
    w = world(budget=budget, monthly_token_budget=10**9)
    job = w.submit()
    with pytest.raises(RetryJob):
        process(job.id, w.deps)
    waiting = w.job(job.id)
    assert waiting.status is JobStatus.QUEUED
    assert waiting.error is not None and waiting.error.code == "budget_unavailable"
    assert w.llm.calls == 0


def test_settling_refunds_what_the_call_did_not_use(
    budget_client: tuple[redis.Redis, str],
) -> None:
    client, prefix = budget_client
    budget = Budget(client, 10**7, prefix=prefix)
    usage = {"input_tokens": 1000, "output_tokens": 234, "total_tokens": 1234}
    w = world(CountingLLM(usage=usage), budget=budget, monthly_token_budget=10**7)
    tenant = "t-" + uuid.uuid4().hex[:8]
    job = w.submit(tenant=tenant)
    seen: list[tuple[int, int]] = []
    w.llm.during.append(lambda: seen.append((budget.used(tenant), w.job(job.id).reserved_tokens)))
    process(job.id, w.deps)
    ((used_during, recorded),) = seen
    assert used_during > 16_384 + len(INVOICE) // 100  # the bound: prompt bytes + output cap
    assert recorded == used_during  # the reservation is on the job while the call runs
    assert budget.used(tenant) == 1234
    done = w.job(job.id)
    assert (done.status, done.reserved_tokens) == (JobStatus.SUCCEEDED, 0)


def test_a_retry_reuses_the_reservation_instead_of_reserving_twice(
    budget_client: tuple[redis.Redis, str],
) -> None:
    client, prefix = budget_client
    budget = Budget(client, 10**7, prefix=prefix)
    llm = CountingLLM(LLMUnavailable("503"), usage={"total_tokens": 500})
    w = world(llm, budget=budget, monthly_token_budget=10**7)
    tenant = "t-" + uuid.uuid4().hex[:8]
    job = w.submit(tenant=tenant)
    with pytest.raises(RetryJob):
        process(job.id, w.deps)
    held = budget.used(tenant)
    assert held > 16_384 and w.job(job.id).reserved_tokens == held
    process(job.id, w.deps)
    assert budget.used(tenant) == 500  # one reservation, settled once


def test_the_rules_backend_reserves_nothing(budget_client: tuple[redis.Redis, str]) -> None:
    client, prefix = budget_client
    budget = Budget(client, 10, prefix=prefix)  # far too small for any model call
    w = world(budget=budget, monthly_token_budget=10)
    w.deps = dataclasses.replace(w.deps, make_llm=_real_make_llm)
    job = w.submit(options=JobOptions(llm="rules"))
    process(job.id, w.deps)
    assert w.job(job.id).status is JobStatus.SUCCEEDED
    assert budget.used("acme") == 0
    assert list(client.scan_iter(match=f"{prefix}*")) == []


def test_a_budget_setting_without_a_budget_store_fails_closed() -> None:
    w = world(monthly_token_budget=1000)  # no Budget given
    job = w.submit()
    process(job.id, w.deps)
    failed = w.job(job.id)
    assert failed.error is not None and failed.error.code == "config_error"
    assert w.llm.calls == 0


# -- parsing in a process pool, and the app's configuration --------------------------------------


def test_the_visibility_timeout_must_cover_the_time_limit_and_retry_delays() -> None:
    with pytest.raises(ConfigError) as short:
        check_settings(WorkerSettings(task_time_limit_s=900, visibility_timeout_s=1200))
    assert "EVIDEX_VISIBILITY_TIMEOUT_S=1200 is too short" in short.value.message
    assert "i.e. 1500 s" in short.value.message
    with pytest.raises(ConfigError) as order:
        check_settings(WorkerSettings(task_soft_time_limit_s=900, task_time_limit_s=900))
    assert "must be below" in order.value.message
    check_settings(WorkerSettings())  # the defaults fit


def test_the_app_is_configured_for_late_acknowledgement_on_threads() -> None:
    app = make_celery(WorkerSettings(worker_concurrency=8, visibility_timeout_s=4000))
    conf = app.conf
    assert (conf.task_acks_late, conf.task_reject_on_worker_lost) == (True, True)
    assert conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options == {"visibility_timeout": 4000}
    assert (conf.task_soft_time_limit, conf.task_time_limit) == (840, 900)
    assert (conf.worker_pool, conf.worker_concurrency) == ("threads", 8)
    assert (conf.task_serializer, conf.accept_content) == ("json", ["json"])
    assert conf.task_ignore_result is True and conf.task_track_started is True
    assert {"evidex.run_job", "evidex.deliver_webhook"} <= set(app.tasks)


# -- S3 failing: retried by botocore, then by the task, then a named failure ---------------------


@pytest.fixture
def failing_s3() -> Iterator[tuple[str, list[str]]]:
    """A local S3 endpoint answering every request 503 SlowDown (S3's XML error body)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.append(f"{self.command} {self.path}")
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = b"<Error><Code>SlowDown</Code><Message>Please reduce your rate</Message></Error>"
            self.send_response(503)
            self.send_header("content-type", "application/xml")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            return None

    with serving(Handler) as url:
        yield url, seen


@pytest.mark.usefixtures("aws_env")
def test_an_s3_outage_is_retried_then_fails_the_job_as_store_unavailable(
    failing_s3: tuple[str, list[str]],
) -> None:
    endpoint, seen = failing_s3
    w = world()
    job = w.submit()
    w.deps = dataclasses.replace(
        w.deps, blobs=S3BlobStore("evidex", endpoint_url=endpoint, max_attempts=2)
    )
    for _ in range(2):  # task_max_retries=2: two retries with backoff ...
        with pytest.raises(RetryJob):
            process(job.id, w.deps)
        waiting = w.job(job.id)
        assert waiting.status is JobStatus.QUEUED
        assert waiting.error is not None and waiting.error.code == "store_unavailable"
    process(job.id, w.deps)  # ... then the job fails with the store's code
    failed = w.job(job.id)
    assert failed.status is JobStatus.FAILED
    assert failed.error is not None and failed.error.code == "store_unavailable"
    assert "S3 is unavailable" in failed.error.message
    assert "gave up after 3 attempts" in failed.error.message
    assert len(seen) >= 3 * 2  # every attempt's first S3 request, retried by botocore
    assert all(request.startswith(f"HEAD /evidex/acme/{job.id}/") for request in seen)
    assert w.llm.calls == 0
