"""Webhooks: the signature, the host allowlist, and delivery to a real local HTTP server."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

import httpx
import pytest
from local_http import serving
from pydantic import SecretStr
from stored_jobs import new_job

from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobs import Job, JobError, JobOptions, JobStatus
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.settings import WorkerSettings
from evidex.workers.webhooks import (
    SIGNATURE_HEADER,
    WebhookNotAllowed,
    check_allowed,
    deliver,
    notify,
    sign,
    signature_header,
    verify,
    webhook_key,
)

SECRET = "whsec_test"


def test_the_signature_matches_a_known_vector() -> None:
    # printf '1700000000.{"event":"job.succeeded"}' | openssl dgst -sha256 -hmac whsec_test
    known = "83a20ce81e827e889fdb2aced7c42294b8133531d772dd6edde022a11a7fc42e"
    body = '{"event":"job.succeeded"}'
    assert sign(SECRET, 1700000000, body) == known
    assert sign(SECRET, 1700000000, body.encode()) == known
    header = signature_header(SECRET, 1700000000, body)
    assert header == f"t=1700000000,v1={known}"


def test_a_receiver_verifies_the_header_in_constant_time() -> None:
    body = b'{"event":"job.failed"}'
    header = signature_header(SECRET, 1700000000, body)
    stamp, mac = (part.split("=", 1)[1] for part in header.split(","))
    expected = hmac.new(SECRET.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, mac)
    assert verify(SECRET, header, body, now=1700000100)
    assert not verify(SECRET, header, body + b" ", now=1700000100)  # body changed
    assert not verify("other", header, body, now=1700000100)  # wrong secret
    assert not verify(SECRET, header, body, now=1700000000 + 301)  # too old: a replay
    assert not verify(SECRET, "t=x,v1=00", body, now=1700000000)


ALLOWED = ["hooks.example.com", "*.partner.io", "10.0.0.5", "http://127.0.0.1", "::1"]


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://hooks.example.com/evidex", "hooks.example.com"),
        ("https://HOOKS.example.com./x", "hooks.example.com."),
        ("https://eu.partner.io/hook", "eu.partner.io"),
        ("https://a.b.partner.io/hook", "a.b.partner.io"),
        ("https://10.0.0.5:8443/hook", "10.0.0.5"),
        ("http://127.0.0.1:9000/hook", "127.0.0.1"),
        ("https://127.0.0.1/hook", "127.0.0.1"),  # listed for http: https is fine too
        ("https://[::1]/hook", "::1"),
    ],
)
def test_allowed_urls(url: str, host: str) -> None:
    assert check_allowed(url, ALLOWED).host == host


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://hooks.example.com/evidex", "not allowed for http"),  # https only
        ("https://partner.io/hook", "not on the allowlist"),  # a wildcard is not the apex
        ("https://evilpartner.io/hook", "not on the allowlist"),
        ("https://partner.io.evil.com/hook", "not on the allowlist"),
        ("https://hooks.example.com.evil.com/", "not on the allowlist"),
        ("https://10.0.0.6/hook", "not on the allowlist"),  # an IP literal only if listed
        ("https://169.254.169.254/latest/meta-data", "not on the allowlist"),
        ("https://2130706433/", "not on the allowlist"),  # 127.0.0.1 written as a number
        ("https://hooks.example.com@evil.com/", "user name or password"),
        ("https://user:pw@hooks.example.com/", "user name or password"),
        ("https://hooks.example.com\\@evil.com/", "backslashes"),
        ("ftp://hooks.example.com/", "must use https"),
        ("https:///nohost", "no host"),
        ("//hooks.example.com/x", "must use https"),
    ],
)
def test_refused_urls(url: str, why: str) -> None:
    with pytest.raises(WebhookNotAllowed) as refused:
        check_allowed(url, ALLOWED)
    assert why in refused.value.message
    assert refused.value.code == "webhook_not_allowed"


def test_a_wildcard_never_matches_an_ip_literal() -> None:
    with pytest.raises(WebhookNotAllowed):
        check_allowed("https://10.0.0.5/", ["*.0.0.5"])


@dataclass
class Receiver:
    """A local webhook receiver answering with the scripted status codes, in order."""

    statuses: list[int]
    seen: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver(statuses=[])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.seen.append((dict(self.headers.items()), body))
            status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            if status == 302:
                self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return None

    with serving(Handler) as url:
        state.url = f"{url}/hook"
        yield state


def _ended_job(jobs: MemoryJobStore, url: str) -> Job:
    job = new_job(
        status=JobStatus.FAILED,
        options=JobOptions(webhook_url=url),
        error=JobError(code="pdf_corrupt", message="the PDF is damaged"),
    )
    return jobs.create(job)


def _settings(**changes: object) -> WorkerSettings:
    values: dict[str, object] = {
        "webhook_secret": SecretStr(SECRET),
        "webhook_allowed_hosts": ["http://127.0.0.1"],
        "webhook_max_attempts": 6,
    }
    values.update(changes)
    return WorkerSettings.model_validate(values)


def _run_attempts(job: Job, jobs: MemoryJobStore, blobs: MemoryBlobStore, s: WorkerSettings) -> int:
    """Call notify as the task's retries would, without the waits; the number of attempts."""
    with httpx.Client(timeout=5, trust_env=False) as client:
        for attempt in range(1, 20):
            again = notify(
                job.id, jobs=jobs, blobs=blobs, settings=s, client=client, attempt=attempt
            )
            if not again:
                return attempt
    raise AssertionError("notify never stopped")


def test_delivery_retries_500s_and_succeeds_on_the_third_attempt(receiver: Receiver) -> None:
    receiver.statuses = [500, 500, 200]
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    job = _ended_job(jobs, receiver.url)
    assert _run_attempts(job, jobs, blobs, _settings()) == 3
    assert len(receiver.seen) == 3
    for headers, body in receiver.seen:
        assert verify(SECRET, headers[SIGNATURE_HEADER], body)
        assert headers["Evidex-Delivery"] == job.id
        sent = json.loads(body)
        assert sent["event"] == "job.failed"
        assert sent["job"]["error"] == {"code": "pdf_corrupt", "message": "the PDF is damaged"}
        assert "result" not in sent["job"]
    record = json.loads(blobs.get(webhook_key(job)))
    assert record["delivered"] is True
    assert record["attempts"] == 3
    assert record["status_code"] == 200


@pytest.mark.parametrize(
    "status", [pytest.param(400, id="a 400"), pytest.param(302, id="a redirect, not followed")]
)
def test_delivery_gives_up_after_one_attempt(receiver: Receiver, status: int) -> None:
    receiver.statuses = [status]
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    job = _ended_job(jobs, receiver.url)
    assert _run_attempts(job, jobs, blobs, _settings()) == 1
    assert len(receiver.seen) == 1
    record = json.loads(blobs.get(webhook_key(job)))
    assert (record["delivered"], record["status_code"]) == (False, status)
    assert record["detail"] == f"gave up: HTTP {status}"


def test_429_is_retried_until_the_attempts_run_out(receiver: Receiver) -> None:
    receiver.statuses = [429] * 10
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    job = _ended_job(jobs, receiver.url)
    assert _run_attempts(job, jobs, blobs, _settings(webhook_max_attempts=4)) == 4
    assert len(receiver.seen) == 4
    record = json.loads(blobs.get(webhook_key(job)))
    assert (record["delivered"], record["attempts"], record["detail"]) == (
        False,
        4,
        "gave up: HTTP 429",
    )


def test_a_network_error_is_retryable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    jobs = MemoryJobStore()
    job = _ended_job(jobs, f"http://127.0.0.1:{port}/hook")
    with httpx.Client(timeout=2, trust_env=False) as client:
        outcome = deliver(job, job.options.webhook_url or "", SECRET, client)
    assert (outcome.ok, outcome.retryable, outcome.status_code) == (False, True, None)
    assert outcome.detail.startswith("ConnectError")


@pytest.mark.parametrize(
    ("changes", "detail"),
    [
        ({"webhook_secret": None}, "not sent: EVIDEX_WEBHOOK_SECRET is not set"),
        ({"webhook_allowed_hosts": []}, "not sent: webhook host '127.0.0.1' is not allowed"),
    ],
)
def test_an_unsigned_or_unlisted_webhook_is_not_sent(
    receiver: Receiver, changes: dict[str, object], detail: str
) -> None:
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    job = _ended_job(jobs, receiver.url)
    assert _run_attempts(job, jobs, blobs, _settings(**changes)) == 1
    assert receiver.seen == []
    assert json.loads(blobs.get(webhook_key(job)))["detail"].startswith(detail)
