"""What every route may use, built once per app by ``create_app`` and injected as ``services``.

Litestar validates injected values against their annotations, so the routes receive one concrete
object rather than several protocol-typed ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from litestar.datastructures import State
from litestar.di import NamedDependency
from redis.asyncio import Redis

from evidex.service.decisions import DecisionLock, local_lock
from evidex.service.ratelimit import RateLimiter
from evidex.service.settings import ServiceSettings
from evidex.workers.metrics import Metrics
from evidex.workers.stores import BlobStore, JobStore

__all__ = [
    "Enqueue",
    "Services",
    "ServicesDep",
    "TenantDep",
    "WorkerCheck",
    "provide_services",
]

Enqueue = Callable[[str], None]
"""Send the task for a job id (in production: ``run_job.apply_async``)."""

WorkerCheck = Callable[[], Sequence[str]]
"""The names of the live workers (blocking; called in a thread by ``/readyz``)."""


@dataclass(frozen=True)
class Services:
    settings: ServiceSettings
    job_store: JobStore
    blob_store: BlobStore
    enqueue: Enqueue
    limiter: RateLimiter
    redis: Redis | None = None
    worker_check: WorkerCheck | None = None
    decision_lock: DecisionLock = local_lock  # redis_lock(...) when API processes share Redis
    metrics: Metrics | None = None

    def __repr__(self) -> str:  # the settings hold no secrets in clear, but keep logs short
        return f"Services(job_store={self.job_store!r}, blob_store={self.blob_store!r})"


def provide_services(state: State) -> Services:
    """Dependency ``services``: the app's one ``Services`` (kept in ``app.state``)."""
    services: Services = state.services
    return services


ServicesDep: TypeAlias = NamedDependency[Services]
"""A handler parameter ``services: ServicesDep``."""

TenantDep: TypeAlias = NamedDependency[str]
"""A handler parameter ``tenant: TenantDep``: the caller's tenant (see :mod:`.auth`)."""
