"""The served OpenAPI document covers every route, method, success and problem response."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litestar.routes import HTTPRoute
from test_api import harness

from evidex.service.problems import PROBLEMS

V1 = {401, 429, 503}
# A route that reads what a job produced: 404 for an unknown job, 409 until it has succeeded.
ENDED_JOB = ("200", V1 | {404, 409}, {"job_not_found", "job_not_ready"})
# (method, path) -> (success status, error statuses, problem codes that must be named)
ROUTES: dict[tuple[str, str], tuple[str, set[int], set[str]]] = {
    ("post", "/v1/jobs"): (
        "202",
        V1 | {400, 409, 413, 415, 422},
        {
            "file_too_large",
            "too_many_pages",
            "unsupported_media_type",
            "schema_invalid",
            "options_invalid",
            "webhook_not_allowed",
            "pdf_encrypted",
            "no_text_layer",
            "document_empty",
            "idempotency_conflict",
            "queue_unavailable",
        },
    ),
    ("get", "/v1/jobs"): ("200", V1 | {400}, {"bad_request"}),
    ("get", "/v1/jobs/{job_id}"): ("200", V1 | {404}, {"job_not_found"}),
    ("delete", "/v1/jobs/{job_id}"): ("204", V1 | {404}, {"job_not_found"}),
    ("get", "/v1/jobs/{job_id}/annotated.pdf"): ENDED_JOB,
    ("get", "/v1/schemas"): ("200", V1, {"unauthorized", "rate_limited"}),
    ("get", "/v1/schemas/{name}"): ("200", V1 | {404}, {"schema_not_found"}),
    ("post", "/v1/schemas/explain"): (
        "200",
        V1 | {400, 413, 422},
        {"schema_invalid", "file_too_large"},
    ),
    ("get", "/v1/jobs/{job_id}/review"): ENDED_JOB,
    ("get", "/v1/jobs/{job_id}/pages/{page_file}"): (
        "200",
        V1 | {404, 409},
        {"job_not_found", "job_not_ready", "page_not_found"},
    ),
    ("patch", "/v1/jobs/{job_id}/fields/{field_path}"): (
        "200",
        V1 | {400, 404, 409, 422},
        {"job_not_found", "job_not_ready", "field_not_found", "decision_invalid"},
    ),
    ("get", "/v1/jobs/{job_id}/decisions"): ENDED_JOB,
    ("get", "/v1/jobs/{job_id}/export.json"): ENDED_JOB,
    ("get", "/v1/jobs/{job_id}/export.csv"): ENDED_JOB,
    ("get", "/v1/review-assets/{name}"): ("200", V1 | {404}, {"not_found"}),
    ("post", "/v1/jobs/{job_id}/review-links"): (
        "201",
        V1 | {404, 409},
        {"job_not_found", "job_not_ready", "not_found"},
    ),
    ("get", "/v1/jobs/{job_id}/review-links"): ("200", V1 | {404}, {"job_not_found"}),
    ("delete", "/v1/jobs/{job_id}/review-links/{link_id}"): (
        "204",
        V1 | {404},
        {"job_not_found", "not_found"},
    ),
    ("get", "/review/{token}"): ("200", {404}, set()),
    ("get", "/review/{token}/pages/{page_file}"): (
        "200",
        {404},
        {"page_not_found", "not_found"},
    ),
    ("patch", "/review/{token}/fields/{field_path}"): (
        "200",
        {404, 422},
        {"field_not_found", "decision_invalid", "not_found"},
    ),
    ("get", "/review-assets/{name}"): ("200", {404}, {"not_found"}),
    ("get", "/"): ("200", set(), set()),
    ("get", "/upload-assets/{name}"): ("200", {404}, {"not_found"}),
    ("get", "/healthz"): ("200", set(), set()),
    ("get", "/readyz"): ("200", {503}, {"not_ready"}),
}


@pytest.fixture(scope="module")
def spec() -> Iterator[tuple[dict[str, Any], set[tuple[str, str]]]]:
    with harness() as api:
        r = api.client.get("/schema/openapi.json")
        assert r.status_code == 200
        served = {
            (method.lower(), route.path.replace(":str}", "}"))
            for route in api.client.app.routes
            if isinstance(route, HTTPRoute) and not route.path.startswith("/schema")
            for method in route.methods
            if method not in ("OPTIONS", "HEAD")
        }
        yield r.json(), served


def test_every_served_route_is_documented_and_expected(
    spec: tuple[dict[str, Any], set[tuple[str, str]]],
) -> None:
    document, served = spec
    documented = {(m, p) for p, item in document["paths"].items() for m in item}
    assert served == set(ROUTES) == documented


@pytest.mark.parametrize(("method", "path"), sorted(ROUTES))
def test_route_documents_success_errors_and_security(
    spec: tuple[dict[str, Any], set[tuple[str, str]]], method: str, path: str
) -> None:
    document = spec[0]
    operation = document["paths"][path][method]
    success, errors, codes = ROUTES[(method, path)]
    assert operation["summary"]
    assert success in operation["responses"]
    assert {int(s) for s in operation["responses"] if s.startswith(("4", "5"))} >= errors
    named: set[str] = set()
    for status, response in operation["responses"].items():
        if not status.startswith(("4", "5")):
            continue
        content = response["content"]
        if (method, path, status) == ("get", "/review/{token}", "404"):
            assert list(content) == ["text/html"]  # a page for people: the link has expired
            continue
        assert list(content) == ["application/problem+json"], (path, status)
        assert content["application/problem+json"]["schema"] == {
            "$ref": "#/components/schemas/Problem"
        }
        examples = content["application/problem+json"]["examples"].values()
        for example in examples:
            code = example["value"]["code"]
            assert PROBLEMS[code].status == int(status) == example["value"]["status"]
            named.add(code)
    assert named >= codes
    if path.startswith("/v1"):
        assert operation["security"] == [{"bearer": []}]
    else:
        assert "security" not in operation


def test_upload_body_and_headers_are_documented(
    spec: tuple[dict[str, Any], set[tuple[str, str]]],
) -> None:
    document = spec[0]
    operation = document["paths"]["/v1/jobs"]["post"]
    ref = operation["requestBody"]["content"]["multipart/form-data"]["schema"]["$ref"]
    form = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(form["properties"]) == {"file", "schema", "schema_json", "options"}
    assert form["required"] == ["file"]
    assert form["properties"]["file"]["format"] == "binary"
    assert all(p["description"] for p in form["properties"].values())
    assert "Location" in operation["responses"]["202"]["headers"]
    assert "200" in operation["responses"]  # the idempotent replay
    assert [p["name"] for p in operation["parameters"]] == ["Idempotency-Key"]
    listing = document["paths"]["/v1/jobs"]["get"]
    assert {p["name"] for p in listing["parameters"]} == {"limit", "cursor", "status"}


def test_security_scheme_and_models(spec: tuple[dict[str, Any], set[tuple[str, str]]]) -> None:
    components = spec[0]["components"]
    assert components["securitySchemes"]["bearer"]["type"] == "http"
    assert components["securitySchemes"]["bearer"]["scheme"] == "bearer"
    problem = components["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "code"} <= set(problem["required"])
    job = components["schemas"]["JobView"]
    assert {"id", "status", "result", "error"} <= set(job["properties"])
