"""Build the configured stores from :class:`WorkerSettings` (called at the composition roots).

Backends are imported inside the functions, so a deployment on local files never imports
``boto3`` and the in-memory fakes never import ``redis``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evidex.workers.settings import WorkerSettings
from evidex.workers.stores import BlobStore, JobStore

if TYPE_CHECKING:
    from evidex.workers.leases import Leases

__all__ = ["make_blob_store", "make_job_store", "make_leases"]


def make_blob_store(settings: WorkerSettings) -> BlobStore:
    """``local``: files under ``data_dir``; ``s3``: the bucket ``s3_bucket`` (must exist)."""
    if settings.blob_store == "s3":
        from evidex.workers.blobstore_s3 import S3BlobStore

        return S3BlobStore(
            settings.s3_bucket, endpoint_url=settings.s3_endpoint_url, region=settings.s3_region
        )
    from evidex.workers.blobstore_local import LocalBlobStore

    return LocalBlobStore(settings.data_dir)


def make_job_store(settings: WorkerSettings) -> JobStore:
    """Job records in the Redis at ``redis_url``, kept ``job_retention_s`` after each write."""
    from evidex.workers.jobstore_redis import RedisJobStore

    return RedisJobStore.from_url(
        settings.redis_url,
        retention_s=settings.job_retention_s,
        due_after_s=settings.lease_ttl_s,  # the sweeper sends a job no worker took (sweeper.py)
    )


def make_leases(jobs: JobStore, settings: WorkerSettings) -> Leases | None:
    """Leases beside a Redis job store (same client, same key prefix); None for other stores."""
    from evidex.workers.jobstore_redis import RedisJobStore
    from evidex.workers.leases import Leases

    if not isinstance(jobs, RedisJobStore):
        return None
    return Leases(jobs.client, prefix=jobs.prefix, ttl_s=settings.lease_ttl_s)
