"""Real Celery worker processes on the real Redis: a job end to end, workers killed or stopped.

The workers run ``worker_app`` (this directory): the production app with its keys, queue and
visibility timeout namespaced for this test module. Every worker is started in its own process
group and killed with it when its test ends (its parser pool included; the ``start`` fixture).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pymupdf
import pytest
import redis
from celery import Celery
from local_http import serving
from stored_jobs import stored_job
from worker_app import SLOW_CALL, STALL_TEXT, configure

from evidex.workers.blobstore_local import LocalBlobStore
from evidex.workers.celery_app import make_celery
from evidex.workers.jobs import Job, JobOptions, JobStatus
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.settings import WorkerSettings
from evidex.workers.tasks import enqueue_job
from evidex.workers.webhooks import verify, webhook_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CELERY = Path(sys.executable).parent / "celery"
INVOICE = (ROOT / "samples" / "invoice.pdf").read_bytes()
TIMEOUT_S = 60.0
SECRET = "whsec_worker_test"
VISIBILITY_S = 10  # longer than a whole run (about 3 s, parser pool start included), short enough
# to wait for; the doomed worker must die before it, or it would restore its own message


@dataclass
class Env:
    redis_url: str
    prefix: str
    queue: str
    data_dir: Path
    jobs: RedisJobStore
    blobs: LocalBlobStore
    client: Celery

    def variables(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("EVIDEX_", "OPENAI_", "CELERY_"))
        }
        env.update(
            PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]),
            EVIDEX_REDIS_URL=self.redis_url,
            EVIDEX_DATA_DIR=str(self.data_dir),
            EVIDEX_LLM="rules",
            EVIDEX_TEST_PREFIX=self.prefix,
            EVIDEX_TEST_QUEUE=self.queue,
            EVIDEX_TEST_VISIBILITY_S=str(VISIBILITY_S),
            EVIDEX_LEASE_TTL_S="3",  # a dead worker's jobs are sent again within seconds
            EVIDEX_HEARTBEAT_S="1",
            EVIDEX_SWEEP_INTERVAL_S="1",
        )
        env.update(extra)
        return env


@pytest.fixture
def env(redis_url: str, tmp_path: Path) -> Iterator[Env]:
    tag = uuid.uuid4().hex[:10]
    prefix, queue = f"evidex-test-{tag}", f"evidex-test-{tag}"
    variables = {"EVIDEX_TEST_PREFIX": prefix, "EVIDEX_TEST_QUEUE": queue}
    variables["EVIDEX_TEST_VISIBILITY_S"] = str(VISIBILITY_S)
    client = configure(make_celery(WorkerSettings(redis_url=redis_url)), variables)
    jobs = RedisJobStore.from_url(redis_url, prefix=prefix, due_after_s=3.0)
    data_dir = tmp_path / "data"
    yield Env(redis_url, prefix, queue, data_dir, jobs, LocalBlobStore(data_dir), client)
    client.close()
    jobs.client.close()
    cleanup = redis.Redis.from_url(redis_url)
    for key in cleanup.scan_iter(match=f"{prefix}*"):
        cleanup.delete(key)
    cleanup.close()


class Worker:
    def __init__(self, env: Env, name: str, log: Path, **extra: str) -> None:
        self.log = log
        command = [
            str(CELERY), "-A", "worker_app", "worker", "--pool", "threads", "-c", "4",
            "-Q", env.queue, "--without-heartbeat", "--without-gossip", "--without-mingle",
            "-n", f"{name}-{uuid.uuid4().hex[:6]}@%h", "--loglevel", "INFO",
        ]  # fmt: skip
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env.variables(**extra),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed with its parser pool
            )

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the worker and every process it started, as a crashed machine would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


Start = Callable[..., Worker]


@pytest.fixture
def start(env: Env, tmp_path: Path) -> Iterator[Start]:
    """``start(name, **extra)``: a worker logging to ``<name>.log`` with ``extra`` in its
    environment; every worker started is killed when the test ends, passed or failed."""
    started: list[Worker] = []

    def launch(name: str, **extra: str) -> Worker:
        started.append(Worker(env, name, tmp_path / f"{name}.log", **extra))
        return started[-1]

    yield launch
    for worker in started:
        worker.kill()


@contextlib.contextmanager
def receiver() -> Iterator[tuple[str, list[tuple[dict[str, str], bytes]]]]:
    """A local webhook receiver answering 200: its URL and what it was sent."""
    seen: list[tuple[dict[str, str], bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(
                (dict(self.headers.items()), self.rfile.read(int(self.headers["Content-Length"])))
            )
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return None

    with serving(Handler) as url:
        yield f"{url}/hook", seen


def submit(
    env: Env, document: bytes = INVOICE, filename: str = "invoice.pdf", **options: str
) -> Job:
    job = stored_job(
        env.jobs, env.blobs, document, filename=filename, options=JobOptions(**options)
    )
    enqueue_job(env.client, job.id)
    return job


def wait_for(
    env: Env, job_id: str, done: Callable[[Job], bool], workers: list[Worker], what: str
) -> Job:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        job = env.jobs.get(job_id)
        if job is not None and done(job):
            return job
        for worker in workers:
            assert worker.alive(), f"a worker exited early:\n{worker.output()}"
        time.sleep(0.1)
    logs = "\n---\n".join(w.output() for w in workers)
    raise AssertionError(f"job {job_id} was not {what} within {TIMEOUT_S} s: {job}\n{logs}")


def check_result(env: Env, job: Job) -> None:
    assert job.result_key == f"acme/{job.id}/result.json"
    result = json.loads(env.blobs.get(job.result_key))
    assert result["fields"]["invoice_number"]["status"] == "verified"
    assert result["fields"]["invoice_number"]["value"] == "INV-2026-00418"
    assert result["fields"]["total"]["status"] == "verified"
    assert result["summary"]["verified"] >= 15
    assert result["trace"]["llm"] == "rules"


def statuses(job: Job) -> list[str]:
    return [event.status.value for event in job.events]


def test_a_worker_runs_a_job_to_success_and_posts_its_webhook(env: Env, start: Start) -> None:
    hooks = {
        "EVIDEX_WEBHOOK_SECRET": SECRET,
        "EVIDEX_WEBHOOK_ALLOWED_HOSTS": '["http://127.0.0.1"]',
    }
    with receiver() as (url, seen):
        worker = start("worker", **hooks)
        job = submit(env, webhook_url=url)
        done = wait_for(env, job.id, lambda j: j.status.final, [worker], "finished")
        assert done.status is JobStatus.SUCCEEDED, worker.output()
        assert (done.attempts, statuses(done)) == (1, ["running", "succeeded"])
        check_result(env, done)
        deadline = time.monotonic() + TIMEOUT_S
        while not env.blobs.exists(webhook_key(done)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert json.loads(env.blobs.get(webhook_key(done)))["delivered"] is True
        worker.kill()  # before its receiver stops
    ((headers, body),) = seen
    assert verify(SECRET, headers["Evidex-Signature"], body)
    assert json.loads(body)["job"]["status"] == "succeeded"


def test_a_job_of_a_killed_worker_is_redelivered_and_succeeds_once(env: Env, start: Start) -> None:
    first = start("doomed", EVIDEX_TEST_LLM_DELAY_S="120")
    job = submit(env)
    wait_for(env, job.id, lambda j: j.status is JobStatus.RUNNING, [first], "running")
    deadline = time.monotonic() + TIMEOUT_S
    while SLOW_CALL not in first.output() and time.monotonic() < deadline:
        assert first.alive(), first.output()
        time.sleep(0.05)
    assert SLOW_CALL in first.output()  # parsed, reserved, inside the model call
    first.kill()  # mid-task: the message was never acknowledged
    assert env.jobs.get(job.id) is not None
    second = start("rescuer")
    done = wait_for(env, job.id, lambda j: j.status.final, [second], "finished")
    assert done.status is JobStatus.SUCCEEDED, second.output()
    assert (done.attempts, statuses(done)) == (2, ["running", "running", "succeeded"])
    check_result(env, done)
    time.sleep(VISIBILITY_S + 3)  # a message not acknowledged would come back by now
    assert env.jobs.get(job.id) == done
    assert second.alive()


# --- workers that die or stop ------------------------------------------------------------------
# SIGKILL: the jobs the dead worker ran are sent again by another worker's sweeper once their
# leases expire (the broker's visibility timeout is an hour here: nothing else brings them back).
# SIGTERM: the worker takes no new job, finishes what it runs, leaves the rest queued; a rolling
# restart under load loses nothing and runs nothing twice. No timing is asserted.

HOUR = {"EVIDEX_TEST_VISIBILITY_S": "3600"}  # the broker hands nothing back during the test


def slow_calls(*workers: Worker) -> int:
    return sum(w.log.read_text(errors="replace").count(SLOW_CALL) for w in workers)


SLOW_MACHINE_S = 300.0  # an upper bound for "eventually" on a loaded machine, not a timing


def wait_until(condition: object, what: str, workers: list[Worker]) -> None:
    deadline = time.monotonic() + SLOW_MACHINE_S
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.1)
    logs = "\n---\n".join(w.output() for w in workers)
    raise AssertionError(f"{what} did not happen within {SLOW_MACHINE_S} s\n{logs}")


def all_final(env: Env, ids: list[str], workers: list[Worker]) -> dict[str, Job]:
    def done() -> bool:
        return all((j := env.jobs.get(i)) is not None and j.status.final for i in ids)

    wait_until(done, "every job ending", workers)
    return {i: j for i in ids if (j := env.jobs.get(i)) is not None}


def test_the_jobs_of_a_sigkilled_worker_are_swept_to_another_worker(env: Env, start: Start) -> None:
    doomed = start("doomed", EVIDEX_TEST_LLM_DELAY_S="300", **HOUR)
    ids = [submit(env).id for _ in range(6)]
    wait_until(lambda: slow_calls(doomed) == 4, "four model calls in flight", [doomed])
    running = [i for i in ids if (j := env.jobs.get(i)) and j.status is JobStatus.RUNNING]
    assert len(running) == 4  # -c 4, prefetch 1: the other two wait in the queue
    doomed.kill()
    rescuer = start("rescuer", **HOUR)
    final = all_final(env, ids, [rescuer])
    for job_id, job in final.items():
        assert job.status is JobStatus.SUCCEEDED, (job, rescuer.output())
        check_result(env, job)
        if job_id in running:  # taken over after its lease expired: one more attempt
            assert (job.attempts, statuses(job)) == (2, ["running", "running", "succeeded"])
        else:
            assert (job.attempts, statuses(job)) == (1, ["running", "succeeded"])
    assert "sending it again" in rescuer.log.read_text(errors="replace")  # the whole log
    assert rescuer.alive()


def test_sigterm_finishes_the_running_jobs_and_leaves_the_rest_queued(
    env: Env, start: Start
) -> None:
    first = start("first", EVIDEX_TEST_LLM_DELAY_S="3", **HOUR)
    ids = [submit(env).id for _ in range(7)]
    wait_until(lambda: slow_calls(first) >= 4, "four model calls in flight", [first])
    first.process.send_signal(signal.SIGTERM)  # as `docker stop` or systemd does
    first.process.wait(timeout=SLOW_MACHINE_S)
    ran = {i for i in ids if (j := env.jobs.get(i)) and j.status is not JobStatus.QUEUED}
    for job_id in ran:  # what it had started, it finished
        job = env.jobs.get(job_id)
        assert job is not None and job.status is JobStatus.SUCCEEDED, first.output()
    assert len(ran) >= 4 and len(ran) < len(ids)
    second = start("second", **HOUR)
    final = all_final(env, ids, [second])
    for job in final.values():
        assert job.status is JobStatus.SUCCEEDED
        assert (job.attempts, statuses(job)) == (1, ["running", "succeeded"])
    assert slow_calls(first) == len(ran)  # no call started twice


def test_a_rolling_restart_under_load_loses_nothing_and_runs_nothing_twice(
    env: Env, start: Start
) -> None:
    slow = {"EVIDEX_TEST_LLM_DELAY_S": "1", **HOUR}
    workers = [start(f"w{n}", **slow) for n in range(2)]
    ids = [submit(env).id for _ in range(16)]
    for n in range(2):  # replace each worker in turn while jobs run
        old = workers[n]
        wait_until(lambda old=old: slow_calls(old) >= 1, "a model call", workers)
        old.process.send_signal(signal.SIGTERM)
        old.process.wait(timeout=SLOW_MACHINE_S)
        workers.append(start(f"w{n}b", **slow))
    final = all_final(env, ids, workers[2:])
    for job in final.values():
        assert job.status is JobStatus.SUCCEEDED, job
        assert (job.attempts, statuses(job)) == (1, ["running", "succeeded"])
    assert slow_calls(*workers) == len(ids)


# --- a job whose CPU stage never ends ----------------------------------------------------------


def stalling_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Invoice INV-1 total 12.00 EUR")
    page.insert_text((72, 96), STALL_TEXT)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def test_a_stage_that_never_ends_fails_its_job_and_stalls_nothing_else(
    env: Env, start: Start
) -> None:
    # A stall in the worker's own process would stop its heartbeat: the 3 s leases of the
    # ordinary jobs would lapse and the sweeper would send them again (lost_runs, "sending it
    # again"). In a child process it stops nothing but itself.
    # 15 s: a limit every other stage keeps to on a loaded machine (the trap's parse included)
    worker = start("w", EVIDEX_STAGE_TIME_LIMIT_S="15", **HOUR)
    job_id = submit(env, stalling_pdf(), "trap.pdf").id
    ordinary = [submit(env).id for _ in range(6)]
    final = all_final(env, [job_id, *ordinary], [worker])
    failed = final[job_id]
    assert failed.status is JobStatus.FAILED, worker.output()
    assert failed.error is not None and failed.error.code == "job_timeout"
    assert "the verification stage of schema 'invoice' did not finish within 15 s" in (
        failed.error.message
    )
    for job in (final[i] for i in ordinary):
        assert job.status is JobStatus.SUCCEEDED, worker.output()
        assert (job.attempts, job.lost_runs, statuses(job)) == (1, 0, ["running", "succeeded"])
        check_result(env, job)
    assert "sending it again" not in worker.log.read_text(errors="replace")
    assert worker.alive()
