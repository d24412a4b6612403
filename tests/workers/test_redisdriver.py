"""Every Redis client evidex builds names itself to the server without looking its own version
up again for each connection it opens."""

from __future__ import annotations

import pytest
import redis
import redis.utils

from evidex.workers.budget import Budget
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.metrics import RedisMetrics
from evidex.workers.redisdriver import driver_info


def test_connections_name_the_client_with_the_version_looked_up_once(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = driver_info()
    assert (shared.name, shared.lib_version) == ("redis-py", redis.utils.get_lib_version())

    def looked_up_again() -> str:
        raise AssertionError("redis-py's version was looked up for a new connection")

    monkeypatch.setattr(redis.utils, "get_lib_version", looked_up_again)
    clients = [
        RedisJobStore.from_url(redis_url).client,
        RedisMetrics.from_url(redis_url).client,
        Budget.from_url(redis_url, 1000)._client,
    ]
    try:
        for client in clients:
            assert client.connection_pool.connection_kwargs["driver_info"] is shared
            assert client.ping()  # a new connection, named (CLIENT SETINFO from Redis 7.2 on)
    finally:
        for client in clients:
            client.close()
