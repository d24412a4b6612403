"""Leases, fences and the sweeper on the real Redis, one delivery at a time (no worker process).

Two ``Leases`` objects with different owner tokens play two worker processes; the sweeper's
``send`` records what it would send to the broker.
"""

from __future__ import annotations

import dataclasses
import json
import time

import pytest
import redis
from stored_jobs import new_job
from test_tasks import INVOICE, CountingLLM, World, world

from evidex.schemas import ConfigError
from evidex.workers.jobs import Job, JobStatus, new_job_id
from evidex.workers.jobstore_redis import RedisJobStore
from evidex.workers.leases import LeaseLost, Leases, check_lease_settings
from evidex.workers.runner import result_key
from evidex.workers.stores import StoreUnavailable
from evidex.workers.sweeper import Upkeep, queued_ids, sweep
from evidex.workers.tasks import run_leased

RUNNING, QUEUED = frozenset({JobStatus.RUNNING}), frozenset({JobStatus.QUEUED})


def two_workers(
    redis_client: redis.Redis, prefix: str, ttl_s: float = 30.0
) -> tuple[Leases, Leases]:
    return (
        Leases(redis_client, prefix, ttl_s, owner="worker-a"),
        Leases(redis_client, prefix, ttl_s, owner="worker-b"),
    )


def leased_world(redis_client: redis.Redis, prefix: str, llm: CountingLLM | None = None) -> World:
    w = world(llm)
    jobs = RedisJobStore(redis_client, prefix=prefix, due_after_s=30.0)
    w.jobs = jobs  # type: ignore[assignment]
    w.deps = dataclasses.replace(w.deps, jobs=jobs)
    return w


def one_job(
    redis_client: redis.Redis, prefix: str, llm: CountingLLM | None = None
) -> tuple[World, Job, Leases, Leases]:
    """A world over the real Redis with one job submitted, and two workers that may run it."""
    w = leased_world(redis_client, prefix, llm)
    return (w, w.submit(), *two_workers(redis_client, prefix))


def test_a_live_lease_keeps_a_second_worker_out_until_it_is_released(
    redis_client: redis.Redis, prefix: str
) -> None:
    a, b = two_workers(redis_client, prefix)
    with a.hold("job_1") as ours:
        assert ours is True
        assert a.owner_of("job_1") == "worker-a"
        with b.hold("job_1") as theirs, a.hold("job_1") as again:
            assert (theirs, again) == (False, False)  # another worker; this worker twice
        assert a.held() == ["job_1"]
        assert 29_000 < redis_client.pttl(a.lease_key("job_1")) <= 30_000
    assert a.owner_of("job_1") is None and a.held() == []
    with b.hold("job_1") as ours:
        assert ours is True


def test_confirm_renews_takes_back_an_expired_lease_and_stops_a_worker_that_lost_it(
    redis_client: redis.Redis, prefix: str
) -> None:
    a, _ = two_workers(redis_client, prefix, ttl_s=1.0)
    with a.hold("job_1"):
        redis_client.delete(a.lease_key("job_1"))  # expired while Redis was away, nobody took it
        a.confirm("job_1")
        assert a.owner_of("job_1") == "worker-a"
        redis_client.set(a.lease_key("job_1"), "worker-b", px=60_000)  # b took the job over
        with pytest.raises(LeaseLost):
            a.confirm("job_1")
        assert a.renew_held() == []  # a lost lease is not renewed any more
    assert a.owner_of("job_1") == "worker-b"  # and leaving the block does not release b's lease


def test_the_heartbeat_reports_a_lease_another_worker_took(
    redis_client: redis.Redis, prefix: str
) -> None:
    a, _ = two_workers(redis_client, prefix)
    with a.hold("job_1"), a.hold("job_2"):
        redis_client.set(a.lease_key("job_2"), "worker-b")
        assert a.renew_held() == ["job_2"]
        with pytest.raises(LeaseLost):
            a.confirm("job_2")


def test_the_lease_settings_must_leave_room_for_a_late_heartbeat() -> None:
    with pytest.raises(ConfigError) as bad:
        check_lease_settings(ttl_s=10, heartbeat_s=6, sweep_s=5)
    assert "EVIDEX_HEARTBEAT_S=6 must be at most half" in bad.value.message
    check_lease_settings(ttl_s=30, heartbeat_s=5, sweep_s=5)


def test_a_new_job_is_due_in_the_index_and_an_idempotent_replay_adds_nothing(
    redis_client: redis.Redis, prefix: str
) -> None:
    store = RedisJobStore(redis_client, prefix=prefix, due_after_s=30.0)
    leases = Leases(redis_client, prefix)
    job = new_job(idempotency_key="idem-1")
    before = time.time()
    store.create(job)
    due = leases.due_at(job.id)
    assert due is not None and before + 29 < due <= time.time() + 30
    replay = store.create(job.model_copy(update={"id": new_job_id()}))
    assert replay.id == job.id
    assert redis_client.zcard(leases.due_key) == 1


def _job(store: RedisJobStore, status: JobStatus) -> str:
    job = store.create(new_job())
    if status is not JobStatus.QUEUED:
        store.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=1)
    if status.final:
        store.transition(job.id, RUNNING, status)
    return job.id


def test_the_sweeper_sends_exactly_the_jobs_nobody_runs_or_holds(
    redis_client: redis.Redis, prefix: str
) -> None:
    store = RedisJobStore(redis_client, prefix=prefix, due_after_s=-1.0)  # due at once
    leases, other = two_workers(redis_client, prefix)
    orphan = _job(store, JobStatus.RUNNING)  # its worker died: no lease
    running = _job(store, JobStatus.RUNNING)
    other.acquire(running)  # alive on another worker
    lost_msg = _job(store, JobStatus.QUEUED)  # its message went with a dead worker
    waiting = _job(store, JobStatus.QUEUED)  # its message waits in a long queue
    ended = _job(store, JobStatus.SUCCEEDED)
    queue = f"{prefix}:queue"
    message = {"body": "", "headers": {"id": waiting, "task": "evidex.run_job"}}
    redis_client.rpush(queue, json.dumps(message), b"not json")
    assert queued_ids(leases, queue) == {waiting}
    sent: list[str] = []

    done = sweep(store, leases, sent.append, lambda: queued_ids(leases, queue))

    assert sorted(sent) == sorted([orphan, lost_msg])
    assert done == {"sent": 2, "leased": 1, "waiting": 1, "ended": 1}
    assert leases.due_at(ended) is None
    for job_id in (orphan, running, lost_msg, waiting):  # looked at again one lease time later
        due = leases.due_at(job_id)
        assert due is not None and due > time.time() + 25
    assert leases.overdue() == []
    assert sweep(store, leases, sent.append, set) == {}  # nothing more until then


def test_a_job_sent_again_is_moved_to_the_end_workers_take_next(
    redis_client: redis.Redis, prefix: str
) -> None:
    leases = Leases(redis_client, prefix)
    queue = f"{prefix}:queue"

    def message(task_id: str) -> str:
        return json.dumps({"headers": {"id": task_id, "root_id": task_id}, "body": ""})

    for task_id in ("job_resent", "job_b", "job_resent-webhook", "job_c"):
        redis_client.lpush(queue, message(task_id))  # as kombu publishes: newest on the left
    assert leases.to_front(queue, "job_resent") is True
    assert redis_client.rpop(queue) == message("job_resent").encode()  # BRPOP takes it next
    assert leases.to_front(queue, "job_missing") is False
    assert redis_client.llen(queue) == 3


def test_the_heartbeat_pushes_the_jobs_its_worker_runs_or_holds(
    redis_client: redis.Redis, prefix: str
) -> None:
    w = world()
    leases = Leases(redis_client, prefix, ttl_s=20.0)
    upkeep = Upkeep(w.deps, leases, lambda _: None, "q", held=lambda: {"job_prefetched"})
    with leases.hold("job_running"):
        redis_client.pexpire(leases.lease_key("job_running"), 500)
        upkeep.beat()
        assert redis_client.pttl(leases.lease_key("job_running")) > 19_000
    for job_id in ("job_running", "job_prefetched"):
        due = leases.due_at(job_id)
        assert due is not None and due > time.time() + 19


def test_a_delivery_of_a_job_another_worker_runs_does_nothing(
    redis_client: redis.Redis, prefix: str
) -> None:
    w, job, a, b = one_job(redis_client, prefix)
    w.jobs.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=1)
    b.acquire(job.id)  # b runs it
    run_leased(job.id, w.deps, a)
    assert w.llm.calls == 0
    assert w.job(job.id).status is JobStatus.RUNNING and w.job(job.id).attempts == 1
    assert b.owner_of(job.id) == "worker-b"


def test_a_worker_that_lost_its_lease_mid_call_writes_nothing(
    redis_client: redis.Redis, prefix: str
) -> None:
    llm = CountingLLM()
    w, job, a, _ = one_job(redis_client, prefix, llm)
    # During the model call the lease expires and worker b takes the job over.
    llm.during.append(lambda: redis_client.set(a.lease_key(job.id), "worker-b"))
    run_leased(job.id, w.deps, a)
    assert llm.calls == 1
    after = w.job(job.id)
    assert (after.status, after.attempts) == (JobStatus.RUNNING, 1)  # b's now; untouched by a
    assert not w.blobs.exists(result_key(job))
    assert w.finals == []


def test_a_leased_run_succeeds_and_releases_its_lease(
    redis_client: redis.Redis, prefix: str
) -> None:
    w, job, a, _ = one_job(redis_client, prefix)
    run_leased(job.id, w.deps, a)
    done = w.job(job.id)
    assert (done.status, done.attempts, w.llm.calls) == (JobStatus.SUCCEEDED, 1, 1)
    assert a.owner_of(job.id) is None and a.held() == []


def test_a_worker_lists_the_jobs_it_runs_and_a_dead_ones_list_keeps_them(
    redis_client: redis.Redis, prefix: str
) -> None:
    a, b = two_workers(redis_client, prefix)
    with a.hold("job_1"), a.hold("job_2"), b.hold("job_3"):
        assert a.ran_together(["worker-a"]) == {"job_1", "job_2"}
        assert a.ran_together(["worker-a", "worker-b"]) == set()
    assert a.ran_together(["worker-a"]) == set()  # ended runs leave the list
    redis_client.sadd(a.ran_key("worker-dead"), "job_1")  # a worker killed mid-run removes nothing
    assert b.ran_together(["worker-dead"]) == {"job_1"}


def test_a_death_shared_with_another_job_singles_neither_out_but_one_alone_does(
    redis_client: redis.Redis, prefix: str
) -> None:
    """A worker runs several jobs at once, and the one that kills it takes the others with it:
    two jobs that died together on both of their workers run again; a job whose second worker
    ran nothing else of its first is quarantined."""
    w = leased_world(redis_client, prefix)
    settings = w.deps.settings.model_copy(update={"task_max_retries": 5})
    w.deps = dataclasses.replace(w.deps, settings=settings)
    c = Leases(redis_client, prefix, 30.0, owner="worker-c")
    culprit, bystander, loner = w.submit(), w.submit(), w.submit()
    for job in (culprit, bystander):  # both ran on worker-x, then again on worker-y; both died
        redis_client.sadd(c.ran_key("worker-x"), job.id)
        redis_client.sadd(c.ran_key("worker-y"), job.id)
        w.jobs.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=2, lost_runs=1)
        w.jobs.transition(
            job.id, RUNNING, JobStatus.RUNNING, lost_on=["worker-x"], ran_on="worker-y"
        )
    redis_client.sadd(c.ran_key("worker-x"), loner.id)  # with them on worker-x, alone on worker-z
    redis_client.sadd(c.ran_key("worker-z"), loner.id)
    w.jobs.transition(loner.id, QUEUED, JobStatus.RUNNING, attempts=2, lost_runs=1)
    w.jobs.transition(loner.id, RUNNING, JobStatus.RUNNING, lost_on=["worker-x"], ran_on="worker-z")

    for job in (culprit, bystander, loner):
        run_leased(job.id, w.deps, c)
    for job in (culprit, bystander):
        again = w.job(job.id)
        assert again.status is JobStatus.SUCCEEDED
        assert (again.lost_runs, again.lost_on, again.ran_on) == (
            2,
            ["worker-x", "worker-y"],
            "worker-c",
        )
    quarantined = w.job(loner.id)
    assert quarantined.status is JobStatus.FAILED and quarantined.error is not None
    assert quarantined.error.code == "job_poisoned"
    assert "died or stalled 2 times" in quarantined.error.message
    assert quarantined.lost_on == ["worker-x", "worker-z"]
    assert w.llm.calls == 2


class _DownAtTheEnd(RedisJobStore):
    """The job store of a run during a Redis restart: the final state change does not answer."""

    def transition(
        self,
        job_id: str,
        expected: frozenset[JobStatus],
        new: JobStatus,
        detail: str = "",
        **changes: object,
    ) -> Job | None:
        if new is JobStatus.SUCCEEDED:
            raise StoreUnavailable("Redis is unavailable: Connection refused")
        return super().transition(job_id, expected, new, detail, **changes)


def test_a_job_handed_back_alive_is_not_counted_lost_when_the_sweeper_sends_it_again(
    redis_client: redis.Redis, prefix: str
) -> None:
    """Worker A stores the result, then Redis does not answer the final state change: A hands
    the job back (its task retries later, ``handed_back``), but that retry's message is lost (a
    broker restart drops the countdowns a worker holds; a killed worker takes them along). The
    sweeper's delivery to B finds the job running: A did not die with it, so no lost run is
    counted (two such would have quarantined a healthy job as ``job_poisoned``)."""
    w, job, a, b = one_job(redis_client, prefix)
    down = _DownAtTheEnd(redis_client, prefix=prefix, due_after_s=30.0)
    with pytest.raises(StoreUnavailable):
        run_leased(job.id, dataclasses.replace(w.deps, jobs=down), a)
    assert a.was_running("worker-a", job.id) is False  # A left the run
    assert a.owner_of(job.id) is None

    run_leased(job.id, w.deps, b)  # the sweeper's delivery, not marked as handed back
    done = w.job(job.id)
    assert done.status is JobStatus.SUCCEEDED
    assert (done.attempts, done.lost_runs, done.lost_on, done.ran_on) == (2, 0, [], "worker-b")
    assert w.llm.calls == 1  # the result A stored is used, not paid for again


def test_a_job_whose_worker_died_mid_run_is_counted_lost(
    redis_client: redis.Redis, prefix: str
) -> None:
    w, job, a, b = one_job(redis_client, prefix)
    with a.hold(job.id):  # A takes the job and is killed in the run: its list keeps the job
        w.jobs.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=1, ran_on="worker-a")
        redis_client.delete(a.lease_key(job.id))  # its lease expires, nobody releases it
        assert a.was_running("worker-a", job.id) is True
        run_leased(job.id, w.deps, b)
    done = w.job(job.id)
    assert (done.status, done.lost_runs, done.lost_on) == (JobStatus.SUCCEEDED, 1, ["worker-a"])


def test_a_run_that_leaves_while_redis_is_away_takes_its_job_off_the_list_once_it_answers(
    redis_url: str, prefix: str
) -> None:
    client = redis.Redis.from_url(redis_url)
    srem, refused = client.srem, []

    def flaky_srem(*args: object) -> object:
        if len(refused) < 2:  # Redis restarting: the first two tries are refused
            refused.append(args)
            raise redis.ConnectionError("Error 111 connecting to 127.0.0.1. Connection refused.")
        return srem(*args)

    client.srem = flaky_srem  # type: ignore[method-assign]
    a = Leases(client, prefix, 30.0, owner="worker-a")
    with a.hold("job_1"):
        assert a.was_running("worker-a", "job_1") is True
    assert len(refused) == 2
    assert a.was_running("worker-a", "job_1") is False
    client.close()


def test_a_new_run_records_the_worker_running_it(redis_client: redis.Redis, prefix: str) -> None:
    w, job, a, _ = one_job(redis_client, prefix)
    run_leased(job.id, w.deps, a)
    done = w.job(job.id)
    assert (done.status, done.ran_on, done.lost_on) == (JobStatus.SUCCEEDED, "worker-a", [])


def test_a_result_stored_by_an_earlier_attempt_is_not_paid_for_again() -> None:
    w = world()
    job = w.submit()
    w.jobs.transition(job.id, QUEUED, JobStatus.RUNNING, attempts=1)
    # The first attempt stored its result, then Redis went away before the final state change.
    w.blobs.put(result_key(job), b'{"trace": {"usage": {}}}', "application/json")
    from evidex.workers.runner import process

    process(job.id, w.deps)  # the attempt the sweeper started
    done = w.job(job.id)
    assert (done.status, done.attempts) == (JobStatus.SUCCEEDED, 2)
    assert done.result_key == result_key(job)
    assert w.llm.calls == 0
    assert len(INVOICE) > 0
