"""An in-memory :class:`~evidex.workers.stores.JobStore`: the shipped fake, and the reference.

Same semantics as ``jobstore_redis`` (the contract tests run over both), under one lock:

- ``create`` with an ``idempotency_key`` returns the tenant's first job for that key;
- ``list`` is newest first, ties broken by id, with an opaque ``"<created µs>:<id>"`` cursor, so
  pages never repeat or skip a job even while new jobs arrive;
- ``transition`` is a compare-and-set on ``status`` that appends a ``JobEvent``;
- ``save`` cannot undo a transition: it keeps the stored ``status`` and ``events`` and the
  fields the store is keyed on (see :data:`KEPT_ON_SAVE`);
- with ``retention_s``, a record expires that long after its last write.

The small pure helpers below are shared with the Redis backend so both apply a transition, a
save and a cursor in exactly the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from evidex.workers.jobs import Job, JobEvent, JobStatus, now

__all__ = [
    "KEPT_ON_SAVE",
    "MemoryJobStore",
    "apply_transition",
    "check_changes",
    "decode_cursor",
    "encode_cursor",
    "merge_save",
    "page",
    "score",
]

KEPT_ON_SAVE = frozenset({"id", "tenant", "created_at", "idempotency_key", "status", "events"})
"""Fields ``save`` takes from the stored record: identity, index keys and CAS-owned state."""

_NOT_CHANGEABLE = KEPT_ON_SAVE | {"updated_at"}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def score(created_at: datetime) -> int:
    """Microseconds since the epoch: the sort key of a job (exact in a Redis float score)."""
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    return (created_at - _EPOCH) // timedelta(microseconds=1)


def encode_cursor(job: Job) -> str:
    return f"{score(job.created_at)}:{job.id}"


def decode_cursor(cursor: str) -> tuple[int, str]:
    value, _, job_id = cursor.partition(":")
    if not job_id or not value.isdigit():
        raise ValueError(f"invalid cursor {cursor!r}: pass back a next_cursor unchanged")
    return int(value), job_id


def check_changes(changes: dict[str, object]) -> None:
    """Reject ``transition`` changes to unknown fields or to fields the store owns."""
    bad = sorted(set(changes) - set(Job.model_fields) | set(changes) & _NOT_CHANGEABLE)
    if bad:
        raise ValueError(f"transition cannot change {', '.join(bad)}")


def apply_transition(job: Job, new: JobStatus, changes: dict[str, object]) -> Job:
    """The job moved to ``new``, with ``changes`` applied (validated) and an event appended."""
    at = now()
    data = job.model_dump()
    data.update(changes)
    data.update(status=new, updated_at=at, events=[*job.events, JobEvent(status=new, at=at)])
    return Job.model_validate(data)


def merge_save(stored: Job, job: Job) -> Job:
    """``job`` as ``save`` writes it over ``stored``."""
    kept = {name: getattr(stored, name) for name in KEPT_ON_SAVE}
    return job.model_copy(deep=True, update={**kept, "updated_at": now()})


def _order(job: Job) -> tuple[int, str]:
    return score(job.created_at), job.id


def page(jobs: Iterable[Job], status: JobStatus | None, limit: int) -> tuple[list[Job], str | None]:
    """The first ``limit`` jobs (in the given order) with ``status``, and the next cursor."""
    found: list[Job] = []
    for job in jobs:
        if status is None or job.status == status:
            found.append(job)
            if len(found) > limit:
                return found[:limit], encode_cursor(found[limit - 1])
    return found, None


class MemoryJobStore:
    def __init__(
        self, retention_s: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.retention_s = retention_s
        self._clock = clock
        self._jobs: dict[str, Job] = {}
        self._expires: dict[str, float] = {}
        self._idem: dict[tuple[str, str], str] = {}
        self._lock = threading.RLock()

    def _purge(self) -> None:
        moment = self._clock()
        for job_id in [i for i, deadline in self._expires.items() if deadline <= moment]:
            self._remove(job_id)

    def _remove(self, job_id: str) -> None:
        job = self._jobs.pop(job_id, None)
        self._expires.pop(job_id, None)
        if job is not None and job.idempotency_key is not None:
            idem = (job.tenant, job.idempotency_key)
            if self._idem.get(idem) == job_id:
                del self._idem[idem]

    def _write(self, job: Job) -> None:
        self._jobs[job.id] = job.model_copy(deep=True)
        if self.retention_s is not None:
            self._expires[job.id] = self._clock() + self.retention_s

    def create(self, job: Job) -> Job:
        with self._lock:
            self._purge()
            idem = (job.tenant, job.idempotency_key) if job.idempotency_key else None
            if idem is not None and idem in self._idem:
                return self._jobs[self._idem[idem]].model_copy(deep=True)
            if job.id in self._jobs:
                raise ValueError(f"job {job.id} exists already")
            self._write(job)
            if idem is not None:
                self._idem[idem] = job.id
            return job.model_copy(deep=True)

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            self._purge()
            job = self._jobs.get(job_id)
            return None if job is None else job.model_copy(deep=True)

    def list(
        self,
        tenant: str,
        status: JobStatus | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[Job], str | None]:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        after = decode_cursor(cursor) if cursor else None
        with self._lock:
            self._purge()
            mine = sorted(
                (j for j in self._jobs.values() if j.tenant == tenant), key=_order, reverse=True
            )
            jobs, next_cursor = page(
                (j for j in mine if after is None or _order(j) < after), status, limit
            )
            return [j.model_copy(deep=True) for j in jobs], next_cursor

    def transition(
        self, job_id: str, expected: frozenset[JobStatus], new: JobStatus, **changes: object
    ) -> Job | None:
        check_changes(changes)
        with self._lock:
            self._purge()
            job = self._jobs.get(job_id)
            if job is None or job.status not in expected:
                return None
            updated = apply_transition(job, new, changes)
            self._write(updated)
            return updated.model_copy(deep=True)

    def save(self, job: Job) -> None:
        with self._lock:
            self._purge()
            stored = self._jobs.get(job.id)
            if stored is not None:  # a deleted or expired job stays gone
                self._write(merge_save(stored, job))

    def delete(self, job_id: str) -> None:
        with self._lock:
            self._remove(job_id)
