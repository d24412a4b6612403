"""One ``evidex worker`` with its default settings keeps 64 model calls in flight at once.

A real worker process (the CLI, the production app and stores) on the real Redis, calling a local
server that speaks the OpenAI Responses wire format through the real ``openai`` SDK. The server
holds every request until 64 are open at the same time (or a safety timeout passes) and counts
the most it saw at once: the assertion is on that count, not on any time.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
import redis
from service_stack import EVIDEX, ROOT, ModelServer, process
from stored_jobs import stored_job

from evidex.schemas import schema_from_json
from evidex.schemas.answer import build_answer
from evidex.workers.blobstore_local import LocalBlobStore
from evidex.workers.celery_app import make_celery
from evidex.workers.jobs import Job, JobStatus
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.settings import WorkerSettings
from evidex.workers.tasks import enqueue_job

FIXTURE = ROOT / "tests" / "fixtures" / "openai" / "responses_completed.json"
IN_FLIGHT = 64  # what the worker's defaults must sustain
HOLD_S = 240.0  # safety only: a worker that never reaches 64 still gets its answers
SCHEMA: dict[str, Any] = {
    "title": "note",
    "type": "object",
    "properties": {"reference": {"type": "string", "description": "The reference"}},
}
DOCUMENT = b"Reference: REF-7731\nNothing else of note.\n"


def _reply() -> bytes:
    answer = build_answer(
        schema_from_json(SCHEMA),
        {
            "reference": {
                "value": "REF-7731",
                "quote": "REF-7731",
                "page": 1,
                "line_start": 1,
                "line_end": 1,
            }
        },
    )
    body: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    body["output"][0]["content"][0]["text"] = json.dumps(answer)
    return json.dumps(body).encode()


class HeldModel(ModelServer):
    """``POST /v1/responses``: each request waits until ``target`` are open at once, then all are
    answered; ``peak`` is the most seen open together, ``calls`` how many came."""

    def __init__(self, target: int) -> None:
        super().__init__()
        self.target, self.body = target, _reply()
        self.released = threading.Event()

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        with self.counted():
            with self.lock:
                if self.in_flight >= self.target:
                    self.released.set()
            self.released.wait(HOLD_S)
        self.send(request, 200, self.body)

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        super().__exit__(*exc)


def worker(env: dict[str, str], queue: str, log: Path) -> contextlib.AbstractContextManager[Any]:
    """``evidex worker`` with nothing but where to find things: its defaults decide the rest."""
    argv = [EVIDEX, "worker", "--queues", queue, "--loglevel", "WARNING"]
    return process(argv, env, log, stop=signal.SIGKILL)


def test_one_worker_with_default_settings_keeps_64_model_calls_in_flight(
    redis_url: str, tmp_path: Path
) -> None:
    assert WorkerSettings().worker_concurrency >= IN_FLIGHT
    queue = f"evidex-test-{uuid.uuid4().hex[:10]}"
    data_dir = tmp_path / "data"
    blobs = LocalBlobStore(data_dir)
    jobs = RedisJobStore.from_url(redis_url)
    client = make_celery(WorkerSettings(redis_url=redis_url))
    client.conf.task_default_queue = queue
    ids: list[str] = []
    with HeldModel(IN_FLIGHT) as model:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("EVIDEX_", "OPENAI_", "CELERY_"))
        } | {
            "EVIDEX_REDIS_URL": redis_url,
            "EVIDEX_DATA_DIR": str(data_dir),
            "EVIDEX_LLM": "openai",
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": model.base_url,
            "EVIDEX_LLM_MAX_RETRIES": "0",
            "EVIDEX_LLM_TIMEOUT_S": str(HOLD_S + 60),
        }
        try:
            with worker(env, queue, tmp_path / "worker.log") as proc:
                for _ in range(IN_FLIGHT):
                    job = stored_job(
                        jobs,
                        blobs,
                        DOCUMENT,
                        filename="note.txt",
                        media_type="text/plain",
                        schema_name="note",
                        custom_schema=SCHEMA,
                    )
                    enqueue_job(client, job.id)
                    ids.append(job.id)
                done = _wait_final(jobs, ids, proc, tmp_path / "worker.log")
        finally:
            client.close()
            _clean(redis_url, jobs, ids, queue)
    assert model.peak == IN_FLIGHT, (model.peak, (tmp_path / "worker.log").read_text()[-3000:])
    assert model.calls == IN_FLIGHT
    assert [j.status for j in done] == [JobStatus.SUCCEEDED] * IN_FLIGHT
    result = json.loads(blobs.get(f"acme/{ids[0]}/result.json"))
    assert result["fields"]["reference"]["status"] == "verified"


def _wait_final(
    jobs: RedisJobStore, ids: list[str], proc: subprocess.Popen[bytes], log: Path
) -> list[Job]:
    deadline = time.monotonic() + HOLD_S + 120
    while time.monotonic() < deadline:
        found = [jobs.get(i) for i in ids]
        if all(j is not None and j.status.final for j in found):
            return [j for j in found if j is not None]
        if proc.poll() is not None:
            pytest.fail(f"the worker exited early:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"the jobs did not finish:\n{log.read_text()[-3000:]}")


def _clean(redis_url: str, jobs: RedisJobStore, ids: list[str], queue: str) -> None:
    for job_id in ids:
        jobs.delete(job_id)
    jobs.client.close()
    r = redis.Redis.from_url(redis_url)
    r.delete(queue)
    r.close()
