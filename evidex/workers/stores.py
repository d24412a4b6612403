"""The two store protocols: job records (``JobStore``) and documents/results (``BlobStore``).

One module per backend beside this one (``jobstore_redis``, ``jobstore_memory``,
``blobstore_local``, ``blobstore_s3``, ``blobstore_memory``); the same contract tests run over
every backend.
"""

from __future__ import annotations

from typing import Protocol

from evidex.workers.jobs import Job, JobStatus

__all__ = ["BlobNotFound", "BlobStore", "JobStore", "StoreUnavailable"]


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
