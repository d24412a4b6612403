"""Leases: which worker runs a job right now, and by when each unfinished job must show progress.

Why: with late acknowledgement a task whose worker dies is handed back by Redis only after the
broker's visibility timeout (an hour by default, and it cannot be short: it must exceed the
longest run plus its retry delays). A lease is short and renewed by a heartbeat that does not
wait on the model call, so a dead worker is noticed within ``lease_ttl_s`` whatever its jobs
were doing; the sweeper (:mod:`evidex.workers.sweeper`) then sends those jobs again.

Keys (``prefix`` is the job store's, ``evidex`` by default; the whole layout is
:mod:`evidex.workers.rediskeys`): a job's lease ``{prefix}:lease:{job_id}`` (the owner token of
the worker running it, expiring ``ttl_s`` after its last renewal), the due index ``{prefix}:due``
(job id -> unix time by which the job must have moved on: ended, or its lease renewed; past it,
the sweeper looks), ``{prefix}:sweeper`` (which worker sweeps now) and ``{prefix}:ran:{owner}``
(the jobs a worker is running; a dead worker's set keeps the jobs that died with it, for
``RAN_KEEP_S``, so a job found running tells a worker that died in its run from one that handed
it back alive, and a job lost twice whether another job shared both deaths).

Who writes ``due``: the job store when a job is created (``RedisJobStore(due_after_s=...)``, in
the same script as the record, so no job exists without it); the heartbeat for every job its
worker runs or holds prefetched; the task when it schedules a retry (the retry's delay plus the
lease time); the sweeper when it has sent a job again. A job that ends is dropped from it by the
sweeper the next time it looks.

Ownership is fenced: :meth:`Leases.hold` takes the lease before a delivery touches the job (a
second delivery of a job whose lease is alive does nothing), and :meth:`Leases.confirm` renews it
-- or takes it back when it expired and nobody else took it -- right before each step that must
happen once (the model call, storing the result, the final state change). A worker that lost its
lease (stalled past ``ttl_s`` and another worker took the job over) gets :class:`LeaseLost` and
drops the run without writing anything.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import redis

from evidex.schemas import ConfigError
from evidex.workers.budget import Budget, Reservation
from evidex.workers.jobs import Job, JobStatus
from evidex.workers.rediskeys import RedisKeys
from evidex.workers.stores import BlobStore, JobStore, StoreUnavailable

__all__ = [
    "RAN_KEEP_S",
    "FencedBlobs",
    "FencedBudget",
    "FencedJobs",
    "LeaseLost",
    "Leases",
    "check_lease_settings",
    "new_owner",
]

log = logging.getLogger(__name__)

RAN_KEEP_S = 86_400  # how long a dead worker's list of the jobs it was running is kept

# KEYS: lease. ARGV: owner, ttl ms. 1: ours (renewed) or free (taken back); 0: another's.
_CONFIRM = """
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] or not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# KEYS: lease. ARGV: owner. Deletes the lease only when it is ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# KEYS: a broker queue list. ARGV: a task id. Moves the newest message of that task to the end
# the workers pop next (kombu's Redis transport LPUSHes new messages and BRPOPs from the right).
_TO_FRONT = """
local needle = '"id": "' .. ARGV[1] .. '"'
local items = redis.call('LRANGE', KEYS[1], 0, -1)
for i = 1, #items do
  if string.find(items[i], needle, 1, true) then
    redis.call('LREM', KEYS[1], 1, items[i])
    redis.call('RPUSH', KEYS[1], items[i])
    return 1
  end
end
return 0
"""

T = TypeVar("T")

_DOWN = (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError, StoreUnavailable)


def new_owner() -> str:
    """A token naming this worker process: ``host:pid:random``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def check_lease_settings(ttl_s: float, heartbeat_s: float, sweep_s: float) -> None:
    """Raise :class:`ConfigError` unless a heartbeat renews a lease at least twice per TTL."""
    if heartbeat_s * 2 > ttl_s:
        raise ConfigError(
            f"EVIDEX_HEARTBEAT_S={heartbeat_s} must be at most half of EVIDEX_LEASE_TTL_S="
            f"{ttl_s}, or one late heartbeat hands a running job to a second worker"
        )
    if sweep_s <= 0:
        raise ConfigError(f"EVIDEX_SWEEP_INTERVAL_S={sweep_s} must be above 0")


class LeaseLost(BaseException):
    """Another worker took this job over: drop the run, write nothing.

    A ``BaseException``, so the runner's ``except Exception`` (which would record a failure on the
    job, now another worker's) lets it through to the task, which simply returns.
    """


class Leases:
    """Leases and the due index on one Redis (see the module docstring)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "evidex",
        ttl_s: float = 30.0,
        owner: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client, self.prefix, self.ttl_s = client, prefix, float(ttl_s)
        self.keys = RedisKeys(prefix)
        self.owner = owner or new_owner()
        self.clock = clock
        self._confirm = client.register_script(_CONFIRM)
        self._release = client.register_script(_RELEASE)
        self._to_front = client.register_script(_TO_FRONT)
        self._held: set[str] = set()
        self._lost: set[str] = set()
        self._lock = threading.Lock()

    # -- keys ---------------------------------------------------------------------------------

    def lease_key(self, job_id: str) -> str:
        return self.keys.lease(job_id)

    @property
    def due_key(self) -> str:
        return self.keys.due

    def ran_key(self, owner: str) -> str:
        return self.keys.ran(owner)

    @property
    def ttl_ms(self) -> int:
        return max(1, round(self.ttl_s * 1000))

    # -- one lease ------------------------------------------------------------------------------

    def acquire(self, job_id: str) -> bool:
        """Take the job's lease unless another worker holds a live one."""
        return bool(self._confirm(keys=[self.lease_key(job_id)], args=[self.owner, self.ttl_ms]))

    def owner_of(self, job_id: str) -> str | None:
        raw = self.client.get(self.lease_key(job_id))
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    def release(self, job_id: str) -> None:
        self._release(keys=[self.lease_key(job_id)], args=[self.owner])

    @contextmanager
    def hold(self, job_id: str) -> Iterator[bool]:
        """Hold the job's lease for the block (renewed by :meth:`renew_held`); yields False, and
        holds nothing, when another worker's lease on the job is alive."""
        with self._lock:
            if job_id in self._held:  # a second delivery to this very process
                busy = True
            else:
                busy = False
                self._held.add(job_id)
                self._lost.discard(job_id)
        if busy:
            yield False
            return
        try:
            taken = self.acquire(job_id)
        except BaseException:
            with self._lock:
                self._held.discard(job_id)
            raise
        if not taken:
            with self._lock:
                self._held.discard(job_id)
            yield False
            return
        self._running(job_id, True)
        try:
            yield True
        finally:
            with self._lock:
                self._held.discard(job_id)
                lost = job_id in self._lost
                self._lost.discard(job_id)
            self._running(job_id, False)
            if not lost:
                try:
                    self.release(job_id)
                except _DOWN:  # it expires on its own
                    log.warning("job %s: the lease could not be released; it expires", job_id)

    def _running(self, job_id: str, running: bool) -> None:
        """Add the job to this worker's ``ran`` set, or take it out once the run has left.

        Best effort when adding: without it a job lost twice is blamed as if it had been alone,
        and a death here is not counted. Taking it out waits for Redis (up to the lease time, as
        :meth:`confirm`): a run that hands its job back because a store was down leaves while
        Redis is away, and a job still in a live worker's set would count as lost with it when
        its next delivery comes from the sweeper (see :meth:`was_running`)."""
        key = self.ran_key(self.owner)
        try:
            if running:
                with self.client.pipeline(transaction=False) as pipe:
                    pipe.sadd(key, job_id)
                    pipe.expire(key, RAN_KEEP_S)
                    pipe.execute()
            else:
                self._when_up(lambda: self.client.srem(key, job_id), self.ttl_s)
        except _DOWN:
            log.warning("job %s: this worker's list of running jobs was not updated", job_id)

    def was_running(self, owner: str, job_id: str) -> bool:
        """Whether ``owner`` never left its run of ``job_id``: the job is still in its ``ran``
        set, so that worker died or stalled mid-run. A worker that handed the job back (a store
        was down, its retry message lost with a broker restart or a killed worker) took it out."""
        return bool(self.client.sismember(self.ran_key(owner), job_id))

    def ran_together(self, owners: list[str]) -> set[str]:
        """The jobs that were running on every one of ``owners`` (workers that died or stalled)
        when they stopped, as far as their ``ran`` sets still say."""
        if not owners:
            return set()
        raw = self.client.sinter([self.ran_key(o) for o in owners])
        return {r.decode() if isinstance(r, bytes) else str(r) for r in raw}

    def confirm(self, job_id: str, wait_s: float | None = None) -> None:
        """Renew the lease right before a step that must happen once; :class:`LeaseLost` when
        another worker holds it. While Redis does not answer, wait (up to ``wait_s``, default
        the lease time: a restart is bridged) before giving up with :class:`StoreUnavailable`."""
        ours = self._when_up(lambda: self.acquire(job_id), self.ttl_s if wait_s is None else wait_s)
        if not ours:
            with self._lock:
                self._lost.add(job_id)
            raise LeaseLost(job_id)

    @staticmethod
    def _when_up(step: Callable[[], T], wait_s: float) -> T:
        """``step()``, tried again every 0.25 s while Redis does not answer, for up to ``wait_s``;
        then :class:`StoreUnavailable`."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                return step()
            except _DOWN as exc:
                if time.monotonic() >= deadline:
                    raise StoreUnavailable(f"Redis is unavailable: {exc}") from exc
                time.sleep(0.25)

    def renew_held(self) -> list[str]:
        """Renew every lease this process holds (the heartbeat); the jobs whose lease another
        worker took meanwhile (their runs will stop at their next :meth:`confirm`)."""
        with self._lock:
            held = sorted(self._held - self._lost)
        if not held:
            return []
        with self.client.pipeline(transaction=False) as pipe:
            for job_id in held:
                key = self.lease_key(job_id)
                self._confirm(keys=[key], args=[self.owner, self.ttl_ms], client=pipe)
            outcomes = pipe.execute()
        lost = [job_id for job_id, ok in zip(held, outcomes, strict=True) if not ok]
        if lost:
            with self._lock:
                self._lost.update(lost)
        return lost

    def held(self) -> list[str]:
        with self._lock:
            return sorted(self._held)

    # -- the due index -------------------------------------------------------------------------

    def set_due(self, job_ids: list[str] | str, in_s: float) -> None:
        """Expect progress on ``job_ids`` within ``in_s`` seconds from now."""
        ids = [job_ids] if isinstance(job_ids, str) else job_ids
        if ids:
            at = self.clock() + in_s
            self.client.zadd(self.due_key, dict.fromkeys(ids, at))

    def clear_due(self, job_id: str) -> None:
        self.client.zrem(self.due_key, job_id)

    def overdue(self, limit: int = 200) -> list[str]:
        """Job ids whose due time has passed, earliest first."""
        raw = self.client.zrangebyscore(self.due_key, "-inf", self.clock(), start=0, num=limit)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in raw]

    def due_at(self, job_id: str) -> float | None:
        score = self.client.zscore(self.due_key, job_id)
        return None if score is None else float(score)

    def to_front(self, queue_key: str, job_id: str) -> bool:
        """Move the job's newest message in the broker list ``queue_key`` to be taken next: a
        job sent again has waited its turn once already."""
        return bool(self._to_front(keys=[queue_key], args=[job_id]))

    def try_sweep(self, hold_s: float) -> bool:
        """Whether this worker may sweep now (one sweeper at a time, for ``hold_s``)."""
        key = self.keys.sweeper
        return bool(self.client.set(key, self.owner, nx=True, px=max(1, round(hold_s * 1000))))


# -- fences: the stores a leased run writes through -----------------------------------------------


class FencedJobs:
    """A :class:`JobStore` whose writes first :meth:`Leases.confirm` the job's lease."""

    def __init__(self, inner: JobStore, leases: Leases, job_id: str) -> None:
        self.inner, self.leases, self.job_id = inner, leases, job_id

    def create(self, job: Job) -> Job:
        return self.inner.create(job)

    def get(self, job_id: str) -> Job | None:
        return self.inner.get(job_id)

    def list(
        self,
        tenant: str,
        status: JobStatus | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[Job], str | None]:
        return self.inner.list(tenant, status, limit, cursor)

    def transition(
        self,
        job_id: str,
        expected: frozenset[JobStatus],
        new: JobStatus,
        detail: str = "",
        **changes: object,
    ) -> Job | None:
        if job_id == self.job_id:
            self.leases.confirm(job_id)
        return self.inner.transition(job_id, expected, new, detail, **changes)

    def save(self, job: Job) -> None:
        if job.id == self.job_id:
            self.leases.confirm(job.id)
        self.inner.save(job)

    def delete(self, job_id: str) -> None:
        self.inner.delete(job_id)


class FencedBudget(Budget):
    """The job's :class:`Budget` whose reservation and settlement first confirm the lease (a
    worker that lost the job must not release the reservation its new owner reuses)."""

    def __init__(self, inner: Budget, leases: Leases, job_id: str) -> None:
        vars(self).update(vars(inner))  # the same client, limit, prefix and scripts
        self._leases, self._job_id = leases, job_id

    def reserve(self, tenant: str, job_id: str, tokens: int) -> Reservation:
        self._leases.confirm(self._job_id)
        return super().reserve(tenant, job_id, tokens)

    def settle(self, tenant: str, job_id: str, used: int | None) -> int:
        self._leases.confirm(self._job_id)
        return super().settle(tenant, job_id, used)


class FencedBlobs:
    """A :class:`BlobStore` whose writes first :meth:`Leases.confirm` the job's lease."""

    def __init__(self, inner: BlobStore, leases: Leases, job_id: str) -> None:
        self.inner, self.leases, self.job_id = inner, leases, job_id

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        self.leases.confirm(self.job_id)
        self.inner.put(key, data, content_type)

    def get(self, key: str) -> bytes:
        return self.inner.get(key)

    def delete(self, key: str) -> None:
        self.leases.confirm(self.job_id)
        self.inner.delete(key)

    def exists(self, key: str) -> bool:
        return self.inner.exists(key)
