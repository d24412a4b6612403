"""Who is calling: ``Authorization: Bearer <key>`` → the key's tenant, then the rate limit.

Enforced by a guard on the ``/v1`` router, so every route registered under it is covered and a
new route cannot forget it; what is public (``/healthz``, ``/readyz``, the OpenAPI document under
``/schema``) is public because it lives outside that router, not because of an exclude list. The
OpenAPI document is public on purpose: it describes the API, holds no data, and clients and
tools fetch it before they have a key.

The presented key is hashed and compared with every configured hash in constant time (no early
exit), so response time says nothing about how close a guess was. Tenancy: routes receive the
``tenant`` and look jobs up through :func:`evidex.service.jobs.owned_job`, which answers
``job_not_found`` for another tenant's job exactly as for a missing one (404, never 403, so job ids
cannot be probed).
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from evidex.service.problems import ApiError
from evidex.service.ratelimit import RateLimiter
from evidex.service.settings import ApiKey, hash_key

__all__ = ["Caller", "authenticate", "current_tenant", "require_api_key"]


@dataclass(frozen=True, slots=True)
class Caller:
    tenant: str
    key_sha256: str


def authenticate(authorization: str | None, keys: Sequence[ApiKey]) -> Caller:
    """The caller behind an ``Authorization`` header, or ``ApiError("unauthorized")``."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiError(
            "unauthorized",
            "send your API key as 'Authorization: Bearer <key>'",
            headers={"WWW-Authenticate": 'Bearer realm="evidex"'},
        )
    digest = hash_key(token)
    found: ApiKey | None = None
    for key in keys:  # every key, always: no early exit
        if hmac.compare_digest(key.key_sha256, digest):
            found = key
    if found is None:
        raise ApiError(
            "unauthorized",
            "the API key is not valid; check it, or ask your administrator for one",
            headers={"WWW-Authenticate": 'Bearer realm="evidex", error="invalid_token"'},
        )
    return Caller(found.tenant, found.key_sha256)


async def require_api_key(
    connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler
) -> None:
    """Guard of ``/v1``: authenticate, count the request against the key's limit, record the
    caller in the scope (``connection.auth``)."""
    services = connection.app.state.services
    caller = authenticate(connection.headers.get("authorization"), services.settings.api_keys)
    limiter: RateLimiter = services.limiter
    decision = await limiter.hit(caller.key_sha256)
    if not decision.allowed:
        if services.metrics is not None:
            await anyio.to_thread.run_sync(services.metrics.inc, "evidex_rate_limit_hits")
        raise ApiError(
            "rate_limited",
            f"more than {limiter.limit} requests in a minute with this key; "
            f"retry after {decision.retry_after} s",
            headers={"Retry-After": str(decision.retry_after)},
        )
    connection.scope["auth"] = caller


def current_tenant(request: Request[Any, Any, Any]) -> str:
    """Dependency ``tenant``: set by :func:`require_api_key`, which runs before any handler."""
    caller = request.scope.get("auth")
    if not isinstance(caller, Caller):  # a /v1 route registered without the guard
        raise ApiError("unauthorized", "send your API key as 'Authorization: Bearer <key>'")
    return caller.tenant
