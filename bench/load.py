"""Load on the service path: REST API + one Celery worker + Redis, with a model of fixed latency.

    PYTHONPATH=. .venv/bin/python -m bench.load --jobs 64 --latency 2 --sample letter
    PYTHONPATH=. .venv/bin/python -m bench.load --jobs 64 --latency 0.001 --poll-hz 0 \
        --sample letter

Starts a private redis-server (or uses ``EVIDEX_REDIS_URL`` when set, on a queue of its own), a
local server speaking the OpenAI Responses wire format that answers every request after exactly
``--latency`` seconds with a perfect answer for the sample (``--sample``: ``invoice``, ``cv``,
``contract``, or ``letter``, a page of prose with no table: see :mod:`bench.load_samples`), one
``evidex worker`` (real ``openai`` backend, pointed at that server; with its default settings
unless ``--concurrency`` is given) and ``evidex serve``. After a few warm-up jobs
(the worker's parser processes start on first use), ``--jobs`` clients each submit the sample over
REST at once and then poll ``GET /v1/jobs/{id}`` ``--poll-hz`` times a second (sending the
``ETag`` back as ``If-None-Match``) until their job has ended. It then reads each job's
``succeeded`` event time (the server's clock: no polling delay in the figures) and prints, each
beside its target where it has one:

- throughput (jobs/s, first submit to last finish) against all-overlapped throughput ``N / L``
  (every model call of L seconds in flight at once; target at least 0.8 of it) and, when
  ``--concurrency`` is given, against ``C / L``; and the bound the CPU spent puts on it,
  ``L / (L + CPU of all jobs / cores)``: the service's work cannot overlap itself past the cores;
- the most model calls the model server saw in flight at once;
- the CPU time of the API and worker processes (and their children: the parse processes) per job
  (target at most 50 ms), and ``cores / (jobs/s)``, the same figure as the machine sees it when the
  latency is near 0 (it counts the bench's own clients and Redis too); beside it, one parse and
  one verification of the sample timed in the bench's own process, so the rest can be told apart;
- end-to-end latency per job (submit to succeeded) minus L, p50/p99: what the service adds
  (upload checks, queueing, parsing, verification, stores), and the submit (POST) latency;
- the polls: how many, their latency, how many were answered ``304 Not Modified``;
- failures (failed or unfinished jobs, by error code) and model calls made (must equal the
  number of jobs: nothing ran twice).

Everything it starts is stopped at the end, also on errors or Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx

from bench.common import ROOT
from bench.load_samples import NAMES, Sample, load_sample, pipeline_cpu_ms
from bench.process_cpu import Cpu, service_cpu
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.localredis import LocalRedis, reachable
from tests.service_stack import EVIDEX, ModelServer, clean_env, free_port, process, wait_ready

TARGET_OVERLAP, TARGET_CPU_MS = 0.8, 50.0
_FINAL = ("succeeded", "failed")


# --- the model: every answer after a fixed latency ------------------------------------------


class ConstantModel(ModelServer):
    """``POST /v1/responses`` → 200 with ``body`` after ``latency_s``; counts the calls and the
    most calls in flight at once."""

    def __init__(self, body: bytes, latency_s: float) -> None:
        super().__init__()
        self.body, self.latency_s = body, latency_s

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        with self.counted():
            time.sleep(self.latency_s)
        self.send(request, 200, self.body)


# --- processes ------------------------------------------------------------------------------


@contextlib.contextmanager
def _redis() -> Iterator[tuple[str, str | None]]:
    """A Redis URL, and the queue to use: None (the default) on a private server, a queue of
    this run's own on a shared one (so no other worker takes the jobs)."""
    configured = os.environ.get("EVIDEX_REDIS_URL")
    if configured:
        if not reachable(configured):
            raise SystemExit(f"EVIDEX_REDIS_URL={configured} does not answer")
        yield configured, f"evidex-bench-{uuid.uuid4().hex[:8]}"
        return
    with LocalRedis.start() as local:
        yield local.url, None


# --- the clients ----------------------------------------------------------------------------


@dataclass
class Submitted:
    id: str  # "" when the POST failed
    sent_at: float  # wall clock (time.time()), comparable with the server's event times
    post_s: float
    error: str = ""
    polls: list[float] = field(default_factory=list)  # seconds per GET /v1/jobs/{id}
    not_modified: int = 0
    poll_errors: int = 0


async def _submit(client: httpx.AsyncClient, upload: Sample) -> Submitted:
    sent_at, started = time.time(), time.perf_counter()
    try:
        response = await client.post(
            "/v1/jobs",
            files={"file": (upload.filename, upload.data, "application/pdf")},
            data=upload.form,
        )
    except httpx.HTTPError as exc:
        return Submitted("", sent_at, time.perf_counter() - started, type(exc).__name__)
    post_s = time.perf_counter() - started
    if response.status_code != 202:
        return Submitted("", sent_at, post_s, f"HTTP {response.status_code}")
    return Submitted(response.json()["id"], sent_at, post_s)


async def _client(
    client: httpx.AsyncClient, upload: Sample, poll_hz: float, deadline: float
) -> Submitted:
    """Submit, then poll the job ``poll_hz`` times a second until it ends (as a client would,
    sending the last ETag back)."""
    sent = await _submit(client, upload)
    if not sent.id or poll_hz <= 0:
        return sent
    etag: str | None = None
    while time.monotonic() < deadline:
        await asyncio.sleep(1 / poll_hz)
        started = time.perf_counter()
        try:
            response = await client.get(
                f"/v1/jobs/{sent.id}", headers={"If-None-Match": etag} if etag else {}
            )
        except httpx.HTTPError:
            sent.poll_errors += 1
            continue
        sent.polls.append(time.perf_counter() - started)
        if response.status_code == 304:
            sent.not_modified += 1
            continue
        if response.status_code != 200:
            sent.poll_errors += 1
            continue
        etag = response.headers.get("etag")
        if response.json()["status"] in _FINAL:
            break
    return sent


async def _clients(
    base_url: str, headers: dict[str, str], upload: Sample, n: int, poll_hz: float, timeout_s: float
) -> list[Submitted]:
    limits = httpx.Limits(max_connections=n + 8, max_keepalive_connections=n + 8)
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=120, limits=limits
    ) as client:
        return list(
            await asyncio.gather(*(_client(client, upload, poll_hz, deadline) for _ in range(n)))
        )


def _all_jobs(client: httpx.Client) -> dict[str, dict[str, Any]]:
    jobs: dict[str, dict[str, Any]] = {}
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 100} | ({"cursor": cursor} if cursor else {})
        page = client.get("/v1/jobs", params=params).json()
        jobs.update((job["id"], job) for job in page["jobs"])
        cursor = page["next_cursor"]
        if not cursor:
            return jobs


def _wait_all(client: httpx.Client, ids: set[str], timeout_s: float) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while True:
        jobs = {i: j for i, j in _all_jobs(client).items() if i in ids}
        done = [j for j in jobs.values() if j["status"] in _FINAL]
        if len(done) == len(ids) or time.monotonic() > deadline:
            return jobs
        time.sleep(0.25)


def _wait_records(redis_url: str, ids: set[str], timeout_s: float) -> None:
    """Wait until every job has ended, reading the job records in Redis: asking the API would
    add its own CPU to what is measured."""
    jobs = RedisJobStore.from_url(redis_url)
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            found = [jobs.get(i) for i in ids]
            if all(job is not None and job.status.final for job in found):
                return
            time.sleep(0.1)
    finally:
        jobs.client.close()


def _event_at(job: dict[str, Any], status: str) -> float | None:
    """Wall-clock time of the job's last ``status`` event."""
    times = [e["at"] for e in job["events"] if e["status"] == status]
    return datetime.fromisoformat(times[-1]).timestamp() if times else None


def _pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


# --- the run --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    jobs: int
    concurrency: int | None  # None: the worker's default
    latency: float
    poll_hz: float
    warmup: int
    timeout_s: float
    sample: str


@dataclass(frozen=True)
class Measured:
    sent: list[Submitted]
    final: dict[str, dict[str, Any]]
    calls: int
    peak_in_flight: int
    cpu: Cpu
    pipeline_ms: tuple[float, float]  # parse, verify: CPU ms per job in the bench process


def run(plan: Plan) -> int:
    logs = Path(tempfile.mkdtemp(prefix="evidex-bench-load-"))
    key = secrets.token_urlsafe(24)
    headers = {"Authorization": f"Bearer {key}"}
    upload = load_sample(plan.sample)
    threads = f"{plan.concurrency} threads" if plan.concurrency else "default settings"
    print(
        f"bench.load: {plan.jobs} jobs of {upload.filename}, one worker ({threads}), "
        f"model latency {plan.latency} s, {plan.jobs} clients polling {plan.poll_hz:g}/s; "
        f"logs in {logs}"
    )
    with (
        _redis() as (redis_url, queue),
        ConstantModel(upload.reply, plan.latency) as (model),
    ):
        env = clean_env() | {
            "EVIDEX_REDIS_URL": redis_url,
            "EVIDEX_DATA_DIR": str(logs / "data"),
            "EVIDEX_API_KEYS": f"bench={key}",
            "EVIDEX_RATE_LIMIT_PER_MINUTE": "1000000",
            "EVIDEX_JOB_RETENTION_S": "3600",
            "EVIDEX_LLM": "openai",
            "OPENAI_API_KEY": "sk-bench",
            "OPENAI_BASE_URL": model.base_url,
            "EVIDEX_LLM_TIMEOUT_S": str(max(30.0, plan.latency * 10)),
            "EVIDEX_LLM_MAX_RETRIES": "0",  # a failure is a failure here, not a slow success
        }
        worker = [EVIDEX, "worker", "--loglevel", "WARNING"]
        if plan.concurrency:
            worker += ["--concurrency", str(plan.concurrency)]
        if queue:
            worker += ["--queues", queue]
        port = free_port()
        serve = [EVIDEX, "serve", "--port", str(port), "--log-level", "warning"]
        if queue:  # `evidex serve` enqueues on the default queue: serve the same app, our queue
            serve = [sys.executable, "-m", "bench.load", "--serve-api", str(port), queue]
        base_url = f"http://127.0.0.1:{port}"
        with (
            process(worker, env, logs / "worker.log") as w,
            process(serve, env | {"PYTHONPATH": str(ROOT)}, logs / "api.log") as api,
            httpx.Client(base_url=base_url, headers=headers, timeout=120) as client,
        ):
            wait_ready(base_url, [w, api], logs, "/healthz")
            if plan.warmup:
                started = time.perf_counter()
                warm_sent = asyncio.run(
                    _clients(base_url, headers, upload, plan.warmup, 0, plan.timeout_s)
                )
                warm = _wait_all(client, {s.id for s in warm_sent}, plan.timeout_s)
                bad = [j for j in warm.values() if j["status"] != "succeeded"]
                if bad or len(warm) < plan.warmup:
                    raise SystemExit(f"warm-up failed: {bad or 'jobs missing'}; see {logs}")
                print(f"warm-up: {plan.warmup} job(s) in {time.perf_counter() - started:.1f} s")
            calls_before, model.peak = model.calls, 0
            cpu_before = service_cpu(api.pid, w.pid)
            sent = asyncio.run(
                _clients(base_url, headers, upload, plan.jobs, plan.poll_hz, plan.timeout_s)
            )
            ids = {s.id for s in sent if s.id}
            _wait_records(redis_url, ids, plan.timeout_s)
            cpu = service_cpu(api.pid, w.pid) - cpu_before
            final = _wait_all(client, ids, plan.timeout_s)
    measured = Measured(
        sent, final, model.calls - calls_before, model.peak, cpu, pipeline_cpu_ms(upload)
    )
    return _report(plan, measured)


def _report(plan: Plan, m: Measured) -> int:
    sent, latency = m.sent, plan.latency
    ended: dict[str, tuple[float, float]] = {}  # id -> (running at, succeeded at)
    failures: Counter[str] = Counter()
    for s in sent:
        job = m.final.get(s.id)
        if not s.id:
            failures[f"submit {s.error}"] += 1
        elif job is None or job["status"] not in _FINAL:
            failures["unfinished"] += 1
        elif job["status"] == "failed":
            failures[(job.get("error") or {}).get("code", "unknown")] += 1
        else:
            running, succeeded = _event_at(job, "running"), _event_at(job, "succeeded")
            if running is not None and succeeded is not None:
                ended[s.id] = (running, succeeded)
    done = [s for s in sent if s.id in ended]
    overhead = [ended[s.id][1] - s.sent_at - latency for s in done]
    waited = [ended[s.id][0] - s.sent_at for s in done]
    service = [ended[s.id][1] - ended[s.id][0] - latency for s in done]
    posts = [s.post_s for s in sent]
    polls = [p for s in sent for p in s.polls]
    span = max(e for _, e in ended.values()) - min(s.sent_at for s in sent) if ended else math.nan
    rate = len(ended) / span if ended else 0.0
    overlapped = len(sent) / latency  # every call in flight at once: the batch takes L
    cores = os.cpu_count() or 1
    per_job = 1000 / max(len(ended), 1)  # seconds in all -> ms per job
    cpu_ms = m.cpu.total * per_job

    def ms(values: list[float], q: float) -> str:
        return f"{_pct(values, q) * 1000:.0f} ms"

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print(f"jobs: {len(sent)} submitted, {len(ended)} succeeded, {sum(failures.values())} failed")
    print(
        f"throughput: {rate:.2f} jobs/s ({len(ended)} jobs in {span:.2f} s); all-overlapped "
        f"N/L = {overlapped:.1f} jobs/s; achieved/all-overlapped = {rate / overlapped:.2f} "
        f"(target >= {TARGET_OVERLAP}: {verdict(rate / overlapped >= TARGET_OVERLAP)})"
    )
    ceiling = latency / (latency + m.cpu.total / cores)
    print(
        f"  the CPU it took bounds that on {cores} cores: L / (L + CPU of all jobs / cores) = "
        f"{ceiling:.2f}, however well the calls overlap"
    )
    if plan.concurrency:
        ideal = plan.concurrency / latency
        print(f"  ideal C/L = {ideal:.1f} jobs/s; achieved/ideal = {rate / ideal:.2f}")
    print(f"model calls in flight at once: at most {m.peak_in_flight} (of {len(sent)} jobs)")
    parse_ms, verify_ms = m.pipeline_ms
    print(
        f"CPU of API + worker (with parse processes): {m.cpu.total:.2f} s, {cpu_ms:.0f} ms per job "
        f"(target <= {TARGET_CPU_MS:.0f} ms: {verdict(cpu_ms <= TARGET_CPU_MS)}); "
        f"cores / (jobs/s) = {cores} / {rate:.2f} = {cores / rate * 1000 if rate else math.nan:.0f}"
        " ms (all of the machine, at latency ~0)"
    )
    print(
        f"  of which API {m.cpu.api * per_job:.0f} ms, worker {m.cpu.worker * per_job:.0f} ms "
        f"(threads: queue, stores, prompt, model client, verification), parse processes "
        f"{m.cpu.parsers * per_job:.0f} ms"
    )
    print(
        f"  for comparison, in this process alone: parsing {parse_ms:.0f} ms, verification "
        f"{verify_ms:.0f} ms of CPU per job; API + worker without them: "
        f"{cpu_ms - parse_ms - verify_ms:.0f} ms"
    )
    print(
        f"end-to-end latency minus L: p50 {ms(overhead, 0.5)}, p99 {ms(overhead, 0.99)} "
        "(includes waiting for a free worker thread)"
    )
    print(f"  of which queued (submit to running): p50 {ms(waited, 0.5)}, p99 {ms(waited, 0.99)}")
    print(
        f"  of which work besides the model (running to succeeded, minus L): "
        f"p50 {ms(service, 0.5)}, p99 {ms(service, 0.99)}"
    )
    print(
        f"submit (POST /v1/jobs, {len(sent)} at once): p50 {ms(posts, 0.5)}, "
        f"p99 {ms(posts, 0.99)}, mean {statistics.fmean(posts) * 1000:.0f} ms"
    )
    if plan.poll_hz > 0:
        print(
            f"polls (GET /v1/jobs/{{id}}): {len(polls)}, p50 {ms(polls, 0.5)}, "
            f"p99 {ms(polls, 0.99)}; {sum(s.not_modified for s in sent)} answered 304, "
            f"{sum(s.poll_errors for s in sent)} errors"
        )
    print(f"model calls: {m.calls} for {len(sent)} jobs")
    print(f"failures: {dict(failures) if failures else 0}")
    return 0 if not failures and m.calls == len(sent) else 1


def serve_api(port: int, queue: str) -> int:
    """``evidex serve``'s app (``production_app``), but enqueueing on ``queue``."""
    import uvicorn
    from redis.asyncio import Redis

    from evidex.service.app import create_app
    from evidex.service.settings import ServiceSettings
    from evidex.workers.celery_app import make_celery
    from evidex.workers.factory import make_blob_store, make_job_store
    from evidex.workers.redisdriver import driver_info
    from evidex.workers.tasks import enqueue_job

    settings = ServiceSettings()
    celery = make_celery(settings)
    celery.conf.task_default_queue = queue
    app = create_app(
        settings,
        job_store=make_job_store(settings),
        blob_store=make_blob_store(settings),
        enqueue=lambda job_id: enqueue_job(celery, job_id),
        redis=Redis.from_url(
            settings.redis_url,
            socket_timeout=0.5,
            socket_connect_timeout=0.5,
            driver_info=driver_info(),
        ),
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    return 0


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--serve-api"]:  # internal: the API process in EVIDEX_REDIS_URL mode
        return serve_api(int(argv[1]), argv[2])
    ap = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=64, help="clients, one job each, at once (N)")
    ap.add_argument(
        "--concurrency", type=int, help="worker threads (C); default: the worker's own default"
    )
    ap.add_argument("--latency", type=float, default=2.0, help="model latency in seconds (L)")
    ap.add_argument(
        "--poll-hz", type=float, default=4.0, help="each client's polls a second (0: none)"
    )
    ap.add_argument("--sample", choices=NAMES, default="invoice", help="the document")
    ap.add_argument("--warmup", type=int, default=2, help="jobs run before the measured batch")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the batch")
    args = ap.parse_args(argv)
    if args.jobs < 1 or (args.concurrency or 1) < 1 or args.latency <= 0 or args.poll_hz < 0:
        ap.error("--jobs and --concurrency must be at least 1, --latency above 0, --poll-hz >= 0")
    plan = Plan(
        args.jobs,
        args.concurrency,
        args.latency,
        args.poll_hz,
        args.warmup,
        args.timeout,
        args.sample,
    )
    return run(plan)


if __name__ == "__main__":
    sys.exit(main())
