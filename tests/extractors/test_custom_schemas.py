"""Plain client schemas, end to end: inferred kinds choose the checks, and ``data`` validates
against the schema the client sent (scripted answers and the rules backend, real PDFs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from order_document import ORDER_DOC
from plain_schemas import NDA, plain
from sample_answers import leaf

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract
from evidex.schemas import Result, Status, schema_from_json

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

ORDER = {
    "type": "object",
    "properties": {
        "po_number": {"type": "string"},
        "discount": {"type": "number"},
        "total": {"type": "number"},
        "tax": {"type": ["number", "null"]},
        "shipped_on": {"type": "string"},
        "delivered_on": {"type": "string", "format": "date"},
        "currency": {"type": "string"},
        "iban": {"type": "string"},
        "contact_email": {"type": "string"},
        "notice": {"type": "string"},
        "rush": {"type": "boolean"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
            },
        },
    },
}


def run(schema_json: dict[str, Any], fields: dict[str, dict[str, Any]], text: str) -> Result:
    schema = schema_from_json(schema_json)
    llm = ScriptedLLM(build_answer(schema, fields))
    return extract(text.encode(), schema, parser=TextParser(), llm=llm, filename="doc.txt")


def assert_valid(result: Result, schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(result.data)]
    assert errors == []


TRUE_ORDER = {
    "po_number": leaf("PO-7781", "Order confirmation PO-7781", 2),
    "discount": leaf({"value": 12.0, "currency": "USD"}, "Discount (5%): -$12.00", 6),
    "total": leaf({"value": 270.0, "currency": "USD"}, "Total: $270.00", 5),
    "delivered_on": leaf({"iso": "2026-03-03", "original": "3 March 2026"}, "3 March 2026", 4),
    "currency": leaf("GBP", "Currency: £", 7),
    "iban": leaf("GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32", 8),
    "contact_email": leaf("orders@northwind.example", "orders@northwind.example", 9),
    "notice": leaf({"amount": 3, "unit": "months"}, "Notice: three (3) months", 10),
}


def test_true_values_written_differently_verify_and_data_has_the_declared_types() -> None:
    result = run(ORDER, TRUE_ORDER, ORDER_DOC)
    statuses = {p: result.fields[p].status for p in TRUE_ORDER}
    assert statuses == dict.fromkeys(TRUE_ORDER, Status.VERIFIED), {
        p: result.fields[p].reasons for p in TRUE_ORDER
    }
    assert {p: (f.kind, f.kind_source) for p, f in result.fields.items()} == {
        "po_number": ("string", "default"),
        "discount": ("amount", "inferred"),
        "total": ("amount", "inferred"),
        "tax": ("amount", "inferred"),
        "shipped_on": ("date", "inferred"),
        "delivered_on": ("date", "inferred"),
        "currency": ("currency", "inferred"),
        "iban": ("iban", "inferred"),
        "contact_email": ("email", "inferred"),
        "notice": ("duration", "inferred"),
        "rush": ("boolean", "default"),
    }
    assert result.data == {
        "po_number": "PO-7781",
        "discount": 12.0,
        "total": 270.0,
        "tax": None,  # not found, and the type allows null
        "delivered_on": "2026-03-03",
        "currency": "GBP",
        "iban": "GB82WEST12345698765432",
        "contact_email": "orders@northwind.example",
        "notice": "3 months",
        "items": [],
    }  # shipped_on and rush: not found, not nullable, not required -> absent
    # what the document wrote stays in fields
    assert result.fields["delivered_on"].value == {"iso": "2026-03-03", "original": "3 March 2026"}
    assert result.fields["total"].value == {"value": 270.0, "currency": "USD"}
    assert_valid(result, ORDER)


@pytest.mark.parametrize(
    ("path", "answer", "reason"),
    [
        # the rate, not the amount
        ("discount", leaf({"value": 5.0, "currency": None}, "Discount (5%)", 6), "percentage"),
        # another label's amount on the same line
        (
            "total",
            leaf(
                {"value": 250.0, "currency": "USD"},
                "Subtotal: $250.00 Tax (8%): $20.00 Total: $270.00",
                5,
            ),
            "labelled 'subtotal'",
        ),
        # an impossible date, though its digits are in the quote
        (
            "shipped_on",
            leaf({"iso": "2026-02-30", "original": "30.02.2026"}, "30.02.2026", 3),
            "not a valid calendar date",
        ),
        ("iban", leaf("GB83WEST12345698765432", "GB82 WEST 1234 5698 7654 32", 8), "IBAN"),
        ("contact_email", leaf("orders@northwind", "orders@northwind.example", 9), "not a valid"),
    ],
)
def test_a_value_that_cannot_be_its_kind_never_verifies(
    path: str, answer: dict[str, Any], reason: str
) -> None:
    result = run(ORDER, {**TRUE_ORDER, path: answer}, ORDER_DOC)
    field = result.fields[path]
    assert field.status == Status.NEEDS_REVIEW
    assert reason in " ".join(field.reasons)
    assert_valid(result, ORDER)


def test_an_impossible_date_in_a_plain_string_keeps_the_text_as_written_in_data() -> None:
    answer = leaf({"iso": "2026-02-30", "original": "30.02.2026"}, "30.02.2026", 3)
    result = run(ORDER, {**TRUE_ORDER, "shipped_on": answer}, ORDER_DOC)
    assert result.data["shipped_on"] == "30.02.2026"


def test_an_impossible_date_in_a_format_date_field_is_left_out_of_data() -> None:
    answer = leaf({"iso": "2026-02-30", "original": "30.02.2026"}, "30.02.2026", 3)
    result = run(ORDER, {**TRUE_ORDER, "delivered_on": answer}, ORDER_DOC)
    assert result.fields["delivered_on"].status == Status.NEEDS_REVIEW
    assert "delivered_on" not in result.data
    assert_valid(result, ORDER)


CONSTRAINED = {
    "type": "object",
    "properties": {
        "po_number": {"type": "string", "pattern": "^PO-[0-9]+$"},
        "quantity": {"type": "integer", "minimum": 1},
        "signed_at": {"type": "string", "format": "date-time"},
        "required_note": {"type": "string"},
    },
    "required": ["required_note"],
}
CONSTRAINED_DOC = "PO 7781\nQuantity: 0\nSigned 3 March 2026\n"


def test_a_value_outside_the_clients_own_constraints_goes_to_review_and_out_of_data() -> None:
    fields = {
        "po_number": leaf("PO 7781", "PO 7781", 1),
        "quantity": leaf(0, "Quantity: 0", 2),
        "signed_at": leaf({"iso": "2026-03-03", "original": "3 March 2026"}, "3 March 2026", 3),
    }
    result = run(CONSTRAINED, fields, CONSTRAINED_DOC)
    assert result.fields["po_number"].status == Status.NEEDS_REVIEW
    assert "does not match '^PO-[0-9]+$'" in result.fields["po_number"].reasons[0]
    assert result.fields["quantity"].status == Status.NEEDS_REVIEW
    assert "less than the minimum of 1" in result.fields["quantity"].reasons[0]
    assert result.fields["signed_at"].status == Status.VERIFIED
    # a date-time field gets the start of the stated day; a required field not found is null
    assert result.data == {"signed_at": "2026-03-03T00:00:00Z", "required_note": None}


CV = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "phone": {"type": "string"},
        "website": {"type": "string", "format": "uri"},
        "years_of_experience": {"type": "integer"},
        "jobs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "employer": {"type": "string"},
                    "startDate": {"type": "string"},
                    "endDate": {"type": ["string", "null"]},
                },
            },
        },
        "skills": {"type": "array", "items": {"type": "string"}},
    },
}
INVOICE = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string"},
        "invoice_date": {"type": "string", "format": "date"},
        "due_date": {"type": "string"},
        "seller": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "vat_id": {"type": "string"},
                "email": {"type": "string"},
            },
        },
        "subtotal": {"type": "number"},
        "tax": {"type": "number"},
        "tax_rate": {"type": "number"},
        "total": {"type": "number"},
        "currency": {"type": "string"},
        "iban": {"type": "string"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"description": {"type": "string"}, "amount": {"type": "number"}},
            },
        },
    },
    "x-evidex-rules": [{"kind": "sum", "parts": ["subtotal", "tax"], "total": "total"}],
}
CONTRACT = plain(**NDA["properties"], auto_renewal="boolean")


@pytest.mark.parametrize(
    ("sample", "schema"),
    [
        ("invoice", INVOICE),
        ("invoice", ORDER),
        ("cv", CV),
        ("contract", CONTRACT),
        ("contract", INVOICE),
    ],
)
def test_rules_backend_results_on_custom_schemas_validate(sample: str, schema: dict) -> None:
    pdf = SAMPLES / f"{sample}.pdf"
    result = extract(pdf, schema_from_json(schema), parser=PyMuPDFParser(), llm=RulesBackend())
    assert result.summary.verified >= 1
    assert_valid(result, schema)
    assert all(f.kind is not None and f.kind_source is not None for f in result.fields.values())


def test_rules_backend_reads_plain_schemas_in_the_declared_types() -> None:
    contract = extract(
        SAMPLES / "contract.pdf",
        schema_from_json(CONTRACT),
        parser=PyMuPDFParser(),
        llm=RulesBackend(),
    )
    # a plain string term gets the duration's plain text, a plain string date the ISO date
    assert (contract.data["term"], contract.data["effective_date"]) == ("3 years", "2026-04-01")
    assert contract.fields["term"].value == {"amount": 3.0, "unit": "years"}
    invoice = extract(
        SAMPLES / "invoice.pdf",
        schema_from_json(INVOICE),
        parser=PyMuPDFParser(),
        llm=RulesBackend(),
    )
    got = {
        k: invoice.data[k] for k in ("invoice_date", "due_date", "total", "tax_rate", "currency")
    }
    assert got == {
        "invoice_date": "2026-03-16",
        "due_date": "2026-04-15",
        "total": 19953.8,
        "tax_rate": 19.0,
        "currency": "EUR",
    }
    assert invoice.fields["total"].status == Status.VERIFIED
