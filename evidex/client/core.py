"""What the sync and async clients share, without I/O: requests, answers, retries, signatures."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpx

__all__ = [
    "RETRY_STATUS",
    "ApiError",
    "EvidexClientError",
    "Job",
    "JobFailed",
    "Upload",
    "WaitTimeout",
    "idempotency_key",
    "poll_delays",
    "raise_for_problem",
    "retry_delay",
    "upload",
    "verify_webhook",
]

RETRY_STATUS = frozenset({429, 503})
SIGNATURE_HEADER = "Evidex-Signature"
MEDIA_TYPES = {
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".tif": "image/tiff",
    ".tiff": "image/tiff",
}


class EvidexClientError(Exception):
    """Base of the client's errors."""


class ApiError(EvidexClientError):
    """The API answered with an error (``application/problem+json``): its status and code."""

    def __init__(self, status: int, code: str, detail: str, body: Any = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.code, self.detail, self.body = status, code, detail, body


@dataclass(frozen=True, slots=True)
class Job:
    """A job as the API last showed it."""

    id: str
    status: str
    error_code: str | None = None
    error_message: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def done(self) -> bool:
        return self.status in ("succeeded", "failed")

    @classmethod
    def of(cls, body: dict[str, Any]) -> Job:
        error = body.get("error") or {}
        return cls(body["id"], body["status"], error.get("code"), error.get("message"), body)


class JobFailed(EvidexClientError):
    """The job ended ``failed``; ``job.error_code`` says why."""

    def __init__(self, job: Job) -> None:
        super().__init__(f"job {job.id} failed: {job.error_code}: {job.error_message}")
        self.job = job


class WaitTimeout(EvidexClientError, TimeoutError):
    """The job had not ended when the wait ran out; it goes on on the server."""

    def __init__(self, job: Job, waited_s: float) -> None:
        super().__init__(f"job {job.id} is still {job.status} after {waited_s:.0f} s")
        self.job = job


def idempotency_key(data: bytes, schema: str, options: str = "") -> str:
    """The key ``submit`` sends: the same file, schema and options give the same key."""
    digest = hashlib.sha256()
    for part in (data, schema.encode(), options.encode()):
        digest.update(hashlib.sha256(part).digest())
    return "evidex-" + digest.hexdigest()[:48]


@dataclass(frozen=True, slots=True)
class Upload:
    """A ``POST /v1/jobs`` ready to send."""

    files: dict[str, tuple[str, bytes, str]]
    data: dict[str, str]
    headers: dict[str, str]


def _schema_part(schema: str | Mapping[str, Any] | Path) -> tuple[str, str]:
    """``("schema", name)`` or ``("schema_json", text)``."""
    if isinstance(schema, Mapping):
        return "schema_json", json.dumps(schema, sort_keys=True)
    path = Path(schema)
    if isinstance(schema, Path) or path.suffix.lower() == ".json" or path.is_file():
        return "schema_json", path.read_text(encoding="utf-8")
    return "schema", str(schema)


def upload(
    path: str | Path,
    schema: str | Mapping[str, Any] | Path,
    options: Mapping[str, Any] | None = None,
    key: str | None = None,
) -> Upload:
    """The multipart form and headers for one document (read here, once)."""
    source = Path(path)
    data = source.read_bytes()
    name, value = _schema_part(schema)
    form = {name: value}
    sent_options = json.dumps(dict(options), sort_keys=True) if options else ""
    if sent_options:
        form["options"] = sent_options
    media_type = MEDIA_TYPES.get(source.suffix.lower(), "application/octet-stream")
    return Upload(
        files={"file": (source.name, data, media_type)},
        data=form,
        headers={"Idempotency-Key": key or idempotency_key(data, value, sent_options)},
    )


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None


def retry_delay(
    response: httpx.Response | None,
    attempt: int,
    *,
    base_s: float = 0.5,
    cap_s: float = 60.0,
) -> float | None:
    """Seconds to wait before retry ``attempt`` (1-based), or None when the answer is final.

    ``response`` None means the request never got an answer (a connection error): retried.
    429 and 503 are retried after their ``Retry-After`` (capped at ``cap_s``), or with
    exponential backoff and jitter when there is none.
    """
    if response is not None and response.status_code not in RETRY_STATUS:
        return None
    told = _retry_after(response.headers.get("retry-after")) if response is not None else None
    if told is not None:
        return min(told, cap_s)
    backoff: float = min(cap_s, base_s * 2.0 ** (attempt - 1))
    return backoff * (0.5 + random.random() / 2)


def poll_delays(first_s: float = 0.25, factor: float = 1.5, cap_s: float = 5.0) -> Any:
    """The pauses between polls of a running job: growing from ``first_s`` to ``cap_s``."""
    delay = first_s
    while True:
        yield delay
        delay = min(cap_s, delay * factor)


def raise_for_problem(response: httpx.Response) -> None:
    """An :class:`ApiError` for any answer that is not a success."""
    if response.is_success:
        return
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and "code" in body:
        raise ApiError(response.status_code, str(body["code"]), str(body.get("detail", "")), body)
    raise ApiError(
        response.status_code, "http_error", response.text[:200] or response.reason_phrase
    )


def verify_webhook(
    headers: Mapping[str, str],
    body: bytes | str,
    secret: str,
    *,
    tolerance_s: int = 300,
    now: float | None = None,
) -> bool:
    """Whether a webhook delivery is evidex's: ``Evidex-Signature: t=<unix>,v1=<hex>`` is the
    HMAC-SHA256 under ``secret`` of ``f"{t}.{body}"`` (the raw body bytes), made within
    ``tolerance_s`` of now (older deliveries are refused: replays)."""
    header = next((v for k, v in headers.items() if k.lower() == SIGNATURE_HEADER.lower()), "")
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    stamp = parts.get("t", "").strip()
    if not stamp.isdigit() or not secret:
        return False
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance_s:
        return False
    raw = body.encode() if isinstance(body, str) else body
    expected = hmac.new(secret.encode(), f"{stamp}.".encode() + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", "").strip())
