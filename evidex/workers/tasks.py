"""The Celery tasks: thin wrappers of :func:`~evidex.workers.runner.process` and of the webhook.

``evidex.run_job`` carries only the job id, and its task id *is* the job id, so a message sent
twice or delivered again names the same job and the job's compare-and-set decides what happens.
Retries are the task's own (``self.retry`` with the runner's backoff): the job store counts the
attempts, so Celery's own ``max_retries`` is off.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

import httpx
from celery import Celery, Task

from evidex.extractors.llm.base import LLMBackend
from evidex.extractors.settings import Settings
from evidex.workers.jobs import Job
from evidex.workers.leases import FencedBlobs, FencedBudget, FencedJobs, LeaseLost, Leases
from evidex.workers.logs import bind_job, clear_job
from evidex.workers.runner import STORE_DOWN, Deps, RetryJob, backoff, process
from evidex.workers.webhooks import TIMEOUT_S, notify

__all__ = [
    "DELIVER_WEBHOOK",
    "RUN_JOB",
    "WEBHOOK_BASE_S",
    "WEBHOOK_CAP_S",
    "enqueue_job",
    "enqueue_webhook",
    "register_tasks",
    "run_leased",
]

log = logging.getLogger(__name__)

RUN_JOB, DELIVER_WEBHOOK = "evidex.run_job", "evidex.deliver_webhook"
WEBHOOK_BASE_S, WEBHOOK_CAP_S = 10.0, 600.0


def register_tasks(app: Celery, deps: Callable[[], Deps]) -> None:
    """Register ``evidex.run_job`` and ``evidex.deliver_webhook`` on ``app`` only (not shared:
    a shared task is added to every app finalized later in the process, where the first app's
    closure, with its ``deps``, would answer to the name)."""

    @app.task(name=RUN_JOB, bind=True, max_retries=None, ignore_result=True, shared=False)
    def run_job(self: Task[[str, bool], None], job_id: str, handed_back: bool = False) -> None:
        d = deps()
        clear_job()  # a pool thread runs many tasks: no context from the one before
        bind_job(job_id)
        try:
            if d.leases is None:
                process(job_id, d, handed_back)
            else:
                run_leased(job_id, d, d.leases, handed_back)
        except RetryJob as retry:
            if d.leases is not None:  # the sweeper sends it again if this retry never arrives
                d.leases.set_due(job_id, retry.delay_s + d.leases.ttl_s)
            raise self.retry(countdown=retry.delay_s) from None
        except STORE_DOWN as exc:  # not even the outcome could be recorded: deliver again later
            log.warning("job %s: a store is unavailable (%s); retrying", job_id, exc)
            countdown = backoff(self.request.retries + 1)
            raise self.retry(countdown=countdown, kwargs={"handed_back": True}) from exc
        finally:
            clear_job()

    @app.task(name=DELIVER_WEBHOOK, bind=True, max_retries=None, ignore_result=True, shared=False)
    def deliver_webhook(self: Task[[str], None], job_id: str) -> None:
        d, attempt = deps(), self.request.retries + 1
        with httpx.Client(timeout=TIMEOUT_S, follow_redirects=False) as client:
            again = notify(
                job_id,
                jobs=d.jobs,
                blobs=d.blobs,
                settings=d.settings,
                client=client,
                attempt=attempt,
            )
        if again:
            raise self.retry(countdown=backoff(attempt, WEBHOOK_BASE_S, WEBHOOK_CAP_S, d.rand))


def run_leased(job_id: str, deps: Deps, leases: Leases, handed_back: bool = False) -> None:
    """:func:`process` holding the job's lease, writing through fenced stores; a delivery of a
    job another worker holds a live lease on does nothing (the other worker owns its outcome)."""
    with leases.hold(job_id) as ours:
        if not ours:
            log.info("job %s is running on another worker; this delivery does nothing", job_id)
            return
        inner = deps.make_llm

        def make_llm(settings: Settings) -> LLMBackend:
            leases.confirm(job_id)  # right before the budget reservation and the model call
            return inner(settings)

        fenced = replace(
            deps,
            jobs=FencedJobs(deps.jobs, leases, job_id),
            blobs=FencedBlobs(deps.blobs, leases, job_id),
            budget=None if deps.budget is None else FencedBudget(deps.budget, leases, job_id),
            make_llm=make_llm,
            leases=leases,
        )
        try:
            process(job_id, fenced, handed_back)
        except LeaseLost:
            log.warning("job %s: another worker took it over; this run stops", job_id)


def enqueue_job(app: Celery, job_id: str) -> None:
    """Send ``job_id``'s task (the service calls this after creating the job)."""
    app.send_task(RUN_JOB, args=[job_id], task_id=job_id)


def enqueue_webhook(app: Celery, job: Job) -> None:
    app.send_task(DELIVER_WEBHOOK, args=[job.id], task_id=f"{job.id}-webhook")
