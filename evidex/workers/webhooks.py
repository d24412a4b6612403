"""Signed webhooks: tell a client's server that its job has ended.

Signing: ``Evidex-Signature: t=<unix seconds>,v1=<hex>`` where ``hex`` is HMAC-SHA256 with the
shared secret over ``f"{t}.{body}"`` (the exact bytes sent). The timestamp is signed so a receiver
can refuse replays of an old delivery; :func:`verify` is what a receiver runs (in constant time).

Where we post (an allowlist, because a webhook URL is a request the *client* makes our servers
send -- without one, ``http://169.254.169.254/`` or ``https://10.0.0.5/admin`` are one job away):

- https only; plain http only for hosts listed as ``http://host`` explicitly (a local receiver);
- the host must equal an entry, or end with ``.example.com`` for an entry ``*.example.com``
  (any depth of subdomain, never the apex itself); an IP literal matches only itself;
- no user info at all, so ``https://allowed.com@evil.com`` (whose host is ``evil.com``) cannot
  dress up as an allowed one; the URL is parsed once, by the HTTP client that sends it;
- redirects are never followed: a 3xx is an answer, and it ends the delivery.

The list is checked again when sending, so a host removed from it is not posted to any more.
Names are matched, not resolved: an operator who lists a name vouches for where it points.
The outcome of a job's webhook (delivered, gave up, not sent) is stored as JSON next to its
result (:func:`webhook_key`); it never changes the job.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import time
from dataclasses import dataclass

import httpx

from evidex.schemas import InputError
from evidex.workers.jobs import Job, now
from evidex.workers.settings import WorkerSettings
from evidex.workers.stores import BlobStore, JobStore

__all__ = [
    "SIGNATURE_HEADER",
    "Delivery",
    "WebhookNotAllowed",
    "body_of",
    "check_allowed",
    "deliver",
    "notify",
    "sign",
    "signature_header",
    "verify",
    "webhook_key",
]

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "Evidex-Signature"
TIMEOUT_S = 10.0
RETRY_STATUS = frozenset({408, 429})


class WebhookNotAllowed(InputError):
    """The webhook URL is not one evidex may post to."""

    code = "webhook_not_allowed"


def _bytes(body: bytes | str) -> bytes:
    return body.encode() if isinstance(body, str) else body


def sign(secret: str, timestamp: int, body: bytes | str) -> str:
    """HMAC-SHA256 (hex) of ``f"{timestamp}.{body}"`` under ``secret``."""
    message = f"{timestamp}.".encode() + _bytes(body)
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes | str) -> str:
    return f"t={timestamp},v1={sign(secret, timestamp, body)}"


def verify(
    secret: str, header: str, body: bytes | str, *, tolerance_s: int = 300, now: float | None = None
) -> bool:
    """Whether ``header`` signs ``body`` under ``secret``, made within ``tolerance_s`` of now."""
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    stamp = parts.get("t", "")
    if not stamp.isdigit():
        return False
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance_s:
        return False
    return hmac.compare_digest(sign(secret, int(stamp), body), parts.get("v1", ""))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _host_allowed(host: str, scheme: str, allowed_hosts: list[str]) -> bool:
    for raw in allowed_hosts:
        entry = raw.strip().lower().rstrip(".")
        if entry.startswith("http://"):
            if entry.removeprefix("http://") == host:
                return True  # listed for http explicitly: either scheme
            continue
        if scheme != "https":
            continue
        if entry == host:
            return True
        if entry.startswith("*.") and not _is_ip(host) and host.endswith(entry[1:]):
            return True
    return False


def check_allowed(url: str, allowed_hosts: list[str]) -> httpx.URL:
    """The parsed URL when evidex may post to it, else :class:`WebhookNotAllowed` saying why."""
    if any(c in url for c in "\\ \t\r\n") or not url.isprintable():
        raise WebhookNotAllowed(f"webhook URL {url!r} holds spaces, backslashes or controls")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise WebhookNotAllowed(f"webhook URL {url!r} cannot be parsed ({exc})") from None
    if parsed.scheme not in ("https", "http"):
        raise WebhookNotAllowed(f"webhook URL {url!r} must use https")
    if parsed.userinfo:
        raise WebhookNotAllowed(f"webhook URL {url!r} must not hold a user name or password")
    host = parsed.host.lower().rstrip(".")
    if not host:
        raise WebhookNotAllowed(f"webhook URL {url!r} has no host")
    if not _host_allowed(host, parsed.scheme, allowed_hosts):
        why = "is not on the allowlist" if parsed.scheme == "https" else "is not allowed for http"
        raise WebhookNotAllowed(
            f"webhook host {host!r} {why}; ask the operator to add it to "
            "EVIDEX_WEBHOOK_ALLOWED_HOSTS, or use another URL"
        )
    return parsed


@dataclass(frozen=True, slots=True)
class Delivery:
    """One POST's outcome: delivered (2xx), worth retrying (network, 5xx, 408, 429) or not."""

    ok: bool
    retryable: bool
    status_code: int | None
    detail: str


def body_of(job: Job) -> bytes:
    """What a webhook carries: the job's public record (status, error), not its result."""
    payload = {"event": f"job.{job.status.value}", "job": job.public()}
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def deliver(
    job: Job, url: httpx.URL | str, secret: str, client: httpx.Client, *, now: float | None = None
) -> Delivery:
    """POST the job's public JSON, signed, once; never follows a redirect, never raises for
    network errors (they come back as a retryable :class:`Delivery`)."""
    body = body_of(job)
    stamp = int(time.time() if now is None else now)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "evidex-webhook/1",
        "Evidex-Delivery": job.id,  # the same on every attempt: receivers can deduplicate
        SIGNATURE_HEADER: signature_header(secret, stamp, body),
    }
    try:
        response = client.post(url, content=body, headers=headers, follow_redirects=False)
    except httpx.HTTPError as exc:
        return Delivery(False, True, None, f"{type(exc).__name__}: {exc}")
    code = response.status_code
    if 200 <= code < 300:
        return Delivery(True, False, code, f"HTTP {code}")
    retryable = code >= 500 or code in RETRY_STATUS
    return Delivery(False, retryable, code, f"HTTP {code}")


def webhook_key(job: Job) -> str:
    """Where the outcome of the job's webhook is recorded (next to its result)."""
    return f"{job.tenant}/{job.id}/webhook.json"


def notify(
    job_id: str,
    *,
    jobs: JobStore,
    blobs: BlobStore,
    settings: WorkerSettings,
    client: httpx.Client,
    attempt: int,
) -> bool:
    """Attempt ``attempt`` (1-based) at the ended job's webhook; True when it should be tried
    again. The final outcome (delivered, gave up, not sent) is recorded as a JSON blob under
    :func:`webhook_key`; nothing here changes the job itself."""
    job = jobs.get(job_id)
    url = job.options.webhook_url if job is not None else None
    if job is None or url is None or not job.status.final:
        return False
    try:
        target = check_allowed(url, settings.webhook_allowed_hosts)
    except WebhookNotAllowed as exc:
        _record(job, blobs, url, 0, None, f"not sent: {exc}")
        return False
    if settings.webhook_secret is None:
        _record(job, blobs, url, 0, None, "not sent: EVIDEX_WEBHOOK_SECRET is not set")
        return False
    outcome = deliver(job, target, settings.webhook_secret.get_secret_value(), client)
    if not outcome.ok and outcome.retryable and attempt < settings.webhook_max_attempts:
        log.info("job %s: webhook attempt %d failed (%s)", job.id, attempt, outcome.detail)
        return True
    verdict = "delivered" if outcome.ok else "gave up"
    _record(job, blobs, url, attempt, outcome.status_code, f"{verdict}: {outcome.detail}")
    return False


def _record(
    job: Job, blobs: BlobStore, url: str, attempts: int, status_code: int | None, detail: str
) -> None:
    record = {
        "url": url,
        "delivered": detail.startswith("delivered"),
        "attempts": attempts,
        "status_code": status_code,
        "detail": detail,
        "at": now().isoformat(),
    }
    log.info("job %s: webhook %s after %d attempt(s)", job.id, detail, attempts)
    try:
        blobs.put(webhook_key(job), json.dumps(record).encode(), "application/json")
    except Exception:  # the job has ended either way; the log line above keeps the outcome
        log.exception("job %s: the webhook outcome could not be stored", job.id)
