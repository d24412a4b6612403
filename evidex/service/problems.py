"""Every error the API returns is ``application/problem+json`` (RFC 9457) with a stable ``code``.

``PROBLEMS`` is the one table from a code to its HTTP status and title. Errors reach it from
three places, translated once, here:

::

    ApiError(code)                 raised by the service itself (auth, limits, not found ...)
    EvidexError.code               domain errors: schema_invalid, pdf_encrypted, llm_unavailable,
                                   budget_exceeded ... (unknown codes: InputError 422, else 500)
    StoreUnavailable               store_unavailable (503): Redis or the blob store is down
    RecursionError reading a body  bad_request (400): JSON nested deeper than msgspec reads
    litestar HTTPException         by status: 400 bad_request (validation), 404 not_found,
                                   405 method_not_allowed, 413 file_too_large ...
    anything else                  internal_error (500), logged with its traceback

The body: ``{"type", "title", "status", "detail", "code"}`` plus ``errors`` for validation
failures and ``checks`` for ``not_ready``. ``type`` is a URN naming the code, so clients may
switch on either.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.types import ExceptionHandlersMap
from pydantic import BaseModel, Field

from evidex.schemas import EvidexError, InputError
from evidex.workers.stores import BlobNotFound, StoreUnavailable

__all__ = [
    "PROBLEMS",
    "PROBLEM_MEDIA_TYPE",
    "ApiError",
    "Problem",
    "exception_handlers",
    "problem_response",
    "problem_responses",
]

log = logging.getLogger(__name__)
PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:evidex:problem:"
RETRY_AFTER_S = "5"  # seconds, on every 503: Redis, the queue or storage is away for now


@dataclass(frozen=True)
class Kind:
    status: int
    title: str


PROBLEMS: dict[str, Kind] = {
    "bad_request": Kind(400, "The request is malformed"),
    "unauthorized": Kind(401, "A valid API key is required"),
    "job_not_found": Kind(404, "No such job"),
    "schema_not_found": Kind(404, "No such built-in schema"),
    "not_found": Kind(404, "Not found"),
    "field_not_found": Kind(404, "No such field in the job's result"),
    "page_not_found": Kind(404, "No such page in the document"),
    "method_not_allowed": Kind(405, "Method not allowed"),
    "job_not_ready": Kind(409, "The job has not succeeded (yet)"),
    "job_limit_reached": Kind(409, "The job holds as many as it may"),
    "idempotency_conflict": Kind(409, "Idempotency-Key reused for a different request"),
    "file_too_large": Kind(413, "The document is too large"),
    "too_many_pages": Kind(413, "The document has too many pages"),
    "page_too_large": Kind(413, "The page is too large to render"),
    "unsupported_media_type": Kind(415, "The file is not a document evidex reads"),
    "schema_invalid": Kind(422, "The schema cannot be used"),
    "options_invalid": Kind(422, "The options are invalid"),
    "webhook_not_allowed": Kind(422, "The webhook URL is not allowed"),
    "document_empty": Kind(422, "The document is empty"),
    "document_mismatch": Kind(422, "The document does not answer the schema"),
    "document_invalid": Kind(422, "The document cannot be read"),
    "pdf_corrupt": Kind(422, "The document is damaged"),
    "pdf_encrypted": Kind(422, "The PDF is password-protected"),
    "pdf_no_pages": Kind(422, "The PDF has no pages"),
    "no_text_layer": Kind(422, "The PDF has no text layer"),
    "bad_input": Kind(422, "The input cannot be used"),
    "decision_invalid": Kind(422, "The review decision is invalid"),
    "rate_limited": Kind(429, "Too many requests"),
    "budget_exceeded": Kind(429, "The tenant's token budget is spent"),
    "internal_error": Kind(500, "Internal error"),
    "config_error": Kind(500, "The service is misconfigured"),
    "llm_unavailable": Kind(503, "The language model is unavailable"),
    "budget_unavailable": Kind(503, "The token budget cannot be checked now"),
    "store_unavailable": Kind(503, "Storage is unavailable"),
    "queue_unavailable": Kind(503, "The job queue is unavailable"),
    "not_ready": Kind(503, "The service is not ready"),
}

# What Litestar's multipart parser says (as a 400) when a form has more parts than the route's
# ``multipart_form_part_limit``.
_MULTIPART_LIMIT = "Request Entity Too Large"

# Litestar's own HTTP errors, by status.
_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    413: "file_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    type: str = Field(description="urn:evidex:problem:<code>")
    title: str
    status: int
    detail: str = Field(description="What went wrong and what to do next.")
    code: str = Field(description="Stable, machine-readable error code.")
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="Per-field validation errors (bad_request only)."
    )
    checks: dict[str, str] | None = Field(
        default=None, description="Each readiness check's outcome (not_ready only)."
    )


class ApiError(Exception):
    """An error the service raises itself; ``code`` must be a key of ``PROBLEMS``."""

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        checks: dict[str, str] | None = None,
    ) -> None:
        if code not in PROBLEMS:
            raise ValueError(f"unknown problem code {code!r}")
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.checks = checks


def problem_response(
    code: str,
    detail: str,
    *,
    status: int | None = None,
    headers: Mapping[str, str] | None = None,
    errors: list[dict[str, Any]] | None = None,
    checks: dict[str, str] | None = None,
) -> Response[dict[str, Any]]:
    kind = PROBLEMS.get(code)
    status = status or (kind.status if kind else 500)
    body = Problem(
        type=TYPE_PREFIX + code,
        title=kind.title if kind else "Error",
        status=status,
        detail=detail,
        code=code,
        errors=errors,
        checks=checks,
    )
    return Response(
        body.model_dump(mode="json", exclude_none=True),
        status_code=status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=dict(headers or {}),
    )


def _raised_in(exc: Exception) -> str:
    """The module of the innermost Python frame ``exc`` passed through."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return str(tb.tb_frame.f_globals.get("__name__", "")) if tb is not None else ""


def _from_form_parsing(exc: Exception) -> bool:
    """Whether ``exc`` escaped Litestar's multipart parser, which decodes every part without a
    filename as text itself (a PDF sent without one, a latin-1 field, ``charset=bogus``)."""
    return isinstance(exc, UnicodeError | LookupError) and _raised_in(exc) == "litestar._multipart"


def _from_body_decoding(exc: Exception) -> bool:
    """Whether ``exc`` is msgspec refusing a JSON body nested deeper than it reads (a client's
    ``[[[[...]]]]``): Litestar lets the ``RecursionError`` through as it is."""
    return isinstance(exc, RecursionError) and _raised_in(exc).startswith("litestar.")


def _handle(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    if isinstance(exc, ApiError):
        headers = exc.headers
        if PROBLEMS[exc.code].status == 503:  # unavailable for now: say when to come back
            headers = {"Retry-After": RETRY_AFTER_S, **headers}
        return problem_response(exc.code, exc.detail, headers=headers, checks=exc.checks)
    if isinstance(exc, EvidexError):
        known = exc.code in PROBLEMS
        status = None if known else 422 if isinstance(exc, InputError) else 500
        return problem_response(exc.code, exc.message, status=status)
    if isinstance(exc, StoreUnavailable):
        log.warning("store unavailable: %s", exc)
        return problem_response(
            "store_unavailable",
            f"storage cannot be reached now ({exc}); nothing was kept, retry in a moment",
            headers={"Retry-After": RETRY_AFTER_S},
        )
    if isinstance(exc, BlobNotFound):
        return problem_response("not_found", "the job's stored files are gone (expired?)")
    if _from_form_parsing(exc):
        return problem_response(
            "bad_request",
            "a multipart text field could not be decoded (not UTF-8, or an unknown charset); "
            "send the document as a file part with a filename",
        )
    if _from_body_decoding(exc):
        return problem_response(
            "bad_request", "the JSON body is nested too deeply to be read; send a flatter one"
        )
    if isinstance(exc, ValidationException):
        errors = exc.extra if isinstance(exc.extra, list) else None
        return problem_response("bad_request", exc.detail, errors=errors)
    if isinstance(exc, HTTPException):
        code = _BY_STATUS.get(exc.status_code, "bad_request" if exc.status_code < 500 else "")
        headers = dict(exc.headers or {})
        if exc.status_code == 401:
            headers.setdefault("WWW-Authenticate", "Bearer")
        detail = exc.detail
        if exc.status_code == 413:  # Litestar stopped reading the body at the route's limit
            limit = request.route_handler.resolve_request_max_body_size()
            detail = f"the request body is over {limit} bytes; send a smaller document"
        elif exc.status_code == 400 and exc.detail == _MULTIPART_LIMIT:
            detail = (
                "the form has more parts than this route reads; send file, schema or "
                "schema_json, and options, once each"
            )
        if code:
            return problem_response(code, detail, status=exc.status_code, headers=headers)
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem_response("internal_error", "an unexpected error occurred; it has been logged")


exception_handlers: ExceptionHandlersMap = {Exception: _handle, HTTPException: _handle}


def problem_responses(*codes: str) -> dict[int, ResponseSpec]:
    """OpenAPI responses for ``codes``, grouped by status, each code an example."""
    grouped: dict[int, list[str]] = {}
    for code in codes:
        grouped.setdefault(PROBLEMS[code].status, []).append(code)
    return {
        status: ResponseSpec(
            data_container=Problem,
            generate_examples=False,
            description="Problem (application/problem+json); code: " + ", ".join(names),
            media_type=PROBLEM_MEDIA_TYPE,
            examples=[
                Example(
                    summary=name,
                    value={
                        "type": TYPE_PREFIX + name,
                        "title": PROBLEMS[name].title,
                        "status": status,
                        "detail": PROBLEMS[name].title,
                        "code": name,
                    },
                )
                for name in names
            ],
        )
        for status, names in sorted(grouped.items())
    }
