"""Receipts as the OCR parser hands them over, for the tests of what the rules backend and the
verifier make of OCR'd text: one line per cell, the cells of a printed row side by side at the
same height, each line with the confidence its engine gave (or none)."""

from __future__ import annotations

from typing import Any

from evidex.extractors.document import ParsedDocument, make_lines, make_pages
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import FieldResult, Result, SchemaDef, Status, schema_from_json

__all__ = ["CLEAN", "PLAIN", "TYPED", "read", "read_text", "read_typed", "receipt", "review"]

PLAIN = schema_from_json(
    {
        "type": "object",
        "properties": {k: {"type": "string"} for k in ("company", "date", "address", "total")},
    }
)
# the same with the date and the total typed as such (a date's ISO day, an amount's currency)
TYPED = schema_from_json(
    {
        "type": "object",
        "properties": {
            "company": {"type": "string"},
            "address": {"type": "string"},
            "date": {"type": "string", "format": "date"},
            "total": {"type": "number"},
        },
    }
)
CLEAN = 0.97  # the confidence a clean reading gets


def receipt(
    rows: list[list[str]], confidence: float | None = CLEAN, left: float = 20.0
) -> ParsedDocument:
    """A receipt of ``rows`` (each a list of cells; empty cells are left out) read by OCR, every
    line at ``confidence`` (None: lines without one), on a photo 400 pixels wide whose first
    cells start ``left`` pixels in."""
    read: dict[str, Any] = {} if confidence is None else {"ocr_confidence": confidence}
    cells = [
        {
            "page": 1,
            "text": text,
            "x0": left + 120 * i,
            "y0": 20.0 * n,
            "x1": left + 120 * i + 100,
            "y1": 20.0 * n + 14,
            "font_size": 14.0,
            "visible": True,
            "hidden_reason": "",
            "words": [],
            **read,
        }
        for n, row in enumerate(rows, 1)
        for i, text in enumerate(row)
        if text
    ]
    page = {"page": 1, "width": 400.0, "height": 20.0 * len(rows) + 40, "rotation": 0}
    pages = make_pages([{**page, "parser": "ocr", "has_text_layer": False}])
    return ParsedDocument(
        make_lines(cells, "ocr"), pages, "0" * 64, "slip.jpg", "ocr", "image/jpeg"
    )


def read(document: ParsedDocument, schema: SchemaDef = PLAIN) -> Result:
    """What the rules backend answers for ``schema`` (the plain receipt schema), verified."""
    return extract_parsed(document, schema, llm=RulesBackend())


def read_text(text: str) -> Result:
    """The same, for ``text`` as a text layer holds it."""
    return read(TextParser().parse(text.encode(), "slip.txt"))


def read_typed(text: str, schema: SchemaDef = TYPED) -> Result:
    """The same for ``schema`` (:data:`TYPED`), on ``text`` as a text layer holds it."""
    return read(TextParser().parse(text.encode(), "slip.txt"), schema)


def review(field: FieldResult, *words: str) -> None:
    """``field`` went to review and its first reason names every one of ``words``."""
    assert field.status is Status.NEEDS_REVIEW, field.reasons
    assert all(w in field.reasons[0] for w in words), field.reasons
