"""``AsyncClient``: the evidex API over ``httpx.AsyncClient``, for asyncio programs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

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
from evidex.client.sync import _id

__all__ = ["AsyncClient"]


class AsyncClient:
    """The evidex API at ``base_url`` with one tenant's ``api_key``.

    ``max_retries``: how many times a request answered 429/503, or not answered at all, is sent
    again. ``transport``: an httpx transport (tests pass ``httpx.MockTransport``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        max_retries: int = 5,
        backoff_s: float = 0.5,
        max_retry_after_s: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.max_retries, self.backoff_s, self.cap_s = max_retries, backoff_s, max_retry_after_s
        self.http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
            transport=transport,
        )
        self.sleep = asyncio.sleep

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, retried on 429/503 and on connection errors; errors as ``ApiError``."""
        attempt = 0
        while True:
            attempt += 1
            try:
                response: httpx.Response | None = await self.http.request(method, url, **kwargs)
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
            await self.sleep(delay or 0.0)

    async def submit(
        self,
        path: str | Path,
        schema: str | Mapping[str, Any] | Path,
        options: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
    ) -> Job:
        """Send a document (``schema``: a built-in name, a JSON Schema dict or a .json file)."""
        sent = upload(path, schema, options, idempotency_key)
        r = await self.request(
            "POST", "/v1/jobs", files=sent.files, data=sent.data, headers=sent.headers
        )
        return Job.of(r.json())

    async def job(self, job: Job | str) -> Job:
        return Job.of((await self.request("GET", f"/v1/jobs/{_id(job)}")).json())

    async def wait(self, job: Job | str, *, timeout: float = 600.0) -> Job:
        """Poll until the job ends (backoff from 0.25 s to 5 s); the ended job."""
        started = time.monotonic()
        current = await self.job(job)
        for delay in poll_delays():
            if current.done:
                return current
            waited = time.monotonic() - started
            if waited >= timeout:
                raise WaitTimeout(current, waited)
            await self.sleep(min(delay, timeout - waited))
            current = await self.job(current)
        raise AssertionError("unreachable")  # pragma: no cover

    async def result(self, job: Job | str, *, timeout: float = 600.0) -> dict[str, Any]:
        """The result JSON, once the job has ended; ``JobFailed`` if it failed."""
        ended = await self.wait(job, timeout=timeout)
        if ended.status != "succeeded":
            raise JobFailed(ended)
        result: dict[str, Any] = ended.raw["result"]
        return result

    async def annotated_pdf(self, job: Job | str) -> bytes:
        """The document with each field's evidence highlighted (a PNG for an image)."""
        return (await self.request("GET", f"/v1/jobs/{_id(job)}/annotated.pdf")).content

    async def review_link(
        self, job: Job | str, reviewer: str, expires_in: int = 7 * 24 * 3600
    ) -> str:
        """A signed URL that opens the job's review page without an API key."""
        body = {"reviewer": reviewer, "expires_in": expires_in}
        answer = await self.request("POST", f"/v1/jobs/{_id(job)}/review-links", json=body)
        url: str = answer.json()["url"]
        return url
