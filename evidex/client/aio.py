"""``AsyncClient``: the evidex API over ``httpx.AsyncClient``, for asyncio programs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx

from evidex.client.base import WEEK_S, BaseClient, Call, Options, Schema
from evidex.client.core import Job

__all__ = ["AsyncClient"]

T = TypeVar("T")


class AsyncClient(BaseClient[httpx.AsyncClient, httpx.AsyncBaseTransport]):
    """The evidex API with coroutine calls (the arguments: :class:`BaseClient`)."""

    sleep = staticmethod(asyncio.sleep)

    def open(self, transport: httpx.AsyncBaseTransport | None, **options: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=transport, **options)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def run(self, call: Call[T]) -> T:
        """Send the call's requests and sleep its pauses, awaiting each; its answer."""
        try:
            step = next(call)
            while True:
                if isinstance(step, httpx.Request):
                    try:
                        response = await self.http.send(step)
                    except httpx.TransportError as error:
                        step = call.throw(error)
                    else:
                        step = call.send(response)
                else:
                    await self.sleep(step)
                    step = call.send(None)
        except StopIteration as stop:
            answer: T = stop.value
            return answer

    async def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, retried on 429/503 and on connection errors; errors as ``ApiError``."""
        return await self.run(self.call(method, url, **kwargs))

    async def submit(
        self,
        path: str | Path,
        schema: Schema,
        options: Options = None,
        *,
        idempotency_key: str | None = None,
    ) -> Job:
        """Send a document (``schema``: a built-in name, a JSON Schema dict or a .json file)."""
        return await self.run(self.submit_call(path, schema, options, idempotency_key))

    async def job(self, job: Job | str) -> Job:
        return await self.run(self.job_call(job))

    async def wait(self, job: Job | str, *, timeout: float = 600.0) -> Job:
        """Poll until the job ends (backoff from 0.25 s to 5 s); the ended job."""
        return await self.run(self.wait_call(job, timeout))

    async def result(self, job: Job | str, *, timeout: float = 600.0) -> dict[str, Any]:
        """The result JSON, once the job has ended; ``JobFailed`` if it failed."""
        return await self.run(self.result_call(job, timeout))

    async def annotated_pdf(self, job: Job | str) -> bytes:
        """The document with each field's evidence highlighted (a PNG for an image)."""
        return await self.run(self.annotated_pdf_call(job))

    async def review_link(self, job: Job | str, reviewer: str, expires_in: int = WEEK_S) -> str:
        """A signed URL that opens the job's review page without an API key."""
        return await self.run(self.review_link_call(job, reviewer, expires_in))
