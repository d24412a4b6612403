"""``Client``: the evidex API over a blocking ``httpx.Client``."""

from __future__ import annotations

import time
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import httpx

from evidex.client.base import WEEK_S, BaseClient, Call, Options, Schema
from evidex.client.core import Job

__all__ = ["Client"]

T = TypeVar("T")


class Client(BaseClient[httpx.Client, httpx.BaseTransport]):
    """The evidex API with blocking calls (the arguments: :class:`BaseClient`)."""

    sleep = staticmethod(time.sleep)

    def open(self, transport: httpx.BaseTransport | None, **options: Any) -> httpx.Client:
        return httpx.Client(transport=transport, **options)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def run(self, call: Call[T]) -> T:
        """Send the call's requests and sleep its pauses; its answer."""
        try:
            step = next(call)
            while True:
                if isinstance(step, httpx.Request):
                    try:
                        response = self.http.send(step)
                    except httpx.TransportError as error:
                        step = call.throw(error)
                    else:
                        step = call.send(response)
                else:
                    self.sleep(step)
                    step = call.send(None)
        except StopIteration as stop:
            answer: T = stop.value
            return answer

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, retried on 429/503 and on connection errors; errors as ``ApiError``."""
        return self.run(self.call(method, url, **kwargs))

    def submit(
        self,
        path: str | Path,
        schema: Schema,
        options: Options = None,
        *,
        idempotency_key: str | None = None,
    ) -> Job:
        """Send a document (``schema``: a built-in name, a JSON Schema dict or a .json file)."""
        return self.run(self.submit_call(path, schema, options, idempotency_key))

    def job(self, job: Job | str) -> Job:
        return self.run(self.job_call(job))

    def wait(self, job: Job | str, *, timeout: float = 600.0) -> Job:
        """Poll until the job ends (backoff from 0.25 s to 5 s); the ended job."""
        return self.run(self.wait_call(job, timeout))

    def result(self, job: Job | str, *, timeout: float = 600.0) -> dict[str, Any]:
        """The result JSON, once the job has ended; ``JobFailed`` if it failed."""
        return self.run(self.result_call(job, timeout))

    def annotated_pdf(self, job: Job | str) -> bytes:
        """The document with each field's evidence highlighted (a PNG for an image)."""
        return self.run(self.annotated_pdf_call(job))

    def review_link(self, job: Job | str, reviewer: str, expires_in: int = WEEK_S) -> str:
        """A signed URL that opens the job's review page without an API key."""
        return self.run(self.review_link_call(job, reviewer, expires_in))
