"""The chaos run (``tests/chaos.py``): 3 ``evidex worker`` processes on a private Redis with AOF,
100 jobs, a model with 1 s latency that answers HTTP 500 to 5% of calls and hangs on 2%; every
10 s a random worker is SIGKILLed and a new one started, and Redis is restarted once mid-run.

It asserts the invariants, never timings (``python -m bench.chaos`` prints those):

- every job ends ``succeeded`` or ``failed`` with a named code, none is left behind;
- each succeeded job has exactly one result stored and one final event; a failed job none;
- model calls answered 200 <= jobs + the calls in flight at the kills (nothing else runs twice);
- the tenant's token budget is never exceeded, and each succeeded job is charged;
- the poisoned job (its document kills every worker that runs it) ends ``job_poisoned`` after
  two workers (or more, while another job shared each of its deaths), no job that died only
  beside it is quarantined with it, and no live worker loses a lease (no job is taken over from
  a worker not killed).

At most 4 kills, each of a worker that holds jobs at that moment (one still starting up has
nothing to lose). Short leases (10 s, heartbeat and sweep every second) keep the run to a minute
or two on an idle 2-core machine; the defaults are what the bench measures.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from chaos import USAGE_PER_CALL, ChaosConfig, run_chaos, summary
from service_stack import needs_redis

from evidex.workers.jobs import JobStatus

pytestmark = [
    pytest.mark.chaos,
    needs_redis,
]

NAMED_FAILURES = {
    "llm_unavailable",
    "job_poisoned",  # a job on two of the randomly killed workers
    "store_unavailable",
    "budget_unavailable",
}


def test_chaos_nothing_lost_nothing_stored_or_billed_twice(tmp_path: Path) -> None:
    config = ChaosConfig(lease_ttl_s=10.0, heartbeat_s=1.0, sweep_interval_s=1.0, timeout_s=900)
    outcome = run_chaos(config, tmp_path / "chaos")
    figures = summary(outcome)
    where = f"{figures}; logs in {outcome.logs}"

    assert outcome.unfinished == [], where
    assert len(outcome.jobs) == config.jobs + 1, where  # and the poisoned one
    assert outcome.poison_id is not None
    poisoned = outcome.jobs.pop(outcome.poison_id)  # quarantined after two workers, not run on
    assert poisoned.status is JobStatus.FAILED, (poisoned, where)
    assert poisoned.error is not None and poisoned.error.code == "job_poisoned", where
    assert poisoned.lost_runs >= 2, where  # more when another job shared both of its deaths
    assert outcome.collateral_poisoned() == [], where
    false = outcome.false_lease_losses()
    assert false == [], "\n".join([where, *(outcome.story(j) for j in false)])
    assert len(outcome.kills) >= 2 and outcome.redis_restarted_at is not None, where
    succeeded = {i for i, j in outcome.jobs.items() if j.status is JobStatus.SUCCEEDED}
    for job in outcome.jobs.values():
        finals = [e.status for e in job.events if e.status.final]
        assert finals == [job.status], (job.id, job.events, where)
        if job.status is JobStatus.FAILED:
            assert job.error is not None and job.error.code in NAMED_FAILURES, (job, where)
    assert outcome.results == succeeded, where  # one result per succeeded job, none for failed
    assert outcome.answered <= config.jobs + sum(k.in_flight for k in outcome.kills), where
    assert outcome.budget_used <= outcome.budget_limit, where
    assert outcome.answered * USAGE_PER_CALL <= outcome.budget_limit, where
    # Settled: each succeeded job is charged its usage; the poisoned job keeps its reservation
    # (its calls' usage is unknown).
    assert outcome.budget_used >= len(succeeded) * USAGE_PER_CALL, where
