"""Fixtures the worker tests share: a client of the test Redis (``redis_url``) and a key
prefix of one test, everything under it removed afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis


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
