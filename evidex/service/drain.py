"""Read the rest of a request body before answering an error, so every client reads the answer.

Why: when the API refuses an upload early (413 over the size limit, 401 without a key, 415),
the body is still on its way. If the server answers and closes the connection while the client
is still writing, curl reads the answer, but Python's ``urllib``, ``requests`` and ``httpx``
fail on the write with a reset or broken pipe and never see the 413 problem+json. So before an
error response starts, this middleware reads and discards what is left of the body -- up to
:data:`DRAIN_MAX_BYTES`; a client sending more than that is cut off as before. Reading costs
only bandwidth: nothing is stored.
"""

from __future__ import annotations

from typing import Any

from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["DRAIN_MAX_BYTES", "drain_unread_body"]

DRAIN_MAX_BYTES = 256 * 1024 * 1024


def _has_body(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"transfer-encoding" and b"chunked" in value.lower():
            return True
        if name == b"content-length":
            return value.strip() not in (b"", b"0")
    return False


def drain_unread_body(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: on an HTTP error response, first read the unread request body."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if str(scope["type"]) != "http" or not _has_body(scope):
            await app(scope, receive, send)
            return
        finished = False

        async def tracked() -> Any:
            nonlocal finished
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                finished = True
            return message

        async def draining_send(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                drained = 0
                while not finished and drained <= DRAIN_MAX_BYTES:
                    chunk: dict[str, Any] = await tracked()
                    drained += len(chunk.get("body") or b"")
            await send(message)

        await app(scope, tracked, draining_send)

    return middleware
