"""``RulesBackend`` on plain client schemas: fields read by their meaning take the shape the
schema asks and verify; two values read by equally strong rules go to review."""

from __future__ import annotations

from typing import Any

import pytest
from rules_backend_cases import BILL_TO, CONTRACT, INVOICE, fields, parse, run

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Status, schema_from_json

PLAIN_CONTRACT = {
    "type": "object",
    "properties": {
        "counterparties": {"type": "array", "items": {"type": "string"}},
        "jurisdiction": {"type": "string"},
        "duration": {"type": "string"},
        "commencement_date": {"type": "string"},
        "renewal": {"type": "string", "description": "Length of each renewal period"},
    },
}


def test_a_plain_schema_is_read_by_meaning_and_every_value_verifies() -> None:
    # The model answers in the rich value of each inferred kind (a Duration, a DateValue);
    # ``data`` gives the client the plain types its schema declares.
    schema = schema_from_json(PLAIN_CONTRACT)
    result = extract_parsed(parse(CONTRACT), schema, llm=RulesBackend())
    found = {p: f for p, f in result.fields.items() if f.status != Status.NOT_FOUND}
    assert {p: f.quote for p, f in found.items()} == {
        "counterparties[0]": "Alpha Corp",
        "counterparties[1]": "Beta LLC",
        "jurisdiction": "governed by the laws of the State of New York",
        "duration": "term of this Agreement is three (3) years",
        "commencement_date": "effective as of March 1, 2026",
        "renewal": "renew for successive one (1) year",
    }
    assert {p: f.status for p, f in found.items()} == {p: Status.VERIFIED for p in found}
    assert {k: v for k, v in result.data.items() if v is not None} == {
        "counterparties": ["Alpha Corp", "Beta LLC"],
        "jurisdiction": "New York",
        "duration": "3 years",
        "commencement_date": "2026-03-01",
        "renewal": "1 year",
    }


PLAIN_INVOICE = {
    "type": "object",
    "properties": {
        "invoice_no": {"type": "string"},
        "amount_due": {"type": "number"},
        "vat_percent": {"type": "number", "description": "VAT rate"},
        "bill_to": {
            "type": "object",
            "properties": {"company": {"type": "string"}, "address": {"type": "string"}},
        },
    },
}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("invoice_no", "INV-2026-001"),
        ("amount_due", 1234.56),  # a number field gets the number, not {value, currency}
        ("vat_percent", 19.0),
    ],
)
def test_plain_invoice_fields_take_the_shape_the_schema_asks(path: str, value: Any) -> None:
    schema = schema_from_json(PLAIN_INVOICE)
    result = extract_parsed(parse(INVOICE), schema, llm=RulesBackend())
    assert result.data[path] == value
    assert result.fields[path].status == Status.VERIFIED


def test_a_plain_address_string_gets_the_quoted_block() -> None:
    schema = schema_from_json(PLAIN_INVOICE)
    got = fields(run(BILL_TO, schema), schema)
    assert got["bill_to.address"].value == "4557 De Silva St Fremont, CA 94538 USA"


def test_two_values_read_by_equally_strong_rules_go_to_review() -> None:
    properties = {"invoice_number": {"type": "string"}, "po_number": {"type": "string"}}
    schema = schema_from_json({"type": "object", "properties": properties})
    text = "ACME GmbH\nInvoice No: A-100\nShipped in two parts\nInvoice No: B-200\nPO Number: 77\n"
    result = extract_parsed(parse(text), schema, llm=RulesBackend())
    number = result.fields["invoice_number"]
    assert (number.value, number.status) == ("A-100", Status.NEEDS_REVIEW)
    assert number.reasons[0].startswith("2 different values (lines 2, 4) are read by equally")
    assert result.fields["po_number"].status is Status.VERIFIED
    conflict = result.notes.conflicting_evidence[0]
    assert (conflict.fields, conflict.description) == (["invoice_number"], number.reasons[0])
