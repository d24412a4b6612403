"""Verification through the whole pipeline: text document in, scripted answer, exact statuses."""

from __future__ import annotations

from typing import Any

import pytest

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract, extract_parsed
from evidex.schemas import Result, Status, get_schema

INVOICE = """\
ACME Tools GmbH
Hauptstr. 5, 10115 Berlin, Germany
Invoice No: INV-2026-0042
Invoice date: 15 March 2026
Due date: 14.04.2026
Widget A   2 x 100,00 EUR   200,00 EUR
Widget B   1 x 50,00 EUR   50,00 EUR
Subtotal: 250,00 EUR
VAT 19%: 47,50 EUR
Total: 297,50 EUR
IBAN: DE89 3704 0044 0532 0130 00
Thank you. Total: 297,50 EUR
"""


def eur(value: float) -> dict[str, Any]:
    return {"value": value, "currency": "EUR"}


def leaf(value: Any, quote: str, line: int | None, end: int | None = None) -> dict[str, Any]:
    return {
        "value": value,
        "quote": quote,
        "page": 1,
        "line_start": line,
        "line_end": end if end is not None else line,
    }


GOOD = {
    "seller.name": leaf("ACME Tools GmbH", "ACME Tools GmbH", 1),
    "invoice_number": leaf("INV-2026-0042", "Invoice No: INV-2026-0042", 3),
    "issue_date": leaf({"iso": "2026-03-15", "original": "15 March 2026"}, "15 March 2026", 4),
    "due_date": leaf({"iso": "2026-04-14", "original": "14.04.2026"}, "14.04.2026", 5),
    "line_items[0].amount": leaf(eur(200), "200,00 EUR", 6),
    "line_items[1].amount": leaf(eur(50), "50,00 EUR   50,00 EUR", 7),
    "subtotal": leaf(eur(250), "Subtotal: 250,00 EUR", 8),
    "tax_rate": leaf(19, "VAT 19%", 9),
    "tax": leaf(eur(47.5), "VAT 19%: 47,50 EUR", 9),
    "total": leaf(eur(297.5), "Total: 297,50 EUR", 10),
    "payment.iban": leaf("DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00", 11),
}


def run(fields: dict[str, dict[str, Any]], text: str = INVOICE) -> Result:
    schema = get_schema("invoice")
    llm = ScriptedLLM(build_answer(schema, fields))
    return extract(text.encode(), schema, parser=TextParser(), llm=llm, filename="inv.txt")


def with_(path: str, **changes: Any) -> dict[str, dict[str, Any]]:
    return {**GOOD, path: {**GOOD[path], **changes}}


def test_true_answer_verifies_every_found_field() -> None:
    result = run(GOOD)
    found = {p: f for p, f in result.fields.items() if f.status != Status.NOT_FOUND}
    assert set(found) == set(GOOD)
    assert {p: f.status for p, f in found.items()} == dict.fromkeys(GOOD, Status.VERIFIED)
    assert result.summary.verified == len(GOOD)
    assert result.data["total"] == eur(297.5)
    assert result.data["line_items"][1]["amount"] == eur(50)
    assert result.data["buyer"]["name"] is None


CASES = [
    # (name, fields, path, status, reason fragment, span_corrected)
    (
        "swapped digits",
        with_("total", value=eur(279.5)),
        "total",
        Status.NEEDS_REVIEW,
        "279.5 does not match",
        False,
    ),
    (
        "fabricated quote",
        with_("total", quote="Total due: 279,50 EUR"),
        "total",
        Status.UNSUPPORTED,
        "does not occur",
        False,
    ),
    (
        "paraphrased quote",
        with_("invoice_number", quote="the invoice number is INV-2026-0042"),
        "invoice_number",
        Status.UNSUPPORTED,
        "does not occur",
        False,
    ),
    (
        "no quote",
        with_("invoice_number", quote=""),
        "invoice_number",
        Status.UNSUPPORTED,
        "without a quote",
        False,
    ),
    (
        "wrong line numbers",
        with_("invoice_number", line_start=7, line_end=7),
        "invoice_number",
        Status.VERIFIED,
        "span corrected",
        True,
    ),
    (
        "cited per-page number of page 1 is fine",
        with_("subtotal", line_start=8),
        "subtotal",
        Status.VERIFIED,
        "",
        False,
    ),
    (
        "wrong date order",
        with_("due_date", value={"iso": "2026-14-04", "original": "x"}),
        "due_date",
        Status.NEEDS_REVIEW,
        "not a valid calendar date",
        False,
    ),
    (
        "impossible date",
        with_("issue_date", value={"iso": "2026-02-30", "original": "x"}),
        "issue_date",
        Status.NEEDS_REVIEW,
        "not a valid calendar date",
        False,
    ),
    (
        "bad iban check digits",
        with_("payment.iban", value="DE89 3704 0044 0532 0130 01"),
        "payment.iban",
        Status.NEEDS_REVIEW,
        "Invalid checksum",
        False,
    ),
    (
        "approximate quote",
        with_("invoice_number", quote="Invoice No INV-2026-0042"),
        "invoice_number",
        Status.NEEDS_REVIEW,
        "approximately",
        False,
    ),
    (
        "not found with a value",
        with_("invoice_number", found=False),
        "invoice_number",
        Status.NEEDS_REVIEW,
        "not found but still gave a value",
        False,
    ),
    (
        "repeated quote cited nowhere near",
        with_("total", line_start=None, line_end=None),
        "total",
        Status.NEEDS_REVIEW,
        "occurs 2 times",
        True,
    ),
    (
        "repeated quote, cited line holds one",
        with_("total", line_start=12, line_end=12),
        "total",
        Status.VERIFIED,
        "",
        False,
    ),
]


@pytest.mark.parametrize(
    ("name", "fields", "path", "status", "reason", "corrected"), CASES, ids=[c[0] for c in CASES]
)
def test_planted_problem_gets_its_status(
    name: str,
    fields: dict[str, dict[str, Any]],
    path: str,
    status: Status,
    reason: str,
    corrected: bool,
) -> None:
    field = run(fields).fields[path]
    assert field.status == status, field.reasons
    assert reason in " ".join(field.reasons)
    assert field.span_corrected is corrected


def test_sum_rule_failure_is_blamed_on_the_member_that_contradicts_its_quote() -> None:
    result = run(with_("line_items[1].amount", value=eur(60), quote="50,00 EUR   50,00 EUR"))
    # the value disagrees with its quote, and its quote's 50,00 makes the items add up again
    wrong = result.fields["line_items[1].amount"]
    assert wrong.status == Status.NEEDS_REVIEW
    assert "add up to 260.00, not 250.00" in wrong.reasons[0]
    for path in ("subtotal", "line_items[0].amount"):
        field = result.fields[path]
        assert field.status == Status.VERIFIED, field.reasons
        assert field.reasons == [
            "rule line_items[].amount = subtotal fails because of line_items[1].amount; "
            "this value agrees with its quote"
        ]
    assert result.fields["total"].status == Status.VERIFIED


def test_sum_rule_failure_the_quotes_do_not_explain_marks_every_member() -> None:
    text = INVOICE.replace("Subtotal: 250,00 EUR", "Subtotal: 251,4637 EUR")
    result = run(with_("subtotal", value=eur(251.4637), quote="Subtotal: 251,4637 EUR"), text)
    # every value agrees with its quote: the document itself does not add up
    for path in ("subtotal", "line_items[0].amount", "line_items[1].amount"):
        field = result.fields[path]
        assert field.status == Status.NEEDS_REVIEW
        assert (
            "rule line_items[].amount = subtotal fails: the parts add up to 250.00, not 251.4637"
            in field.reasons
        )
    assert (
        "rule subtotal + tax = total fails: the parts add up to 298.9637, not 297.50"
        in result.fields["total"].reasons
    )


def test_sum_rule_failure_not_explained_by_the_doubtful_member_marks_every_member() -> None:
    # line 7's quote says 50,00 and the value 60 disagrees, but 50 does not make 200 + x = 300
    text = INVOICE.replace("Subtotal: 250,00 EUR", "Subtotal: 300,00 EUR")
    fields = {
        **with_("line_items[1].amount", value=eur(60)),
        "subtotal": leaf(eur(300), "Subtotal: 300,00 EUR", 8),
    }
    result = run(fields, text)
    for path in ("subtotal", "line_items[0].amount", "line_items[1].amount"):
        assert result.fields[path].status == Status.NEEDS_REVIEW
        assert "add up to 260.00, not 300.00" in " ".join(result.fields[path].reasons)


def test_order_rule_catches_swapped_dates() -> None:
    fields = {
        **GOOD,
        "issue_date": leaf({"iso": "2026-04-14", "original": "14.04.2026"}, "14.04.2026", 5),
        "due_date": leaf({"iso": "2026-03-15", "original": "15 March 2026"}, "15 March 2026", 4),
    }
    result = run(fields)
    for path in ("issue_date", "due_date"):
        assert result.fields[path].status == Status.NEEDS_REVIEW
        assert "issue_date <= due_date fails" in result.fields[path].reasons[0]


def test_order_rule_failure_is_blamed_on_the_date_that_contradicts_its_quote() -> None:
    wrong = leaf({"iso": "2026-05-15", "original": "15 March 2026"}, "15 March 2026", 4)
    result = run({**GOOD, "issue_date": wrong})
    issue, due = result.fields["issue_date"], result.fields["due_date"]
    assert issue.status == Status.NEEDS_REVIEW
    assert "issue_date <= due_date fails: 2026-05-15 is after 2026-04-14" in issue.reasons[0]
    assert due.status == Status.VERIFIED
    assert due.reasons == [
        "rule issue_date <= due_date fails because of issue_date; this value agrees with its quote"
    ]


def test_boxes_cover_the_quoted_words_only() -> None:
    field = run(GOOD).fields["invoice_number"]
    (box,) = field.boxes
    # TextParser: x = 72 + 6 pt per character; the quote is the whole line 3
    assert (box.page, box.x0, box.x1) == (1, 72.0, 72.0 + 6 * len("Invoice No: INV-2026-0042"))
    tax = run(GOOD).fields["tax_rate"]
    assert tax.boxes[0].x1 == 72.0 + 6 * len("VAT 19%:")


def test_multi_line_quote_gets_one_box_per_line() -> None:
    fields = {
        "seller.address": leaf(
            {
                "street": "Hauptstr. 5",
                "postal_code": "10115",
                "city": "Berlin",
                "region": None,
                "country": "Germany",
            },
            "ACME Tools GmbH Hauptstr. 5, 10115 Berlin, Germany",
            1,
            2,
        )
    }
    field = run(fields).fields["seller.address"]
    assert field.status == Status.VERIFIED
    assert [(b.page, b.y0) for b in field.boxes] == [(1, 72.0), (1, 86.0)]


def test_quote_spanning_a_page_break() -> None:
    text = "Governing law: the laws of the\f\nState of New York apply.\n"
    schema = get_schema("contract")
    answer = build_answer(
        schema,
        {
            "governing_law": {
                "value": "New York",
                "quote": "the laws of the State of New York",
                "page": 1,
                "line_start": 1,
                "line_end": 2,
            }
        },
    )
    result = extract(text.encode(), schema, parser=TextParser(), llm=ScriptedLLM(answer))
    field = result.fields["governing_law"]
    assert field.status == Status.VERIFIED
    assert [b.page for b in field.boxes] == [1, 2]


def test_evidence_in_invisible_text_never_verifies() -> None:
    parsed = TextParser().parse(INVOICE.encode(), "inv.txt")
    lines = parsed.lines.copy()
    lines.loc[lines["line"] == 10, ["visible", "hidden_reason"]] = [False, "white text"]
    hidden = ParsedDocument(lines, parsed.pages, parsed.sha256, parsed.filename, parsed.parser)
    schema = get_schema("invoice")
    llm = ScriptedLLM(build_answer(schema, GOOD))
    result = extract_parsed(hidden, schema, llm=llm)
    field = result.fields["total"]
    assert field.status == Status.NEEDS_REVIEW
    assert "white text" in field.reasons[0] and "prompt injection" in field.reasons[0]
    # and the hidden line was never shown to the model
    assert "\t297,50 EUR" not in llm.requests[0].user.split("Total: 297,50 EUR")[0]
    assert "10\t1\t10\tTotal" not in llm.requests[0].user
    assert any("withheld" in c for c in result.notes.caveats)


def test_trace_records_fragments_version_and_timings() -> None:
    result = run(GOOD)
    assert result.trace.llm == "scripted"
    assert result.trace.fragments[0] == "BASE"
    assert "TYPE:amount" in result.trace.fragments and "CONSTRAINT:sum" in result.trace.fragments
    assert result.trace.prompt_version
    assert set(result.trace.timings_ms) >= {"parse", "llm", "verify", "total"}


def test_sum_rule_is_silent_when_a_part_is_missing() -> None:
    fields = {k: v for k, v in GOOD.items() if k != "tax"}
    result = run(fields)
    assert result.fields["total"].status == Status.VERIFIED
    assert result.fields["subtotal"].status == Status.VERIFIED
    assert result.fields["tax"].status == Status.NOT_FOUND


def _dates_doc(*lines: str, due: dict[str, Any], quote: str, line: int) -> Any:
    text = "\n".join(lines) + "\n"
    return run({"due_date": leaf(due, quote, line)}, text).fields["due_date"]


def test_day_month_order_settled_by_the_document() -> None:
    lines = ("Invoice date: 25/03/2026", "Due date: 04/05/2026")
    right = _dates_doc(
        *lines, due={"iso": "2026-05-04", "original": "04/05/2026"}, quote="04/05/2026", line=2
    )
    assert right.status == Status.VERIFIED
    wrong = _dates_doc(
        *lines, due={"iso": "2026-04-05", "original": "04/05/2026"}, quote="04/05/2026", line=2
    )
    assert wrong.status == Status.NEEDS_REVIEW
    assert "day first" in wrong.reasons[0]


def test_day_month_order_left_to_review_when_nothing_settles_it() -> None:
    field = _dates_doc(
        "Due date: 04/05/2026",
        due={"iso": "2026-04-05", "original": "04/05/2026"},
        quote="04/05/2026",
        line=1,
    )
    assert field.status == Status.NEEDS_REVIEW
    assert "not settled by the document" in field.reasons[0]


def test_the_first_of_a_dates_month_is_not_what_the_date_says() -> None:
    # "Apr 2018" of "02 Apr 2018" is the day's month, not a date of its own (the 1st)
    quote = "Due date: 02 Apr 2018"
    wrong = _dates_doc(
        quote, due={"iso": "2018-04-01", "original": "02 Apr 2018"}, quote=quote, line=1
    )
    assert wrong.status == Status.NEEDS_REVIEW, wrong.reasons
    right = _dates_doc(
        quote, due={"iso": "2018-04-02", "original": "02 Apr 2018"}, quote=quote, line=1
    )
    assert right.status == Status.VERIFIED, right.reasons


def test_repeated_quote_resolved_by_sibling_fields() -> None:
    text = "Item   Qty\nBolts   2\nNuts   5\nWashers   2\n"
    schema = get_schema("invoice")
    fields = {
        "line_items[0].description": {**leaf("Bolts", "Bolts", 2)},
        "line_items[1].description": {**leaf("Washers", "Washers", 4)},
        "line_items[1].quantity": {**leaf(2, "2", None)},
    }
    result = extract(
        text.encode(), schema, parser=TextParser(), llm=ScriptedLLM(build_answer(schema, fields))
    )
    qty = result.fields["line_items[1].quantity"]
    assert qty.status == Status.VERIFIED, qty.reasons
    assert (qty.line_start, qty.span_corrected) == (4, True)


def _with_conflicts(*conflicts: dict[str, Any]) -> Result:
    schema = get_schema("invoice")
    notes = {
        "caveats": [],
        "conflicting_evidence": list(conflicts),
        "context_structured": True,
        "suggested_clarification": "",
    }
    llm = ScriptedLLM(build_answer(schema, GOOD, notes))
    return extract(INVOICE.encode(), schema, parser=TextParser(), llm=llm, filename="inv.txt")


def test_a_field_the_answer_reports_conflicting_evidence_for_goes_to_review() -> None:
    why = "lines 10 and 12 both state a total and nothing settles which is meant"
    result = _with_conflicts({"fields": ["total"], "description": why})
    total = result.fields["total"]
    assert (total.status, total.reasons[0]) == (Status.NEEDS_REVIEW, why)
    assert total.value == eur(297.5) and total.quote == "Total: 297,50 EUR"  # kept, not dropped
    others = {p: f.status for p, f in result.fields.items() if p in GOOD and p != "total"}
    assert set(others.values()) == {Status.VERIFIED}
    assert result.notes.conflicting_evidence[0].description == why


def test_a_conflict_naming_a_parent_covers_the_fields_under_it() -> None:
    result = _with_conflicts(
        {"fields": ["line_items[1]"], "description": ""},
        {"fields": ["seller", "no_such_field"], "description": "two sellers are named"},
    )
    item = result.fields["line_items[1].amount"]
    assert item.status is Status.NEEDS_REVIEW
    assert item.reasons[0] == "the answer reports conflicting evidence for this field"
    assert result.fields["line_items[0].amount"].status is Status.VERIFIED
    seller = result.fields["seller.name"]
    assert (seller.status, seller.reasons[0]) == (Status.NEEDS_REVIEW, "two sellers are named")
    assert result.fields["seller.vat_id"].status is Status.NOT_FOUND  # nothing to review


def test_a_conflict_does_not_lift_an_unsupported_field() -> None:
    fields = with_("invoice_number", quote="Invoice No: INV-2026-9999")
    schema = get_schema("invoice")
    notes = {
        "caveats": [],
        "conflicting_evidence": [{"fields": ["invoice_number"], "description": "two numbers"}],
        "context_structured": True,
        "suggested_clarification": "",
    }
    llm = ScriptedLLM(build_answer(schema, fields, notes))
    result = extract(INVOICE.encode(), schema, parser=TextParser(), llm=llm, filename="inv.txt")
    assert result.fields["invoice_number"].status is Status.UNSUPPORTED
