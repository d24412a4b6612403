"""The REST API, continued: idempotency, annotated PDF, delete, schemas, routing errors, health."""

from __future__ import annotations

import pymupdf
from test_api import ACME, GLOBEX, Harness, harness, pdf_with_pages, problem

from evidex.schemas import builtin_names, get_schema

# --- idempotency ---------------------------------------------------------------------------


def test_idempotency_key_returns_the_first_job_and_enqueues_once(api: Harness) -> None:
    headers = {**ACME, "Idempotency-Key": "order-42"}
    first = api.submit(headers=headers)
    again = api.submit(headers=headers)
    assert first.status_code == 202 and again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    assert again.headers["location"] == first.headers["location"]
    assert api.enqueued == [first.json()["id"]]
    assert api.blobs.keys() == [f"acme/{first.json()['id']}/document"]
    # another tenant's identical key is its own job
    theirs = api.submit(headers={**GLOBEX, "Idempotency-Key": "order-42"})
    assert theirs.status_code == 202 and theirs.json()["id"] != first.json()["id"]


def test_idempotency_key_reused_for_another_document_is_409(api: Harness) -> None:
    headers = {**ACME, "Idempotency-Key": "order-43"}
    assert api.submit(headers=headers).status_code == 202
    problem(api.submit(pdf_with_pages(1), headers=headers), 409, "idempotency_conflict")
    assert len(api.enqueued) == 1 and len(api.blobs.keys()) == 1


def test_enqueue_failure_is_503_and_keeps_nothing() -> None:
    with harness(enqueue_error=ConnectionError("broker down")) as api:
        problem(api.submit(headers={**ACME, "Idempotency-Key": "k1"}), 503, "queue_unavailable")
        assert api.blobs.keys() == [] and api.jobs.list("acme") == ([], None)


# --- annotated PDF and delete ----------------------------------------------------------------


def test_annotated_pdf_is_409_until_succeeded_then_highlights_fields(api: Harness) -> None:
    job_id = api.submit(filename="März invoice.pdf").json()["id"]
    problem(api.client.get(f"/v1/jobs/{job_id}/annotated.pdf", headers=ACME), 409, "job_not_ready")
    api.succeed(job_id)
    r = api.client.get(f"/v1/jobs/{job_id}/annotated.pdf", headers=ACME)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/pdf"
    assert r.headers["content-disposition"] == 'inline; filename="M_rz_invoice.annotated.pdf"'
    with pymupdf.open(stream=r.content, filetype="pdf") as doc:
        titles = {a.info["title"] for a in doc[0].annots()}
    assert "payment.iban" in titles


def test_delete_removes_document_result_and_record(api: Harness) -> None:
    job_id = api.submit().json()["id"]
    result_key = api.succeed(job_id)
    api.blobs.put(f"acme/{job_id}/webhook.json", b"{}")  # the webhook sender's record
    confirm = {"action": "confirm"}
    saved = api.client.patch(f"/v1/jobs/{job_id}/fields/total", json=confirm, headers=ACME)
    assert saved.status_code == 200  # a reviewer's decision: deleted with the job
    assert api.blobs.exists(result_key) and len(api.blobs.keys()) == 4
    r = api.client.delete(f"/v1/jobs/{job_id}", headers=ACME)
    assert r.status_code == 204 and r.content == b""
    assert api.blobs.keys() == [] and api.jobs.get(job_id) is None
    problem(api.client.get(f"/v1/jobs/{job_id}", headers=ACME), 404, "job_not_found")


# --- schemas, errors, health ---------------------------------------------------------------


def test_schemas_list_and_detail(api: Harness) -> None:
    listed = api.client.get("/v1/schemas", headers=ACME)
    assert listed.status_code == 200
    assert [s["name"] for s in listed.json()] == builtin_names()
    detail = api.client.get("/v1/schemas/invoice", headers=ACME).json()
    assert detail["wire_schema"] == get_schema("invoice").wire_schema
    assert "payment.iban" in {leaf["path"] for leaf in detail["leaves"]}
    problem(api.client.get("/v1/schemas/nope", headers=ACME), 404, "schema_not_found")


def test_unknown_route_and_method_are_problems(api: Harness) -> None:
    problem(api.client.get("/nope"), 404, "not_found")
    problem(api.client.put("/v1/jobs", headers=ACME), 405, "method_not_allowed")


def test_healthz(api: Harness) -> None:
    r = api.client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok", "checks": {}}


def test_readyz_needs_a_live_worker() -> None:
    with harness(worker_check=lambda: ["celery@w1"]) as api:
        r = api.client.get("/readyz")
        assert r.status_code == 200
        assert r.json() == {
            "status": "ready",
            "checks": {"redis": "skipped", "workers": "ok: 1 live", "blobs": "ok"},
        }
    with harness(worker_check=list) as api:
        body = problem(api.client.get("/readyz"), 503, "not_ready")
        assert body["checks"]["workers"] == "failed: no worker answered"


def test_readyz_reports_a_failing_worker_check() -> None:
    def broken() -> list[str]:
        raise ConnectionError("broker unreachable")

    with harness(worker_check=broken) as api:
        r = api.client.get("/readyz")
        body = problem(r, 503, "not_ready")
        assert body["checks"]["workers"] == "failed: broker unreachable"
        assert r.headers["retry-after"] == "5"
