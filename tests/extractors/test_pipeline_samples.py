"""The samples end to end through the PyMuPDF parser: true answers verify, planted errors don't."""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import pymupdf
import pytest
from sample_answers import SAMPLES, SCHEMAS, expected, perfect_fields

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.highlight import COLOURS, annotate
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Result, Status, get_schema


@cache
def parsed(name: str) -> ParsedDocument:
    return PyMuPDFParser().parse((SAMPLES / f"{name}.pdf").read_bytes(), f"{name}.pdf")


def run(name: str, fields: dict[str, dict[str, Any]]) -> Result:
    schema = get_schema(SCHEMAS[name])
    return extract_parsed(parsed(name), schema, llm=ScriptedLLM(build_answer(schema, fields)))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_true_answer_verifies_every_expected_field(name: str) -> None:
    doc = parsed(name)
    result = run(name, perfect_fields(name, doc.lines))
    statuses = {p: (f.status, f.reasons) for p, f in result.fields.items() if p in expected(name)}
    bad = {p: s for p, s in statuses.items() if s[0] != Status.VERIFIED}
    assert bad == {}
    assert result.summary.verified == len(expected(name))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_boxes_hold_the_quoted_text_on_the_page(name: str) -> None:
    doc = parsed(name)
    result = run(name, perfect_fields(name, doc.lines))
    with pymupdf.open(SAMPLES / f"{name}.pdf") as pdf:
        for path, field in result.fields.items():
            if field.status != Status.VERIFIED:
                continue
            boxed = " ".join(
                pdf[b.page - 1].get_textbox((*pymupdf.Rect(b.x0, b.y0, b.x1, b.y1), -1, -1, 1, 1))
                for b in field.boxes
            )
            first_word = field.quote.split()[0]
            assert first_word in boxed, (path, field.quote, boxed)


def _swap_digits(text: str) -> str:
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    for a, b in itertools.pairwise(digits):
        if text[a] != text[b]:
            chars = list(text)
            chars[a], chars[b] = chars[b], chars[a]
            return "".join(chars)
    raise AssertionError(text)


def test_planted_errors_on_the_invoice_are_caught() -> None:
    doc = parsed("invoice")
    fields = perfect_fields("invoice", doc.lines)
    total = fields["total"]["value"]
    fields["total"] = {**fields["total"], "value": {**total, "value": total["value"] + 9}}
    number = fields["invoice_number"]["value"]
    fields["invoice_number"] = {**fields["invoice_number"], "value": _swap_digits(number)}
    fields["seller.name"] = {**fields["seller.name"], "quote": "Spree Conference House GmbH"}
    fields["buyer.name"] = {**fields["buyer.name"], "line_start": 1, "line_end": 1}
    result = run("invoice", fields)
    assert result.fields["total"].status == Status.NEEDS_REVIEW
    assert result.fields["invoice_number"].status == Status.NEEDS_REVIEW
    assert result.fields["seller.name"].status == Status.UNSUPPORTED
    assert result.fields["buyer.name"].status == Status.VERIFIED
    assert result.fields["buyer.name"].span_corrected
    # the total no longer equals subtotal + tax: both parts are flagged by the rule
    assert any("subtotal + tax = total fails" in r for r in result.fields["tax"].reasons)


def test_highlighted_pdf_has_one_annotation_per_box_named_for_its_field() -> None:
    doc = parsed("invoice")
    result = run("invoice", perfect_fields("invoice", doc.lines))
    data = annotate((SAMPLES / "invoice.pdf").read_bytes(), result)
    with pymupdf.open(stream=data, filetype="pdf") as pdf:
        annots = [a for page in pdf for a in page.annots()]
        titles = {a.info["title"] for a in annots}
        colours = {tuple(round(c, 2) for c in a.colors["stroke"]) for a in annots}
    assert len(annots) == sum(len(f.boxes) for f in result.fields.values())
    assert titles == {p for p, f in result.fields.items() if f.boxes}
    assert colours == {COLOURS[Status.VERIFIED]}
