"""One contract for every JobStore backend: the in-memory fake and Redis (a real server)."""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import pytest
import redis
from stored_jobs import new_job

from evidex.workers.factory import make_job_store
from evidex.workers.jobs import Job, JobError, JobStatus, now
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.settings import WorkerSettings
from evidex.workers.stores import JobStore, StoreUnavailable

T = TypeVar("T")
QUEUED = frozenset({JobStatus.QUEUED})
RUNNING = frozenset({JobStatus.RUNNING})
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
RETENTION_S = 3600


def make_job(
    tenant: str = "acme", idempotency_key: str | None = None, created_at: datetime | None = None
) -> Job:
    created = created_at or now()
    return new_job(
        tenant,
        size=1234,
        created_at=created,
        updated_at=created,
        idempotency_key=idempotency_key,
    )


@pytest.fixture(params=["memory", "redis", "redis-decoded"])
def store(request: pytest.FixtureRequest) -> Iterator[JobStore]:
    """Redis twice: with bytes replies, and with ``decode_responses=True`` (str replies)."""
    if request.param == "memory":
        yield MemoryJobStore()
        return
    prefix = request.getfixturevalue("prefix")
    client = redis.Redis.from_url(
        request.getfixturevalue("redis_url"), decode_responses=request.param == "redis-decoded"
    )
    yield RedisJobStore(client, prefix=prefix, retention_s=RETENTION_S)
    client.close()


def race(threads: int, action: Callable[[], T]) -> list[T]:
    """Run ``action`` in ``threads`` threads released together; their results."""
    barrier = threading.Barrier(threads)
    results: list[T] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run() -> None:
        barrier.wait()
        try:
            value = action()
        except BaseException as error:  # reported below, in the test's thread
            with lock:
                errors.append(error)
            return
        with lock:
            results.append(value)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
    assert errors == []
    return results


def all_pages(
    store: JobStore, tenant: str, limit: int, status: JobStatus | None = None
) -> list[str]:
    ids: list[str] = []
    cursor: str | None = None
    for _ in range(100):
        jobs, cursor = store.list(tenant, status=status, limit=limit, cursor=cursor)
        assert len(jobs) <= limit
        ids += [job.id for job in jobs]
        if cursor is None:
            return ids
    raise AssertionError("pagination did not end")


# --- create / get -------------------------------------------------------------------------------


def test_create_then_get_returns_the_job(store: JobStore) -> None:
    job = make_job()
    assert store.create(job) == job
    assert store.get(job.id) == job
    assert store.get("job_missing") is None


def test_create_with_an_existing_id_is_refused(store: JobStore) -> None:
    job = make_job()
    store.create(job)
    with pytest.raises(ValueError, match="exists already"):
        store.create(job.model_copy(update={"filename": "other.pdf"}))
    assert store.get(job.id) == job


def test_idempotent_create_returns_the_original_job(store: JobStore) -> None:
    first = make_job(idempotency_key="key-1")
    again = make_job(idempotency_key="key-1")
    store.create(first)
    assert store.create(again) == first
    assert store.get(again.id) is None
    assert [j.id for j in store.list("acme")[0]] == [first.id]


def test_concurrent_creates_with_one_key_make_exactly_one_job(store: JobStore) -> None:
    created = race(8, lambda: store.create(make_job(idempotency_key="race")))
    assert len(created) == 8
    assert len({job.id for job in created}) == 1
    jobs, _ = store.list("acme")
    assert [j.id for j in jobs] == [created[0].id]


def test_the_same_key_in_two_tenants_makes_two_jobs(store: JobStore) -> None:
    acme = store.create(make_job("acme", idempotency_key="shared"))
    globex = store.create(make_job("globex", idempotency_key="shared"))
    assert acme.id != globex.id
    assert (acme.tenant, globex.tenant) == ("acme", "globex")


# --- list ---------------------------------------------------------------------------------------


def test_list_is_newest_first(store: JobStore) -> None:
    jobs = [make_job(created_at=T0 + timedelta(seconds=i)) for i in range(5)]
    for job in random.sample(jobs, len(jobs)):
        store.create(job)
    listed, cursor = store.list("acme")
    assert [j.id for j in listed] == [j.id for j in reversed(jobs)]
    assert cursor is None


def test_list_filters_by_status(store: JobStore) -> None:
    jobs = [store.create(make_job(created_at=T0 + timedelta(seconds=i))) for i in range(6)]
    for job in jobs[1::2]:
        store.transition(job.id, QUEUED, JobStatus.RUNNING)
    running, _ = store.list("acme", status=JobStatus.RUNNING)
    queued, _ = store.list("acme", status=JobStatus.QUEUED)
    assert [j.id for j in running] == [jobs[5].id, jobs[3].id, jobs[1].id]
    assert [j.id for j in queued] == [jobs[4].id, jobs[2].id, jobs[0].id]
    assert store.list("acme", status=JobStatus.FAILED) == ([], None)


def test_pages_cover_every_job_exactly_once_even_with_equal_timestamps(store: JobStore) -> None:
    # 23 jobs over 9 distinct timestamps: ties must be ordered (by id) and never split wrongly.
    jobs = [make_job(created_at=T0 + timedelta(seconds=i % 9)) for i in range(23)]
    for job in jobs:
        store.create(job)
    expected = [j.id for j in sorted(jobs, key=lambda j: (j.created_at, j.id), reverse=True)]
    for limit in (1, 2, 5, 23, 50):
        assert all_pages(store, "acme", limit) == expected


def test_pages_with_a_status_filter_cover_every_match_once(store: JobStore) -> None:
    jobs = [store.create(make_job(created_at=T0 + timedelta(seconds=i))) for i in range(12)]
    for job in jobs[::3]:
        store.transition(job.id, QUEUED, JobStatus.RUNNING)
    expected = [j.id for j in reversed(jobs[::3])]
    assert all_pages(store, "acme", 2, JobStatus.RUNNING) == expected


def test_a_cursor_stays_valid_while_newer_jobs_arrive(store: JobStore) -> None:
    jobs = [store.create(make_job(created_at=T0 + timedelta(seconds=i))) for i in range(4)]
    first, cursor = store.list("acme", limit=2)
    store.create(make_job(created_at=T0 + timedelta(hours=1)))
    second, last = store.list("acme", limit=2, cursor=cursor)
    assert [j.id for j in first + second] == [j.id for j in reversed(jobs)]
    assert last is None


def test_list_never_shows_another_tenants_jobs(store: JobStore) -> None:
    acme = {store.create(make_job("acme")).id for _ in range(3)}
    globex = {store.create(make_job("globex")).id for _ in range(2)}
    assert set(all_pages(store, "acme", 2)) == acme
    assert set(all_pages(store, "globex", 2)) == globex
    assert store.list("initech") == ([], None)


@pytest.mark.parametrize("cursor", ["garbage", "12:", ":job_1", "-5:job_1"])
def test_list_rejects_a_malformed_cursor(store: JobStore, cursor: str) -> None:
    with pytest.raises(ValueError, match="invalid cursor"):
        store.list("acme", cursor=cursor)


def test_list_rejects_a_limit_below_one(store: JobStore) -> None:
    with pytest.raises(ValueError, match="limit"):
        store.list("acme", limit=0)


# --- transition ---------------------------------------------------------------------------------


def test_transition_is_a_compare_and_set(store: JobStore) -> None:
    job = store.create(make_job())
    moved = store.transition(job.id, QUEUED, JobStatus.RUNNING)
    assert moved is not None and moved.status is JobStatus.RUNNING
    assert store.transition(job.id, QUEUED, JobStatus.RUNNING) is None
    assert store.transition("job_missing", QUEUED, JobStatus.RUNNING) is None
    stored = store.get(job.id)
    assert stored is not None
    assert stored.status is JobStatus.RUNNING
    assert [e.status for e in stored.events] == [JobStatus.RUNNING]


def test_of_racing_transitions_exactly_one_wins(store: JobStore) -> None:
    job = store.create(make_job())
    results = race(8, lambda: store.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=1))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    stored = store.get(job.id)
    assert stored is not None
    assert (stored.status, stored.attempts, len(stored.events)) == (JobStatus.RUNNING, 1, 1)


def test_transition_appends_a_timestamped_event_and_applies_changes(store: JobStore) -> None:
    job = store.create(make_job())
    before = now()
    running = store.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=1)
    failed = store.transition(
        job.id, RUNNING, JobStatus.FAILED, error=JobError(code="parse", message="not a PDF")
    )
    after = now()
    assert running is not None and failed is not None
    assert [e.status for e in failed.events] == [JobStatus.RUNNING, JobStatus.FAILED]
    assert before <= failed.events[0].at <= failed.events[1].at <= after
    assert failed.updated_at == failed.events[1].at
    assert store.get(job.id) == failed
    assert (failed.attempts, failed.error) == (1, JobError(code="parse", message="not a PDF"))


@pytest.mark.parametrize("field", ["status", "events", "tenant", "no_such_field"])
def test_transition_refuses_changes_to_fields_it_owns(store: JobStore, field: str) -> None:
    job = store.create(make_job())
    with pytest.raises(ValueError, match=field):
        store.transition(job.id, QUEUED, JobStatus.RUNNING, **{field: "x"})
    assert store.get(job.id) == job


# --- save / delete ------------------------------------------------------------------------------


def test_save_updates_fields_but_cannot_undo_a_transition(store: JobStore) -> None:
    job = store.create(make_job())
    stale = job.model_copy(update={"attempts": 2, "result_key": "acme/x/result.json"})
    store.transition(job.id, QUEUED, JobStatus.RUNNING)
    store.save(stale)
    stored = store.get(job.id)
    assert stored is not None
    assert (stored.attempts, stored.result_key) == (2, "acme/x/result.json")
    assert (stored.status, [e.status for e in stored.events]) == (
        JobStatus.RUNNING,
        [JobStatus.RUNNING],
    )


def test_save_does_not_bring_back_a_deleted_job(store: JobStore) -> None:
    job = store.create(make_job())
    store.delete(job.id)
    store.save(job)
    assert store.get(job.id) is None


def test_delete_removes_the_job_everywhere_and_frees_its_key(store: JobStore) -> None:
    job = store.create(make_job(idempotency_key="key-1"))
    keep = store.create(make_job())
    store.delete(job.id)
    store.delete(job.id)
    assert store.get(job.id) is None
    assert [j.id for j in store.list("acme")[0]] == [keep.id]
    fresh = store.create(make_job(idempotency_key="key-1"))
    assert fresh.id != job.id
    assert store.get(fresh.id) == fresh


# --- memory only --------------------------------------------------------------------------------


def test_memory_records_expire_after_retention_from_their_last_write() -> None:
    clock = [0.0]
    store = MemoryJobStore(retention_s=100, clock=lambda: clock[0])
    job = store.create(make_job(idempotency_key="k"))
    clock[0] = 90
    store.transition(job.id, QUEUED, JobStatus.SUCCEEDED)
    clock[0] = 150
    assert store.get(job.id) is not None
    clock[0] = 190
    assert store.get(job.id) is None
    assert store.list("acme") == ([], None)
    assert store.create(make_job(idempotency_key="k")).id != job.id


# --- Redis only ---------------------------------------------------------------------------------


def test_redis_ttl_is_the_retention_and_every_write_refreshes_it(
    redis_client: redis.Redis, prefix: str
) -> None:
    store = RedisJobStore(redis_client, prefix=prefix, retention_s=RETENTION_S)
    job = store.create(make_job(idempotency_key="k"))
    keys = [f"{prefix}:job:{job.id}", f"{prefix}:tenant:acme:jobs", f"{prefix}:idem:acme:k"]
    assert all(RETENTION_S - 5 <= redis_client.ttl(k) <= RETENTION_S for k in keys)
    writes: list[Callable[[], object]] = [
        lambda: store.transition(job.id, QUEUED, JobStatus.RUNNING),
        lambda: store.save(job.model_copy(update={"attempts": 1})),
        lambda: store.transition(job.id, RUNNING, JobStatus.SUCCEEDED),
    ]
    for write in writes:
        for key in keys:
            redis_client.expire(key, 10)
        write()
        assert all(RETENTION_S - 5 <= redis_client.ttl(k) <= RETENTION_S for k in keys)


def test_redis_key_layout(redis_client: redis.Redis, prefix: str) -> None:
    store = RedisJobStore(redis_client, prefix=prefix, retention_s=RETENTION_S)
    job = store.create(make_job(idempotency_key="k", created_at=T0))
    assert Job.model_validate_json(redis_client.get(f"{prefix}:job:{job.id}") or b"") == job
    assert redis_client.get(f"{prefix}:idem:acme:k") == job.id.encode()
    assert redis_client.zrange(f"{prefix}:tenant:acme:jobs", 0, -1, withscores=True) == [
        (job.id.encode(), T0.timestamp() * 1e6)
    ]


def test_redis_list_prunes_ids_whose_record_expired(redis_client: redis.Redis, prefix: str) -> None:
    store = RedisJobStore(redis_client, prefix=prefix, retention_s=RETENTION_S)
    gone, kept = store.create(make_job()), store.create(make_job())
    redis_client.delete(f"{prefix}:job:{gone.id}")  # as if its TTL ran out
    assert [j.id for j in store.list("acme")[0]] == [kept.id]
    assert redis_client.zrange(f"{prefix}:tenant:acme:jobs", 0, -1) == [kept.id.encode()]


def test_redis_unreachable_raises_store_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    store = RedisJobStore.from_url(f"redis://127.0.0.1:{port}/0", socket_connect_timeout=0.5)
    job = make_job()
    for operation in (
        lambda: store.create(job),
        lambda: store.get(job.id),
        lambda: store.list("acme"),
        lambda: store.transition(job.id, QUEUED, JobStatus.RUNNING),
        lambda: store.save(job),
        lambda: store.delete(job.id),
    ):
        with pytest.raises(StoreUnavailable, match="Redis is unavailable"):
            operation()
    store.client.close()


def test_make_job_store_uses_the_redis_url_and_retention(redis_url: str) -> None:
    store = make_job_store(WorkerSettings(redis_url=redis_url, job_retention_s=120))
    assert isinstance(store, RedisJobStore)
    assert (store.retention_s, store.prefix) == (120, "evidex")
    assert store.client.ping() is True
    store.client.close()


def test_transition_event_carries_its_detail(store: JobStore) -> None:
    job = store.create(make_job())
    moved = store.transition(job.id, QUEUED, JobStatus.RUNNING, detail="picked up by worker-1")
    assert moved is not None
    assert moved.events[-1].detail == "picked up by worker-1"
    stored = store.get(job.id)
    assert stored is not None and stored.events[-1].detail == "picked up by worker-1"
