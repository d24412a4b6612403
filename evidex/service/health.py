"""``/healthz`` (the process is up) and ``/readyz`` (it can take and run jobs). Both public.

Ready means: Redis answers PING (job records, the queue and rate limits live there), at least
one Celery worker answers, and the blob store (documents and results) answers; each check has
``CHECK_TIMEOUT_S`` and the 503 body names every one that failed (``checks``).
A check that is not configured (no Redis client, no worker check: the
in-memory set-up of tests and demos) is reported ``skipped`` and does not fail readiness.
"""

from __future__ import annotations

import logging

import anyio.to_thread
from litestar import Controller, get
from redis.exceptions import RedisError

from evidex.service.problems import ApiError, problem_responses
from evidex.service.services import Services, ServicesDep
from evidex.service.views import Readiness

__all__ = ["HealthController", "readiness"]

log = logging.getLogger(__name__)
CHECK_TIMEOUT_S = 3.0


async def readiness(services: Services) -> dict[str, str]:
    """Each check's outcome: ``ok…``, ``skipped`` or ``failed: <why>``."""
    checks: dict[str, str] = {}
    if services.redis is None:
        checks["redis"] = "skipped"
    else:
        try:
            await services.redis.ping()
            checks["redis"] = "ok"
        except (RedisError, OSError) as exc:
            checks["redis"] = f"failed: {exc}"
    if services.worker_check is None:
        checks["workers"] = "skipped"
    else:
        try:
            with anyio.fail_after(CHECK_TIMEOUT_S):
                workers = await anyio.to_thread.run_sync(
                    services.worker_check, abandon_on_cancel=True
                )
        except TimeoutError:  # the broker is down and its client keeps retrying
            workers = []
            checks["workers"] = f"failed: no answer within {CHECK_TIMEOUT_S:.0f} s"
        except Exception as exc:  # a broker error is reported, not raised
            workers, checks["workers"] = [], f"failed: {exc}"
        else:
            checks["workers"] = (
                f"ok: {len(workers)} live" if workers else "failed: no worker answered"
            )
    try:
        with anyio.fail_after(CHECK_TIMEOUT_S):
            await anyio.to_thread.run_sync(
                services.blob_store.exists, "readyz-probe", abandon_on_cancel=True
            )
        checks["blobs"] = "ok"
    except TimeoutError:
        checks["blobs"] = f"failed: no answer within {CHECK_TIMEOUT_S:.0f} s"
    except Exception as exc:  # S3 down, denied, a missing bucket: named, not raised
        checks["blobs"] = f"failed: {exc}"
    return checks


class HealthController(Controller):
    tags = ("health",)

    @get("/healthz", summary="Liveness: the process is up", sync_to_thread=False)
    def healthz(self) -> Readiness:
        return Readiness(status="ok")

    @get(
        "/readyz",
        summary="Readiness: Redis answers and at least one worker is live",
        responses=problem_responses("not_ready"),
    )
    async def readyz(self, services: ServicesDep) -> Readiness:
        checks = await readiness(services)
        failed = [f"{name} {state}" for name, state in checks.items() if state.startswith("failed")]
        if failed:
            detail = "not ready: " + "; ".join(failed)
            log.warning("%s", detail)
            raise ApiError("not_ready", detail, headers={"Retry-After": "5"}, checks=checks)
        return Readiness(status="ready", checks=checks)
