"""Suite-wide guards: no test reaches the network beyond this machine, or reads real keys."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from evidex.workers.localredis import LocalRedis, reachable

_LOCAL = ("127.", "::1", "localhost")
_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else str(address)
    if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOCAL):
        raise RuntimeError(f"tests must not reach the network (tried {host!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network_no_keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "EVIDEX_LLM",
        "EVIDEX_MODEL",
        "EVIDEX_OPENAI_API",
        "EVIDEX_CONTEXT_TOKENS",
        "AZURE_OPENAI_ENDPOINT",
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_AD_TOKEN",
        "OPENAI_API_VERSION",
        "EVIDEX_MCP_ROOTS",
    ):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis for integration tests: $EVIDEX_TEST_REDIS_URL, else database 15 of the local
    Redis on 6379, else a private redis-server started for this session. Tests namespace their
    keys (a random prefix or queue name) so they never touch data of other users of the server."""
    configured = os.environ.get("EVIDEX_TEST_REDIS_URL")
    if configured:
        yield configured
    elif reachable("redis://127.0.0.1:6379/0"):
        yield "redis://127.0.0.1:6379/15"
    else:
        with LocalRedis.start() as local:
            yield local.url.rsplit("/", 1)[0] + "/15"
