"""``RulesBackend``: what labels and patterns find, with exact quotes and lines; nothing else."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.llm.rules import NOTE, RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import (
    FieldExtraction,
    SchemaDef,
    Status,
    get_schema,
    iter_leaves,
    schema_from_json,
)

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

INVOICE = """\
ACME GmbH
Invoice No: INV-2026-001
Invoice date: 15 March 2026
Due date: 14.04.2026
PO Number: 4500012345
Subtotal: 1.037,44 EUR
VAT (19%): 197,12 EUR
Total: 1.234,56 EUR
IBAN: DE89 3704 0044 0532 0130 00
BIC: COBADEFFXXX
VAT ID: DE136695976
Payment terms: Net 30 days
"""

CV = """\
Jane Doe
Senior Data Engineer
Berlin, Germany | jane.doe@example.com | +49 151 23456789
linkedin.com/in/janedoe | https://github.com/janedoe | https://janedoe.dev
Data engineer with 8 years of experience building pipelines.
Skills: Python, SQL, AWS (S3, Glue), Kubernetes
Certifications
- AWS Certified Solutions Architect
2021
- CKA
"""

CONTRACT = """\
MASTER SERVICES AGREEMENT
This Agreement is made between Alpha Corp (the "Supplier") and Beta LLC ("Customer").
This Agreement is effective as of March 1, 2026.
The initial term of this Agreement is three (3) years.
It shall automatically renew for successive one (1) year periods unless either party gives
ninety (90) days' written notice.
This Agreement shall be governed by the laws of the State of New York, without regard to conflicts.
"""


def parse(text: str) -> ParsedDocument:
    return TextParser().parse(text.encode(), "doc.txt")


def respond(document: ParsedDocument, schema: SchemaDef) -> LLMResponse:
    return RulesBackend().complete(LLMRequest("system", "user", schema, document))


def run(text: str | ParsedDocument, schema: SchemaDef | str) -> BaseModel:
    schema = get_schema(schema) if isinstance(schema, str) else schema
    return respond(parse(text) if isinstance(text, str) else text, schema).output


def fields(output: BaseModel, schema: SchemaDef | str) -> dict[str, FieldExtraction[Any]]:
    schema = get_schema(schema) if isinstance(schema, str) else schema
    return {leaf.path: leaf.extraction for leaf in iter_leaves(output, schema.leaves)}


def found(output: BaseModel, schema: str) -> dict[str, Any]:
    """Path -> value of every found leaf, values as JSON."""
    return {
        p: f.model_dump(mode="json")["value"] for p, f in fields(output, schema).items() if f.found
    }


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
    spans = {
        p: (got[p].value, got[p].line_start)
        for p in ("buyer.name", "buyer.email", "buyer.phone", "seller.email", "seller.phone")
    }
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


# -- the sample PDFs against their expected answers -----------------------------------------

SAMPLE_SCHEMAS = {"invoice": "invoice", "cv": "candidate_profile", "contract": "contract"}


def _paths(text: str) -> list[str]:
    return text.split()


# what the rules backend reads off each sample (the rest, e.g. line items, it leaves not found)
SAMPLE_FIELDS = {
    "invoice": _paths("""invoice_number purchase_order issue_date due_date seller.name
        seller.address buyer.name buyer.address seller.vat_id
        seller.email seller.phone buyer.vat_id buyer.email buyer.phone currency subtotal tax_rate
        tax total payment_terms payment.iban payment.bic payment.bank_name payment.account_holder
        payment.payment_reference"""),
    "cv": _paths("""full_name headline location current_title current_employer email phone
        linkedin_url github_url website_url years_of_experience
        work_authorization availability""")
    + [f"skills[{i}]" for i in range(12)]
    + [f"certifications[{i}]" for i in range(3)],
    "contract": _paths("""title parties[0].name parties[0].role parties[1].name parties[1].role
        effective_date expiration_date term auto_renewal renewal_term termination_notice
        governing_law"""),
}


@cache
def sample(name: str) -> tuple[ParsedDocument, dict[str, Any]]:
    doc = PyMuPDFParser().parse((SAMPLES / f"{name}.pdf").read_bytes(), f"{name}.pdf")
    return doc, json.loads((SAMPLES / f"{name}.expected.json").read_text())


def _same(got: Any, want: Any) -> bool:
    # the PDF prints the title in capitals; its expected value is written in title case
    return bool(got.casefold() == want.casefold() if isinstance(want, str) else got == want)


@pytest.mark.parametrize("name", sorted(SAMPLE_SCHEMAS))
def test_samples_match_their_expected_values(name: str) -> None:
    doc, expected = sample(name)
    got = found(run(doc, SAMPLE_SCHEMAS[name]), SAMPLE_SCHEMAS[name])
    wrong = {
        p: (got.get(p), expected[p]["value"])
        for p in SAMPLE_FIELDS[name]
        if not _same(got.get(p), expected[p]["value"])
    }
    assert wrong == {}
    # and nothing it did find disagrees with the expected answer or is absent from it
    extra = {
        p: v for p, v in got.items() if p not in expected or not _same(v, expected[p]["value"])
    }
    assert extra == {}


# -- contract clauses read across line breaks (clauses.py) ----------------------------------


def _date(iso: str, original: str) -> dict[str, str]:
    return {"iso": iso, "original": original}


def _years(amount: float, unit: str = "years") -> dict[str, Any]:
    return {"amount": amount, "unit": unit}


CLAUSE_CASES = [
    # governing law: the jurisdiction's name only, inside the stating words
    (
        "law-place-before-law",
        "This Agreement shall be governed by and interpreted under New York law.\n",
        "governing_law",
        "New York",
        "governed by and interpreted under New York law",
        1,
    ),
    (
        "law-governed-and-construed",
        "This Agreement shall be governed by and construed in accordance with the laws of the "
        "State of Delaware.\n",
        "governing_law",
        "Delaware",
        "governed by and construed in accordance with the laws of the State of Delaware",
        1,
    ),
    (
        "law-internal-commonwealth",
        "shall be governed by, and construed in accordance with, the internal laws of the "
        "Commonwealth of Massachusetts, without\n",
        "governing_law",
        "Massachusetts",
        "governed by, and construed in accordance with, the internal laws of the Commonwealth "
        "of Massachusetts",
        1,
    ),
    (
        "law-construed-under",
        "This Agreement shall be construed under the laws of New York.\n",
        "governing_law",
        "New York",
        "construed under the laws of New York",
        1,
    ),
    (
        "law-two-words-and",
        "governed by the laws of England and Wales, and the courts of London\n",
        "governing_law",
        "England and Wales",
        "governed by the laws of England and Wales",
        1,
    ),
    (
        "law-in-capitals-ends-at-without",
        "THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE COMMONWEALTH OF PENNSYLVANIA WITHOUT "
        "GIVING EFFECT TO ANY CHOICE OF LAW RULE.\n",
        "governing_law",
        "PENNSYLVANIA",
        "GOVERNED BY THE LAWS OF THE COMMONWEALTH OF PENNSYLVANIA",
        1,
    ),
    (
        "law-shall-govern",
        "The laws of the State of Indiana shall govern this Agreement.\n",
        "governing_law",
        "Indiana",
        "The laws of the State of Indiana shall govern",
        1,
    ),
    (
        "law-wrapped",
        "This Agreement shall be governed by and construed in accordance with the laws of the "
        "State of\nCalifornia, without regard to conflicts of law.\n",
        "governing_law",
        "California",
        "California",
        2,
    ),
    (
        "law-over-a-page-number",
        "This Agreement shall be governed by and construed in\n6\naccordance with the laws of "
        "the State of Delaware applicable to agreements made therein.\n",
        "governing_law",
        "Delaware",
        "accordance with the laws of the State of Delaware",
        3,
    ),
    # the agreement's own date, in its opening paragraphs
    (
        "date-made-and-entered-into-as-of",
        "This Agreement is made and entered into as of January 25, 2012, by and between "
        "Alpha Inc. and Beta LLC.\n",
        "effective_date",
        _date("2012-01-25", "January 25, 2012"),
        "made and entered into as of January 25, 2012",
        1,
    ),
    (
        "date-dated-as-of",
        "THIS AGREEMENT, dated as of March 31, 2012, is between the parties.\n",
        "effective_date",
        _date("2012-03-31", "March 31, 2012"),
        "dated as of March 31, 2012",
        1,
    ),
    (
        "date-day-of",
        "THIS NON-DISCLOSURE AGREEMENT (this “Agreement”), dated this 11th day of January, "
        "2012, is by and among\n",
        "effective_date",
        _date("2012-01-11", "11th day of January, 2012"),
        "dated this 11th day of January, 2012",
        1,
    ),
    (
        "date-day-of-month-without-day",
        "This Agreement is made on the 5th of May, 2010, between Alpha Corp and Beta LLC.\n",
        "effective_date",
        _date("2010-05-05", "5th of May, 2010"),
        "made on the 5th of May, 2010",
        1,
    ),
    (
        "date-spaced-comma",
        "This Agreement is entered into and made effective as of June 1 , 2011 by Alpha Inc. "
        "and Beta LLC.\n",
        "effective_date",
        _date("2011-06-01", "June 1 , 2011"),
        "entered into and made effective as of June 1 , 2011",
        1,
    ),
    (
        "date-made-to-be-effective-on",
        "This Agreement is made to be effective on 30th day of April, 2009, between Alpha Corp "
        "and Beta LLC.\n",
        "effective_date",
        _date("2009-04-30", "30th day of April, 2009"),
        "made to be effective on 30th day of April, 2009",
        1,
    ),
    (
        "date-made",
        "Agreement made December 28, 2018 between Flexsteel Industries, Inc. and Jerald K. "
        "Dittmer.\n",
        "effective_date",
        _date("2018-12-28", "December 28, 2018"),
        "made December 28, 2018",
        1,
    ),
    (
        "date-effective-as-from",
        "This Outsourcing Agreement is effective as from the 1st day of January, 2009, by and "
        "between:\n",
        "effective_date",
        _date("2009-01-01", "1st day of January, 2009"),
        "effective as from the 1st day of January, 2009",
        1,
    ),
    (
        "date-defined-effective-date",
        "1. Terms.\n2. Notices.\n3. Misc.\n4. a\n5. b\n6. c\n7. d\nSigned on this date, which "
        "is July 31, 2008 (the “Effective Date”).\n",
        "effective_date",
        _date("2008-07-31", "July 31, 2008"),
        "July 31, 2008 (the “Effective Date”)",
        8,
    ),
    # the term: what the agreement says of its own length
    (
        "term-of-this-agreement-shall-be",
        "8. Term. The term of this Agreement shall be two (2) years from the Effective Date.\n",
        "term",
        _years(2),
        "term of this Agreement shall be two (2) years",
        1,
    ),
    (
        "term-wrapped",
        "Unless terminated earlier by written notice, the term of this\nAgreement shall be for "
        "three (3) years.\n",
        "term",
        _years(3),
        "Agreement shall be for three (3) years",
        2,
    ),
    (
        "term-remain-in-effect-for",
        "This Agreement shall remain in effect for three years.\n",
        "term",
        _years(3),
        "This Agreement shall remain in effect for three years",
        1,
    ),
    (
        "term-terminate-after",
        "This Agreement shall terminate two years after the date of this Agreement.\n",
        "term",
        _years(2),
        "This Agreement shall terminate two years after",
        1,
    ),
    (
        "term-obligations-hereunder",
        "Except as otherwise provided, the obligations hereunder shall terminate five years "
        "from the date hereof.\n",
        "term",
        _years(5),
        "the obligations hereunder shall terminate five years from",
        1,
    ),
    (
        "term-expire-months",
        "This Agreement shall expire twelve months from the effective date hereof.\n",
        "term",
        _years(12, "months"),
        "This Agreement shall expire twelve months from",
        1,
    ),
    (
        "term-defined-term",
        "It applies to information furnished for a period of one year following the Effective "
        "Date (“the Term”).\n",
        "term",
        _years(1),
        "for a period of one year following the Effective Date (“the Term”)",
        1,
    ),
    (
        "term-heading",
        "6. TERM. The period during which disclosures may be made under this Agreement shall "
        "be one (1) year, and\n",
        "term",
        _years(1),
        "6. TERM. The period during which disclosures may be made under this Agreement shall "
        "be one (1) year",
        1,
    ),
    (
        "term-be-in-effect-for",
        "This Agreement shall be in effect for a period of four (4) years.\n",
        "term",
        _years(4),
        "This Agreement shall be in effect for a period of four (4) years",
        1,
    ),
    (
        "term-have-a-term-of",
        "This Agreement shall have a term of three (3) years.\n",
        "term",
        _years(3),
        "This Agreement shall have a term of three (3) years",
        1,
    ),
    (
        "term-duty-for-the-period-of",
        "The Recipient's duty of confidentiality under this Agreement shall survive for the "
        "period of five years.\n",
        "term",
        _years(5),
        "duty of confidentiality under this Agreement shall survive for the period of five years",
        1,
    ),
    (
        "term-until-an-anniversary",
        "This Agreement shall remain in effect until the third (3rd) anniversary of the "
        "Effective Date.\n",
        "term",
        _years(3),
        "This Agreement shall remain in effect until the third (3rd) anniversary",
        1,
    ),
    (
        "term-in-the-present-tense",
        "Unless terminated earlier, this Agreement expires on the second anniversary of the "
        "Effective Date.\n",
        "term",
        _years(2),
        "this Agreement expires on the second anniversary",
        1,
    ),
    (
        "term-commence-and-continue",
        "The term of this Agreement shall commence on the Effective Date and continue for two "
        "(2) years.\n",
        "term",
        _years(2),
        "term of this Agreement shall commence on the Effective Date and continue for two "
        "(2) years",
        1,
    ),
    (
        "term-quote-on-word-boundaries",
        "6.1This Agreement shall terminate in its entirety one year after the date hereof.\n",
        "term",
        _years(1),
        "6.1This Agreement shall terminate in its entirety one year after",
        1,
    ),
]


@pytest.mark.parametrize(
    ("text", "path", "value", "quote", "line"),
    [c[1:] for c in CLAUSE_CASES],
    ids=[c[0] for c in CLAUSE_CASES],
)
def test_contract_clause_has_exact_value_quote_and_line(
    text: str, path: str, value: Any, quote: str, line: int
) -> None:
    field = fields(run(text, "contract"), "contract")[path]
    assert (field.model_dump(mode="json")["value"], field.quote, field.line_start) == (
        value,
        quote,
        line,
    )
    assert field.line_end == line
    visible = [x for x in text.splitlines() if x.strip()]
    assert quote in visible[line - 1]


def test_a_wrapped_sentence_says_where_it_starts() -> None:
    text = "This Agreement shall be governed by the laws of the State of\nCalifornia.\n"
    law = fields(run(text, "contract"), "contract")["governing_law"]
    assert (law.value, law.quote, law.line_start) == ("California", "California", 2)
    assert law.caveat == "the sentence starts on line 1"


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("The Company is organized under the laws of Delaware.\n", "governing_law"),
        ("This Agreement shall be governed by applicable Federal law.\n", "governing_law"),
        (
            "This Agreement shall be construed in accordance with the laws of any state in which "
            "it is performed.\n",
            "governing_law",
        ),
        ("This Agreement is effective as of the date last signed below.\n", "effective_date"),
        ("This Agreement is dated as of ____________, 20__.\n", "effective_date"),
        (  # another agreement's date
            "This letter supersedes the Mutual Nondisclosure Agreement, dated October 6, 2011, "
            "between you and us.\n",
            "effective_date",
        ),
        (  # after the recitals and numbered sections begin, a date is not the agreement's own
            "MUTUAL NDA\nThe parties agree:\nWHEREAS, A\nB\nC\nD\nE\n1. Definitions.\nThis "
            "Agreement was entered into as of May 1, 2020.\n",
            "effective_date",
        ),
        (  # a restriction's period, not the agreement's term
            "Employee shall not, for a period of one (1) year following termination, compete.\n",
            "term",
        ),
        (  # "Term" carries on the sentence of the line above: prose, not a label
            "Employee shall not, during the\nTerm and for a period of two years thereafter, "
            "solicit any employee.\n",
            "term",
        ),
        (  # an anniversary of something other than the agreement's own start
            "Employee shall not compete until the second anniversary of the termination.\n",
            "term",
        ),
    ],
    ids=[
        "law-incorporation",
        "law-federal",
        "law-any-state",
        "date-when-signed",
        "date-blank",
        "date-other-agreement",
        "date-after-preamble",
        "term-restriction",
        "term-label-in-prose",
        "term-other-anniversary",
    ],
)
def test_contract_clauses_that_state_no_value(text: str, path: str) -> None:
    field = fields(run(text, "contract"), "contract")[path]
    assert (field.found, field.value, field.quote, field.line_start) == (False, None, "", None)


PARTY_CASES = [
    (
        "middle-initial",
        "This Agreement is made between Kenneth M. Bate (“Employee”) and NitroMed, Inc. (the "
        "“Company”).\n",
        [("Kenneth M. Bate", 1, "Employee"), ("NitroMed, Inc.", 1, "Company")],
    ),
    (
        "descriptions-and-roles",
        "This Agreement is entered into by and between JDA Software Group, Inc., a Delaware "
        "corporation (together with its subsidiaries, “JDA”), and\nRedPrairie Holding, Inc., a "
        "Delaware corporation (“RHI”).\n",
        [("JDA Software Group, Inc.", 1, "JDA"), ("RedPrairie Holding, Inc.", 2, "RHI")],
    ),
    (
        "role-on-next-line",
        "This Agreement is made by and between Intercept Pharmaceuticals, Inc. (the\n“Company”) "
        "and David Shapiro (the “Employee”).\n",
        [("Intercept Pharmaceuticals, Inc.", 1, "Company"), ("David Shapiro", 2, "Employee")],
    ),
    (
        "among-list",
        "This Agreement is by and among TESARO, Inc. (“TESARO”), GSK LLC (“GSK”), and Ajinomoto "
        "Althea, Inc. (“ABPS”).\n",
        [
            ("TESARO, Inc.", 1, "TESARO"),
            ("GSK LLC", 1, "GSK"),
            ("Ajinomoto Althea, Inc.", 1, "ABPS"),
        ],
    ),
    (
        "lower-case-name",
        "This Agreement is entered into by and between Patricia Sueltz (the “Employee”), on the "
        "one hand, and salesforce.com, inc. (the “Company”), on the other hand.\n",
        [("Patricia Sueltz", 1, "Employee"), ("salesforce.com, inc.", 1, "Company")],
    ),
    (
        "between-colon-list",
        "CONSULTING AGREEMENT\nTHIS AGREEMENT is dated for reference the 1st day of February, "
        '2020. BETWEEN:\nCORAL GOLD RESOURCES LTD., a company incorporated\n(the "Company")\n'
        'AND:\nINTERMARK CAPITAL CORP., a company incorporated\n(the "Consultant")\n',
        [("CORAL GOLD RESOURCES LTD.", 3, "Company"), ("INTERMARK CAPITAL CORP.", 6, "Consultant")],
    ),
    (
        "names-on-their-own-lines",
        "OUTSOURCING AGREEMENT\nBETWEEN\nVIRTUAL ITEM PROCESSING SYSTEMS, INC.\nAnd\nBROKERS "
        "NATIONAL LIFE ASSURANCE COMPANY\nE - 4\n",
        [
            ("VIRTUAL ITEM PROCESSING SYSTEMS, INC.", 3, None),
            ("BROKERS NATIONAL LIFE ASSURANCE COMPANY", 5, None),
        ],
    ),
    (
        "a-name-split-over-lines-is-quoted-over-them",
        "This Agreement is made by and between Alpha Corp, a Delaware corporation, and\nBeta\n"
        "Holdings, Inc.\n",
        [("Alpha Corp", 1, None), ("Beta Holdings, Inc.", 2, None)],
    ),
    (
        "entered-into-by",
        "This Agreement is entered into as of May 5, 2021 by Alpha Corp. (the “Discloser”) and "
        "Beta LLC (the “Recipient”).\n",
        [("Alpha Corp.", 1, "Discloser"), ("Beta LLC", 1, "Recipient")],
    ),
    (
        "executed-by-both-parties-is-no-list",
        "This Agreement, effective when executed by both parties, is made between Alpha Inc. "
        "(“Alpha”) and Beta Corp. (“Beta”).\n",
        [("Alpha Inc.", 1, "Alpha"), ("Beta Corp.", 1, "Beta")],
    ),
    (
        "a-courtesy-title-is-no-part-of-the-name",
        "This Agreement is made between Alpha Inc. (the “Company”) and Mr. John Smith (the "
        "“Consultant”).\n",
        [("Alpha Inc.", 1, "Company"), ("John Smith", 1, "Consultant")],
    ),
    (
        "two-roles-joined-by-and-without-between",
        "In consideration of the mutual promises below, Alpha Holdings, Inc., a Delaware "
        "corporation (“Alpha”), and Beta Widgets LLC (the “Recipient”) agree as follows.\n",
        [("Alpha Holdings, Inc.", 1, "Alpha"), ("Beta Widgets LLC", 1, "Recipient")],
    ),
    (
        "roles-of-defined-terms-are-no-pair",
        "The Company (“Discloser”) and the Employee (“Recipient”) agree as follows.\n",
        [],
    ),
    (
        "a-one-word-name-a-description-calls-a-company",
        "This Agreement is made between Acme, a Delaware corporation, and Beta Widgets LLC, a "
        "New York company.\n",
        [("Acme", 1, None), ("Beta Widgets LLC", 1, None)],
    ),
    (
        "among-a-list-of-described-companies",
        "This Agreement is made by and among Alpha Corp., a Delaware corporation, Beta Holdings "
        "LLC, a Nevada company, and Gamma Partners LP, a Texas partnership.\n",
        [("Alpha Corp.", 1, None), ("Beta Holdings LLC", 1, None), ("Gamma Partners LP", 1, None)],
    ),
    ("defined-terms-are-no-names", "Nothing here is between the Company and the Employee.\n", []),
    (
        "a-reference-in-parentheses",
        "Effective immediately prior to the Merger (as defined in the Agreement and Plan of "
        "Merger, by and among Alpha, Inc. (“Alpha”), Beta Corp. and Gamma LLC), you will be "
        "terminated.\n",
        [],
    ),
    ("a-short-name-in-a-heading", "CONFIDENTIALITY AGREEMENT BY AND BETWEEN AUSPEX AND TEVA\n", []),
    (
        "a-pair-whose-first-name-has-an-address",
        "Alpha Biotech, Inc., with a place of business at 740 Heinz Avenue, Berkeley, CA 94710 "
        "(“Alpha”) and Beta B.V. having an address at Main 16, Leiden (“Consultant”) agree.\n",
        [("Alpha Biotech, Inc.", 1, "Alpha"), ("Beta B.V.", 1, "Consultant")],
    ),
    (
        "a-heading-that-runs-on-into-the-opening-sentence",
        "AGREEMENT BY AND BETWEEN ALPHA AND BETA\nTHIS AGREEMENT is entered into between ALPHA "
        "PHARMACEUTICALS, located at 1 Main Street, La Jolla, CA 92037 (“Company”), and BETA "
        "INDUSTRIES, LTD., of Basel Street, Israel (“BETA”).\n",
        [("ALPHA PHARMACEUTICALS", 2, "Company"), ("BETA INDUSTRIES, LTD.", 2, "BETA")],
    ),
    (
        "a-slash-and-a-spanish-suffix-belong-to-the-name",
        "This Agreement is made between Alpha / Beta Credit Income Fund (“Client”) and Espacio "
        "Information Technology, SA. (“EIT”).\n",
        [
            ("Alpha / Beta Credit Income Fund", 1, "Client"),
            ("Espacio Information Technology, SA.", 1, "EIT"),
        ],
    ),
    (
        "roles-after-as-in-an-among-list",
        "TRANSFER AND SERVICING AGREEMENT among ALPHA OWNER TRUST 2020-A, as Issuer, ALPHA ABS "
        "LLC, as Depositor and BETA PARTNERSHIP, as Servicer, Marketing Agent and Custodian.\n",
        [
            ("ALPHA OWNER TRUST 2020-A", 1, "Issuer"),
            ("ALPHA ABS LLC", 1, "Depositor"),
            ("BETA PARTNERSHIP", 1, "Servicer"),
        ],
    ),
    (
        "a-bank-suffix-and-a-role-given-with-its-affiliates",
        "In connection with a possible transaction, Alpha Partners, L.P. (together with its "
        "affiliates, “you”) agrees with Beta Bank, N.A. (the “Bank”) as follows.\n",
        [("Alpha Partners, L.P.", 1, "you"), ("Beta Bank, N.A.", 1, "Bank")],
    ),
    (
        "legal-names-given-roles-without-between",
        "LIMITED POWER OF ATTORNEY\nKNOW ALL MEN BY THESE PRESENTS, that ALPHA HOLDINGS COMPANY, a "
        "statutory trust organized under the laws of Delaware (the “Adviser”), hereby appoints\n"
        "Beta Advisory Services, LLC, a Delaware limited liability company (“Beta”), to act.\n",
        [("ALPHA HOLDINGS COMPANY", 2, "Adviser"), ("Beta Advisory Services, LLC", 3, "Beta")],
    ),
    (
        "three-parties-between-each-given-a-role",
        "This Agreement is made between Alpha Inc. (“Alpha”), Beta LLC (“Beta”) and Gamma Corp. "
        "(“Gamma”) and the Affiliates of each.\n",
        [("Alpha Inc.", 1, "Alpha"), ("Beta LLC", 1, "Beta"), ("Gamma Corp.", 1, "Gamma")],
    ),
    (
        "a-legal-name-a-definition-quotes-again-is-still-a-name",
        "This Agreement is made between Alpha Networks Incorporated (“Alpha”) and Beta LLC "
        "(“Beta”).\n“Alpha Parties” means “Alpha Networks Incorporated” and its affiliates.\n",
        [("Alpha Networks Incorporated", 1, "Alpha"), ("Beta LLC", 1, "Beta")],
    ),
]


@pytest.mark.parametrize(
    ("text", "want"), [c[1:] for c in PARTY_CASES], ids=[c[0] for c in PARTY_CASES]
)
def test_contract_parties_have_exact_names_roles_and_lines(
    text: str, want: list[tuple[str, int, str | None]]
) -> None:
    got = fields(run(text, "contract"), "contract")
    visible = [x for x in text.splitlines() if x.strip()]
    parties = []
    for i in range(len(want) + 1):
        name, role = got.get(f"parties[{i}].name"), got.get(f"parties[{i}].role")
        if name is None or role is None:
            break
        assert name.line_start is not None and name.line_end is not None
        assert name.quote == name.value
        assert name.quote in " ".join(visible[name.line_start - 1 : name.line_end])
        if role.line_start is not None:
            assert role.quote in visible[role.line_start - 1]
        parties.append((name.value, name.line_start, role.value))
    assert parties == want


WRAPPED = [
    (
        "This Agreement shall be governed by the laws of the State of New\nJersey.\n",
        "governing_law",
        "New Jersey",
        "governed by the laws of the State of New Jersey",
    ),
    (
        "This Agreement is made as of June 22,\n2016, by and between Alpha Corp and Beta LLC.\n",
        "effective_date",
        {"iso": "2016-06-22", "original": "June 22, 2016"},
        "made as of June 22, 2016",
    ),
]


@pytest.mark.parametrize(("text", "path", "value", "quote"), WRAPPED, ids=["law", "date"])
def test_a_value_that_wraps_is_quoted_over_its_lines_and_verifies(
    text: str, path: str, value: Any, quote: str
) -> None:
    field = fields(run(text, "contract"), "contract")[path]
    got = field.model_dump(mode="json")
    assert (got["value"], got["quote"], got["line_start"], got["line_end"]) == (value, quote, 1, 2)
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    assert result.fields[path].status == Status.VERIFIED


LETTER = """\
March 3, 2020
Globex Corporation
100 Main Street
Springfield, IL 62701
Ladies and Gentlemen:
In connection with a possible transaction with Initech, Inc. (the "Company"), you have asked
for information about the Company.
"""


def test_a_letter_agreement_names_its_addressee_and_the_company_and_is_dated_above() -> None:
    got = fields(run(LETTER, "contract"), "contract")
    names = [(got[f"parties[{i}].name"].value, got[f"parties[{i}].name"].line_start) for i in "01"]
    assert names == [("Globex Corporation", 2), ("Initech, Inc.", 6)]
    assert "parties[2].name" not in got
    date = got["effective_date"]
    assert (date.model_dump(mode="json")["value"], date.quote, date.line_start) == (
        {"iso": "2020-03-03", "original": "March 3, 2020"},
        "March 3, 2020",
        1,
    )
    assert date.caveat == "the date of the letter, above its salutation"


def test_the_opening_sentence_after_a_table_of_contents_names_the_parties() -> None:
    contents = "".join(f"Section 1.{i:02d} Heading number {i}\n{i}\n" for i in range(1, 40))
    text = (
        "OUTSOURCING AGREEMENT\nTABLE OF CONTENTS\nARTICLE I DEFINITIONS\n"
        + contents
        + "This OUTSOURCING AGREEMENT is entered into as of March 1, 2012 by and between Alpha "
        "Holdings, LLC (the “Company”), and Beta LLC (the “Contractor”).\n"
    )
    got = fields(run(text, "contract"), "contract")
    names = [(got[f"parties[{i}].name"].value, got[f"parties[{i}].role"].value) for i in "01"]
    assert names == [("Alpha Holdings, LLC", "Company"), ("Beta LLC", "Contractor")]
    assert got["parties[0].name"].line_start == 82


def test_without_a_salutation_the_address_block_names_no_party() -> None:
    text = LETTER.replace("Ladies and Gentlemen:", "Summary of terms")
    out = run(text, "contract")
    got = fields(out, "contract")
    # the legal name the text gives a role still is one; the block over no greeting is not
    assert [(p.name.value, p.role.value) for p in out.parties] == [  # type: ignore[attr-defined]
        ("Initech, Inc.", "Company")
    ]
    assert got["parties[0].name"].line_start == 6
    date = got["effective_date"]  # no letter: the date on its own line at the top still dates it
    assert date.caveat == "a date on a line of its own at the top of the document"


# -- layout blocks and plain client schemas ---------------------------------------------------

BILL_TO = """\
ACME GmbH
Invoice No: INV-7
Bill to:
Beta LLC
4557 De Silva St
Fremont, CA 94538
USA
Total: 5,00 EUR
"""


def test_the_block_under_bill_to_is_the_buyers_name_and_address_and_verifies() -> None:
    got = fields(run(BILL_TO, "invoice"), "invoice")
    name, address = got["buyer.name"], got["buyer.address"]
    assert (name.value, name.quote, name.line_start) == ("Beta LLC", "Beta LLC", 4)
    assert address.model_dump(mode="json")["value"] == {
        "street": "4557 De Silva St",
        "postal_code": "94538",
        "city": "Fremont",
        "region": "CA",
        "country": "USA",
    }
    assert (address.quote, address.line_start, address.line_end) == (
        "4557 De Silva St Fremont, CA 94538 USA",
        5,
        7,
    )
    assert not got["seller.address"].found  # the block is headed for the buyer
    result = extract_parsed(parse(BILL_TO), get_schema("invoice"), llm=RulesBackend())
    assert {p: result.fields[p].status for p in ("buyer.name", "buyer.address")} == {
        "buyer.name": Status.VERIFIED,
        "buyer.address": Status.VERIFIED,
    }


def test_a_german_heading_and_a_uk_postcode() -> None:
    text = "Rechnungsadresse\nMüller & Söhne KG\nBaker Street 221\nLondon NW1 6XE\n"
    got = fields(run(text, "invoice"), "invoice")
    assert got["buyer.name"].value == "Müller & Söhne KG"
    assert got["buyer.address"].model_dump(mode="json")["value"] == {
        "street": "Baker Street 221",
        "postal_code": "NW1 6XE",
        "city": "London",
        "region": None,
        "country": None,
    }


def test_sample_invoice_letterhead_and_addressee_blocks() -> None:
    doc, _ = sample("invoice")
    got = fields(run(doc, "invoice"), "invoice")
    # the sender line over the window names the letterhead's name, with the seller's address
    assert (got["seller.name"].value, got["seller.name"].line_start) == (
        "Spreeufer Tagungshaus GmbH",
        3,
    )
    assert got["seller.name"].caveat == "in the letterhead's block"
    assert (got["buyer.name"].value, got["buyer.name"].line_start) == ("Brouwer Analytics B.V.", 4)
    assert (got["buyer.address"].line_start, got["buyer.address"].line_end) == (6, 8)
    assert got["seller.address"].quote == "Spreeuferweg 12 · 10245 Berlin · Germany"


def test_sample_cv_name_headline_and_current_job() -> None:
    doc, _ = sample("cv")
    got = fields(run(doc, "candidate_profile"), "candidate_profile")
    spans = {
        p: (got[p].value, got[p].line_start)
        for p in ("full_name", "headline", "location", "current_title", "current_employer")
    }
    assert spans == {
        "full_name": ("Imogen Castellane", 32),
        "headline": ("Data Engineering Lead · Cloud Platforms & Streaming", 33),
        "location": ("London, United Kingdom", 4),
        "current_title": ("Lead Data Engineer", 41),
        "current_employer": ("Northwind Freight Analytics Ltd", 42),
    }


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


def test_without_a_date_of_its_own_the_agreement_is_dated_by_its_last_signature() -> None:
    text = (
        "This Agreement is made as of the date last signed below between Alpha Corp and Beta "
        "LLC.\nALPHA CORP\nBy: A. Smith\nDate: January 19, 2016\nBETA LLC\nBy: B. Jones\n"
        "Dated: January 27, 2016\n"
    )
    date = fields(run(text, "contract"), "contract")["effective_date"]
    assert (date.model_dump(mode="json")["value"], date.quote, date.line_start) == (
        {"iso": "2016-01-27", "original": "January 27, 2016"},
        "January 27, 2016",
        7,
    )
    assert date.caveat == (
        "the latest date by a signature; the agreement states no date of its own"
    )


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("This Agreement shall terminate on the second anniversary of the Effective Date.\n", 2),
        ("This Agreement shall be binding for a period of five (5) years.\n", 5),
    ],
    ids=["anniversary", "binding-for"],
)
def test_a_term_read_from_a_lasting_sentence_verifies(text: str, amount: int) -> None:
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    term = result.fields["term"]
    assert term.value == {"amount": amount, "unit": "years"}
    assert term.status == Status.VERIFIED


def test_a_signature_date_under_its_label_in_the_short_us_form() -> None:
    text = (
        "This Agreement is made as of the date last signed below between Alpha Corp and Beta "
        "LLC.\nALPHA CORP\nBy: A. Smith\nDate: 3/9/15\nBETA LLC\nBy: B. Jones\nDate:\n"
        "3/21/15\n"
    )
    date = fields(run(text, "contract"), "contract")["effective_date"]
    assert (date.model_dump(mode="json")["value"], date.quote, date.line_start) == (
        {"iso": "2015-03-21", "original": "3/21/15"},
        "3/21/15",
        8,
    )
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    assert result.fields["effective_date"].status == Status.VERIFIED  # 21 is no month


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        (
            "This Agreement is made on the 5th of May, 2010, between Alpha Corp and Beta LLC.\n",
            "2010-05-05",
        ),
        (
            "This Agreement is made as of June 1 , 2011 between Alpha Corp and Beta LLC.\n",
            "2011-06-01",
        ),
    ],
    ids=["of-month", "spaced-comma"],
)
def test_an_agreement_date_in_a_looser_written_form_verifies(text: str, iso: str) -> None:
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    date = result.fields["effective_date"]
    assert date.value["iso"] == iso
    assert date.status == Status.VERIFIED


def test_an_effective_date_field_takes_the_date_defined_as_the_effective_date() -> None:
    text = (
        "CONSULTING AGREEMENT\nAlpha Inc. (“Alpha”) and Beta LLC (“Consultant”) agree to this "
        "Consulting Agreement dated June 1, 2020,\neffective as of July 1, 2020 (“Effective "
        "Date”).\n"
    )
    dated = {"type": "object", "properties": {"agreement_date": {"type": "string"}}}
    effective = {"type": "object", "properties": {"effective_date": {"type": "string"}}}
    got = {}
    for name, schema in (("agreement_date", dated), ("effective_date", effective)):
        field = fields(run(text, schema_from_json(schema, name)), schema_from_json(schema, name))
        got[name] = (field[name].model_dump(mode="json")["value"]["iso"], field[name].line_start)
    assert got == {"agreement_date": ("2020-06-01", 2), "effective_date": ("2020-07-01", 3)}


def test_a_date_alone_near_the_top_dates_a_document_that_states_no_date_of_its_own() -> None:
    head = "Outsourcing Contract\nPlanning Unit: Alpha Architects Office\nOctober 29, 2015\n"
    body = "The Covenanter: Beta Club Inc. and Alpha Architects Office agree as follows.\n"
    signed = "Date: November 3, 2015\n"
    got = fields(run(head + body + signed, "contract"), "contract")["effective_date"]
    assert (got.model_dump(mode="json")["value"]["iso"], got.line_start) == ("2015-10-29", 3)
    assert got.caveat == "a date on a line of its own at the top of the document"
    dated = head + "This Agreement is made as of November 1, 2015 by Beta Club Inc.\n" + signed
    got = fields(run(dated, "contract"), "contract")["effective_date"]
    assert (got.model_dump(mode="json")["value"]["iso"], got.line_start) == ("2015-11-01", 4)


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
