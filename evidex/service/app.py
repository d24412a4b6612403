"""The Litestar app: ``create_app`` wires injected parts; ``production_app`` builds them.

::

    /healthz, /readyz                     public (HealthController)
    /schema, /schema/openapi.json ...     public: the OpenAPI document (see auth.py for why)
    /v1   guard: API key + rate limit     every route below
      POST   /jobs                        JobSubmission, the only route with a large body limit
      GET    /jobs, /jobs/{id}, /jobs/{id}/annotated.pdf, DELETE /jobs/{id}
      GET    /schemas, /schemas/{name}; POST /schemas/explain
      GET    /jobs/{id}/review, /jobs/{id}/pages/{n}.png, /review-assets/{name}   (review.py)
      PATCH  /jobs/{id}/fields/{path}; GET /jobs/{id}/decisions, /jobs/{id}/export.json|.csv
      POST/GET /jobs/{id}/review-links, DELETE /jobs/{id}/review-links/{link}  (review_links.py)
    /review/{token}...                    public: a signed review link (review_links.py);
                                          guard: rate limit per client address
    /review-assets/{name}                 public: static files
    /, /upload-assets/{name}              public: the upload page and its files (upload_page.py)
    /metrics                              only with EVIDEX_METRICS_TOKEN (metrics.py);
                                          guards: rate limit per client address, the token

Errors from anywhere become problem+json in :mod:`evidex.service.problems`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from litestar import Controller, Litestar, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from evidex import __version__
from evidex.schemas import ConfigError
from evidex.service.auth import current_tenant, require_api_key
from evidex.service.catalog import SchemasController
from evidex.service.decisions import DecisionLock, local_lock, redis_lock
from evidex.service.drain import drain_unread_body
from evidex.service.health import HealthController
from evidex.service.jobs import JobsController, JobSubmission
from evidex.service.metrics import MetricsController
from evidex.service.problems import exception_handlers
from evidex.service.ratelimit import (
    MemoryRateLimiter,
    RateLimiter,
    RedisRateLimiter,
    per_address,
)
from evidex.service.requestlog import request_log
from evidex.service.review import ReviewController, review_assets
from evidex.service.review_links import (
    PublicReview,
    ReviewLinksController,
    public_review_assets,
)
from evidex.service.services import Enqueue, Services, WorkerCheck, provide_services
from evidex.service.settings import ServiceSettings
from evidex.service.upload_page import UploadPage, upload_assets
from evidex.workers.metrics import MemoryMetrics, Metrics
from evidex.workers.stores import BlobStore, JobStore

__all__ = ["FORM_OVERHEAD", "SMALL_BODY", "SingleFlightCheck", "create_app", "production_app"]

log = logging.getLogger(__name__)
FORM_OVERHEAD = 1024 * 1024  # multipart framing, schema_json and options next to the file
SMALL_BODY = 64 * 1024  # every route but the upload: at most a schema (explain) in the body


class SingleFlightCheck:
    """A worker check of which one runs at a time.

    ``/readyz`` is public, and each real check broadcasts a ping to every worker and holds one
    of the API's threads for a second: a burst of probes, each pinging, would take the threads
    uploads need. So while a ping is under way every other caller gets the answer of the one
    before it, at once; only callers before the first answer wait, and then share it.
    """

    def __init__(self, check: Callable[[], Sequence[str]]) -> None:
        self._check = check
        self._pinging = threading.Lock()
        self._last: list[str] | Exception | None = None

    def __call__(self) -> list[str]:
        seen = self._last
        if not self._pinging.acquire(blocking=seen is None):
            return self._outcome(self._last)
        try:
            if seen is None and self._last is not None:  # waited for another caller's ping
                return self._outcome(self._last)
            try:
                answer: list[str] | Exception = list(self._check())
            except Exception as exc:  # /readyz reports it as the check's failure
                answer = exc
            self._last = answer
        finally:
            self._pinging.release()
        return self._outcome(answer)

    @staticmethod
    def _outcome(answer: list[str] | Exception | None) -> list[str]:
        if isinstance(answer, Exception):  # a new one each time: a shared one's traceback grows
            raise RuntimeError(str(answer))
        return list(answer or [])


def create_app(
    settings: ServiceSettings,
    *,
    job_store: JobStore,
    blob_store: BlobStore,
    enqueue: Enqueue,
    redis: Redis | None = None,
    worker_check: WorkerCheck | None = None,
    limiter: RateLimiter | None = None,
    address_limiter: RateLimiter | None = None,
    decision_lock: DecisionLock = local_lock,
    metrics: Metrics | None = None,
) -> Litestar:
    """The app over the given parts. Without ``redis`` the rate limits count in memory and
    ``/readyz`` skips the Redis check; without ``worker_check`` it skips the worker check;
    without ``metrics`` this process's figures are kept in memory. ``limiter`` counts ``/v1``
    per API key, ``address_limiter`` what answers without one per client address."""
    if limiter is None:
        limit = settings.rate_limit_per_minute
        limiter = MemoryRateLimiter(limit) if redis is None else RedisRateLimiter(redis, limit)
    if address_limiter is None:
        limit = settings.public_rate_limit_per_minute
        address_limiter = (
            MemoryRateLimiter(limit)
            if redis is None
            else RedisRateLimiter(redis, limit, prefix="evidex:ratelimit:addr:")
        )
    services = Services(
        settings,
        job_store,
        blob_store,
        enqueue,
        limiter,
        redis,
        worker_check,
        decision_lock=decision_lock,
        metrics=metrics if metrics is not None else MemoryMetrics(),
    )
    upload = Router(
        path="/",
        route_handlers=[JobSubmission],
        request_max_body_size=settings.max_upload_bytes + FORM_OVERHEAD,
    )
    v1 = Router(
        path="/v1",
        route_handlers=[
            upload,
            JobsController,
            SchemasController,
            ReviewController,
            review_assets,
            ReviewLinksController,
        ],
        guards=[require_api_key],
        dependencies={"tenant": Provide(current_tenant, sync_to_thread=False)},
        security=[{"bearer": []}],
    )

    async def disconnect_redis() -> None:
        # Connections belong to this app's event loop; the client itself stays usable.
        if redis is not None:
            await redis.connection_pool.disconnect()

    # Without an API key yet doing work (a page rendered, a decision stored, figures read):
    # counted per client address. Health checks are not: a 429 there would read as "unready".
    keyless: list[type[Controller]] = [PublicReview]
    if settings.metrics_token is not None:  # unset: /metrics does not exist (404)
        keyless.append(MetricsController)
    by_address = Router(path="/", route_handlers=keyless, guards=[per_address(address_limiter)])
    return Litestar(
        route_handlers=[
            v1,
            by_address,
            HealthController,
            public_review_assets,
            UploadPage,
            upload_assets,
        ],
        dependencies={"services": Provide(provide_services, sync_to_thread=False)},
        state=State({"services": services}),
        exception_handlers=exception_handlers,
        # request_log outermost; drain: errors reach clients still sending a body (drain.py)
        middleware=[request_log, drain_unread_body],
        request_max_body_size=SMALL_BODY,
        on_shutdown=[disconnect_redis],
        logging_config=None,  # logging belongs to the process (``evidex serve``), not the app
        openapi_config=OpenAPIConfig(
            title="evidex",
            version=__version__,
            description="Document extraction where every field comes with its evidence. "
            "Errors are application/problem+json (RFC 9457) with a stable `code`.",
            path="/schema",
            render_plugins=[ScalarRenderPlugin()],
            components=Components(
                security_schemes={
                    "bearer": SecurityScheme(
                        type="http",
                        scheme="bearer",
                        description="Authorization: Bearer <API key>; a key belongs to one "
                        "tenant and sees only its jobs.",
                    )
                }
            ),
        ),
    )


def production_app(settings: ServiceSettings | None = None) -> Litestar:
    """Everything from the environment: Redis job store, configured blob store, Celery.

    The Celery modules are imported here, lazily: building the app is what needs them.
    """
    settings = settings or ServiceSettings()
    if not settings.api_keys:
        raise ConfigError(
            "no API keys configured: set EVIDEX_API_KEYS ('tenant=key,...') or "
            "EVIDEX_API_KEYS_FILE, then start the service again"
        )
    from evidex.workers.celery_app import QUEUE, make_celery
    from evidex.workers.factory import make_blob_store, make_job_store
    from evidex.workers.metrics import RedisMetrics
    from evidex.workers.redisdriver import driver_info
    from evidex.workers.tasks import enqueue_job

    celery = make_celery(settings)  # checks the time limits against the visibility timeout

    def enqueue(job_id: str) -> None:
        enqueue_job(celery, job_id)  # task id = job id: a resend names the same job

    def live_workers() -> list[str]:
        replies = celery.control.ping(timeout=1.0) or []
        return [name for reply in replies for name in reply]

    redis = Redis.from_url(
        settings.redis_url,
        socket_timeout=0.5,
        socket_connect_timeout=0.5,
        driver_info=driver_info(),
    )
    return create_app(
        settings,
        job_store=make_job_store(settings),
        blob_store=make_blob_store(settings),
        enqueue=enqueue,
        redis=redis,
        worker_check=SingleFlightCheck(live_workers),
        decision_lock=redis_lock(
            SyncRedis.from_url(settings.redis_url, socket_timeout=5.0, driver_info=driver_info())
        ),
        metrics=RedisMetrics.from_url(settings.redis_url, queue=QUEUE),
    )
