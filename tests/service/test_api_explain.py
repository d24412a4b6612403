"""``POST /v1/schemas/explain``: a client sees each leaf's kind before sending a job."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from test_api import ACME, PROBLEM, Harness, harness

PO_FIELDS = {  # a purchase order's fields, explained by the API here and by the CLI
    "po_number": {"type": "string"},
    "discount": {"type": "number"},
    "shipped_on": {"type": "string"},
    "iban": {"type": "string", "x-evidex-kind": "iban"},
}


@pytest.fixture(scope="module")
def api() -> Iterator[Harness]:
    with harness() as h:
        yield h


def test_explain_lists_every_leaf_with_its_kind_and_source(api: Harness) -> None:
    schema = {
        "title": "po",
        "type": "object",
        "properties": {
            **PO_FIELDS,
            "note": {"type": "string", "format": "date", "x-evidex-kind": "text"},
            "lines": {
                "type": "array",
                "items": {"type": "object", "properties": {"amount": {"type": "number"}}},
            },
        },
        "x-evidex-rules": [{"kind": "sum", "parts": ["lines[].amount"], "total": "discount"}],
    }
    r = api.client.post("/v1/schemas/explain", json=schema, headers=ACME)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["name"] == "po"
    got = {
        leaf["path"]: (leaf["kind"], leaf["kind_source"], leaf["type"]) for leaf in body["leaves"]
    }
    assert got == {
        "po_number": ("string", "default", "string"),
        "discount": ("amount", "inferred", "number"),
        "shipped_on": ("date", "inferred", "string"),
        "iban": ("iban", "declared", "string"),
        "note": ("text", "declared", "string"),
        "lines[].amount": ("amount", "inferred", "number"),
    }
    assert body["rules"] == ["lines[].amount = discount"]


def test_explain_names_the_field_whose_kind_contradicts_its_type(api: Harness) -> None:
    schema = {
        "type": "object",
        "properties": {"paid": {"type": "boolean", "x-evidex-kind": "iban"}},
    }
    r = api.client.post("/v1/schemas/explain", json=schema, headers=ACME)
    assert r.status_code == 422
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["code"] == "schema_invalid"
    assert body["detail"].startswith("paid: x-evidex-kind 'iban' contradicts its type 'boolean'")


def test_explain_needs_a_key(api: Harness) -> None:
    r = api.client.post("/v1/schemas/explain", json={"type": "object"}, headers={})
    assert r.status_code == 401


def test_a_job_whose_schema_contradicts_a_kind_is_refused_naming_the_field(api: Harness) -> None:
    schema = {"type": "object", "properties": {"total": {"type": "number", "format": "email"}}}
    r = api.submit(schema_json=json.dumps(schema))
    assert r.status_code == 422
    assert r.json()["code"] == "schema_invalid"
    assert "total: format 'email' contradicts its type 'number'" in r.json()["detail"]


def test_explain_refuses_what_is_not_a_schema_of_values(api: Harness) -> None:
    r = api.client.post("/v1/schemas/explain", json={"type": "array"}, headers=ACME)
    assert r.status_code == 422
    assert r.json()["code"] == "schema_invalid"
