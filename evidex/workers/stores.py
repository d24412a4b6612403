"""The two store protocols: job records (``JobStore``) and documents/results (``BlobStore``).

One module per backend beside this one (``jobstore_redis``, ``jobstore_memory``,
``blobstore_local``, ``blobstore_s3``, ``blobstore_memory``); the same contract tests run over
every backend.

The job store backends build on :class:`BaseJobStore`, which owns what ``list``, ``transition``
and ``save`` do with their arguments (the limit and cursor checks, the changes a transition may
make, the compare-and-set, what a save keeps), so that a backend writes only how it reads and
writes a record atomically. Wrappers and fakes need only satisfy the ``JobStore`` protocol.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Protocol

from evidex.workers.jobs import Job, JobStatus
from evidex.workers.jobstore_base import check_changes, list_start, merge_save, transitioned

__all__ = ["BaseJobStore", "BlobNotFound", "BlobStore", "JobStore", "StoreUnavailable"]


class BlobNotFound(KeyError):
    """No blob under that key."""


class StoreUnavailable(RuntimeError):
    """The store cannot be reached now (transient)."""


class BlobStore(Protocol):
    def put(
        self, key: str, data: bytes, content_type: str = "application/octet-stream"
    ) -> None: ...

    def get(self, key: str) -> bytes: ...

    def delete(self, key: str) -> None: ...

    def exists(self, key: str) -> bool: ...


class JobStore(Protocol):
    def create(self, job: Job) -> Job:
        """Store a new job. With ``job.idempotency_key`` set, a second create for the same
        tenant and key returns the first job unchanged (atomically)."""
        ...

    def get(self, job_id: str) -> Job | None: ...

    def list(
        self,
        tenant: str,
        status: JobStatus | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[Job], str | None]:
        """The tenant's jobs, newest first; returns the page and the next cursor (or None)."""
        ...

    def transition(
        self,
        job_id: str,
        expected: frozenset[JobStatus],
        new: JobStatus,
        detail: str = "",
        **changes: object,
    ) -> Job | None:
        """Compare-and-set: move to ``new`` only from one of ``expected`` (applying ``changes``
        and appending an event that says ``detail``); None when the job is missing or in another
        state."""
        ...

    def save(self, job: Job) -> None:
        """Overwrite the record (fields other than status, e.g. attempts, result_key)."""
        ...

    def delete(self, job_id: str) -> None: ...


class BaseJobStore(ABC):
    """``list``, ``transition`` and ``save`` of a :class:`JobStore`, on two primitives a backend
    supplies: :meth:`_list_after` and :meth:`_update`."""

    @abstractmethod
    def _list_after(
        self, tenant: str, status: JobStatus | None, limit: int, after: tuple[int, str] | None
    ) -> tuple[list[Job], str | None]:
        """The page ``list`` returns, starting below the ``(created µs, id)`` order key
        ``after`` (None: at the newest job)."""

    @abstractmethod
    def _update(self, job_id: str, change: Callable[[Job | None], Job | None]) -> Job | None:
        """Atomically: read the job (None when there is none), write the record ``change``
        returns for it unless that is None, and return it."""

    def list(
        self,
        tenant: str,
        status: JobStatus | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[Job], str | None]:
        return self._list_after(tenant, status, limit, list_start(limit, cursor))

    def transition(
        self,
        job_id: str,
        expected: frozenset[JobStatus],
        new: JobStatus,
        detail: str = "",
        **changes: object,
    ) -> Job | None:
        check_changes(changes)
        return self._update(job_id, lambda job: transitioned(job, expected, new, changes, detail))

    def save(self, job: Job) -> None:
        # a deleted or expired job stays gone
        self._update(job.id, lambda stored: None if stored is None else merge_save(stored, job))
