"""Fixtures the worker tests share: a client of the test Redis (``redis_url``) and a key
prefix of one test, everything under it removed afterwards; and for the fault tests
(:mod:`fault_stack`), a fake model server, a private Redis of their own and the processes they
start, killed afterwards."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from fake_openai import FakeOpenAI
from fault_stack import KEYS, Processes
from service_stack import AofRedis


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def prefix(redis_client: redis.Redis) -> Iterator[str]:
    """A random key prefix per test; every key under it is removed afterwards."""
    name = f"evidex-test-{uuid.uuid4().hex[:10]}"
    yield name
    keys = list(redis_client.scan_iter(match=f"{name}*"))
    if keys:
        redis_client.delete(*keys)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[AofRedis]:
    server = AofRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def procs(tmp_path: Path, private_redis: AofRedis, fake: FakeOpenAI) -> Iterator[Processes]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("EVIDEX_", "OPENAI_", "CELERY_"))
    }
    env.update(
        EVIDEX_REDIS_URL=private_redis.url,
        EVIDEX_DATA_DIR=str(tmp_path / "data"),
        EVIDEX_API_KEYS=",".join(f"{tenant}={key}" for tenant, key in KEYS.items()),
        EVIDEX_RATE_LIMIT_PER_MINUTE="100000",  # the tests poll; the limit is tested elsewhere
        EVIDEX_LLM="openai",
        OPENAI_API_KEY="sk-local",
        OPENAI_BASE_URL=fake.base_url,
        EVIDEX_LLM_BACKOFF_S="0.05",
    )
    processes = Processes(tmp_path, env)
    try:
        yield processes
    finally:
        processes.kill_all()
