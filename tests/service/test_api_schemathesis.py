"""Schemathesis against the served OpenAPI document, in-process (ASGI), over the memory stores and
a recording enqueue, authenticated with a valid key.

Every operation gets a bounded number of generated requests (valid and invalid ones); each answer
must not be a server error, must use a documented status and content type, must match the
documented body schema, and every ``/v1`` operation must refuse the same request without its
key. The ``job_id`` path parameter is drawn half the time from jobs that exist (queued,
succeeded with a result, failed, another tenant's), so the routes are exercised past the 404.

Not checked: ``positive_data_acceptance``. The OpenAPI document cannot say that exactly one of
``schema``/``schema_json`` is required, or that ``cursor`` is an opaque value from
``next_cursor``, so schema-valid requests are rightly refused with 400.

The last tests pin the server errors this found (now 400/422 problems).
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from litestar.testing import TestClient
from sample_answers import SAMPLES
from schemathesis.checks import (
    content_type_conformance,
    ignored_auth,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from stored_jobs import stored_job

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract
from evidex.schemas import get_schema
from evidex.service.app import create_app
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobs import JobError, JobStatus
from evidex.workers.jobstore_memory import MemoryJobStore

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
KEYS = {"acme": "acme-fuzz-key-1", "globex": "globex-fuzz-key-2"}
AUTH = {"Authorization": f"Bearer {KEYS['acme']}"}
SEEDED = ("job_fuzz_queued", "job_fuzz_done", "job_fuzz_failed", "job_fuzz_globex")
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    ignored_auth,
]

jobs, blobs, enqueued = MemoryJobStore(), MemoryBlobStore(), list[str]()
app = create_app(
    ServiceSettings(api_keys=KEYS, rate_limit_per_minute=1_000_000),
    job_store=jobs,
    blob_store=blobs,
    enqueue=enqueued.append,
)
schema = schemathesis.openapi.from_asgi("/schema/openapi.json", app)


def _result() -> bytes:
    result = extract(INVOICE, get_schema("invoice"), parser=PyMuPDFParser(), llm=RulesBackend())
    return result.to_json().encode()


RESULT = _result()


def seed() -> None:
    """(Re)create the seeded jobs: a generated DELETE may have removed them."""
    for job_id in SEEDED:
        if jobs.get(job_id) is not None:
            continue
        tenant = "globex" if job_id.endswith("globex") else "acme"
        stored_job(jobs, blobs, INVOICE, tenant, id=job_id)
        if job_id == "job_fuzz_queued":
            continue
        jobs.transition(job_id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING, attempts=1)
        if job_id == "job_fuzz_failed":
            error = JobError(code="llm_unavailable", message="the model did not answer")
            jobs.transition(job_id, frozenset({JobStatus.RUNNING}), JobStatus.FAILED, error=error)
            continue
        key = f"{tenant}/{job_id}/result.json"
        blobs.put(key, RESULT, "application/json")
        jobs.transition(job_id, frozenset({JobStatus.RUNNING}), JobStatus.SUCCEEDED, result_key=key)


@schema.parametrize()
@schema.given(existing=st.one_of(st.none(), st.sampled_from(SEEDED)))
@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_operation_answers_a_server_error_or_breaks_its_documentation(
    case: Any, existing: str | None
) -> None:
    seed()
    if existing is not None and "job_id" in (case.path_parameters or {}):
        case.path_parameters["job_id"] = existing
    case.call_and_validate(headers=AUTH, checks=CHECKS)


# --- what the fuzzing found: server errors on client input, now problems ---------------------

BOUNDARY = "evidexBoundary"


def part(name: str, body: bytes, *extra: str) -> bytes:
    head = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"'
    lines = [head + "".join(f"; {e}" for e in extra if "=" in e and ":" not in e)]
    lines += [e for e in extra if ":" in e]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body + b"\r\n"


def post_raw(client: TestClient[Any], *parts: bytes) -> Any:
    return client.post(
        "/v1/jobs",
        content=b"".join(parts) + f"--{BOUNDARY}--\r\n".encode(),
        headers={**AUTH, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )


PDF_PART = part("file", INVOICE, 'filename="invoice.pdf"')
SCHEMA_PART = part("schema", b"invoice")


@pytest.mark.parametrize(
    ("label", "parts"),
    [
        ("the PDF in a part without a filename", [part("file", INVOICE), SCHEMA_PART]),
        (
            "the PDF named only by RFC 5987 filename*",
            [part("file", INVOICE, "filename*=UTF-8''%C3%A9.pdf"), SCHEMA_PART],
        ),
        ("a latin-1 text field", [part("schema", "invoicé".encode("latin-1")), PDF_PART]),
        (
            "a text field in an unknown charset",
            [part("schema", b"invoice", "Content-Type: text/plain; charset=bogus-9"), PDF_PART],
        ),
    ],
)
def test_an_undecodable_form_field_is_a_bad_request(label: str, parts: list[bytes]) -> None:
    # The bad field comes before the PDF: Litestar does not close the upload files it made
    # before a part it cannot decode (a ResourceWarning, an error under this suite's -W error).
    with TestClient(app) as client:
        response = post_raw(client, *parts)
    assert response.status_code == 400, (label, response.text)
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "bad_request"
    assert "could not be decoded" in response.json()["detail"]


@pytest.mark.parametrize(
    ("schema_json", "says"),
    [
        ('{"a":' * 5000 + "1" + "}" * 5000, "nested too deeply"),
        (
            '{"type": "object", "$defs": "x", "properties": {"a": {"type": "string"}}}',
            "must be an object",
        ),
        ('{"type": "object", "definitions": [], "properties": {"a": {"type": "string"}}}', ""),
        (
            '{"type": "object", "description": {"a": 1}, "properties": {"a": {"type": "string"}}}',
            "",
        ),
        ('{"type": "object", "properties": {"_a": {"type": "string"}}}', "identifiers"),
        ('{"type": "object", "properties": {"model_config": {"type": "string"}}}', ""),
        ('{"type": "object", "properties": {"model_dump": {"type": "string"}}}', "model_dump"),
    ],
)
def test_an_unusable_schema_json_is_schema_invalid(schema_json: str, says: str) -> None:
    with TestClient(app) as client:
        response = post_raw(client, PDF_PART, part("schema_json", schema_json.encode()))
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "schema_invalid"
    assert says in response.json()["detail"]
