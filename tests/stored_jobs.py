"""Job records as the API would make them, for tests and benches that skip the API: a queued
invoice job of a tenant (:func:`new_job`), and one created with its document stored at the
job's document key (:func:`stored_job`). Whatever a test cares about it names; the rest (size,
digest, key) is filled in consistently."""

from __future__ import annotations

from typing import Any

from evidex.workers.jobs import Job, new_job_id
from evidex.workers.stores import BlobStore, JobStore


def new_job(tenant: str = "acme", document: bytes = b"", **fields: Any) -> Job:
    """A queued ``invoice.pdf`` invoice job of ``tenant`` for ``document``; ``fields`` (``id``
    among them) override."""
    job_id = fields.pop("id", None) or new_job_id()
    values: dict[str, Any] = {
        "filename": "invoice.pdf",
        "size": len(document),
        "sha256": "0" * 64,
        "schema_name": "invoice",
        "document_key": f"{tenant}/{job_id}/document",
        **fields,
    }
    return Job(id=job_id, tenant=tenant, **values)


def stored_job(
    jobs: JobStore, blobs: BlobStore, document: bytes, tenant: str = "acme", **fields: Any
) -> Job:
    """:func:`new_job` created in ``jobs``, ``document`` put in ``blobs`` at its key first."""
    job = new_job(tenant, document, **fields)
    blobs.put(job.document_key, document, job.media_type)
    return jobs.create(job)
