"""The stack the fault tests run on: the REST API (in-process or an ``evidex serve`` process), real
``evidex worker`` processes, a real (private) Redis, and the OpenAI SDK talking to a local fake
model server that misbehaves on purpose; and the checks that nothing is lost or done twice.

Every test gets its own redis-server (AOF, fsync always) in a temp dir, so it can be restarted and
flushed freely; every process is started in its own process group and killed with it (parser pool
included) in the fixture's ``finally``.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
from fake_openai import Reply, fixture
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

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
KEYS = {"acme": "acme-fault-key-1", "globex": "globex-fault-key-2"}
ACME = {"Authorization": f"Bearer {KEYS['acme']}"}
GLOBEX = {"Authorization": f"Bearer {KEYS['globex']}"}
TIMEOUT_S = 45.0


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
