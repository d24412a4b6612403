"""Load on the service path: REST API + one Celery worker + Redis, with a model of fixed latency.

    PYTHONPATH=. .venv/bin/python -m bench.load --jobs 60 --concurrency 16 --latency 0.5

Starts a private redis-server (or uses ``EVIDEX_REDIS_URL`` when set, on a queue of its own), a
local server speaking the OpenAI Responses wire format that answers every request after exactly
``--latency`` seconds with a perfect answer for ``samples/invoice.pdf``, one
``evidex worker --concurrency C`` process (real ``openai`` backend, pointed at that server) and
``evidex serve``. After a few warm-up jobs (the worker's parser processes start on first use),
submits ``--jobs`` invoices at once over REST from a thread pool, then reads each job's
``succeeded`` event time (the server's clock: no polling delay in the figures) and prints

- throughput (jobs/s, first submit to last finish) and its ratio to the ideal ``C / L``: C worker
  threads each holding one model call of L seconds at a time;
- end-to-end latency per job (submit to succeeded) minus L, p50/p99: what the service adds
  (upload checks, queueing, parsing, verification, stores), and the submit (POST) latency;
- failures (failed or unfinished jobs, by error code) and model calls made (must equal the
  number of jobs: nothing ran twice).

Everything it starts is stopped at the end, also on errors or Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from bench.common import ROOT, SAMPLES
from evidex.extractors.llm.scripted import build_answer
from evidex.extractors.parsers.pymupdf_parser import PyMuPDFParser
from evidex.schemas import get_schema
from evidex.workers.localredis import LocalRedis, reachable
from tests.sample_answers import perfect_fields

EVIDEX = str(Path(sys.executable).with_name("evidex"))
INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
RESPONSE_FIXTURE = ROOT / "tests" / "fixtures" / "openai" / "responses_completed.json"


# --- the model: every answer after a fixed latency ------------------------------------------


def invoice_reply() -> bytes:
    lines = PyMuPDFParser().parse(INVOICE, "invoice.pdf").lines
    answer = build_answer(get_schema("invoice"), perfect_fields("invoice", lines))
    body: dict[str, Any] = json.loads(RESPONSE_FIXTURE.read_text(encoding="utf-8"))
    body = copy.deepcopy(body)
    body["output"][0]["content"][0]["text"] = json.dumps(answer)
    return json.dumps(body).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # a burst of C connections must not overflow the listen backlog


class ConstantModel:
    """``POST /v1/responses`` → 200 with ``body`` after ``latency_s``; counts the calls."""

    def __init__(self, body: bytes, latency_s: float) -> None:
        self.calls = 0
        lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with lock:
                    model.calls += 1
                time.sleep(latency_s)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ConstantModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


# --- processes ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


@contextlib.contextmanager
def _process(argv: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _wait_up(client: httpx.Client, procs: list[subprocess.Popen[bytes]], logs: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise SystemExit(f"a service process exited early; see the logs in {logs}")
        with contextlib.suppress(httpx.HTTPError):
            if client.get("/healthz").status_code == 200:
                return
        time.sleep(0.2)
    raise SystemExit(f"the API did not start in 60 s; see the logs in {logs}")


# --- the run --------------------------------------------------------------------------------


@dataclass
class Submitted:
    id: str  # "" when the POST failed
    sent_at: float  # wall clock (time.time()), comparable with the server's event times
    post_s: float
    error: str = ""


def _submit(client: httpx.Client, headers: dict[str, str]) -> Submitted:
    sent_at, started = time.time(), time.perf_counter()
    try:
        response = client.post(
            "/v1/jobs",
            files={"file": ("invoice.pdf", INVOICE, "application/pdf")},
            data={"schema": "invoice"},
            headers=headers,
        )
    except httpx.HTTPError as exc:
        return Submitted("", sent_at, time.perf_counter() - started, type(exc).__name__)
    post_s = time.perf_counter() - started
    if response.status_code != 202:
        return Submitted("", sent_at, post_s, f"HTTP {response.status_code}")
    return Submitted(response.json()["id"], sent_at, post_s)


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
        done = [j for j in jobs.values() if j["status"] in ("succeeded", "failed")]
        if len(done) == len(ids) or time.monotonic() > deadline:
            return jobs
        time.sleep(0.25)


def _event_at(job: dict[str, Any], status: str) -> float | None:
    """Wall-clock time of the job's last ``status`` event."""
    times = [e["at"] for e in job["events"] if e["status"] == status]
    return datetime.fromisoformat(times[-1]).timestamp() if times else None


def _pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def run(jobs: int, concurrency: int, latency: float, warmup: int, timeout_s: float) -> int:
    logs = Path(tempfile.mkdtemp(prefix="evidex-bench-load-"))
    key = secrets.token_urlsafe(24)
    headers = {"Authorization": f"Bearer {key}"}
    print(
        f"bench.load: {jobs} jobs, worker concurrency {concurrency}, model latency {latency} s "
        f"(ideal {concurrency / latency:.1f} jobs/s); logs in {logs}"
    )
    with _redis() as (redis_url, queue), ConstantModel(invoice_reply(), latency) as model:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EVIDEX_", "OPENAI_"))} | {
            "EVIDEX_REDIS_URL": redis_url,
            "EVIDEX_DATA_DIR": str(logs / "data"),
            "EVIDEX_API_KEYS": f"bench={key}",
            "EVIDEX_RATE_LIMIT_PER_MINUTE": "1000000",
            "EVIDEX_JOB_RETENTION_S": "3600",
            "EVIDEX_LLM": "openai",
            "OPENAI_API_KEY": "sk-bench",
            "OPENAI_BASE_URL": model.base_url,
            "EVIDEX_LLM_TIMEOUT_S": str(max(30.0, latency * 10)),
            "EVIDEX_LLM_MAX_RETRIES": "0",  # a failure is a failure here, not a slow success
        }
        worker = [EVIDEX, "worker", "--concurrency", str(concurrency), "--loglevel", "WARNING"]
        if queue:
            worker += ["--queues", queue]
        port = _free_port()
        serve = [EVIDEX, "serve", "--port", str(port), "--log-level", "warning"]
        if queue:  # `evidex serve` enqueues on the default queue: serve the same app, our queue
            serve = [sys.executable, "-m", "bench.load", "--serve-api", str(port), queue]
        with (
            _process(worker, env, logs / "worker.log") as w,
            _process(serve, env | {"PYTHONPATH": str(ROOT)}, logs / "api.log") as api,
            httpx.Client(
                base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=120
            ) as client,
        ):
            _wait_up(client, [w, api], logs)
            if warmup:
                started = time.perf_counter()
                ids = {_submit(client, headers).id for _ in range(warmup)}
                warm = _wait_all(client, ids, timeout_s)
                bad = [j for j in warm.values() if j["status"] != "succeeded"]
                if bad or len(warm) < warmup:
                    raise SystemExit(f"warm-up failed: {bad or 'jobs missing'}; see {logs}")
                print(f"warm-up: {warmup} job(s) in {time.perf_counter() - started:.1f} s")
            calls_before = model.calls
            with ThreadPoolExecutor(max_workers=min(jobs, 64)) as pool:
                sent = list(pool.map(lambda _: _submit(client, headers), range(jobs)))
            by_id = {s.id: s for s in sent}
            final = _wait_all(client, set(by_id), timeout_s)
            calls = model.calls - calls_before
    return _report(sent, final, latency, concurrency, calls)


def _report(
    sent: list[Submitted],
    final: dict[str, dict[str, Any]],
    latency: float,
    concurrency: int,
    calls: int,
) -> int:
    ended: dict[str, tuple[float, float]] = {}  # id -> (running at, succeeded at)
    failures: Counter[str] = Counter()
    for s in sent:
        job = final.get(s.id)
        if not s.id:
            failures[f"submit {s.error}"] += 1
        elif job is None or job["status"] not in ("succeeded", "failed"):
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
    span = max(e for _, e in ended.values()) - min(s.sent_at for s in sent) if ended else math.nan
    rate = len(ended) / span if ended else 0.0
    ideal = concurrency / latency
    floor = math.ceil(len(sent) / concurrency) * latency  # the batch can't end sooner

    def ms(values: list[float], q: float) -> str:
        return f"{_pct(values, q) * 1000:.0f} ms"

    print(f"jobs: {len(sent)} submitted, {len(ended)} succeeded, {sum(failures.values())} failed")
    print(
        f"throughput: {rate:.2f} jobs/s ({len(ended)} jobs in {span:.2f} s, at best {floor:.2f} s)"
        f"; ideal C/L = {ideal:.1f} jobs/s; achieved/ideal = {rate / ideal:.2f}"
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
    print(f"model calls: {calls} for {len(sent)} jobs")
    print(f"failures: {dict(failures) if failures else 0}")
    return 0 if not failures and calls == len(sent) else 1


def serve_api(port: int, queue: str) -> int:
    """``evidex serve``'s app (``production_app``), but enqueueing on ``queue``."""
    import uvicorn
    from redis.asyncio import Redis

    from evidex.service.app import create_app
    from evidex.service.settings import ServiceSettings
    from evidex.workers.celery_app import make_celery
    from evidex.workers.factory import make_blob_store, make_job_store
    from evidex.workers.tasks import enqueue_job

    settings = ServiceSettings()
    celery = make_celery(settings)
    celery.conf.task_default_queue = queue
    app = create_app(
        settings,
        job_store=make_job_store(settings),
        blob_store=make_blob_store(settings),
        enqueue=lambda job_id: enqueue_job(celery, job_id),
        redis=Redis.from_url(settings.redis_url, socket_timeout=0.5, socket_connect_timeout=0.5),
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    return 0


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--serve-api"]:  # internal: the API process in EVIDEX_REDIS_URL mode
        return serve_api(int(argv[1]), argv[2])
    ap = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=60, help="jobs submitted at once (N)")
    ap.add_argument("--concurrency", type=int, default=16, help="worker threads (C)")
    ap.add_argument("--latency", type=float, default=0.5, help="model latency in seconds (L)")
    ap.add_argument("--warmup", type=int, default=2, help="jobs run before the measured batch")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the batch")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.concurrency < 1 or args.latency <= 0:
        ap.error("--jobs and --concurrency must be at least 1 and --latency above 0")
    return run(args.jobs, args.concurrency, args.latency, args.warmup, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
