"""Running one job: :func:`process` holds the job logic, without Celery (``tasks`` wraps it).

::

    queued ──▶ running ──▶ succeeded
      ▲          │  └────▶ failed      permanent error, retries used up, timeout, over budget
      └──────────┘                     transient error: back to queued, the task sent again later

Redelivery *will* happen (late acknowledgement), so the task id is the job id and every step is a
compare-and-set on the job's status. A delivery that finds the job queued takes it (``attempts``
+ 1); running, knows its worker died or stalled before acknowledging (its lease lapsed, or the
visibility timeout passed), or handed it back alive (a store was down) and the retry's message
was lost, and runs it again as a new attempt -- a job whose workers died or stalled in its run
:data:`POISON_AFTER` times is quarantined, failed ``job_poisoned``, never handed on for ever;
succeeded or failed, does nothing: nothing is stored, billed
or notified twice. The result is an upsert under a fixed key; only the delivery whose final
compare-and-set wins queues the webhook.

Transient errors (``RunError.transient``: a model outage, the budget counter or a store
unreachable, a crashed parser process) go back to the queue with exponential backoff and jitter,
``task_max_retries`` times, then fail with the last error's code; a pending retry's reason is in
``job.error``. Permanent errors (``InputError``, other ``RunError``, ``ConfigError``) fail at once;
anything else is a bug: ``internal_error``.

Time. The threads pool enforces no Celery time limit, so the soft limit is enforced here: no
stage starts after it. The job's CPU stages (parsing, a computing backend such as ``rules``,
verification) run through ``deps.stages`` (:mod:`evidex.workers.stages`): in a worker, each in a
child process bounded by ``stage_time_limit_s`` (or what is left of the soft limit, if less), so
a stage that never ends fails the job ``job_timeout`` naming the stage, and stalls nothing else.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
from celery.exceptions import SoftTimeLimitExceeded
from pydantic import BaseModel
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from evidex.extractors.backends import make_context, make_llm
from evidex.extractors.document import select_pages
from evidex.extractors.gate import screen
from evidex.extractors.llm.base import LLMBackend, LLMRequest, LLMResponse
from evidex.extractors.pipeline import extract_parsed, plan_job
from evidex.extractors.plan.calls import JobPlan
from evidex.extractors.settings import Settings
from evidex.extractors.verify.fields import Verification
from evidex.schemas import ConfigError, EvidexError, SchemaDef
from evidex.schemas.errors import InputError, RunError
from evidex.workers.budget import Budget, BudgetUnavailable, job_upper_bound, tokens_used
from evidex.workers.jobs import Job, JobError, JobStatus
from evidex.workers.leases import Leases
from evidex.workers.logs import bind_job
from evidex.workers.metrics import Metrics, job_ended, job_result
from evidex.workers.settings import WorkerSettings
from evidex.workers.shared import extraction_schema
from evidex.workers.stages import CPU_BACKENDS, InlineStages, JobTimeout, Stages
from evidex.workers.stores import BlobNotFound, BlobStore, JobStore, StoreUnavailable

__all__ = [
    "POISON_AFTER",
    "RETRY_BASE_S",
    "RETRY_CAP_S",
    "STORE_DOWN",
    "UNMETERED",
    "Deps",
    "JobPoisoned",
    "OptionsInvalid",
    "RetryJob",
    "backoff",
    "process",
    "result_key",
]

log = logging.getLogger(__name__)

UNMETERED = CPU_BACKENDS  # backends that call no model: nothing to budget
STORE_DOWN = (StoreUnavailable, RedisConnectionError, RedisTimeoutError)
RETRY_BASE_S, RETRY_CAP_S = 10.0, 600.0
POISON_AFTER = 2  # workers a job may kill or stall before it is quarantined
_QUEUED, _RUNNING = frozenset({JobStatus.QUEUED}), frozenset({JobStatus.RUNNING})


class JobPoisoned(RunError):
    """The job's workers died or stalled while running it, ``POISON_AFTER`` times."""

    code = "job_poisoned"


class OptionsInvalid(InputError):
    code = "options_invalid"


class RetryJob(Exception):
    """The job is back in the queue: send its task again after ``delay_s`` seconds."""

    def __init__(self, delay_s: float, reason: str) -> None:
        super().__init__(delay_s, reason)
        self.delay_s, self.reason = delay_s, reason


def backoff(
    attempt: int,
    base_s: float = RETRY_BASE_S,
    cap_s: float = RETRY_CAP_S,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds before retry ``attempt`` (1-based): ``min(cap, base * 2**(attempt-1))`` times a
    random factor in [0.5, 1), so jobs that failed together do not return together."""
    return min(cap_s, math.ldexp(base_s, min(max(attempt - 1, 0), 60))) * (0.5 + rand() / 2)


def result_key(job: Job) -> str:
    return f"{job.tenant}/{job.id}/result.json"


@dataclass(frozen=True)
class Deps:
    """What :func:`process` works with, built once per worker process (or per test)."""

    jobs: JobStore
    blobs: BlobStore
    settings: WorkerSettings
    make_llm: Callable[[Settings], LLMBackend] = make_llm
    stages: Stages = field(default_factory=InlineStages)  # a worker's: ProcessStages
    budget: Budget | None = None  # None: no budget (EVIDEX_MONTHLY_TOKEN_BUDGET unset)
    on_final: Callable[[Job], None] | None = None  # the job ended and has a webhook_url
    rand: Callable[[], float] = random.random
    leases: Leases | None = None  # None: no leases (memory stores); see leases.py
    metrics: Metrics | None = None  # None: figures are not recorded (evidex.workers.metrics)


def process(job_id: str, deps: Deps, handed_back: bool = False) -> None:
    """Run one delivery of ``job_id``'s task; raises :class:`RetryJob` when it should run again.

    Store errors that leave no way to record the outcome propagate (the task retries them, with
    ``handed_back``: the job is still running, but no worker died or stalled on it).
    """
    job = _start(job_id, deps, handed_back)
    if job is None:
        return
    bind_job(job.id, job.tenant, job.attempts)
    deadline = time.monotonic() + deps.settings.task_soft_time_limit_s
    try:
        key = _run(job, deps, deadline)
    except SoftTimeLimitExceeded:
        _fail_or_retry(job, JobTimeout(_timeout_message(deps)), deps)
        return
    except Exception as exc:
        _fail_or_retry(job, exc, deps)
        return
    done = deps.jobs.transition(
        job.id, _RUNNING, JobStatus.SUCCEEDED, result_key=key, error=None, reserved_tokens=0
    )
    if done is not None:
        job_ended(deps.metrics, done)
        _finished(done, deps)


def _start(job_id: str, deps: Deps, handed_back: bool = False) -> Job | None:
    job = deps.jobs.get(job_id)
    if job is None:
        log.warning("job %s no longer exists; its task does nothing", job_id)
        return None
    if job.status.final:
        return None
    owner = None if deps.leases is None else deps.leases.owner
    if job.status is JobStatus.QUEUED:
        return deps.jobs.transition(
            job_id, _QUEUED, JobStatus.RUNNING, attempts=job.attempts + 1, ran_on=owner
        )
    # Running, and delivered again: the worker that ran it died or stalled before acknowledging,
    # or it handed the job back (a store was down) and the retry's message was lost.
    stopped = not handed_back and _stopped_mid_run(job, deps)
    died_on = [job.ran_on] if stopped and job.ran_on is not None else []
    lost, lost_on = job.lost_runs + int(stopped), job.lost_on + died_on
    blamed = lost >= POISON_AFTER and not _shared_blame(job, lost_on, deps)
    if blamed or job.attempts > deps.settings.task_max_retries:
        what = (
            f"the workers running this job died or stalled {lost} times"
            if blamed
            else f"this job was delivered again while running, {job.attempts} attempts in all"
        )
        poisoned = JobPoisoned(
            f"{what} (killed, out of memory, a step that never ended); it is not run again: "
            "check the document and the schema, or send fewer pages"
        )
        _end_failed(job, poisoned, deps, lost_runs=lost, lost_on=lost_on)
        return None
    if stopped:
        log.warning("job %s was running on a worker that died or stalled; running it again", job_id)
    else:
        log.warning("job %s was handed back by its worker; running it again", job_id)
    return deps.jobs.transition(
        job_id,
        _RUNNING,
        JobStatus.RUNNING,
        attempts=job.attempts + 1,
        lost_runs=lost,
        lost_on=lost_on,
        ran_on=owner,
    )


def _stopped_mid_run(job: Job, deps: Deps) -> bool:
    """Whether the worker that ran ``job`` last stopped mid-run (died or stalled), rather than
    handing the job back alive: only such a run counts towards :data:`POISON_AFTER`. Its list
    of running jobs says so (:meth:`~evidex.workers.leases.Leases.was_running`); without leases,
    a record of that worker or Redis to ask, it is assumed to have died."""
    if deps.leases is None or job.ran_on is None:
        return True
    try:
        return deps.leases.was_running(job.ran_on, job.id)
    except STORE_DOWN:
        return True


def _shared_blame(job: Job, lost_on: list[str], deps: Deps) -> bool:
    """Whether another job was running on every worker that died with this one: then the deaths
    do not single this job out (a worker runs several jobs at once, and one that kills its worker
    takes the others down with it), and it runs again, up to its attempts."""
    if deps.leases is None or len(lost_on) < POISON_AFTER:
        return False
    try:
        others = deps.leases.ran_together(lost_on) - {job.id}
    except STORE_DOWN:
        return False
    if others:
        log.warning(
            "job %s: its %d lost workers were also running %s; not quarantined yet",
            job.id,
            len(lost_on),
            ", ".join(sorted(others)),
        )
    return bool(others)


def _run(job: Job, deps: Deps, deadline: float) -> str:
    stored = _stored_result(job, deps)
    if stored is not None:
        return stored
    settings = _job_settings(job, deps.settings)
    schema = extraction_schema(job)  # built once per worker (evidex.workers.shared)
    data = deps.blobs.get(job.document_key)
    started = time.perf_counter()
    default = deps.settings.parser
    parser: str = job.options.parser or ("text" if job.media_type.startswith("text/") else default)
    parser += f":{job.options.tables}" if job.options.tables and parser != "text" else ""
    parser += f":{job.options.ocr}" if job.options.ocr and parser != "text" else ""

    def bound() -> float:  # a stage's time: its own limit, or what is left of the job's
        left = deadline - time.monotonic()
        if left <= 0:
            raise JobTimeout(_timeout_message(deps))
        return min(float(deps.settings.stage_time_limit_s), left)

    parsed = deps.stages.parse(parser, data, job.filename, bound())
    if job.options.pages:
        try:
            parsed = select_pages(parsed, job.options.pages)
        except ValueError as exc:
            raise OptionsInvalid(str(exc)) from None
    parse_ms = round((time.perf_counter() - started) * 1000, 2)
    # The pre-call gate: a document without text or not answering the schema fails here,
    # before any token is reserved or any model called (options.gate = false: only recorded).
    verdict = screen(parsed, schema, job.options.gate)
    llm = deps.make_llm(settings)
    if llm.name in CPU_BACKENDS:
        llm = _StageBackend(llm, deps.stages, bound)
    context = make_context(settings)
    plan = plan_job(parsed, schema, context)  # planned once: reserved for, then sent
    metered = llm.name not in UNMETERED and _reserve(job, deps, plan, settings)
    if time.monotonic() >= deadline:
        raise JobTimeout(_timeout_message(deps))

    def verifier(schema: SchemaDef, output: BaseModel, lines: pd.DataFrame) -> Verification:
        return deps.stages.verify(schema, output, lines, bound())

    result = extract_parsed(
        parsed,
        schema,
        llm=llm,
        parse_ms=parse_ms,
        started=started,
        context=context,
        verifier=verifier,
        plan=plan,
        gate=verdict,
    )
    key = result_key(job)
    deps.blobs.put(key, result.to_json().encode(), "application/json")
    job_result(deps.metrics, job, result)
    if metered:
        _settle(job, deps, tokens_used(result.trace.usage))
    return key


class _StageBackend:
    """A backend that computes its answer (rules), run as a stage of ``stages``."""

    def __init__(self, inner: LLMBackend, stages: Stages, bound: Callable[[], float]) -> None:
        self.name, self.inner, self.stages, self.bound = inner.name, inner, stages, bound

    def complete(self, request: LLMRequest) -> LLMResponse:
        return self.stages.answer(self.inner, request, self.bound())


def _stored_result(job: Job, deps: Deps) -> str | None:
    """The result key when an earlier attempt stored the result but could not record the outcome
    (Redis went away, the worker died): that attempt's model call is not made, nor billed, again."""
    key = result_key(job)
    if not deps.blobs.exists(key):
        return None
    log.warning("job %s: the result of an earlier attempt is stored; finishing with it", job.id)
    if deps.budget is not None:
        usage = json.loads(deps.blobs.get(key)).get("trace", {}).get("usage", {})
        _settle(job, deps, tokens_used(usage))
    return key


def _job_settings(job: Job, settings: WorkerSettings) -> WorkerSettings:
    chosen = {
        "llm": job.options.llm,
        "model": job.options.model,
        "context_tokens": job.options.context_tokens,
    }
    update = {name: value for name, value in chosen.items() if value}
    return settings.model_copy(update=update) if update else settings


def _reserve(job: Job, deps: Deps, plan: JobPlan, settings: Settings) -> bool:
    """Reserve the upper bound of every planned call of the job (or find the job's
    reservation); whether it is metered."""
    if deps.budget is None:
        if deps.settings.monthly_token_budget is not None:
            raise ConfigError("EVIDEX_MONTHLY_TOKEN_BUDGET is set but the worker has no budget")
        return False
    calls = [(c.prompt, c.schema) for c in plan.calls]
    bound = job_upper_bound(calls, settings, plan.continuations)
    held = deps.budget.reserve(job.tenant, job.id, bound)
    if job.reserved_tokens != held.tokens:
        deps.jobs.save(job.model_copy(update={"reserved_tokens": held.tokens}))
    return True


def _settle(job: Job, deps: Deps, used: int | None) -> None:
    if deps.budget is None:
        return
    try:
        deps.budget.settle(job.tenant, job.id, used)
    except BudgetUnavailable:  # the tenant keeps the full reservation; never rerun a call for it
        log.warning("job %s: the budget could not be settled; the reservation stays", job.id)


def _timeout_message(deps: Deps) -> str:
    limit = deps.settings.task_soft_time_limit_s
    return f"the job did not finish within {limit} s; send fewer pages or a smaller document"


def _describe(exc: BaseException) -> JobError:
    if isinstance(exc, EvidexError):
        return JobError(code=exc.code, message=exc.message)
    if isinstance(exc, BlobNotFound):
        return JobError(code="document_missing", message="the job's document is no longer stored")
    if isinstance(exc, STORE_DOWN):
        return JobError(code="store_unavailable", message=f"a store did not answer: {exc}")
    log.error("job failed with an unexpected error", exc_info=exc)
    return JobError(
        code="internal_error",
        message=f"an unexpected error stopped the job ({type(exc).__name__}); it is logged",
    )


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, RunError):
        return bool(getattr(exc, "transient", False))
    return isinstance(exc, STORE_DOWN)


def _fail_or_retry(job: Job, exc: BaseException, deps: Deps) -> None:
    if _transient(exc) and job.attempts <= deps.settings.task_max_retries:
        error = _describe(exc)
        delay = backoff(job.attempts, deps.settings.task_backoff_s, rand=deps.rand)
        error.message = f"attempt {job.attempts} failed, retrying in {delay:.0f} s: {error.message}"
        requeued = deps.jobs.transition(
            job.id, _RUNNING, JobStatus.QUEUED, detail=error.message, error=error
        )
        if requeued is not None:
            raise RetryJob(delay, error.message)
        return
    _end_failed(job, exc, deps)


def _end_failed(
    job: Job,
    exc: BaseException,
    deps: Deps,
    lost_runs: int | None = None,
    lost_on: list[str] | None = None,
) -> None:
    _settle(job, deps, None)  # a failed call's usage is unknown: the reservation is kept
    error = _describe(exc)
    if _transient(exc):
        error.message += f" (gave up after {job.attempts} attempts)"
    failed = deps.jobs.transition(
        job.id,
        _RUNNING,
        JobStatus.FAILED,
        error=error,
        reserved_tokens=0,
        lost_runs=job.lost_runs if lost_runs is None else lost_runs,
        lost_on=job.lost_on if lost_on is None else lost_on,
    )
    if failed is not None:
        job_ended(deps.metrics, failed)
        _finished(failed, deps)


def _finished(job: Job, deps: Deps) -> None:
    if not job.options.webhook_url or deps.on_final is None:
        return
    try:
        deps.on_final(job)
    except Exception:  # the job has ended either way; a lost notice must not undo that
        log.exception("job %s: the webhook could not be queued", job.id)
