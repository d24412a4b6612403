"""Pure helpers both job stores share, so transitions, saves and cursors mean the same in each."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from evidex.workers.jobs import Job, JobEvent, JobStatus, now

__all__ = [
    "KEPT_ON_SAVE",
    "apply_transition",
    "check_changes",
    "decode_cursor",
    "encode_cursor",
    "list_start",
    "merge_save",
    "order_key",
    "page",
    "score",
    "transitioned",
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


def list_start(limit: int, cursor: str | None) -> tuple[int, str] | None:
    """What ``list`` checks first: the ``limit``; and where the page starts (None: the newest)."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    return decode_cursor(cursor) if cursor else None


def check_changes(changes: dict[str, object]) -> None:
    """Reject ``transition`` changes to unknown fields or to fields the store owns."""
    bad = sorted(set(changes) - set(Job.model_fields) | set(changes) & _NOT_CHANGEABLE)
    if bad:
        raise ValueError(f"transition cannot change {', '.join(bad)}")


def apply_transition(job: Job, new: JobStatus, changes: dict[str, object], detail: str = "") -> Job:
    """The job moved to ``new``, with ``changes`` applied (validated) and an event appended."""
    at = now()
    data = job.model_dump()
    data.update(changes)
    event = JobEvent(status=new, at=at, detail=detail)
    data.update(status=new, updated_at=at, events=[*job.events, event])
    return Job.model_validate(data)


def transitioned(
    job: Job | None,
    expected: frozenset[JobStatus],
    new: JobStatus,
    changes: dict[str, object],
    detail: str,
) -> Job | None:
    """The compare-and-set of ``transition`` on the stored ``job``: the job moved to ``new``, or
    None when it is missing or not in one of the ``expected`` states."""
    if job is None or job.status not in expected:
        return None
    return apply_transition(job, new, changes, detail)


def merge_save(stored: Job, job: Job) -> Job:
    """``job`` as ``save`` writes it over ``stored``."""
    kept = {name: getattr(stored, name) for name in KEPT_ON_SAVE}
    return job.model_copy(deep=True, update={**kept, "updated_at": now()})


def order_key(job: Job) -> tuple[int, str]:
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
