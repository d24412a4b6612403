"""The REST API over the shipped memory stores and a recording enqueue: submit, read, list,
download, delete, tenancy, auth, idempotency, schemas, health.

``Harness``/``api``/``pdf_with_pages`` are imported by the other ``test_api_*`` modules.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pymupdf
import pytest
from litestar.testing import TestClient
from sample_answers import SAMPLES

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract
from evidex.schemas import get_schema
from evidex.service.app import create_app
from evidex.service.ratelimit import RateLimiter
from evidex.service.services import WorkerCheck
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobs import JobStatus
from evidex.workers.jobstore_memory import MemoryJobStore

INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
KEYS = {"acme": "acme-secret-key-1", "globex": "globex-secret-key-2"}
ACME = {"Authorization": f"Bearer {KEYS['acme']}"}
GLOBEX = {"Authorization": f"Bearer {KEYS['globex']}"}
PROBLEM = "application/problem+json"


@dataclass
class Harness:
    client: TestClient[Any]
    jobs: MemoryJobStore
    blobs: MemoryBlobStore
    settings: ServiceSettings
    enqueued: list[str] = field(default_factory=list)

    def submit(
        self,
        data: bytes = INVOICE,
        *,
        filename: str = "invoice.pdf",
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
        **fields: str,
    ) -> httpx.Response:
        """POST a job; the form is ``form`` and ``fields`` (default: ``schema=invoice``)."""
        sent = {**(form or {}), **fields} or {"schema": "invoice"}
        return self.client.post(
            "/v1/jobs",
            files={"file": (filename, data, "application/pdf")},
            data=sent,
            headers=ACME if headers is None else headers,
        )

    def succeed(self, job_id: str) -> str:
        """Run the real pipeline (rules backend) on the invoice and store it as the result."""
        job = self.jobs.get(job_id)
        assert job is not None
        result = extract(INVOICE, get_schema("invoice"), parser=PyMuPDFParser(), llm=RulesBackend())
        key = f"{job.tenant}/{job_id}/result.json"
        self.blobs.put(key, result.to_json().encode(), "application/json")
        assert self.jobs.transition(job_id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING)
        done = self.jobs.transition(
            job_id, frozenset({JobStatus.RUNNING}), JobStatus.SUCCEEDED, result_key=key
        )
        assert done is not None
        return key


@contextmanager
def harness(
    *,
    worker_check: WorkerCheck | None = None,
    limiter: RateLimiter | None = None,
    redis: Any = None,
    enqueue_error: Exception | None = None,
    **settings: Any,
) -> Iterator[Harness]:
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    enqueued: list[str] = []

    def enqueue(job_id: str) -> None:
        if enqueue_error is not None:
            raise enqueue_error
        enqueued.append(job_id)

    config = ServiceSettings(api_keys=KEYS, **settings)
    app = create_app(
        config,
        job_store=jobs,
        blob_store=blobs,
        enqueue=enqueue,
        redis=redis,
        worker_check=worker_check,
        limiter=limiter,
    )
    with TestClient(app) as client:
        yield Harness(client, jobs, blobs, config, enqueued)


def problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """Assert ``response`` is an RFC 9457 problem with ``status`` and ``code``; its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["status"] == status
    assert body["type"] == f"urn:evidex:problem:{code}"
    assert body["title"] and body["detail"]
    return body


def pdf_with_pages(pages: int, text: str = "Invoice INV-1 total 10.00") -> bytes:
    with pymupdf.open() as doc:
        for number in range(pages):
            doc.new_page().insert_text((72, 72), f"{text} page {number + 1}")
        data: bytes = doc.tobytes()
    return data


# --- submit --------------------------------------------------------------------------------


def test_submit_returns_202_location_stores_document_and_enqueues_once(api: Harness) -> None:
    r = api.submit(filename="../../etc/Invoice March.pdf")
    assert r.status_code == 202
    assert r.headers["content-type"].startswith("application/json")
    job = r.json()
    assert r.headers["location"] == f"/v1/jobs/{job['id']}"
    assert job["status"] == "queued" and job["schema_name"] == "invoice"
    assert job["filename"] == "Invoice March.pdf"  # metadata only, the path is gone
    assert job["size"] == len(INVOICE) and job["media_type"] == "application/pdf"
    assert "result" not in job and job["error"] is None
    assert api.enqueued == [job["id"]]
    key = f"acme/{job['id']}/document"
    assert api.blobs.keys() == [key]
    assert api.blobs.get(key) == INVOICE and api.blobs.content_type(key) == "application/pdf"
    stored = api.jobs.get(job["id"])
    assert stored is not None and stored.tenant == "acme" and stored.document_key == key


def test_submit_custom_json_schema_keeps_it_for_the_worker(api: Harness) -> None:
    schema = {"title": "po", "type": "object", "properties": {"po_number": {"type": "string"}}}
    r = api.submit(schema_json=json.dumps(schema), options='{"llm": "rules", "pages": "1"}')
    assert r.status_code == 202, r.text
    assert r.json()["schema_name"] == "po"
    assert r.json()["options"]["llm"] == "rules"
    stored = api.jobs.get(r.json()["id"])
    assert stored is not None and stored.custom_schema == schema


def test_get_job_shows_status_then_result_once_succeeded(api: Harness) -> None:
    job_id = api.submit().json()["id"]
    r = api.client.get(f"/v1/jobs/{job_id}", headers=ACME)
    assert r.status_code == 200 and r.json()["status"] == "queued" and "result" not in r.json()
    api.succeed(job_id)
    body = api.client.get(f"/v1/jobs/{job_id}", headers=ACME).json()
    assert body["status"] == "succeeded"
    assert body["result"]["schema"] == "invoice"
    assert body["result"]["fields"]["payment.iban"]["status"] == "verified"
    assert [e["status"] for e in body["events"]] == ["running", "succeeded"]


def test_get_unknown_job_is_404(api: Harness) -> None:
    problem(api.client.get("/v1/jobs/job_nope", headers=ACME), 404, "job_not_found")


def test_list_paginates_newest_first_and_filters_by_status(api: Harness) -> None:
    ids = [api.submit().json()["id"] for _ in range(3)]
    first = api.client.get("/v1/jobs", params={"limit": 2}, headers=ACME)
    assert first.status_code == 200
    page1 = first.json()
    assert [j["id"] for j in page1["jobs"]] == ids[::-1][:2]
    assert page1["next_cursor"]
    page2 = api.client.get(
        "/v1/jobs", params={"limit": 2, "cursor": page1["next_cursor"]}, headers=ACME
    ).json()
    assert [j["id"] for j in page2["jobs"]] == [ids[0]] and page2["next_cursor"] is None

    api.jobs.transition(ids[1], frozenset({JobStatus.QUEUED}), JobStatus.RUNNING)
    running = api.client.get("/v1/jobs", params={"status": "running"}, headers=ACME).json()
    assert [j["id"] for j in running["jobs"]] == [ids[1]]


@pytest.mark.parametrize(
    "params", [{"status": "bogus"}, {"limit": 0}, {"limit": 101}, {"cursor": "garbage"}]
)
def test_list_rejects_bad_parameters(api: Harness, params: dict[str, Any]) -> None:
    problem(api.client.get("/v1/jobs", params=params, headers=ACME), 400, "bad_request")


# --- tenancy and auth ----------------------------------------------------------------------


def test_another_tenant_cannot_see_list_download_or_delete_a_job(api: Harness) -> None:
    job_id = api.submit().json()["id"]
    api.succeed(job_id)
    problem(api.client.get(f"/v1/jobs/{job_id}", headers=GLOBEX), 404, "job_not_found")
    listed = api.client.get("/v1/jobs", headers=GLOBEX)
    assert listed.status_code == 200 and listed.json() == {"jobs": [], "next_cursor": None}
    annotated = api.client.get(f"/v1/jobs/{job_id}/annotated.pdf", headers=GLOBEX)
    problem(annotated, 404, "job_not_found")
    problem(api.client.delete(f"/v1/jobs/{job_id}", headers=GLOBEX), 404, "job_not_found")
    assert api.jobs.get(job_id) is not None and len(api.blobs.keys()) == 2
    assert api.client.get(f"/v1/jobs/{job_id}", headers=ACME).status_code == 200


@pytest.mark.parametrize(
    ("headers", "challenge"),
    [
        ({}, 'Bearer realm="evidex"'),
        ({"Authorization": "Bearer wrong-key"}, 'Bearer realm="evidex", error="invalid_token"'),
        ({"Authorization": f"Basic {KEYS['acme']}"}, 'Bearer realm="evidex"'),
        ({"Authorization": "Bearer "}, 'Bearer realm="evidex"'),
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/jobs"), ("POST", "/v1/jobs"), ("GET", "/v1/jobs/x"), ("GET", "/v1/schemas")],
)
def test_missing_or_bad_key_is_401_with_challenge(
    api: Harness, headers: dict[str, str], challenge: str, method: str, path: str
) -> None:
    r = api.client.request(method, path, headers=headers)
    problem(r, 401, "unauthorized")
    assert r.headers["www-authenticate"] == challenge
    assert api.enqueued == []


@pytest.mark.parametrize("path", ["/healthz", "/schema/openapi.json"])
def test_health_and_openapi_are_public(api: Harness, path: str) -> None:
    assert api.client.get(path).status_code == 200
