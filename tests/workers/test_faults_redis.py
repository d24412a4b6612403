"""Redis faults on the real path (REST API, ``evidex worker`` process, private Redis, the OpenAI
SDK against a fake model server): a restart between submit and run, Redis down at submit (a 503
and nothing kept), and a restart while a worker's model call runs.

Each test asserts that nothing is lost or done twice: the job ends in the stated status, the
tenant has exactly the jobs it submitted, exactly the stored files the jobs account for, the
model was called exactly as often as the fault requires, and no message is left in the queue or
unacknowledged. The stack and its checks are in ``fault_stack``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from fake_openai import RESPONSES, FakeOpenAI
from fault_stack import (
    TIMEOUT_S,
    Processes,
    assert_one_job,
    assert_queue_drained,
    assert_ran_once,
    good_reply,
    in_process_api,
    run_job,
    stored_files,
    submit,
    wait_final,
)
from service_stack import AofRedis, needs_redis

from evidex.workers.celery_app import QUEUE

pytestmark = needs_redis


def test_a_redis_restart_between_submit_and_run_loses_nothing(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply(1), good_reply(2))
    api = in_process_api(private_redis, tmp_path)
    with api:  # no worker yet: the task can only wait in Redis
        created = submit(api)
        assert created.status_code == 202, created.text
    first = created.json()["id"]
    client = private_redis.client()
    try:
        assert client.llen(QUEUE) == 1
    finally:
        client.close()

    private_redis.restart()

    client = private_redis.client()
    try:  # the job record and its queued task came back from the append-only file
        assert client.llen(QUEUE) == 1
        assert json.loads(client.get(f"evidex:job:{first}") or b"{}")["status"] == "queued"
    finally:
        client.close()
    procs.worker()
    with api:  # the same app: its Redis clients reconnect to the restarted server
        done = wait_final(api, first, procs)
        second = run_job(api, procs)  # and the API can still enqueue
    assert_ran_once(procs, done, second)
    assert len(fake.bodies(RESPONSES)) == 2
    assert stored_files(tmp_path / "data") == {
        f"acme/{job_id}/{name}"
        for job_id in (first, second["id"])
        for name in ("document", "result.json")
    }
    assert_queue_drained(private_redis)


def test_redis_down_at_submit_is_a_503_with_retry_after_and_nothing_is_kept(
    private_redis: AofRedis, tmp_path: Path
) -> None:
    api = in_process_api(private_redis, tmp_path)
    private_redis.stop()
    with api:
        refused = submit(api, **{"Idempotency-Key": "inv-down"})
        ready = api.get("/readyz")
    assert refused.status_code == 503, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.headers["retry-after"] == "5"
    assert refused.json()["code"] == "store_unavailable"
    assert "nothing was kept" in refused.json()["detail"]
    assert stored_files(tmp_path / "data") == set()  # the document was removed again
    assert ready.status_code == 503 and ready.headers["retry-after"] == "5"
    body = ready.json()
    assert body["code"] == "not_ready" and body["checks"]["redis"].startswith("failed: ")
    assert body["checks"]["blobs"] == "ok"
    assert "redis failed" in body["detail"]

    private_redis.start()
    with api:  # Redis is back: the same request goes through, as a new job
        accepted = submit(api, **{"Idempotency-Key": "inv-down"})
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["id"]
    assert stored_files(tmp_path / "data") == {f"acme/{job_id}/document"}
    assert_one_job(private_redis, "acme", job_id)


def test_a_worker_waits_through_a_redis_restart_mid_call_and_resumes(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, good_reply(1, delay_s=4.0), good_reply(2))
    procs.worker()
    with in_process_api(private_redis, tmp_path) as api:
        created = submit(api)
        assert created.status_code == 202, created.text
        deadline = time.monotonic() + TIMEOUT_S
        while not fake.bodies(RESPONSES):  # the model call has started
            assert time.monotonic() < deadline, procs.logs()
            time.sleep(0.05)
        private_redis.stop()  # while the call runs: no job store, no broker, no budget
        time.sleep(2.0)
        private_redis.start()
        first = wait_final(api, created.json()["id"], procs)
        second = run_job(api, procs)  # and the worker takes new jobs
    assert_ran_once(procs, first, second)
    assert len(fake.bodies(RESPONSES)) == 2  # the interrupted call was not made again
