"""The chaos run with the figures: jobs, time to recover after each kill, duplicate model calls.

    PYTHONPATH=. .venv/bin/python -m bench.chaos                # the defaults: 10 s leases
    PYTHONPATH=. .venv/bin/python -m bench.chaos --load 4       # four busy processes beside it
    PYTHONPATH=. .venv/bin/python -m bench.chaos --lease-ttl 30 --heartbeat 5 --sweep 5
    # one worker with six model calls in flight, SIGKILLed, a fresh worker started:
    PYTHONPATH=. .venv/bin/python -m bench.chaos --jobs 6 --workers 1 --concurrency 6 \
        --latency 8 --max-kills 1 --redis-restart-after 0

The scenario of ``tests/chaos.py`` (the same one the suite checks): a private Redis with AOF,
``--workers`` ``evidex worker`` processes, ``--jobs`` invoices, a model with ``--latency``
seconds, 5% HTTP 500 and 2% hangs; every ``--kill-every`` seconds a worker that holds jobs is
SIGKILLed and a new one started (``--max-kills`` in all), and Redis is restarted once; one more
job's document kills every worker that runs it (it must end ``job_poisoned`` after two).

Printed: jobs succeeded/failed (codes), the kills, the time to recover after each kill (from the
SIGKILL until the last job whose lease the killed worker held has ended: lease expiry + sweep +
the new attempt), model requests and 200 answers, duplicate 200 answers (answers beyond one per
succeeded job: the calls lost with killed workers), the token budget used and its limit, the
poisoned job's end, false lease losses (jobs taken over from a worker that was not killed: must
be 0; each printed with the job's record, the kills and the workers' log lines naming it) and the
load average during the run.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from tests.chaos import ChaosConfig, run_chaos, summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=2, help="threads per worker")
    ap.add_argument("--latency", type=float, default=1.0, help="model latency (s)")
    ap.add_argument("--kill-every", type=float, default=10.0)
    ap.add_argument("--max-kills", type=int, default=4)
    ap.add_argument(
        "--redis-restart-after", type=float, default=15.0, help="seconds; 0: never restart"
    )
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--load", type=int, default=0, help="busy processes beside the run")
    ap.add_argument("--lease-ttl", type=float, help="EVIDEX_LEASE_TTL_S (default: 30)")
    ap.add_argument("--heartbeat", type=float, help="EVIDEX_HEARTBEAT_S (default: 5)")
    ap.add_argument("--sweep", type=float, help="EVIDEX_SWEEP_INTERVAL_S (default: 5)")
    args = ap.parse_args(argv)
    config = ChaosConfig(
        jobs=args.jobs,
        workers=args.workers,
        concurrency=args.concurrency,
        latency_s=args.latency,
        kill_every_s=args.kill_every,
        max_kills=args.max_kills,
        seed=args.seed,
        redis_restart_after_s=args.redis_restart_after or None,
        lease_ttl_s=args.lease_ttl,
        heartbeat_s=args.heartbeat,
        sweep_interval_s=args.sweep,
        load=args.load,
    )
    lease = args.lease_ttl or 10.0
    print(
        f"bench.chaos: {config.jobs} jobs, {config.workers} workers x {config.concurrency} "
        f"threads, model {config.latency_s} s, {config.p500:.0%} HTTP 500, {config.phang:.0%} "
        f"hangs; a kill every {config.kill_every_s:.0f} s (at most {config.max_kills}), "
        f"{'one' if config.redis_restart_after_s else 'no'} Redis restart; lease {lease:.0f} s"
    )
    outcome = run_chaos(config)
    figures = summary(outcome)
    recover = figures["recover_s"]
    print(
        f"jobs: {figures['succeeded']} succeeded, {figures['failed']} failed "
        f"{figures['failed_codes'] or ''}, {figures['unfinished']} unfinished, "
        f"in {figures['duration_s']} s"
    )
    print(f"kills: {figures['kills']}; Redis restarted: {figures['redis_restarted']}")
    if recover:
        print(
            "time to recover after a kill (kill -> last of its jobs ended): "
            f"p50 {statistics.median(recover):.1f} s, max {max(recover):.1f} s "
            f"({', '.join(f'{r:.1f}' for r in recover)})"
        )
    taken = sorted(outcome.taken_over_s())
    if taken:
        print(
            "time until a killed worker's jobs run again elsewhere: "
            f"p50 {statistics.median(taken):.1f} s, max {max(taken):.1f} s"
        )
    print(
        f"model: {figures['model_requests']} requests, {figures['model_200']} answered 200 "
        f"({outcome.failed_calls} HTTP 500, {outcome.hung_calls} hangs); duplicate 200 "
        f"answers: {figures['duplicate_200']} (calls in flight at the kills: "
        f"{figures['in_flight_at_kills']})"
    )
    print(f"token budget: {figures['budget_used']:,} used of {figures['budget_limit']:,}")
    print(
        f"poisoned job: {figures['poisoned_job']} ({figures['poison_kills']} workers killed by "
        f"it); false lease losses: {figures['false_lease_losses']}; load average "
        f"{figures['load_average']} ({config.load} busy processes beside the run)"
    )
    for job_id in outcome.false_lease_losses():  # what the run knows of each, to look into
        print(outcome.story(job_id))
    print(f"logs: {outcome.logs}")
    return 0 if not outcome.unfinished else 1


if __name__ == "__main__":
    sys.exit(main())
