"""Per-API-key request limits: a fixed one-minute window.

Each request increments the counter of (key hash, current minute); over the limit the request is
refused with 429 and ``Retry-After`` (seconds to the next window). A fixed window lets a client
burst up to twice the limit across a window boundary; that is accepted for its simplicity (one
INCR and one EXPIRE, atomic in a small script: one command a request, at half the client CPU of
the four a MULTI pipeline sends).

``RedisRateLimiter`` shares the count between every API process. It **fails open**: if Redis
cannot be reached the request goes through and a warning is logged, because a brief Redis
outage must not take the whole API down with it (job submission still needs Redis, and fails on
its own terms). ``MemoryRateLimiter`` counts per process, for tests and single-process use.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

__all__ = ["Decision", "MemoryRateLimiter", "RateLimiter", "RedisRateLimiter"]

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
        """Count one request for ``key`` (an API-key hash) and say whether it may proceed."""
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
        self._lock = threading.Lock()

    async def hit(self, key: str) -> Decision:
        window, retry_after = _window(self._clock)
        with self._lock:
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
