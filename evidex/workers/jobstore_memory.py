"""An in-memory :class:`~evidex.workers.stores.JobStore`: the shipped fake, and the reference.

Same semantics as ``jobstore_redis`` (the contract tests run over both), under one lock:

- ``create`` with an ``idempotency_key`` returns the tenant's first job for that key;
- ``list`` is newest first, ties broken by id, with an opaque ``"<created µs>:<id>"`` cursor, so
  pages never repeat or skip a job even while new jobs arrive;
- ``transition`` is a compare-and-set on ``status`` that appends a ``JobEvent``;
- ``save`` cannot undo a transition: it keeps the stored ``status`` and ``events`` and the
  fields the store is keyed on (see :data:`KEPT_ON_SAVE`);
- with ``retention_s``, a record expires that long after its last write.

``list``, ``transition`` and ``save`` come from :class:`~evidex.workers.stores.BaseJobStore`
and the pure helpers in :mod:`.jobstore_base`, shared with the Redis backend so both apply a
transition, a save and a cursor in exactly the same way; this module only reads and writes the
records under its lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from evidex.workers.jobs import Job, JobStatus
from evidex.workers.jobstore_base import order_key, page
from evidex.workers.stores import BaseJobStore

__all__ = ["MemoryJobStore"]


class MemoryJobStore(BaseJobStore):
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

    def _list_after(
        self, tenant: str, status: JobStatus | None, limit: int, after: tuple[int, str] | None
    ) -> tuple[list[Job], str | None]:
        with self._lock:
            self._purge()
            mine = sorted(
                (j for j in self._jobs.values() if j.tenant == tenant), key=order_key, reverse=True
            )
            jobs, next_cursor = page(
                (j for j in mine if after is None or order_key(j) < after), status, limit
            )
            return [j.model_copy(deep=True) for j in jobs], next_cursor

    def _update(self, job_id: str, change: Callable[[Job | None], Job | None]) -> Job | None:
        with self._lock:
            self._purge()
            updated = change(self._jobs.get(job_id))
            if updated is None:
                return None
            self._write(updated)
            return updated.model_copy(deep=True)

    def delete(self, job_id: str) -> None:
        with self._lock:
            self._remove(job_id)
