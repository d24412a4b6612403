"""Faults of the model on the real path (REST API, ``evidex worker`` process, private Redis, the
OpenAI SDK against a fake model server): rate limits and server errors the job recovers from, and
a model that hangs until the job fails as ``llm_unavailable``.

Each test asserts that nothing is lost or done twice: the job ends in the stated status, the
tenant has exactly the jobs it submitted, exactly one result (or none, for a failure) is stored,
the model was called exactly as often as the fault requires, and no message is left in the queue
or unacknowledged. The stack and its checks are in ``fault_stack``.
"""

from __future__ import annotations

from pathlib import Path

from fake_openai import RESPONSES, FakeOpenAI
from fault_stack import (
    ACME,
    Processes,
    assert_one_job,
    assert_queue_drained,
    assert_ran_once,
    events,
    failure,
    good_reply,
    in_process_api,
    run_job,
    stored_files,
)
from service_stack import AofRedis, needs_redis

pytestmark = needs_redis


def test_rate_limit_then_server_error_then_recovery_succeeds_once(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    fake.add(RESPONSES, failure(429, **{"Retry-After": "0"}), failure(500), good_reply())
    procs.worker(EVIDEX_LLM_MAX_RETRIES="3")
    with in_process_api(private_redis, tmp_path) as api:
        job = run_job(api, procs)
    assert_ran_once(procs, job)
    assert job["error"] is None
    trace = job["result"]["trace"]
    assert (trace["llm"], trace["attempts"], trace["response_id"]) == ("openai", 3, "resp_fault_0")
    assert job["result"]["summary"]["unsupported"] == 0
    assert len(fake.bodies(RESPONSES)) == 3  # the retries happened inside one task run
    assert stored_files(tmp_path / "data") == {
        f"acme/{job['id']}/document",
        f"acme/{job['id']}/result.json",
    }
    assert_one_job(private_redis, "acme", job["id"])
    assert_queue_drained(private_redis)


def test_a_hanging_model_fails_the_job_as_llm_unavailable_after_its_retries(
    fake: FakeOpenAI, private_redis: AofRedis, procs: Processes, tmp_path: Path
) -> None:
    # 2 task attempts x 2 model attempts, each answered only after the 1 s client timeout.
    fake.add(RESPONSES, *[good_reply(n, delay_s=3.0) for n in range(4)])
    procs.worker(
        EVIDEX_LLM_TIMEOUT_S="1",
        EVIDEX_LLM_MAX_RETRIES="1",
        EVIDEX_TASK_MAX_RETRIES="1",
        EVIDEX_TASK_BACKOFF_S="0.2",
    )
    with in_process_api(private_redis, tmp_path) as api:
        job = run_job(api, procs)
        assert api.get(f"/v1/jobs/{job['id']}/annotated.pdf", headers=ACME).status_code == 409
    assert job["status"] == "failed", (job, procs.logs())
    assert job["error"]["code"] == "llm_unavailable"
    assert "within 1s on 2 attempt(s)" in job["error"]["message"]
    assert "gave up after 2 attempts" in job["error"]["message"]
    assert job["attempts"] == 2
    assert events(job) == ["running", "queued", "running", "failed"]
    assert "result" not in job or job["result"] is None
    assert len(fake.bodies(RESPONSES)) == 4
    assert stored_files(tmp_path / "data") == {f"acme/{job['id']}/document"}  # no result
    assert_one_job(private_redis, "acme", job["id"])
    assert_queue_drained(private_redis)
