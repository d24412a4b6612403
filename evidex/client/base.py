"""``BaseClient``: every call of the API once, as a generator that both clients drive.

A call yields its steps, an ``httpx.Request`` to send or seconds to pause, and is sent back
each request's response (a connection error is thrown into it). The retry and polling rules
therefore live in one place; ``Client`` drives a call with blocking I/O and ``AsyncClient``
with ``await``, and each adds nothing but that loop and its public signatures.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import httpx

from evidex.client.core import (
    Job,
    JobFailed,
    WaitTimeout,
    poll_delays,
    raise_for_problem,
    retry_delay,
    upload,
)

__all__ = ["BaseClient", "Call", "Step", "job_id"]

T = TypeVar("T")
HttpT = TypeVar("HttpT", httpx.Client, httpx.AsyncClient)
TransportT = TypeVar("TransportT", httpx.BaseTransport, httpx.AsyncBaseTransport)

Step = httpx.Request | float
"""What a call asks of its driver: send this request, or pause this many seconds."""

Call = Generator[Step, httpx.Response | None, T]
"""A call of the API: steps out, responses in (None after a pause), its answer returned."""

Schema = str | Mapping[str, Any] | Path
Options = Mapping[str, Any] | None
WEEK_S = 7 * 24 * 3600


class BaseClient(ABC, Generic[HttpT, TransportT]):
    """The evidex API at ``base_url`` with one tenant's ``api_key``.

    ``max_retries``: how many times a request answered 429/503, or not answered at all, is sent
    again. ``transport``: an httpx transport (tests pass ``httpx.MockTransport``).
    """

    http: HttpT

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        backoff_s: float = 0.5,
        max_retry_after_s: float = 60.0,
        transport: TransportT | None = None,
    ) -> None:
        self.max_retries, self.backoff_s, self.cap_s = max_retries, backoff_s, max_retry_after_s
        self.http = self.open(
            transport,
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
        )

    @abstractmethod
    def open(self, transport: TransportT | None, **options: Any) -> HttpT:
        """The ``httpx`` client the requests go through."""

    def call(self, method: str, url: str, **kwargs: Any) -> Call[httpx.Response]:
        """One request, retried on 429/503 and on connection errors; errors as ``ApiError``."""
        attempt = 0
        while True:
            attempt += 1
            try:
                response = yield self.http.build_request(method, url, **kwargs)
            except httpx.TransportError:
                if attempt > self.max_retries:
                    raise
                response = None
            delay = None
            if attempt <= self.max_retries:
                delay = retry_delay(response, attempt, base_s=self.backoff_s, cap_s=self.cap_s)
            if response is not None and delay is None:
                raise_for_problem(response)
                return response
            yield delay or 0.0

    def submit_call(
        self, path: str | Path, schema: Schema, options: Options, key: str | None
    ) -> Call[Job]:
        sent = upload(path, schema, options, key)
        answer = yield from self.call(
            "POST", "/v1/jobs", files=sent.files, data=sent.data, headers=sent.headers
        )
        return Job.of(answer.json())

    def job_call(self, job: Job | str) -> Call[Job]:
        answer = yield from self.call("GET", f"/v1/jobs/{job_id(job)}")
        return Job.of(answer.json())

    def wait_call(self, job: Job | str, timeout: float) -> Call[Job]:
        started = time.monotonic()
        current = yield from self.job_call(job)
        for delay in poll_delays():
            if current.done:
                return current
            waited = time.monotonic() - started
            if waited >= timeout:
                raise WaitTimeout(current, waited)
            yield min(delay, timeout - waited)
            current = yield from self.job_call(current)
        raise AssertionError("unreachable")  # pragma: no cover

    def result_call(self, job: Job | str, timeout: float) -> Call[dict[str, Any]]:
        ended = yield from self.wait_call(job, timeout)
        if ended.status != "succeeded":
            raise JobFailed(ended)
        result: dict[str, Any] = ended.raw["result"]
        return result

    def annotated_pdf_call(self, job: Job | str) -> Call[bytes]:
        answer = yield from self.call("GET", f"/v1/jobs/{job_id(job)}/annotated.pdf")
        return answer.content

    def review_link_call(self, job: Job | str, reviewer: str, expires_in: int) -> Call[str]:
        body = {"reviewer": reviewer, "expires_in": expires_in}
        answer = yield from self.call("POST", f"/v1/jobs/{job_id(job)}/review-links", json=body)
        url: str = answer.json()["url"]
        return url


def job_id(job: Job | str) -> str:
    return job.id if isinstance(job, Job) else job
