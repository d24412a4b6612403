"""``RulesBackend``: what labels and patterns find, with exact quotes and lines; nothing else.

Invoices, CVs and contracts by their labels, any schema by its field names and kinds, and what
every answer holds: the schema's wire model, verbatim quotes, no invisible line."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from rules_backend_cases import CONTRACT, CV, INVOICE, fields, found, lines_of, parse, respond, run

from evidex.extractors.llm.rules import NOTE
from evidex.schemas import get_schema, schema_from_json


def eur(value: float) -> dict[str, Any]:
    return {"value": value, "currency": "EUR"}


# -- invoice: value, verbatim quote and global line, exactly ----------------------------------

INVOICE_CASES = [
    ("invoice_number", "INV-2026-001", "Invoice No: INV-2026-001", 2),
    (
        "issue_date",
        {"iso": "2026-03-15", "original": "15 March 2026"},
        "Invoice date: 15 March 2026",
        3,
    ),
    ("due_date", {"iso": "2026-04-14", "original": "14.04.2026"}, "Due date: 14.04.2026", 4),
    ("purchase_order", "4500012345", "PO Number: 4500012345", 5),
    ("subtotal", eur(1037.44), "Subtotal: 1.037,44 EUR", 6),
    ("tax_rate", 19.0, "VAT (19%)", 7),
    ("tax", eur(197.12), "VAT (19%): 197,12 EUR", 7),
    ("total", eur(1234.56), "Total: 1.234,56 EUR", 8),
    ("payment.iban", "DE89 3704 0044 0532 0130 00", "IBAN: DE89 3704 0044 0532 0130 00", 9),
    ("payment.bic", "COBADEFFXXX", "BIC: COBADEFFXXX", 10),
    ("seller.vat_id", "DE136695976", "VAT ID: DE136695976", 11),
    ("payment_terms", "Net 30 days", "Payment terms: Net 30 days", 12),
    ("currency", "EUR", "EUR", 6),
]


@pytest.mark.parametrize(
    ("path", "value", "quote", "line"), INVOICE_CASES, ids=[c[0] for c in INVOICE_CASES]
)
def test_invoice_field_has_exact_value_quote_and_line(
    path: str, value: Any, quote: str, line: int
) -> None:
    field = fields(run(INVOICE, "invoice"), "invoice")[path]
    assert field.model_dump(mode="json")["value"] == value
    assert (field.found, field.quote, field.page, field.line_start, field.line_end) == (
        True,
        quote,
        1,
        line,
        line,
    )
    assert quote in INVOICE.splitlines()[line - 1]


def test_invoice_leaves_unlabelled_fields_not_found() -> None:
    out = run(INVOICE, "invoice")
    got = fields(out, "invoice")
    for path in ("seller.name", "seller.address", "buyer.vat_id", "buyer.email", "seller.email"):
        assert (got[path].found, got[path].value, got[path].quote) == (False, None, "")
    assert out.line_items == []  # type: ignore[attr-defined]


def test_caveats_say_how_a_value_was_chosen() -> None:
    got = fields(run(INVOICE, "invoice"), "invoice")
    assert got["currency"].caveat == "derived from the amount on line 6"
    assert got["seller.vat_id"].caveat == "no label ties it to seller; taken in reading order"
    assert got["total"].caveat == ""


def test_invalid_iban_is_not_found_and_the_notes_say_why() -> None:
    out = run("Bank: Sparkasse\nIBAN: DE00 3704 0044 0532 0130 00\n", "invoice")
    iban = fields(out, "invoice")["payment.iban"]
    assert (iban.found, iban.value, iban.quote, iban.line_start) == (False, None, "", None)
    assert out.document_notes.caveats == [  # type: ignore[attr-defined]
        NOTE,
        "line 2: 'DE00 3704 0044 0532 0130 00' looks like an IBAN but its check digits fail; "
        "not returned",
    ]


def test_a_blocks_heading_decides_between_seller_and_buyer() -> None:
    text = (
        "Bill to: Beta LLC\nCustomer email: ap@beta.example\nPhone: +1 212 555 0100\n\n"
        "ACME GmbH\nEmail: billing@acme.example\nPhone: +49 30 1234567\n"
    )
    got = fields(run(text, "invoice"), "invoice")
    spans = lines_of(
        got, "buyer.name", "buyer.email", "buyer.phone", "seller.email", "seller.phone"
    )
    assert spans == {
        "buyer.name": ("Beta LLC", 1),
        "buyer.email": ("ap@beta.example", 2),
        "buyer.phone": ("+1 212 555 0100", 3),
        "seller.email": ("billing@acme.example", 5),  # a blank line is no row: line 4 is ACME
        "seller.phone": ("+49 30 1234567", 6),
    }
    assert got["buyer.phone"].caveat == ""
    assert got["seller.email"].caveat == "no label ties it to seller; taken in reading order"


@pytest.mark.parametrize(
    ("text", "path", "value", "quote", "line"),
    [
        ("Invoice no.\nINV-9\n", "invoice_number", "INV-9", "INV-9", 2),
        (
            "Total due\n19.953,80 €\n",
            "total",
            {"value": 19953.8, "currency": "EUR"},
            "19.953,80 €",
            2,
        ),
        ("VAT 19%\n3.185,90 €\n", "tax", {"value": 3185.9, "currency": "EUR"}, "3.185,90 €", 2),
        ("Bank\nCommerzbank AG\n", "payment.bank_name", "Commerzbank AG", "Commerzbank AG", 2),
        (
            "Total: $1,250.00\n",
            "total",
            {"value": 1250.0, "currency": "USD"},
            "Total: $1,250.00",
            1,
        ),
        (
            "Amount due: USD 99.50\nTotal: 10,00\n",
            "total",
            {"value": 99.5, "currency": "USD"},
            "Amount due: USD 99.50",
            1,
        ),
        (
            "Invoice No: INV-1   Date: 2026-01-31\n",
            "issue_date",
            {"iso": "2026-01-31", "original": "2026-01-31"},
            "Date: 2026-01-31",
            1,
        ),
    ],
    ids=[
        "id-below",
        "amount-below",
        "amount-below-rate",
        "string-below",
        "dollar",
        "label-rank",
        "date-mid-line",
    ],
)
def test_label_layouts(text: str, path: str, value: Any, quote: str, line: int) -> None:
    field = fields(run(text, "invoice"), "invoice")[path]
    assert (field.model_dump(mode="json")["value"], field.quote, field.line_start) == (
        value,
        quote,
        line,
    )


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("Due date: 14.04.2026\n", "issue_date"),  # "date" inside "Due date" is not a label
        ("Total VAT: 190,00 EUR\n", "total"),  # the label's value is not the total
        ("Net 30 days\n", "subtotal"),
        (
            "Payment terms\nThe Customer shall pay every invoice within thirty days of receipt.\n",
            "payment_terms",
        ),
        ("Bank details\n", "payment.bank_name"),
    ],
)
def test_no_value_is_borrowed_from_elsewhere_on_the_line(text: str, path: str) -> None:
    assert not fields(run(text, "invoice"), "invoice")[path].found


# -- CV -------------------------------------------------------------------------------------


def test_cv_contacts_links_and_lists() -> None:
    assert found(run(CV, "candidate_profile"), "candidate_profile") == {
        "full_name": "Jane Doe",
        "location": "Berlin, Germany",  # a place beside the contact details
        "email": "jane.doe@example.com",
        "phone": "+49 151 23456789",
        "linkedin_url": "linkedin.com/in/janedoe",
        "github_url": "https://github.com/janedoe",
        "website_url": "https://janedoe.dev",
        "years_of_experience": 8.0,
        "skills[0]": "Python",
        "skills[1]": "SQL",
        "skills[2]": "AWS (S3, Glue)",
        "skills[3]": "Kubernetes",
        "certifications[0]": "AWS Certified Solutions Architect",
        "certifications[1]": "CKA",
    }


def test_list_items_quote_their_own_text_on_the_label_line() -> None:
    got = fields(run(CV, "candidate_profile"), "candidate_profile")
    spans = [(got[f"skills[{i}]"].quote, got[f"skills[{i}]"].line_start) for i in range(4)]
    assert spans == [("Python", 6), ("SQL", 6), ("AWS (S3, Glue)", 6), ("Kubernetes", 6)]
    assert (got["certifications[1]"].quote, got["certifications[1]"].line_start) == ("CKA", 10)


@pytest.mark.parametrize(
    ("text", "skills"),
    [
        ("Skills: Go; Rust\n", ["Go", "Rust"]),
        ("SKILLS\nPython, SQL\n", ["Python", "SQL"]),
        ("Skills\n• Python\n• SQL\nLanguages\n", ["Python", "SQL"]),
        ("Skills and interests\nHiking, chess\n", []),  # a heading that is not only skills
        ("I have skills: none worth listing\n", []),  # a label inside a sentence
    ],
)
def test_skill_list_layouts(text: str, skills: list[str]) -> None:
    out = run(text, "candidate_profile")
    assert [s.value for s in out.skills] == skills  # type: ignore[attr-defined]


def test_several_unlabelled_candidates_pick_the_first_and_say_so() -> None:
    email = fields(
        run("Jane Doe\nme@a.example\nalso@b.example\n", "candidate_profile"), "candidate_profile"
    )["email"]
    assert (email.value, email.line_start) == ("me@a.example", 2)
    assert email.caveat == "picked the first of 2 candidates (lines 2, 3)"


# -- contract -------------------------------------------------------------------------------


def test_contract_parties_terms_and_law() -> None:
    assert found(run(CONTRACT, "contract"), "contract") == {
        "title": "MASTER SERVICES AGREEMENT",
        "parties[0].name": "Alpha Corp",
        "parties[0].role": "Supplier",
        "parties[1].name": "Beta LLC",
        "parties[1].role": "Customer",
        "effective_date": {"iso": "2026-03-01", "original": "March 1, 2026"},
        "term": {"amount": 3.0, "unit": "years"},
        "auto_renewal": True,
        "renewal_term": {"amount": 1.0, "unit": "years"},
        "termination_notice": {"amount": 90.0, "unit": "days"},
        "governing_law": "New York",
    }


def test_contract_quotes_are_the_stating_words() -> None:
    got = fields(run(CONTRACT, "contract"), "contract")
    quotes = {
        p: (got[p].quote, got[p].line_start)
        for p in ("parties[0].name", "parties[1].name", "governing_law", "termination_notice")
    }
    assert quotes == {
        "parties[0].name": ("Alpha Corp", 2),
        "parties[1].name": ("Beta LLC", 2),
        "governing_law": ("governed by the laws of the State of New York", 7),
        "termination_notice": ("ninety (90) days' written notice", 6),
    }


def test_a_negation_split_over_lines_is_not_read_as_a_renewal() -> None:
    text = "This Agreement shall not\nautomatically renew.\n"
    assert not fields(run(text, "contract"), "contract")["auto_renewal"].found


def test_a_negated_renewal_is_false() -> None:
    got = fields(run("This Agreement shall not automatically renew.\n", "contract"), "contract")
    assert (got["auto_renewal"].value, got["auto_renewal"].quote) == (
        False,
        "shall not automatically renew",
    )


# -- any schema -----------------------------------------------------------------------------

CUSTOM = {
    "type": "object",
    "properties": {
        "po_number": {"type": "string", "description": "Purchase order number"},
        "delivery_date": {"type": "string", "format": "date"},
    },
}


def test_custom_schema_is_read_by_its_field_names() -> None:
    schema = schema_from_json(CUSTOM)
    out = run("Order confirmation\nPO Number: PO-7781\nDelivery date: 2 May 2026\n", schema)
    got = {
        p: (f.model_dump(mode="json")["value"], f.quote, f.line_start)
        for p, f in fields(out, schema).items()
    }
    assert got == {
        "po_number": ("PO-7781", "PO Number: PO-7781", 2),
        "delivery_date": (
            {"iso": "2026-05-02", "original": "2 May 2026"},
            "Delivery date: 2 May 2026",
            3,
        ),
    }


KINDS = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["paid", "open"]},
        "rush_order": {"type": "boolean"},
        "quantity": {"type": "integer"},
        "discount": {"type": "number", "x-evidex-kind": "percentage"},
        "contact": {
            "type": "object",
            "properties": {"email": {"type": "string", "format": "email"}},
        },
        "notice": {"type": "string", "x-evidex-kind": "duration"},
        "ordered_on": {"type": "string", "format": "date"},
        "currency": {"type": "string", "x-evidex-kind": "currency"},
    },
}
KINDS_DOC = """\
Status: Paid
Rush order: yes
Quantity: 12
Discount: 7.5%
Questions? orders@shop.example
Notice: 30 days
Ordered on: March 2026
Currency: GBP
"""


@pytest.mark.parametrize(
    ("path", "value", "quote", "caveat"),
    [
        ("status", "paid", "Status: Paid", ""),
        ("rush_order", True, "Rush order: yes", ""),
        ("quantity", 12, "Quantity: 12", ""),
        ("discount", 7.5, "Discount: 7.5%", ""),
        ("contact.email", "orders@shop.example", "orders@shop.example", ""),
        ("notice", {"amount": 30.0, "unit": "days"}, "Notice: 30 days", ""),
        (
            "ordered_on",
            {"iso": "2026-03-01", "original": "March 2026"},
            "Ordered on: March 2026",
            "the document gives only month and year; the day is set to the 1st",
        ),
        ("currency", "GBP", "Currency: GBP", ""),
    ],
)
def test_each_kind_is_typed_from_its_label(path: str, value: Any, quote: str, caveat: str) -> None:
    schema = schema_from_json(KINDS)
    field = fields(run(KINDS_DOC, schema), schema)[path]
    assert (field.model_dump(mode="json")["value"], field.quote, field.caveat) == (
        value,
        quote,
        caveat,
    )


@pytest.mark.parametrize("schema", ["invoice", "candidate_profile", "contract", "custom"])
def test_a_document_without_any_of_it_finds_nothing(schema: str) -> None:
    sd = schema_from_json(CUSTOM) if schema == "custom" else get_schema(schema)
    out = run("Lorem ipsum dolor sit amet.\nconsectetur adipiscing elit\n", sd)
    leaves = fields(out, sd)
    assert leaves  # every non-list leaf is there, and none is found
    assert {
        p: (f.found, f.value, f.quote, f.page, f.line_start, f.line_end, f.caveat)
        for p, f in leaves.items()
    } == {p: (False, None, "", None, None, None, "") for p in leaves}


def test_invisible_lines_are_never_quoted() -> None:
    doc = parse(
        "Invoice No: INV-7\nTotal: 100,00 EUR\nEmail: hidden@example.com\nTotal: 999,00 EUR\n"
    )
    lines = doc.lines.copy()
    lines.loc[lines["line"].isin([2, 3]), "visible"] = False
    got = fields(run(replace(doc, lines=lines), "invoice"), "invoice")
    total = got["total"].model_dump(mode="json")
    assert (total["value"], total["line_start"]) == (eur(999.0), 4)
    assert not got["seller.email"].found
    assert {f.line_start for f in got.values() if f.found} == {1, 4}


@pytest.mark.parametrize("schema", ["invoice", "candidate_profile", "contract"])
def test_output_is_the_schemas_wire_model(schema: str) -> None:
    sd = get_schema(schema)
    response = respond(
        parse({"invoice": INVOICE, "candidate_profile": CV, "contract": CONTRACT}[schema]), sd
    )
    assert isinstance(response.output, sd.wire_model)
    assert sd.wire_model.model_validate(response.output.model_dump()) == response.output
    assert (response.backend, response.model, response.mode) == ("rules", "rules-v1", "rules")
    notes = response.output.document_notes  # type: ignore[attr-defined]
    assert notes.caveats[0] == NOTE
    assert (notes.conflicting_evidence, notes.context_structured) == ([], True)


def test_every_quote_is_verbatim_in_the_cited_line() -> None:
    for text, schema in ((INVOICE, "invoice"), (CV, "candidate_profile"), (CONTRACT, "contract")):
        doc = parse(text)
        by_line = dict(zip(doc.lines["line"], doc.lines["text"], strict=True))
        for path, field in fields(run(doc, schema), schema).items():
            if field.found:
                assert field.line_start == field.line_end, path
                assert field.quote and field.quote in by_line[field.line_start], path
