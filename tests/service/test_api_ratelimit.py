"""Per-key rate limits: in memory, in a real Redis, and failing open when Redis is down."""

from __future__ import annotations

import asyncio
import logging
import socket
import uuid

import pytest
import redis as sync_redis
from redis.asyncio import Redis
from test_api import ACME, GLOBEX, harness, problem

from evidex.service.ratelimit import MemoryRateLimiter, RedisRateLimiter

NOW = 60.0 * 20_000_000 + 30  # 30 s into a window: Retry-After is 30


def frozen() -> float:
    return NOW


def test_memory_limit_is_429_with_retry_after_per_key() -> None:
    with harness(limiter=MemoryRateLimiter(3, clock=frozen)) as api:
        for _ in range(3):
            assert api.client.get("/v1/jobs", headers=ACME).status_code == 200
        r = api.client.get("/v1/jobs", headers=ACME)
        body = problem(r, 429, "rate_limited")
        assert r.headers["retry-after"] == "30"
        assert "3 requests" in body["detail"]
        assert api.client.get("/v1/jobs", headers=GLOBEX).status_code == 200  # its own count
        assert api.client.get("/healthz").status_code == 200  # not limited


def test_memory_limit_resets_with_the_next_window() -> None:
    now = [NOW]
    with harness(limiter=MemoryRateLimiter(1, clock=lambda: now[0])) as api:
        assert api.client.get("/v1/schemas", headers=ACME).status_code == 200
        problem(api.client.get("/v1/schemas", headers=ACME), 429, "rate_limited")
        now[0] += 30
        assert api.client.get("/v1/schemas", headers=ACME).status_code == 200


def test_create_app_counts_in_redis_when_given_one(redis_url: str) -> None:
    client = Redis.from_url(redis_url)
    with harness(redis=client, rate_limit_per_minute=7) as api:
        limiter = api.client.app.state.services.limiter
        assert isinstance(limiter, RedisRateLimiter) and limiter.limit == 7
    asyncio.run(client.aclose())


def test_redis_limit_is_shared_and_expires(redis_url: str) -> None:
    prefix = f"evidex-test:{uuid.uuid4().hex}:"
    client = Redis.from_url(redis_url)
    limiter = RedisRateLimiter(client, 2, prefix=prefix, clock=frozen)
    try:
        with harness(redis=client, limiter=limiter) as api:
            assert api.client.get("/v1/jobs", headers=ACME).status_code == 200
            assert api.client.get("/v1/jobs", headers=ACME).status_code == 200
            r = api.client.get("/v1/jobs", headers=ACME)
            problem(r, 429, "rate_limited")
            assert r.headers["retry-after"] == "30"
        with harness(redis=client, limiter=limiter) as second_process:  # same Redis, same count
            problem(second_process.client.get("/v1/jobs", headers=ACME), 429, "rate_limited")
        inspect = sync_redis.Redis.from_url(redis_url)
        try:
            (name,) = inspect.keys(prefix + "*")
            assert int(inspect.get(name) or 0) == 4
            assert 0 < inspect.ttl(name) <= 65
            inspect.delete(name)
        finally:
            inspect.close()
    finally:
        asyncio.run(client.aclose())


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_redis_down_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    down = Redis.from_url(f"redis://127.0.0.1:{_closed_port()}/0", socket_connect_timeout=0.2)
    try:
        with (
            caplog.at_level(logging.WARNING, "evidex.service.ratelimit"),
            harness(redis=down, rate_limit_per_minute=1) as api,
        ):
            for _ in range(3):  # over the limit of 1, yet let through
                assert api.client.get("/v1/schemas", headers=ACME).status_code == 200
            assert api.client.get("/v1/jobs", headers={}).status_code == 401  # auth still holds
        warnings = [r for r in caplog.records if "cannot reach Redis" in r.getMessage()]
        assert len(warnings) == 3
    finally:
        asyncio.run(down.aclose())


def test_readyz_pings_redis(redis_url: str) -> None:
    up = Redis.from_url(redis_url)
    down = Redis.from_url(f"redis://127.0.0.1:{_closed_port()}/0", socket_connect_timeout=0.2)
    try:
        with harness(redis=up, worker_check=lambda: ["w1"]) as api:
            r = api.client.get("/readyz")
            assert r.status_code == 200 and r.json()["checks"]["redis"] == "ok"
        with harness(redis=down, worker_check=lambda: ["w1"]) as api:
            body = problem(api.client.get("/readyz"), 503, "not_ready")
            assert body["checks"]["redis"].startswith("failed: ")
            assert body["checks"]["workers"] == "ok: 1 live"
    finally:
        asyncio.run(up.aclose())
        asyncio.run(down.aclose())
