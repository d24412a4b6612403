"""The Celery app: Redis broker, late acknowledgement, a threads pool, a process pool for parsing.

Concurrency. A job waits seconds to minutes for the model and should spend a few tens of
milliseconds of CPU besides. So the worker runs the ``threads`` pool with ``worker_concurrency``
threads (64 by default): that many model calls in flight per worker process, at a few MB each,
where prefork would hold a whole process (hundreds of MB with pandas and PyMuPDF) per waiting call.
The threads share one model client per (backend, model) (:mod:`evidex.workers.shared`):
building one costs more CPU than the rest of a job, and sharing it reuses its connections.
Parsing, though, is CPU-bound work that holds the GIL: on those threads one large PDF would stall
all the others (and the broker connection). It therefore runs in one shared
``ProcessPoolExecutor`` per worker (spawned on first use -- never forked from a threaded process
-- one process per usable core, or ``EVIDEX_PARSE_PROCESSES``, each replaced after
``EVIDEX_PARSE_TASKS_PER_PROCESS`` documents, 1000 by default, to bound the parser's memory: a new
process costs about a second of CPU to start, which every 50 documents was ~30 ms a job); the
threads only wait on it. Verification stays on the thread: it reads the line table already in
memory.

Results. No Celery result backend: the job store is the state of record (queued, running,
succeeded, failed) and results live in the blob store; a second copy of the state in
``celery-task-meta-*`` keys could only disagree with it. ``task_track_started`` is set for the day
a backend is added for monitoring; without one it records nothing.

Time limits. Celery enforces ``task_soft_time_limit``/``task_time_limit`` only in the prefork
pool. With threads the runner enforces the soft limit (parsing gets what is left of it, no model
call starts after it) and the model client's own timeouts bound the rest. The broker's visibility
timeout must exceed the hard limit plus the longest retry countdown, because a retried message is
held unacknowledged by a worker from delivery, through its countdown, to the end of its run: past
the visibility timeout Redis hands it to a second worker while it still runs. Checked at start-up.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from concurrent.futures.process import BrokenProcessPool
from functools import cache, partial
from multiprocessing import get_context

from celery import Celery

from evidex.extractors.backends import make_llm, make_parser
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.base import LLMBackend
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError
from evidex.workers.broker import TRANSPORT
from evidex.workers.budget import Budget
from evidex.workers.leases import check_lease_settings, make_leases
from evidex.workers.metrics import RedisMetrics
from evidex.workers.runner import (
    RETRY_CAP_S,
    Deps,
    JobTimeout,
    ParseFn,
    ParserCrashed,
)
from evidex.workers.settings import WorkerSettings
from evidex.workers.shared import SharedLLMs
from evidex.workers.stores import BlobStore, JobStore
from evidex.workers.sweeper import upkeep_step
from evidex.workers.tasks import WEBHOOK_CAP_S, enqueue_webhook, register_tasks

__all__ = ["QUEUE", "ProcessParsing", "build_deps", "check_settings", "make_celery"]

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
    parse: ParseFn | None = None,
) -> Deps:
    """The worker's dependencies: stores from ``settings`` (unless given), the budget when
    ``monthly_token_budget`` is set, parsing in a :class:`ProcessParsing` pool, model clients
    built once and shared by the threads (:class:`~evidex.workers.shared.SharedLLMs`)."""
    from evidex.workers.factory import make_blob_store, make_job_store

    budget = None
    if settings.monthly_token_budget is not None:
        budget = Budget.from_url(settings.redis_url, settings.monthly_token_budget)
    jobs = jobs or make_job_store(settings)
    return Deps(
        jobs=jobs,
        blobs=blobs or make_blob_store(settings),
        settings=settings,
        make_llm=SharedLLMs(llm_factory),
        parse=parse or ProcessParsing(settings.parse_processes, settings.parse_tasks_per_process),
        budget=budget,
        on_final=partial(enqueue_webhook, app),
        leases=make_leases(jobs, settings),
        metrics=RedisMetrics.from_url(settings.redis_url),
    )


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity, e.g. a container's cpuset)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@cache
def _process_settings() -> Settings:
    """A parse process's settings (what Azure needs), read once: building them reads the
    environment and validates every field (~0.6 ms, a tenth of parsing a page), and the process
    is spawned with the worker's environment, which nothing changes afterwards."""
    return Settings()


def _parse_in_process(parser: str, data: bytes, filename: str, timeout_s: float) -> ParsedDocument:
    """:func:`~evidex.workers.runner.parse_inline` in a parse process: the time limit is the
    pool's (see :class:`ProcessParsing`)."""
    return make_parser(parser, _process_settings()).parse(data, filename)


def _exit_with_parent(parent: int) -> None:
    """Pool process initializer: exit when the worker is gone (even SIGKILLed), not linger."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="evidex-parent-watch", daemon=True).start()


class ProcessParsing:
    """A ``ParseFn`` on a process pool shared by the worker's threads, started on first use.

    A parse that overruns its time is killed with the whole pool (parses in flight beside it
    fail as ``parser_crashed``, which is retried); a crashed parser process is the same.
    """

    def __init__(self, workers: int | None = None, tasks_per_child: int = 1000) -> None:
        self.workers = workers or usable_cores()
        self.tasks_per_child = tasks_per_child
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _get(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=get_context("spawn"),
                    initializer=_exit_with_parent,
                    initargs=(os.getpid(),),
                    max_tasks_per_child=self.tasks_per_child,
                )
            return self._pool

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        for process in list(pool._processes.values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def __call__(self, parser: str, data: bytes, filename: str, timeout_s: float) -> ParsedDocument:
        pool = self._get()
        try:
            future = pool.submit(_parse_in_process, parser, data, filename, timeout_s)
            return future.result(timeout=max(timeout_s, 0.001))
        except FuturesTimeout:
            if not future.cancel():  # it is running: only killing its process stops it
                self._discard(pool)
            raise JobTimeout(
                f"reading {filename} took longer than the {timeout_s:.0f} s left to the job; "
                "send fewer pages or a smaller document"
            ) from None
        except BrokenProcessPool:
            self._discard(pool)
            raise ParserCrashed(
                f"the parser process stopped while reading {filename} (out of memory?)"
            ) from None

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


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
