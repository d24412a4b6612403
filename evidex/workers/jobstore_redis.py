"""Job records in Redis: the production :class:`~evidex.workers.stores.JobStore`.

Keys (``prefix`` defaults to ``"evidex"``; the whole layout is :mod:`evidex.workers.rediskeys`):
the record ``{prefix}:job:{id}``, the tenant's index ``{prefix}:tenant:{tenant}:jobs``, the
idempotency key ``{prefix}:idem:{tenant}:{key}``, and, with ``due_after_s``, a new job's entry in
``{prefix}:due``, scored by the time its task must have been taken (leases.py).

Every write refreshes the TTL of the record, of its idempotency key and of the tenant index, so a
finished job lives ``retention_s`` from its last transition and the index outlives its records.
Index entries whose record expired are pruned when ``list`` meets them.

Atomicity, because two API processes and many workers share one Redis:

- ``create`` is one Lua script: ``SET NX`` on the idempotency key decides the winner; a loser
  gets the winner's record back; the record, the index entry and the key are written together.
- ``transition``, ``save`` and ``delete`` are optimistic transactions (``WATCH`` the record, read
  it, decide in Python, ``MULTI``/``EXEC``); a concurrent write to the record aborts the ``EXEC``
  and the attempt is re-run against the new state, so of two racing ``queued -> running`` only
  one succeeds.

Connection failures and timeouts become ``StoreUnavailable``. The scripts touch keys they derive
(the winner's record): fine on one Redis or a replicated pair, not on Redis Cluster.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import redis
from redis.client import Pipeline

from evidex.workers.jobs import Job, JobStatus
from evidex.workers.jobstore_base import page, score
from evidex.workers.redisdriver import driver_info
from evidex.workers.rediskeys import RedisKeys
from evidex.workers.stores import BaseJobStore, StoreUnavailable

__all__ = ["RedisJobStore"]

_T = TypeVar("_T")
_WEEK = 7 * 24 * 3600

_CREATE = """
local ttl = ARGV[2]
if #KEYS == 3 and not redis.call('SET', KEYS[3], ARGV[4], 'NX', 'EX', ttl) then
  local record = redis.call('GET', ARGV[5] .. redis.call('GET', KEYS[3]))
  if record then return {0, record} end
  redis.call('SET', KEYS[3], ARGV[4], 'EX', ttl) -- the first job expired: this one takes over
end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ttl) then
  if #KEYS == 3 then redis.call('DEL', KEYS[3]) end
  return {2, ''}
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[2], ttl)
if ARGV[6] ~= '' then redis.call('ZADD', ARGV[6], ARGV[7], ARGV[4]) end
return {1, ARGV[1]}
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError) as error:
        raise StoreUnavailable(f"Redis is unavailable: {error}") from error


class RedisJobStore(BaseJobStore):
    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "evidex",
        retention_s: int = _WEEK,
        due_after_s: float | None = None,
    ) -> None:
        if retention_s < 1:
            raise ValueError(f"retention_s must be at least 1 second, not {retention_s}")
        self.client = client
        self.prefix, self.keys = prefix, RedisKeys(prefix)
        self.retention_s = int(retention_s)
        self.due_after_s = due_after_s  # None: no due index (no sweeper watches these jobs)
        self._create = client.register_script(_CREATE)

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        prefix: str = "evidex",
        retention_s: int = _WEEK,
        due_after_s: float | None = None,
        **redis_kwargs: Any,
    ) -> RedisJobStore:
        """A store on a new client for ``url``; ``redis_kwargs`` go to ``redis.Redis``."""
        redis_kwargs.setdefault("socket_connect_timeout", 5.0)
        redis_kwargs.setdefault("socket_timeout", 5.0)
        redis_kwargs.setdefault("driver_info", driver_info())
        client = redis.Redis.from_url(url, **redis_kwargs)
        return cls(client, prefix=prefix, retention_s=retention_s, due_after_s=due_after_s)

    def _job_key(self, job_id: str) -> str:
        return self.keys.job(job_id)

    def _index_key(self, tenant: str) -> str:
        return self.keys.tenant_jobs(tenant)

    def _idem_key(self, tenant: str, key: str) -> str:
        return self.keys.idempotency(tenant, key)

    def _write(self, pipe: Pipeline, job: Job) -> None:
        """Queue the record and TTL refreshes (inside ``MULTI``)."""
        pipe.set(self._job_key(job.id), job.model_dump_json(), ex=self.retention_s)
        pipe.expire(self._index_key(job.tenant), self.retention_s)
        if job.idempotency_key:
            pipe.expire(self._idem_key(job.tenant, job.idempotency_key), self.retention_s)

    def create(self, job: Job) -> Job:
        keys = [self._job_key(job.id), self._index_key(job.tenant)]
        if job.idempotency_key:
            keys.append(self._idem_key(job.tenant, job.idempotency_key))
        record_json, created = job.model_dump_json(), score(job.created_at)
        args: list[str | int | float] = [
            record_json, self.retention_s, created, job.id, self._job_key(""), "", 0
        ]  # fmt: skip
        if self.due_after_s is not None:
            args[5:] = [self.keys.due, time.time() + self.due_after_s]
        with _translated():
            outcome, record = self._create(keys=keys, args=args)
        if int(outcome) == 2:
            raise ValueError(f"job {job.id} exists already")
        return Job.model_validate_json(record)

    def get(self, job_id: str) -> Job | None:
        with _translated():
            raw = self.client.get(self._job_key(job_id))
        return None if raw is None else Job.model_validate_json(raw)

    def _walk(self, index: str, after: tuple[int, str] | None, batch: int) -> Iterator[list[str]]:
        """The index's ids newest first, strictly after ``after``, in batches; no offsets, so
        jobs added or pruned meanwhile neither repeat nor hide others."""
        while True:
            ids: list[str] = []
            top = "+inf"
            if after is not None:
                ties = cast(list[bytes | str], self.client.zrangebyscore(index, after[0], after[0]))
                ids = sorted((i for i in map(_text, ties) if i < after[1]), reverse=True)
                top = f"({after[0]}"
            rows = cast(
                list[tuple[bytes | str, float]],
                self.client.zrevrangebyscore(
                    index, top, "-inf", start=0, num=batch, withscores=True
                ),
            )
            below = [(_text(member), int(value)) for member, value in rows]
            ids += [member for member, _ in below]
            if ids:
                yield ids
            if len(below) < batch:
                return
            after = (below[-1][1], below[-1][0])

    def _list_after(
        self, tenant: str, status: JobStatus | None, limit: int, after: tuple[int, str] | None
    ) -> tuple[list[Job], str | None]:
        index = self._index_key(tenant)
        found: list[Job] = []
        expired: list[str] = []
        with _translated():
            for ids in self._walk(index, after, batch=min(max(limit + 1, 20), 500)):
                records = self.client.mget([self._job_key(i) for i in ids])
                expired += [i for i, raw in zip(ids, records, strict=True) if raw is None]
                jobs = (Job.model_validate_json(raw) for raw in records if raw is not None)
                found += [j for j in jobs if status is None or j.status == status]
                if len(found) > limit:
                    break
            if expired:  # their records expired: drop them from the index
                self.client.zrem(index, *expired)
        return page(found, status, limit)

    def _atomically(self, key: str, attempt: Callable[[Pipeline], _T]) -> _T:
        """Run ``attempt`` with ``key`` watched and EXEC what it queued after ``multi()``;
        when another client wrote a watched key meanwhile, re-run it on the new state."""
        with _translated(), self.client.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]
                    value = attempt(pipe)
                    pipe.execute()
                    return value
                except redis.WatchError:
                    continue

    def _update(self, job_id: str, change: Callable[[Job | None], Job | None]) -> Job | None:
        key = self._job_key(job_id)

        def attempt(pipe: Pipeline) -> Job | None:
            raw = pipe.get(key)
            updated = change(None if raw is None else Job.model_validate_json(raw))
            if updated is not None:
                pipe.multi()
                self._write(pipe, updated)
            return updated

        return self._atomically(key, attempt)

    def delete(self, job_id: str) -> None:
        key = self._job_key(job_id)

        def attempt(pipe: Pipeline) -> None:
            raw = pipe.get(key)
            if raw is None:
                return
            job = Job.model_validate_json(raw)
            idem = self._idem_key(job.tenant, job.idempotency_key or "")
            owner = None
            if job.idempotency_key:
                pipe.watch(idem)  # type: ignore[no-untyped-call]
                owner = pipe.get(idem)
            pipe.multi()
            pipe.delete(key)
            pipe.zrem(self._index_key(job.tenant), job_id)
            if owner is not None and _text(owner) == job_id:
                pipe.delete(idem)

        self._atomically(key, attempt)
