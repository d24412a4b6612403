"""The Celery app: Redis broker, late acknowledgement, a threads pool, child processes for CPU.

Concurrency. A job waits seconds to minutes for the model and should spend a few tens of
milliseconds of CPU besides. So the worker runs the ``threads`` pool with ``worker_concurrency``
threads (64 by default): that many model calls in flight per worker process, at a few MB each,
where prefork would hold a whole process (hundreds of MB with pandas and PyMuPDF) per waiting call.
The threads share one model client per (backend, model) (:mod:`evidex.workers.shared`):
building one costs more CPU than the rest of a job, and sharing it reuses its connections.
A job's CPU work, though -- parsing, the rules backend, verification -- holds the GIL: on those
threads one large PDF or one pathological value would stall all the others, the broker
connection and the heartbeat. It therefore runs in one shared pool of child processes per worker,
each stage under a time bound (:mod:`evidex.workers.stages`; spawned on first use -- never forked
from a threaded process -- one process per usable core, or ``EVIDEX_PARSE_PROCESSES``, each
replaced after ``EVIDEX_PARSE_TASKS_PER_PROCESS`` stages, 1000 by default, to bound its memory: a
new process costs about a second of CPU to start); the threads only wait on it.

Results. No Celery result backend: the job store is the state of record (queued, running,
succeeded, failed) and results live in the blob store; a second copy of the state in
``celery-task-meta-*`` keys could only disagree with it. ``task_track_started`` is set for the day
a backend is added for monitoring; without one it records nothing.

Time limits. Celery enforces ``task_soft_time_limit``/``task_time_limit`` only in the prefork
pool. With threads the runner enforces the soft limit (no stage starts after it; each CPU stage is
killed past ``EVIDEX_STAGE_TIME_LIMIT_S`` or what is left of the soft limit) and the model
client's own timeouts bound the rest. The broker's visibility timeout must exceed the hard limit
plus the longest retry countdown, because a retried message is held unacknowledged by a worker
from delivery, through its countdown, to the end of its run: past the visibility timeout Redis
hands it to a second worker while it still runs. Checked at start-up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from celery import Celery

from evidex.extractors.backends import make_llm
from evidex.extractors.llm.base import LLMBackend
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError
from evidex.workers.broker import TRANSPORT
from evidex.workers.budget import Budget
from evidex.workers.leases import check_lease_settings
from evidex.workers.metrics import RedisMetrics
from evidex.workers.runner import RETRY_CAP_S, Deps
from evidex.workers.settings import WorkerSettings
from evidex.workers.shared import SharedLLMs
from evidex.workers.stages import ProcessStages, Stages
from evidex.workers.stores import BlobStore, JobStore
from evidex.workers.sweeper import upkeep_step
from evidex.workers.tasks import WEBHOOK_CAP_S, enqueue_webhook, register_tasks

__all__ = ["QUEUE", "build_deps", "check_settings", "make_celery"]

QUEUE = "evidex"


def check_settings(settings: WorkerSettings) -> None:
    """Raise :class:`ConfigError` unless the time limits fit inside the visibility timeout."""
    soft, hard = settings.task_soft_time_limit_s, settings.task_time_limit_s
    if soft >= hard:
        raise ConfigError(
            f"EVIDEX_TASK_SOFT_TIME_LIMIT_S={soft} must be below EVIDEX_TASK_TIME_LIMIT_S={hard}"
        )
    longest_delay = max(RETRY_CAP_S, WEBHOOK_CAP_S)
    needed = hard + longest_delay
    check_lease_settings(settings.lease_ttl_s, settings.heartbeat_s, settings.sweep_interval_s)
    if settings.visibility_timeout_s <= needed:
        raise ConfigError(
            f"EVIDEX_VISIBILITY_TIMEOUT_S={settings.visibility_timeout_s} is too short: it must "
            f"exceed EVIDEX_TASK_TIME_LIMIT_S ({hard} s) plus the longest retry delay "
            f"({longest_delay:.0f} s), i.e. {needed:.0f} s, or Redis hands jobs that are still "
            "running to a second worker; raise it or lower the time limit"
        )


def make_celery(settings: WorkerSettings, deps: Callable[[Celery], Deps] | None = None) -> Celery:
    """The app with evidex's tasks; ``deps`` builds the tasks' dependencies once, on first use
    (default: :func:`build_deps`, the stores and backends ``settings`` name)."""
    check_settings(settings)
    app = Celery("evidex", set_as_current=False)
    app.conf.update(
        broker_url=settings.redis_url,
        broker_transport=TRANSPORT,  # kombu's Redis transport, surviving a Redis restart
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": settings.visibility_timeout_s},
        broker_pool_limit=max(10, settings.worker_concurrency),
        task_ignore_result=True,  # no result backend: see the module docstring
        task_track_started=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_soft_time_limit=settings.task_soft_time_limit_s,
        task_time_limit=settings.task_time_limit_s,
        task_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_default_queue=QUEUE,
        worker_prefetch_multiplier=1,
        worker_pool="threads",
        worker_concurrency=settings.worker_concurrency,
        enable_utc=True,
        timezone="UTC",
    )
    build = deps or partial(build_deps, settings=settings)
    built: list[Deps] = []
    lock = threading.Lock()

    def get() -> Deps:
        if not built:
            with lock:
                if not built:
                    built.append(build(app))
        return built[0]

    register_tasks(app, get)
    app.steps["worker"].add(upkeep_step(get))  # heartbeat and sweeper: see sweeper.py
    return app


def build_deps(
    app: Celery,
    settings: WorkerSettings,
    *,
    jobs: JobStore | None = None,
    blobs: BlobStore | None = None,
    llm_factory: Callable[[Settings], LLMBackend] = make_llm,
    stages: Stages | None = None,
) -> Deps:
    """The worker's dependencies: stores from ``settings`` (unless given), the budget when
    ``monthly_token_budget`` is set, the jobs' CPU stages in a
    :class:`~evidex.workers.stages.ProcessStages` pool, model clients built once and shared by
    the threads (:class:`~evidex.workers.shared.SharedLLMs`)."""
    from evidex.workers.factory import make_blob_store, make_job_store, make_leases

    budget = None
    if settings.monthly_token_budget is not None:
        budget = Budget.from_url(settings.redis_url, settings.monthly_token_budget)
    jobs = jobs or make_job_store(settings)
    return Deps(
        jobs=jobs,
        blobs=blobs or make_blob_store(settings),
        settings=settings,
        make_llm=SharedLLMs(llm_factory),
        stages=stages or ProcessStages(settings.parse_processes, settings.parse_tasks_per_process),
        budget=budget,
        on_final=partial(enqueue_webhook, app),
        leases=make_leases(jobs, settings),
        metrics=RedisMetrics.from_url(settings.redis_url),
    )


_app: Celery | None = None


def __getattr__(name: str) -> Celery:
    """``celery -A evidex.workers.celery_app worker`` finds ``app``: built from the environment
    on first access, not at import."""
    global _app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _app is None:
        _app = make_celery(WorkerSettings())
    return _app
