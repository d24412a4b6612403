"""A chaos run with real processes: ``evidex worker``s SIGKILLed and replaced, Redis restarted,
a model that is slow, fails and hangs. Used by ``tests/workers/test_chaos.py`` (which asserts the
invariants) and ``bench/chaos.py`` (which prints the figures).

The parts, all started here and stopped at the end (also on errors):

- a private ``redis-server`` with AOF (``appendfsync always``) in a temp dir, restarted once
  (SIGTERM, then started again on the same port and files);
- a model server speaking the OpenAI Responses wire format (:mod:`chaos_model`; the real ``openai``
  SDK talks to it):
  every answer after ``latency_s``; a seeded share answers HTTP 500, another hangs (holds the
  request past the client's timeout, then closes it unanswered); it counts requests, 200
  answers, and the 200-bound requests in flight at any moment;
- ``workers`` ``evidex worker`` processes; every ``kill_every_s`` one chosen at random (seeded)
  is SIGKILLed with its process group and a new one started;
- with ``poison``, one more job whose document kills every worker that runs it (as one that runs
  its worker out of memory would): the run SIGKILLs whichever worker holds its lease, and the job
  must end quarantined, ``job_poisoned``, after two workers, not be handed on for ever.

Jobs are created in the job store and enqueued the way the API does it (``RedisJobStore.create``
with the due index, then ``enqueue_job``). At each kill the run records the jobs whose lease the
killed worker held, and later when each of them ended: the time to recover after that kill. A
job taken over (``lost_runs``) that no killed worker held is a *false lease loss*: a live worker
lost it, which the short default lease must never cause, even on a loaded machine (``load``:
that many busy processes beside the run).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from evidex.workers.budget import Budget
from evidex.workers.celery_app import make_celery
from evidex.workers.jobs import Job, JobStatus
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.settings import WorkerSettings
from evidex.workers.stores import StoreUnavailable
from evidex.workers.tasks import enqueue_job
from tests.chaos_model import INVOICE, USAGE_PER_CALL, ChaosModel, perfect_reply, poison_pdf
from tests.service_stack import EVIDEX, ROOT, AofRedis, kill_group, spawn
from tests.stored_jobs import new_job

TENANT = "acme"


@dataclass
class ChaosConfig:
    jobs: int = 100
    workers: int = 3
    concurrency: int = 2
    latency_s: float = 1.0
    p500: float = 0.05
    phang: float = 0.02
    llm_timeout_s: float = 10.0
    kill_every_s: float = 10.0
    max_kills: int = 4
    redis_restart_after_s: float | None = 15.0  # None: no restart
    seed: int = 11
    lease_ttl_s: float | None = None  # None: the defaults of WorkerSettings
    heartbeat_s: float | None = None
    sweep_interval_s: float | None = None
    timeout_s: float = 600.0
    budget_tokens: int | None = None  # None: enough for every job plus the calls in flight
    poison: bool = True  # one more job, whose document kills every worker that runs it
    load: int = 0  # busy processes beside the run (a loaded machine)


@dataclass
class Kill:
    at: float  # time.time()
    pid: int
    jobs: list[str]  # the jobs whose lease the killed worker held
    in_flight: int  # model calls bound for a 200 answer, in flight at the kill
    poison: bool = False  # killed for holding the poisoned job (not one of the random kills)


@dataclass
class ChaosOutcome:
    config: ChaosConfig
    jobs: dict[str, Job]
    results: set[str]  # job ids with a stored result
    kills: list[Kill]
    requests: int
    answered: int
    failed_calls: int
    hung_calls: int
    budget_limit: int
    budget_used: int
    duration_s: float
    logs: Path
    redis_restarted_at: float | None
    unfinished: list[str] = field(default_factory=list)
    poison_id: str | None = None
    load_average: list[float] = field(default_factory=list)  # 1-minute, sampled every second

    def false_lease_losses(self) -> list[str]:
        """Jobs taken over from a worker that was not killed while holding them."""
        held = {j for kill in self.kills for j in kill.jobs}
        return sorted(i for i, j in self.jobs.items() if j.lost_runs and i not in held)

    def story(self, job_id: str, lines: int = 16) -> str:
        """What the run knows of one job, for an assertion's message: its record (the workers
        that ran it are named by pid in their owner tokens), the kills, and the last lines of
        the workers' logs that name it."""
        job = self.jobs[job_id]
        said = [
            f"{log.stem}: {line[:300]}"
            for log in sorted(self.logs.glob("worker-*.log"))
            for line in log.read_text(errors="replace").splitlines()
            if job_id in line
        ]
        return "\n".join(
            [
                f"{job_id}: {job.status.value}, attempts {job.attempts}, lost_runs "
                f"{job.lost_runs}, ran_on {job.ran_on}, lost_on {job.lost_on}",
                *(f"  {e.at:%H:%M:%S.%f} {e.status.value} {e.detail}" for e in job.events),
                *(
                    f"  {datetime.fromtimestamp(k.at, UTC):%H:%M:%S.%f} kill of pid {k.pid} "
                    f"holding {k.jobs}"
                    for k in self.kills
                ),
                *(f"  {line}" for line in said[-lines:]),
            ]
        )

    def collateral_poisoned(self) -> list[str]:
        """Jobs other than the poisoned one quarantined without any random kill holding them:
        they died only beside the poisoned job, and were blamed for its deaths."""
        randomly = {j for kill in self.kills if not kill.poison for j in kill.jobs}
        return sorted(
            i
            for i, j in self.jobs.items()
            if i != self.poison_id
            and j.error is not None
            and j.error.code == "job_poisoned"
            and i not in randomly
        )

    def recover_s(self) -> list[float]:
        """Per kill that held jobs: seconds from the kill until the last of them ended."""
        times = []
        for kill in self.kills:
            if kill.poison:
                continue
            ends = [_final_at(self.jobs[j]) for j in kill.jobs if j in self.jobs]
            known = [e for e in ends if e is not None]
            if kill.jobs and len(known) == len(kill.jobs):
                times.append(max(known) - kill.at)
        return times

    def taken_over_s(self) -> list[float]:
        """Per kill that held jobs: seconds from the kill until the last of them was running
        again on another worker (lease expiry + sweep + delivery: the part leases decide)."""
        times = []
        for kill in self.kills:
            if kill.poison:
                continue
            starts = [_running_after(self.jobs[j], kill.at) for j in kill.jobs if j in self.jobs]
            known = [s for s in starts if s is not None]
            if kill.jobs and len(known) == len(kill.jobs):
                times.append(max(known) - kill.at)
        return times


def _running_after(job: Job, at: float) -> float | None:
    starts = [e.at.timestamp() for e in job.events if e.status is JobStatus.RUNNING]
    later = [s for s in starts if s > at]
    return min(later) if later else None


def _final_at(job: Job) -> float | None:
    finals = [e.at for e in job.events if e.status.final]
    return finals[-1].timestamp() if finals else None


class _Workers:
    def __init__(self, env: dict[str, str], logs: Path, concurrency: int) -> None:
        self.env, self.logs, self.concurrency = env, logs, concurrency
        self.live: list[subprocess.Popen[bytes]] = []
        self.all: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        log = self.logs / f"worker-{len(self.all)}.log"
        argv = [EVIDEX, "worker", "--concurrency", str(self.concurrency), "--loglevel", "INFO"]
        process = spawn(argv, self.env, log)
        self.live.append(process)
        self.all.append(process)
        return process

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        kill_group(process)
        self.live.remove(process)

    def replace(
        self,
        process: subprocess.Popen[bytes],
        client: redis.Redis,
        model: ChaosModel,
        poison: bool = False,
    ) -> Kill:
        """SIGKILL ``process``, start another; the kill, with the leases it held. The process
        is stopped (SIGSTOP) before its leases are read: a worker left running between the
        read and the kill takes the next job's lease, and that job, lost with it, would count
        as taken from a live worker."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGSTOP)
        held = _frozen_leases(client, process.pid)
        in_flight = model.snapshot_in_flight()
        self.kill(process)
        at = time.time()
        self.start()
        return Kill(at, process.pid, held, in_flight, poison)

    def kill_all(self) -> None:
        for process in self.all:
            kill_group(process)


def _leases_of(client: redis.Redis, pid: int) -> list[str]:
    jobs = []
    for key in client.scan_iter(match="evidex:lease:*", count=500):
        owner = client.get(key)
        if owner is not None and f":{pid}:" in owner.decode():
            jobs.append(key.decode().rsplit(":", 1)[1])
    return jobs


def _frozen_leases(client: redis.Redis, pid: int, patience_s: float = 20.0) -> list[str]:
    """The leases of a stopped worker, read once Redis answers (it may be restarting)."""
    until = time.monotonic() + patience_s
    while True:
        try:
            return _leases_of(client, pid)
        except redis.RedisError:
            if time.monotonic() > until:
                raise
            time.sleep(0.2)


def _quiet_errors() -> contextlib.suppress:
    """Redis is being restarted: look again on the next round."""
    return contextlib.suppress(redis.RedisError, StoreUnavailable)


def run_chaos(config: ChaosConfig, logs: Path | None = None) -> ChaosOutcome:
    """Run the scenario; the outcome holds every job's final record and the counts."""
    logs = logs or Path(tempfile.mkdtemp(prefix="evidex-chaos-"))
    logs.mkdir(parents=True, exist_ok=True)
    rng = random.Random(config.seed)
    server = AofRedis(logs / "redis")
    server.start()
    body = perfect_reply()
    # Enough for every job once plus everything that may be held at a time; a job billed twice
    # shows in the counter, a call made past the limit in the model's count.
    limit = config.budget_tokens or (
        config.jobs * USAGE_PER_CALL + (config.workers * config.concurrency + 8) * 200_000
    )
    workers: _Workers | None = None
    load: _Load | None = None
    try:
        with ChaosModel(
            body, config.latency_s, config.p500, config.phang, config.llm_timeout_s * 2, config.seed
        ) as model:
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("EVIDEX_", "OPENAI_", "CELERY_"))
            }
            env.update(
                EVIDEX_REDIS_URL=server.url,
                EVIDEX_DATA_DIR=str(logs / "data"),
                EVIDEX_LLM="openai",
                OPENAI_API_KEY="sk-chaos",
                OPENAI_BASE_URL=model.base_url,
                EVIDEX_LLM_TIMEOUT_S=str(config.llm_timeout_s),
                EVIDEX_LLM_MAX_RETRIES="3",
                EVIDEX_LLM_BACKOFF_S="0.05",
                EVIDEX_TASK_BACKOFF_S="0.5",
                EVIDEX_MONTHLY_TOKEN_BUDGET=str(limit),
                PYTHONPATH=str(ROOT),
            )
            for name, value in (
                ("EVIDEX_LEASE_TTL_S", config.lease_ttl_s),
                ("EVIDEX_HEARTBEAT_S", config.heartbeat_s),
                ("EVIDEX_SWEEP_INTERVAL_S", config.sweep_interval_s),
            ):
                if value is not None:
                    env[name] = str(value)
            settings = WorkerSettings(redis_url=server.url, data_dir=logs / "data")
            chosen = {
                "lease_ttl_s": config.lease_ttl_s,
                "heartbeat_s": config.heartbeat_s,
                "sweep_interval_s": config.sweep_interval_s,
            }
            settings = settings.model_copy(
                update={k: v for k, v in chosen.items() if v is not None}
            )
            store = RedisJobStore.from_url(server.url, due_after_s=settings.lease_ttl_s)
            client = redis.Redis.from_url(server.url, socket_timeout=5)
            celery = make_celery(settings)
            workers = _Workers(env, logs, config.concurrency)
            for _ in range(config.workers):
                workers.start()
            ids = [_submit(store, celery, logs / "data") for _ in range(config.jobs)]
            poison_id = None
            if config.poison:
                poison_id = _submit(store, celery, logs / "data", poison_pdf())
                ids.append(poison_id)
            load = _Load(config.load)
            started = time.monotonic()
            kills: list[Kill] = []
            next_kill = started + config.kill_every_s
            restart_at: float | None = None
            if config.redis_restart_after_s is not None:
                restart_at = started + config.redis_restart_after_s
            restarted: float | None = None
            unfinished = list(ids)
            while unfinished and time.monotonic() - started < config.timeout_s:
                time.sleep(0.2)
                now = time.monotonic()
                if restart_at is not None and now >= restart_at:
                    restarted, restart_at = time.time(), None
                    server.restart()
                if poison_id is not None and poison_id in unfinished:
                    with _quiet_errors():
                        owner = client.get(f"evidex:lease:{poison_id}")
                        holder = next(
                            (p for p in workers.live if owner and f":{p.pid}:" in owner.decode()),
                            None,
                        )
                        if holder is not None:  # the document kills the worker that runs it
                            kills.append(workers.replace(holder, client, model, poison=True))
                random_kills = sum(1 for k in kills if not k.poison)
                if now >= next_kill and random_kills < config.max_kills:
                    # A random worker among those running jobs (one still starting up holds
                    # nothing to lose); none busy: try again on the next round.
                    busy: dict[int, list[str]] = {}
                    with _quiet_errors():
                        busy = {p.pid: _leases_of(client, p.pid) for p in workers.live}
                    candidates = [p for p in workers.live if busy.get(p.pid)]
                    if candidates:
                        next_kill = now + config.kill_every_s
                        victim = rng.choice(candidates)
                        kills.append(workers.replace(victim, client, model))
                with _quiet_errors():
                    jobs = [store.get(i) for i in unfinished]
                    pairs = zip(unfinished, jobs, strict=True)
                    unfinished = [i for i, j in pairs if j is None or not j.status.final]
            duration = time.monotonic() - started
            load.stop()
            workers.kill_all()
            final = {i: j for i in ids if (j := store.get(i)) is not None}
            results = {i for i in ids if (logs / "data" / TENANT / i / "result.json").exists()}
            used = Budget(client, limit).used(TENANT)
            store.client.close()
            client.close()
            return ChaosOutcome(
                config=config,
                jobs=final,
                results=results,
                kills=kills,
                requests=model.requests,
                answered=model.answered,
                failed_calls=model.failed,
                hung_calls=model.hung,
                budget_limit=limit,
                budget_used=used,
                duration_s=duration,
                logs=logs,
                redis_restarted_at=restarted,
                unfinished=unfinished,
                poison_id=poison_id,
                load_average=load.samples,
            )
    finally:
        if load is not None:
            load.stop()
        if workers is not None:
            workers.kill_all()
        server.stop()


class _Load:
    """``count`` busy processes (a loaded machine), and the load average sampled meanwhile."""

    def __init__(self, count: int) -> None:
        # Busy until stopped, or until this process is gone (killed, not stopped): an orphan is
        # handed to another parent, and the loop sees it within a fraction of a second.
        spin = "import os, sys\nwhile os.getppid() == int(sys.argv[1]):\n    sum(range(10**5))"
        self.busy = [
            subprocess.Popen([sys.executable, "-c", spin, str(os.getpid())], start_new_session=True)
            for _ in range(count)
        ]
        self.samples: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(1.0):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> None:
        self._done.set()
        for process in self.busy:
            process.kill()
            process.wait(timeout=15)
        self.busy = []


def _submit(store: RedisJobStore, celery: Any, data: Path, document: bytes = INVOICE) -> str:
    job = new_job(TENANT, document)
    path = data / job.document_key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(document)
    store.create(job)
    enqueue_job(celery, job.id)
    return job.id


def summary(outcome: ChaosOutcome) -> dict[str, Any]:
    """The figures a reader wants from a run."""
    statuses = [j.status for j in outcome.jobs.values()]
    codes = sorted({j.error.code for j in outcome.jobs.values() if j.error and j.status.final})
    recover = sorted(outcome.recover_s())
    poisoned = outcome.jobs.get(outcome.poison_id or "")
    load = outcome.load_average
    return {
        "jobs": outcome.config.jobs,
        "poisoned_job": (
            None
            if poisoned is None
            else f"{poisoned.status.value} {poisoned.error.code if poisoned.error else ''} "
            f"after {poisoned.lost_runs} lost workers"
        ),
        "poison_kills": sum(1 for k in outcome.kills if k.poison),
        "collateral_poisoned": len(outcome.collateral_poisoned()),
        "false_lease_losses": len(outcome.false_lease_losses()),
        "load_average": (
            f"mean {sum(load) / len(load):.1f}, max {max(load):.1f}" if load else "not sampled"
        ),
        "succeeded": statuses.count(JobStatus.SUCCEEDED),
        "failed": statuses.count(JobStatus.FAILED),
        "failed_codes": codes,
        "unfinished": len(outcome.unfinished),
        "kills": sum(1 for k in outcome.kills if not k.poison),
        "redis_restarted": outcome.redis_restarted_at is not None,
        "recover_s": recover,
        "model_requests": outcome.requests,
        "model_200": outcome.answered,
        "in_flight_at_kills": sum(k.in_flight for k in outcome.kills),
        "duplicate_200": max(0, outcome.answered - statuses.count(JobStatus.SUCCEEDED)),
        "budget_used": outcome.budget_used,
        "budget_limit": outcome.budget_limit,
        "duration_s": round(outcome.duration_s, 1),
        "started_at": datetime.now().isoformat(timespec="seconds"),
    }
