"""Review decisions and exports over the memory stores: confirm, edit (typed by the field's
kind), reject; who and when; the machine result untouched; 422/404 for bad requests; the
reviewed values as JSON and CSV. The job and its result come from :mod:`test_review`.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from test_api import ACME, Harness, problem
from test_review import (
    ITEM,
    ITEM_URL,
    TAMPERED,
    WHO,
    machine,
    patch,
)

# --- decisions -------------------------------------------------------------------------------


def test_decisions_are_saved_with_who_and_when_beside_an_unchanged_result(
    api: Harness, job: str
) -> None:
    stored = api.jobs.get(job)
    assert stored is not None and stored.result_key
    result_bytes = api.blobs.get(stored.result_key)
    before = datetime.now(UTC)
    confirm = patch(api, job, "invoice_number", {"action": "confirm"})
    edit = patch(api, job, TAMPERED, {"action": "edit", "value": " PO-NL-77215 ", "note": "PO"})
    reject = patch(api, job, "tax_rate", {"action": "reject", "note": "wrong line"})
    assert [r.status_code for r in (confirm, edit, reject)] == [200, 200, 200]
    assert confirm.json()["value"] == "INV-2026-00418" == confirm.json()["machine_value"]
    assert edit.json()["value"] == "PO-NL-77215" and edit.json()["machine_value"] == "PO-NL-77251"
    assert edit.json()["machine_status"] == "needs_review" and edit.json()["note"] == "PO"
    assert reject.json()["value"] is None
    assert reject.json()["machine_value"] == machine().fields["tax_rate"].value
    for r in (confirm, edit, reject):
        assert r.json()["who"] == WHO
        at = datetime.fromisoformat(r.json()["at"])
        assert before <= at <= datetime.now(UTC) + timedelta(seconds=1)
    assert api.blobs.get(stored.result_key) == result_bytes  # never overwritten
    assert api.blobs.exists(f"acme/{job}/decisions.json")
    # A second decision on a field replaces the latest; the history keeps both.
    assert patch(api, job, "invoice_number", {"action": "reject"}).status_code == 200
    listed = api.client.get(f"/v1/jobs/{job}/decisions", headers=ACME)
    assert listed.status_code == 200
    body = listed.json()
    assert body["job_id"] == job
    assert set(body["decisions"]) == {"invoice_number", TAMPERED, "tax_rate"}
    assert body["decisions"]["invoice_number"]["action"] == "reject"
    assert [(d["path"], d["action"]) for d in body["history"]] == [
        ("invoice_number", "confirm"),
        (TAMPERED, "edit"),
        ("tax_rate", "reject"),
        ("invoice_number", "reject"),
    ]
    assert api.client.get(f"/v1/jobs/{job}", headers=ACME).json()["result"] == (
        machine().model_dump(mode="json", by_alias=True)
    )
    page = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text
    assert 'class="field s-needs_review decided d-edit" data-path="purchase_order"' in page
    assert '<span class="d-label">Edited</span> <span class="d-value">PO-NL-77215</span>' in page
    assert f"3 of {len(machine().fields)} reviewed" in page


@pytest.mark.parametrize(
    ("path", "value", "stored"),
    [
        (ITEM_URL, 19935.8, {"value": 19935.8, "currency": "EUR"}),  # the currency is kept
        ("total", {"value": 5, "currency": "USD"}, {"value": 5.0, "currency": "USD"}),
        ("total", {"value": 5, "currency": None}, {"value": 5.0, "currency": None}),
        ("tax_rate", 7, 7),
        ("issue_date", "2026-03-17", {"iso": "2026-03-17", "original": "2026-03-17"}),
        ("issue_date", {"iso": "2026-03-18"}, {"iso": "2026-03-18", "original": "2026-03-18"}),
        ("payment.iban", "  DE45 1004  ", "DE45 1004"),
        ("tax_rate", 7.5, 7.5),
    ],
)
def test_edits_are_typed_by_the_field_kind(
    api: Harness, job: str, path: str, value: Any, stored: Any
) -> None:
    r = patch(api, job, path, {"action": "edit", "value": value})
    assert r.status_code == 200, r.text
    assert r.json()["value"] == stored
    assert r.json()["path"] == path.replace("%5B", "[").replace("%5D", "]")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("total", {"action": "approve"}),
        ("total", {}),
        ("total", {"action": ["confirm"]}),
        ("total", {"action": "confirm", "value": 3}),
        ("total", {"action": "edit"}),
        ("total", {"action": "confirm", "by": "me"}),
        ("total", {"action": "confirm", "note": 5}),
        ("total", {"action": "edit", "value": "a lot"}),
        ("total", {"action": "edit", "value": True}),
        ("total", {"action": "edit", "value": {"value": "x", "currency": "EUR"}}),
        ("tax_rate", {"action": "edit", "value": "19"}),
        ("issue_date", {"action": "edit", "value": "17.03.2026"}),
        ("issue_date", {"action": "edit", "value": "2026-02-30"}),
        ("invoice_number", {"action": "edit", "value": "   "}),
        ("invoice_number", {"action": "edit", "value": 42}),
        ("seller.address", {"action": "edit", "value": "Main St 1"}),
    ],
)
def test_a_bad_action_or_value_is_422(api: Harness, job: str, path: str, body: Any) -> None:
    problem(patch(api, job, path, body), 422, "decision_invalid")
    assert not api.blobs.exists(f"acme/{job}/decisions.json")


def test_a_body_that_is_not_an_object_is_400(api: Harness, job: str) -> None:
    problem(patch(api, job, "total", ["confirm"]), 400, "bad_request")


@pytest.mark.parametrize("path", ["nope", "line_items%5B9%5D.amount", "seller", "total.value"])
def test_an_unknown_field_path_is_404(api: Harness, job: str, path: str) -> None:
    problem(patch(api, job, path, {"action": "confirm"}), 404, "field_not_found")


# --- exports ---------------------------------------------------------------------------------


def test_export_json_and_csv_hold_machine_and_reviewed_values(api: Harness, job: str) -> None:
    patch(api, job, TAMPERED, {"action": "edit", "value": "PO-NL-77215", "note": "from the PO"})
    patch(api, job, "payment.bic", {"action": "confirm"})
    result = machine()
    exported = api.client.get(f"/v1/jobs/{job}/export.json", headers=ACME)
    assert exported.status_code == 200
    body = exported.json()
    assert (body["job_id"], body["schema_name"], body["reviewed"]) == (job, "invoice", 2)
    rows = {row["path"]: row for row in body["fields"]}
    assert list(rows) == list(result.fields)
    assert rows[TAMPERED] | {"when": None} == {
        "path": TAMPERED,
        "machine_value": "PO-NL-77251",
        "status": "needs_review",
        "decision": "edit",
        "reviewed_value": "PO-NL-77215",
        "who": WHO,
        "when": None,
        "note": "from the PO",
    }
    assert rows[TAMPERED]["when"]
    assert rows["payment.bic"]["decision"] == "confirm"
    assert rows["payment.bic"]["reviewed_value"] == "COBADEBBXXX"
    assert rows["invoice_number"]["decision"] is None
    assert rows["invoice_number"]["reviewed_value"] is None

    r = api.client.get(f"/v1/jobs/{job}/export.csv", headers=ACME)
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.headers["content-disposition"] == 'attachment; filename="invoice.review.csv"'
    table = list(csv.reader(io.StringIO(r.text)))
    assert table[0] == list(body["fields"][0])  # the JSON rows' keys, in their order
    lines = {row[0]: row for row in table[1:]}
    assert list(lines) == list(result.fields)
    assert lines[TAMPERED][:6] == [
        TAMPERED,
        "PO-NL-77251",
        "needs_review",
        "edit",
        "PO-NL-77215",
        WHO,
    ]
    assert lines[TAMPERED][6] == rows[TAMPERED]["when"] and lines[TAMPERED][7] == "from the PO"
    assert lines["invoice_number"] == ["invoice_number", "INV-2026-00418", "verified"] + [""] * 5
    assert lines[ITEM][1] == '{"currency":"EUR","value":120.0}'  # objects as compact JSON
    absent = [path for path, f in result.fields.items() if f.value is None]
    assert absent and all(lines[path][1:3] == ["", "not_found"] for path in absent)
    assert lines["seller.phone"][1] == "'+49 30 4920 3318"  # no formula in a spreadsheet
