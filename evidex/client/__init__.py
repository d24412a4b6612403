"""A Python client for the evidex REST API, sync and async, on httpx alone.

::

    from evidex.client import Client

    with Client("http://127.0.0.1:8000", api_key="...") as evidex:
        job = evidex.submit("invoice.pdf", "invoice", {"llm": "rules"})
        result = evidex.result(job)              # waits for the job, then its result JSON
        pdf = evidex.annotated_pdf(job)          # the highlighted PDF's bytes

``AsyncClient`` has the same methods as coroutines. ``submit`` sends an ``Idempotency-Key``
derived from the file's bytes, the schema and the options, so sending the same thing twice (a
retry after a timeout, a script run again) names the same job instead of a second one. Requests
answered 429 or 503 are retried, after the server's ``Retry-After`` when it sends one, with
exponential backoff otherwise; so are requests that never reached the server. ``wait`` polls
with backoff. :func:`verify_webhook` checks a webhook's ``Evidex-Signature``.

Errors::

    EvidexClientError            base
    ├── ApiError                 the API answered with a problem (status, code, detail)
    ├── JobFailed                the job ended failed (job.error_code, job.error_message)
    └── WaitTimeout              the job did not end in time (also a TimeoutError)

This package imports only httpx and the standard library (import-linter checks it): it runs in
a client's program without the server's dependencies.
"""

from evidex.client.aio import AsyncClient
from evidex.client.core import (
    ApiError,
    EvidexClientError,
    Job,
    JobFailed,
    WaitTimeout,
    idempotency_key,
    verify_webhook,
)
from evidex.client.sync import Client

__all__ = [
    "ApiError",
    "AsyncClient",
    "Client",
    "EvidexClientError",
    "Job",
    "JobFailed",
    "WaitTimeout",
    "idempotency_key",
    "verify_webhook",
]
