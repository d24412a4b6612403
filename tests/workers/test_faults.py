"""Faults on the real path: the REST API, a real ``evidex worker`` process, a real (private)
Redis, and the OpenAI SDK talking to a local fake model server that misbehaves on purpose.

Each test asserts that nothing is lost or done twice: the job ends in the stated status, the
tenant has exactly the jobs it submitted, exactly one result (or none, for a failure) is stored,
the model was called exactly as often as the fault requires, and no message is left in the queue
or unacknowledged. Every test gets its own redis-server (AOF, fsync always) in a temp dir, so it
can be restarted and flushed freely; every process is started in its own process group and
killed with it (parser pool included) in the fixture's ``finally``.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai import RESPONSES, FakeOpenAI, Reply, fixture
from litestar.testing import TestClient
from sample_answers import SAMPLES, perfect_fields
from service_stack import EVIDEX, AofRedis, free_port, kill_group, spawn, wait_ready

from evidex.extractors.llm.scripted import build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.schemas import get_schema
from evidex.service.app import production_app
from evidex.service.settings import ServiceSettings
from evidex.workers.celery_app import QUEUE
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.localredis import find_redis_server

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
KEYS = {"acme": "acme-fault-key-1", "globex": "globex-fault-key-2"}
ACME = {"Authorization": f"Bearer {KEYS['acme']}"}
GLOBEX = {"Authorization": f"Bearer {KEYS['globex']}"}
TIMEOUT_S = 45.0

pytestmark = pytest.mark.skipif(find_redis_server() is None, reason="needs a redis-server binary")


# --- the parts ------------------------------------------------------------------------------


class Processes:
    """``evidex worker`` / ``evidex serve`` processes sharing one environment."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.tmp, self.env = tmp, env
        self.started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def _start(self, name: str, argv: list[str], extra: dict[str, str]) -> Path:
        log = self.tmp / f"{name}-{len(self.started)}.log"
        self.started.append((spawn(argv, {**self.env, **extra}, log), log))
        return log

    def worker(self, **extra: str) -> None:
        argv = [EVIDEX, "worker", "--concurrency", "2", "--loglevel", "INFO"]
        self._start("worker", argv, extra)

    def api(self, **extra: str) -> str:
        port = free_port()
        self._start("api", [EVIDEX, "serve", "--port", str(port), "--log-level", "warning"], extra)
        base = f"http://127.0.0.1:{port}"
        wait_ready(base, [p for p, _ in self.started], self.tmp, "/healthz")
        return base

    def check(self) -> None:
        for process, _ in self.started:
            assert process.poll() is None, f"a process exited early:\n{self.logs()}"

    def logs(self) -> str:
        return "\n---\n".join(log.read_text(errors="replace")[-3000:] for _, log in self.started)

    def kill_all(self) -> None:
        for process, _ in self.started:
            kill_group(process)


@functools.cache
def _answer_text() -> str:
    lines = PyMuPDFParser().parse(INVOICE, "invoice.pdf").lines
    return json.dumps(build_answer(get_schema("invoice"), perfect_fields("invoice", lines)))


def good_reply(number: int = 0, delay_s: float = 0.0) -> Reply:
    """A completed Responses API answer holding the invoice's perfect answer."""
    body = copy.deepcopy(fixture("responses_completed"))
    body["id"] = f"resp_fault_{number}"
    body["output"][0]["content"][0]["text"] = _answer_text()
    return Reply(200, body, delay_s=delay_s)


def failure(status: int, **headers: str) -> Reply:
    return Reply(status, {"error": {"message": f"fake: HTTP {status}", "type": "test"}}, headers)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[AofRedis]:
    server = AofRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def procs(tmp_path: Path, private_redis: AofRedis, fake: FakeOpenAI) -> Iterator[Processes]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("EVIDEX_", "OPENAI_", "CELERY_"))
    }
    env.update(
        EVIDEX_REDIS_URL=private_redis.url,
        EVIDEX_DATA_DIR=str(tmp_path / "data"),
        EVIDEX_API_KEYS=",".join(f"{tenant}={key}" for tenant, key in KEYS.items()),
        EVIDEX_RATE_LIMIT_PER_MINUTE="100000",  # the tests poll; the limit is tested elsewhere
        EVIDEX_LLM="openai",
        OPENAI_API_KEY="sk-local",
        OPENAI_BASE_URL=fake.base_url,
        EVIDEX_LLM_BACKOFF_S="0.05",
    )
    processes = Processes(tmp_path, env)
    try:
        yield processes
    finally:
        processes.kill_all()


def in_process_api(private_redis: AofRedis, tmp_path: Path) -> TestClient[Any]:
    """The production app (Redis job store, local blobs, Celery enqueue) served in-process."""
    settings = ServiceSettings(
        redis_url=private_redis.url,
        data_dir=tmp_path / "data",
        api_keys=KEYS,
        rate_limit_per_minute=100_000,
    )
    return TestClient(production_app(settings))


# --- checks ---------------------------------------------------------------------------------


def submit(client: Any, headers: dict[str, str] = ACME, **extra_headers: str) -> httpx.Response:
    response: httpx.Response = client.post(
        "/v1/jobs",
        files={"file": ("invoice.pdf", INVOICE, "application/pdf")},
        data={"schema": "invoice"},
        headers={**headers, **extra_headers},
    )
    return response


def wait_final(client: Any, job_id: str, procs: Processes, headers: dict[str, str] = ACME) -> Any:
    """Poll ``GET /v1/jobs/{id}`` until the job has ended; its JSON."""
    deadline = time.monotonic() + TIMEOUT_S
    job: Any = None
    while time.monotonic() < deadline:
        procs.check()
        response = client.get(f"/v1/jobs/{job_id}", headers=headers)
        assert response.status_code == 200, response.text
        job = response.json()
        if job["status"] in ("succeeded", "failed"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} is still {job and job['status']}: {job}\n{procs.logs()}")


def stored_files(data_dir: Path) -> set[str]:
    return {p.relative_to(data_dir).as_posix() for p in data_dir.rglob("*") if p.is_file()}


def assert_queue_drained(server: AofRedis) -> None:
    """No task waits in the queue or is held unacknowledged: nothing will run again."""
    client = server.client()
    try:
        deadline = time.monotonic() + 10
        while True:  # the worker acknowledges just after the job's final compare-and-set
            queues = [k for k in client.keys(f"{QUEUE}*") if client.type(k) == b"list"]
            left = sum(client.llen(k) for k in queues) + client.hlen("unacked")
            if left == 0:
                return
            assert time.monotonic() < deadline, f"{left} task message(s) left: {queues}"
            time.sleep(0.1)
    finally:
        client.close()


def assert_one_job(server: AofRedis, tenant: str, job_id: str) -> None:
    store = RedisJobStore.from_url(server.url)
    try:
        jobs, _ = store.list(tenant)
        assert [job.id for job in jobs] == [job_id]
    finally:
        store.client.close()


def events(job: dict[str, Any]) -> list[str]:
    return [event["status"] for event in job["events"]]


def run_job(client: Any, procs: Processes) -> Any:
    """Submit the invoice and wait for the job's end; its JSON."""
    created = submit(client)
    assert created.status_code == 202, created.text
    return wait_final(client, created.json()["id"], procs)


def assert_ran_once(procs: Processes, *jobs: dict[str, Any]) -> None:
    """Each job succeeded in one run: no retry, no second delivery."""
    for job in jobs:
        assert job["status"] == "succeeded", (job, procs.logs())
        assert (job["attempts"], events(job)) == (1, ["running", "succeeded"])


# --- the faults -----------------------------------------------------------------------------


def test_rate_limit_then_server_error_then_recovery_succeeds_once(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, failure(429, **{"Retry-After": "0"}), failure(500), good_reply())
    procs.worker(EVIDEX_LLM_MAX_RETRIES="3")
    with in_process_api(private_redis, tmp_path) as api:
        job = run_job(api, procs)
    assert_ran_once(procs, job)
    assert job["error"] is None
    trace = job["result"]["trace"]
    assert (trace["llm"], trace["attempts"], trace["response_id"]) == ("openai", 3, "resp_fault_0")
    assert job["result"]["summary"]["unsupported"] == 0
    assert len(fake.bodies(RESPONSES)) == 3  # the retries happened inside one task run
    assert stored_files(tmp_path / "data") == {
        f"acme/{job['id']}/document",
        f"acme/{job['id']}/result.json",
    }
    assert_one_job(private_redis, "acme", job["id"])
    assert_queue_drained(private_redis)


def test_a_hanging_model_fails_the_job_as_llm_unavailable_after_its_retries(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    # 2 task attempts x 2 model attempts, each answered only after the 1 s client timeout.
    fake.add(RESPONSES, *[good_reply(n, delay_s=3.0) for n in range(4)])
    procs.worker(
        EVIDEX_LLM_TIMEOUT_S="1",
        EVIDEX_LLM_MAX_RETRIES="1",
        EVIDEX_TASK_MAX_RETRIES="1",
        EVIDEX_TASK_BACKOFF_S="0.2",
    )
    with in_process_api(private_redis, tmp_path) as api:
        job = run_job(api, procs)
        assert api.get(f"/v1/jobs/{job['id']}/annotated.pdf", headers=ACME).status_code == 409
    assert job["status"] == "failed", (job, procs.logs())
    assert job["error"]["code"] == "llm_unavailable"
    assert "within 1s on 2 attempt(s)" in job["error"]["message"]
    assert "gave up after 2 attempts" in job["error"]["message"]
    assert job["attempts"] == 2
    assert events(job) == ["running", "queued", "running", "failed"]
    assert "result" not in job or job["result"] is None
    assert len(fake.bodies(RESPONSES)) == 4
    assert stored_files(tmp_path / "data") == {f"acme/{job['id']}/document"}  # no result
    assert_one_job(private_redis, "acme", job["id"])
    assert_queue_drained(private_redis)


def test_a_redis_restart_between_submit_and_run_loses_nothing(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply(1), good_reply(2))
    api = in_process_api(private_redis, tmp_path)
    with api:  # no worker yet: the task can only wait in Redis
        created = submit(api)
        assert created.status_code == 202, created.text
    first = created.json()["id"]
    client = private_redis.client()
    try:
        assert client.llen(QUEUE) == 1
    finally:
        client.close()

    private_redis.restart()

    client = private_redis.client()
    try:  # the job record and its queued task came back from the append-only file
        assert client.llen(QUEUE) == 1
        assert json.loads(client.get(f"evidex:job:{first}") or b"{}")["status"] == "queued"
    finally:
        client.close()
    procs.worker()
    with api:  # the same app: its Redis clients reconnect to the restarted server
        done = wait_final(api, first, procs)
        second = run_job(api, procs)  # and the API can still enqueue
    assert_ran_once(procs, done, second)
    assert len(fake.bodies(RESPONSES)) == 2
    assert stored_files(tmp_path / "data") == {
        f"acme/{job_id}/{name}"
        for job_id in (first, second["id"])
        for name in ("document", "result.json")
    }
    assert_queue_drained(private_redis)


def test_idempotent_resubmission_and_tenant_isolation_through_the_api_process(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply(1), good_reply(2))
    base = procs.api()
    procs.worker()
    with httpx.Client(base_url=base, timeout=30) as api:
        first = submit(api, **{"Idempotency-Key": "inv-0418"})
        replay = submit(api, **{"Idempotency-Key": "inv-0418"})
        assert (first.status_code, replay.status_code) == (202, 200), (first.text, replay.text)
        job_id = first.json()["id"]
        assert replay.json()["id"] == job_id
        assert replay.headers["idempotent-replayed"] == "true"
        done = wait_final(api, job_id, procs)
        assert_ran_once(procs, done)
        late = submit(api, **{"Idempotency-Key": "inv-0418"})  # after the job has ended
        assert (late.status_code, late.json()["id"], late.json()["status"]) == (
            200,
            job_id,
            "succeeded",
        )

        # Another tenant sees none of it, cannot delete it, and has its own key space.
        for method, path in (
            ("GET", f"/v1/jobs/{job_id}"),
            ("GET", f"/v1/jobs/{job_id}/annotated.pdf"),
            ("DELETE", f"/v1/jobs/{job_id}"),
        ):
            response = api.request(method, path, headers=GLOBEX)
            assert response.status_code == 404, (method, path, response.text)
            assert response.json()["code"] == "job_not_found"
        assert api.get("/v1/jobs", headers=GLOBEX).json()["jobs"] == []
        theirs = submit(api, GLOBEX, **{"Idempotency-Key": "inv-0418"})
        assert theirs.status_code == 202 and theirs.json()["id"] != job_id
        other = wait_final(api, theirs.json()["id"], procs, GLOBEX)
        assert other["status"] == "succeeded", (other, procs.logs())
        assert api.get(f"/v1/jobs/{other['id']}", headers=ACME).status_code == 404

        # The owner's job is intact after all that.
        assert api.get(f"/v1/jobs/{job_id}", headers=ACME).json() == done
        pdf = api.get(f"/v1/jobs/{job_id}/annotated.pdf", headers=ACME)
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
        assert [j["id"] for j in api.get("/v1/jobs", headers=ACME).json()["jobs"]] == [job_id]
    assert len(fake.bodies(RESPONSES)) == 2  # one model call per job, none for the replays
    assert stored_files(tmp_path / "data") == {
        f"{tenant}/{jid}/{name}"
        for tenant, jid in (("acme", job_id), ("globex", other["id"]))
        for name in ("document", "result.json")
    }
    assert_one_job(private_redis, "acme", job_id)
    assert_one_job(private_redis, "globex", other["id"])
    assert_queue_drained(private_redis)


# --- dependencies down, concurrent reviewers, oversized uploads ------------------------------


def test_redis_down_at_submit_is_a_503_with_retry_after_and_nothing_is_kept(
    private_redis: AofRedis, tmp_path: Path
) -> None:
    api = in_process_api(private_redis, tmp_path)
    private_redis.stop()
    with api:
        refused = submit(api, **{"Idempotency-Key": "inv-down"})
        ready = api.get("/readyz")
    assert refused.status_code == 503, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.headers["retry-after"] == "5"
    assert refused.json()["code"] == "store_unavailable"
    assert "nothing was kept" in refused.json()["detail"]
    assert stored_files(tmp_path / "data") == set()  # the document was removed again
    assert ready.status_code == 503 and ready.headers["retry-after"] == "5"
    body = ready.json()
    assert body["code"] == "not_ready" and body["checks"]["redis"].startswith("failed: ")
    assert body["checks"]["blobs"] == "ok"
    assert "redis failed" in body["detail"]

    private_redis.start()
    with api:  # Redis is back: the same request goes through, as a new job
        accepted = submit(api, **{"Idempotency-Key": "inv-down"})
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["id"]
    assert stored_files(tmp_path / "data") == {f"acme/{job_id}/document"}
    assert_one_job(private_redis, "acme", job_id)


def test_a_worker_waits_through_a_redis_restart_mid_call_and_resumes(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply(1, delay_s=4.0), good_reply(2))
    procs.worker()
    with in_process_api(private_redis, tmp_path) as api:
        created = submit(api)
        assert created.status_code == 202, created.text
        deadline = time.monotonic() + TIMEOUT_S
        while not fake.bodies(RESPONSES):  # the model call has started
            assert time.monotonic() < deadline, procs.logs()
            time.sleep(0.05)
        private_redis.stop()  # while the call runs: no job store, no broker, no budget
        time.sleep(2.0)
        private_redis.start()
        first = wait_final(api, created.json()["id"], procs)
        second = run_job(api, procs)  # and the worker takes new jobs
    assert_ran_once(procs, first, second)
    assert len(fake.bodies(RESPONSES)) == 2  # the interrupted call was not made again


def test_two_api_processes_saving_decisions_at_once_lose_none(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply())
    bases = [procs.api(), procs.api()]
    procs.worker()
    with httpx.Client(base_url=bases[0], timeout=30) as api:
        job = run_job(api, procs)
    assert job["status"] == "succeeded", (job, procs.logs())
    paths = sorted(p for p in job["result"]["fields"] if "[" not in p)[:12]
    assert len(paths) >= 8
    start = threading.Barrier(2)

    def review(base: str, action: str) -> list[int]:
        with httpx.Client(base_url=base, timeout=60) as client:
            start.wait()
            return [
                client.patch(
                    f"/v1/jobs/{job['id']}/fields/{path}",
                    json={"action": action, "note": f"{action} from {base}"},
                    headers=ACME,
                ).status_code
                for path in paths
            ]

    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(review, bases, ["confirm", "reject"]))
    assert outcomes == [[200] * len(paths)] * 2
    saved = httpx.get(f"{bases[1]}/v1/jobs/{job['id']}/decisions", headers=ACME).json()
    made = sorted((d["path"], d["action"]) for d in saved["history"])
    assert made == sorted((p, a) for p in paths for a in ("confirm", "reject"))
    assert set(saved["decisions"]) == set(paths)


BIG = b"%PDF-1.7\n" + b"0" * (60 * 1024 * 1024)  # 60 MB, over the 25 MiB default limit


def _multipart(boundary: str) -> bytes:
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="schema"\r\n\r\ninvoice\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n"
    )
    return head.encode() + BIG + f"\r\n--{boundary}--\r\n".encode()


def _urllib_post(url: str) -> tuple[int, str, bytes]:
    boundary = "evidex-oversize-test"
    request = urllib.request.Request(
        url,
        data=_multipart(boundary),
        method="POST",
        headers={**ACME, "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers["content-type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read()


def _requests_post(url: str) -> tuple[int, str, bytes]:
    import requests

    files = {"file": ("big.pdf", BIG, "application/pdf")}
    response = requests.post(
        url, files=files, data={"schema": "invoice"}, headers=ACME, timeout=120
    )
    return response.status_code, response.headers["content-type"], response.content


def _httpx_post(url: str) -> tuple[int, str, bytes]:
    files = {"file": ("big.pdf", BIG, "application/pdf")}
    response = httpx.post(url, files=files, data={"schema": "invoice"}, headers=ACME, timeout=120)
    return response.status_code, response.headers["content-type"], response.content


@pytest.mark.parametrize("send", [_urllib_post, _requests_post, _httpx_post])
def test_a_60_mb_upload_gets_a_413_problem_every_client_can_read(
    procs: Processes, tmp_path: Path, send: Any
) -> None:
    base = procs.api()
    status, content_type, body = send(f"{base}/v1/jobs")
    assert status == 413, body[:500]
    assert content_type.startswith("application/problem+json")
    problem = json.loads(body)
    assert problem["code"] == "file_too_large"
    assert "bytes" in problem["detail"]
    assert stored_files(tmp_path / "data") == set()
