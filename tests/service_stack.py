"""``evidex worker`` and ``evidex serve`` as real processes on a private Redis, for the test
modules that exercise the whole service (``test_service_kit``, ``test_hostile_input``)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from evidex.workers.localredis import LocalRedis

EVIDEX = str(Path(sys.executable).with_name("evidex"))
READY_S = 120.0  # an upper bound for start-up on a loaded machine, not a timing


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_service(tmp: Path, **variables: str) -> Iterator[str]:
    """A worker (4 threads) and the API on a private Redis, ready; yields the API's base URL.

    The environment is this process's without ``EVIDEX_*``/``OPENAI_*``, plus the Redis, a data
    directory under ``tmp`` and ``variables``; each process logs to ``tmp/<name>.log``.
    """
    port = free_port()
    with LocalRedis.start() as redis:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EVIDEX_", "OPENAI_"))}
        env.update(EVIDEX_REDIS_URL=redis.url, EVIDEX_DATA_DIR=str(tmp / "data"), **variables)
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for name, argv in (
                ("worker", [EVIDEX, "worker", "--concurrency", "4"]),
                ("api", [EVIDEX, "serve", "--port", str(port)]),
            ):
                with (tmp / f"{name}.log").open("wb") as out:
                    procs.append(
                        subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
                    )
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + READY_S
            while True:
                assert all(p.poll() is None for p in procs), (tmp / "api.log").read_text()
                assert time.monotonic() < deadline, "the service did not become ready"
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                        break
                time.sleep(0.5)
            yield base
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
