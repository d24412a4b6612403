"""One structured log record per HTTP request: method, path, status, duration, tenant, job.

An ASGI middleware around the whole app (so 401s, 404s and 429s are logged too). The path is
logged as sent, with any review-link token cut out (:func:`evidex.workers.logs.scrub`, and
again by the log's redaction, :func:`evidex.workers.logs.redact`); query strings, headers
and bodies are never logged.
"""

from __future__ import annotations

import time
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from evidex.service.auth import Caller
from evidex.workers.logs import get_logger, scrub

__all__ = ["request_log"]

log = get_logger("evidex.request")


def request_log(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await app(scope, receive, sending)
        finally:
            caller: Any = scope.get("auth")
            params: Any = scope.get("path_params") or {}
            log.info(
                "request",
                stage="request",
                method=scope.get("method"),
                path=scrub(str(scope.get("path", ""))),
                status=status[0],
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
                tenant=caller.tenant if isinstance(caller, Caller) else None,
                job_id=params.get("job_id"),
            )

    return middleware
