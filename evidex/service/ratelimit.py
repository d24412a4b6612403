"""Request limits: a fixed one-minute window, per API key or per client address.

Each request increments the counter of (key, current minute); over the limit the request is
refused with 429 and ``Retry-After`` (seconds to the next window). ``/v1`` counts per API key
(its guard, :func:`evidex.service.auth.require_api_key`); what answers without an API key and
does work for it -- a review link's page, images and decisions, ``/metrics`` -- counts per client
address with :func:`per_address`, so guessing tokens or hammering a link costs the guesser its own
quota. An IPv6 client is counted per /64, the block one subscriber usually holds; behind a reverse
proxy the address is the one uvicorn takes from ``X-Forwarded-For`` of the proxies it trusts
(``FORWARDED_ALLOW_IPS``), else every client counts as the proxy. A fixed window lets a client
burst up to twice the limit across a window boundary; that is accepted for its simplicity (one
INCR and one EXPIRE, atomic in a small script: one command a request, at half the client CPU of
the four a MULTI pipeline sends).

``RedisRateLimiter`` shares the count between every API process. It **fails open**: if Redis
cannot be reached the request goes through and a warning is logged, because a brief Redis
outage must not take the whole API down with it (job submission still needs Redis, and fails on
its own terms). ``MemoryRateLimiter`` counts per process, for tests and single-process use.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import anyio.to_thread
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Guard
from redis.asyncio import Redis
from redis.exceptions import RedisError

from evidex.service.problems import ApiError

__all__ = [
    "Decision",
    "MemoryRateLimiter",
    "RateLimiter",
    "RedisRateLimiter",
    "address_key",
    "per_address",
]

log = logging.getLogger(__name__)
WINDOW_S = 60

# KEYS: the window's counter. ARGV: its time to live in seconds. The count after this request.
_HIT = """
local count = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return count
"""


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    remaining: int
    retry_after: int  # seconds until the window resets


class RateLimiter(Protocol):
    limit: int

    async def hit(self, key: str) -> Decision:
        """Count one request for ``key`` (an API-key hash, a client address) and say whether
        it may proceed."""
        ...


def _window(clock: Callable[[], float]) -> tuple[int, int]:
    """The current window number and the seconds left in it (at least 1)."""
    now = clock()
    window = int(now // WINDOW_S)
    return window, max(1, int((window + 1) * WINDOW_S - now + 0.999))


def _decide(count: int, limit: int, retry_after: int) -> Decision:
    return Decision(count <= limit, max(0, limit - count), retry_after)


class MemoryRateLimiter:
    """Counts in this process only."""

    def __init__(self, limit: int, clock: Callable[[], float] = time.time) -> None:
        self.limit = limit
        self._clock = clock
        self._counts: dict[str, tuple[int, int]] = {}
        self._current = 0
        self._lock = threading.Lock()

    async def hit(self, key: str) -> Decision:
        window, retry_after = _window(self._clock)
        with self._lock:
            if window != self._current:  # counts of past windows mean nothing: forget them
                self._counts, self._current = {}, window
            seen_window, count = self._counts.get(key, (window, 0))
            count = count + 1 if seen_window == window else 1
            self._counts[key] = (window, count)
        return _decide(count, self.limit, retry_after)


class RedisRateLimiter:
    """Counts in Redis under ``{prefix}{key}:{window}``, expiring with the window."""

    def __init__(
        self,
        redis: Redis,
        limit: int,
        *,
        prefix: str = "evidex:ratelimit:",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limit = limit
        self._redis = redis
        self._prefix = prefix
        self._clock = clock
        self._hit = redis.register_script(_HIT)

    async def hit(self, key: str) -> Decision:
        window, retry_after = _window(self._clock)
        name = f"{self._prefix}{key}:{window}"
        try:
            count = await self._hit(keys=[name], args=[WINDOW_S + 5])
        except (RedisError, OSError) as exc:
            log.warning("rate limiter cannot reach Redis (%s); letting the request through", exc)
            return Decision(True, self.limit, retry_after)
        return _decide(int(count), self.limit, retry_after)


def address_key(host: str | None) -> str:
    """The key a client address is counted under: the address, an IPv6 one as its /64."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # not an IP (a test client, a Unix socket): the name as it is
        return host[:100]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is the IPv4 client it names
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def per_address(limiter: RateLimiter) -> Guard:
    """A guard counting each request against ``limiter`` under its client's address; over the
    limit it answers 429 ``rate_limited`` with ``Retry-After`` before the route does any work."""

    async def guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
        client = connection.client
        decision = await limiter.hit(address_key(client.host if client else None))
        if decision.allowed:
            return
        metrics = connection.app.state.services.metrics
        if metrics is not None:
            await anyio.to_thread.run_sync(metrics.inc, "evidex_rate_limit_hits")
        raise ApiError(
            "rate_limited",
            f"more than {limiter.limit} requests in a minute from this address; "
            f"retry after {decision.retry_after} s",
            headers={"Retry-After": str(decision.retry_after)},
        )

    return guard
