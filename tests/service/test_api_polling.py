"""Polling ``GET /v1/jobs/{id}``: the stored result served as its bytes, an ETag, 304 on a match.

The job is a real one: submitted over the API, its result made by the real pipeline (rules
backend) and stored the way the worker stores it.
"""

from __future__ import annotations

import json

from test_api import ACME, GLOBEX, Harness, problem

from evidex.service.views import job_view
from evidex.workers.jobs import JobStatus


def _get(api: Harness, job_id: str, etag: str | None = None) -> tuple[int, str, bytes]:
    headers = {**ACME, **({"If-None-Match": etag} if etag is not None else {})}
    r = api.client.get(f"/v1/jobs/{job_id}", headers=headers)
    return r.status_code, r.headers.get("etag", ""), r.content


def test_a_queued_job_answers_304_to_its_own_etag(api: Harness) -> None:
    job_id = api.submit().json()["id"]
    status, etag, body = _get(api, job_id)
    assert status == 200 and etag.startswith('"') and etag.endswith('"')
    assert json.loads(body)["status"] == "queued" and "result" not in json.loads(body)
    assert _get(api, job_id, etag) == (304, etag, b"")
    assert _get(api, job_id, f'"other", W/{etag}')[0] == 304  # a list, weak form compared weakly
    assert _get(api, job_id, "*")[0] == 304
    assert _get(api, job_id, '"stale"')[:2] == (200, etag)


def test_the_etag_changes_with_the_job_and_the_result_is_the_stored_bytes(api: Harness) -> None:
    job_id = api.submit().json()["id"]
    _, queued_etag, _ = _get(api, job_id)
    key = api.succeed(job_id)
    status, etag, body = _get(api, job_id, queued_etag)
    assert status == 200 and etag != queued_etag
    served = json.loads(body)
    assert served["status"] == "succeeded"
    assert served["result"] == json.loads(api.blobs.get(key))
    assert served["result"]["summary"] == json.loads(api.blobs.get(key))["summary"]
    assert _get(api, job_id, etag) == (304, etag, b"")


def test_the_body_is_the_document_the_job_view_describes(api: Harness) -> None:
    """Splicing the stored bytes must give the same JSON as building :class:`JobView`."""
    job_id = api.submit().json()["id"]
    api.succeed(job_id)
    job = api.jobs.get(job_id)
    assert job is not None and job.status is JobStatus.SUCCEEDED
    _, _, body = _get(api, job_id)
    assert json.loads(body) == job_view(job, api.blobs).model_dump(mode="json")
    failed_id = api.submit(headers={**ACME, "Idempotency-Key": "other"}).json()["id"]
    api.jobs.transition(failed_id, frozenset({JobStatus.QUEUED}), JobStatus.FAILED)
    failed = api.jobs.get(failed_id)
    assert failed is not None
    assert json.loads(_get(api, failed_id)[2]) == job_view(failed).model_dump(mode="json")


def test_another_tenant_gets_404_whatever_etag_it_sends(api: Harness) -> None:
    job_id = api.submit().json()["id"]
    _, etag, _ = _get(api, job_id)
    r = api.client.get(f"/v1/jobs/{job_id}", headers={**GLOBEX, "If-None-Match": etag})
    problem(r, 404, "job_not_found")
