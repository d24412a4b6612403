"""kombu's Redis transport, made to survive losing Redis while tasks are unacknowledged.

Why: when the broker connection drops while a worker holds unacknowledged messages (a job is
running), Celery closes the connection, and the Redis channel's ``close`` tries to put those
messages back in the queue -- through a connection that is already gone. kombu 5.x then fails
with ``AttributeError: 'NoneType' object has no attribute 'hostname'`` instead of a connection
error, Celery treats it as unrecoverable, and the worker process *exits* on every Redis restart.

Here the channel raises a ``redis.ConnectionError`` in that case, which Celery expects and
ignores: the worker reconnects and carries on. The messages that could not be put back stay in
Redis's ``unacked`` set (the visibility timeout restores them) and, sooner, the job's lease and
the sweeper (``sweeper.py``) take care of any job left behind.

Its connections also carry the process's :func:`~evidex.workers.redisdriver.driver_info`, so
opening one does not look redis-py's version up again.

Used through ``broker_transport`` (``make_celery``); URLs stay ``redis://``.
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis

from evidex.workers.redisdriver import driver_info

__all__ = ["TRANSPORT", "Channel", "Transport"]

TRANSPORT = "evidex.workers.broker:Transport"


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        if self.connection.client is None:  # closed under us: the broker was lost
            raise redis.ConnectionError("the broker connection is closed")
        params = super()._connparams(asynchronous)  # type: ignore[misc]
        params.setdefault("driver_info", driver_info())
        return params


class Transport(kombu_redis.Transport):
    Channel = Channel
