"""Re-verifying a stored result against its document."""

from __future__ import annotations

import pytest
from sample_answers import SAMPLES

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.reverify import Change, reverify
from evidex.schemas import InputError, Result, Status, get_schema
from evidex.service.report import render_report

SCHEMA = get_schema("invoice")


def _stored() -> tuple[Result, ParsedDocument]:
    doc = PyMuPDFParser().parse((SAMPLES / "invoice.pdf").read_bytes(), "invoice.pdf")
    result = extract_parsed(doc, SCHEMA, llm=RulesBackend())
    return Result.model_validate_json(result.to_json()), doc


def test_an_untouched_result_verifies_the_same() -> None:
    stored, doc = _stored()
    again, changes = reverify(stored, doc, SCHEMA)
    assert changes == []
    assert again.summary == stored.summary
    assert "reverify" in again.trace.timings_ms


def test_an_edited_value_is_caught_and_reported() -> None:
    stored, doc = _stored()
    iban = stored.fields["payment.iban"]
    assert iban.status == Status.VERIFIED
    iban.value = "DE45 1004 0000 0482 7002 04"
    again, changes = reverify(stored, doc, SCHEMA)
    assert changes == [Change("payment.iban", Status.VERIFIED, Status.NEEDS_REVIEW)]
    report = render_report(again, changes)
    assert "payment.iban: verified -> needs_review" in report
    s = again.summary
    assert f"{s.verified} verified, {s.needs_review} needs review" in report.splitlines()[1]
    assert s.needs_review == stored.summary.needs_review + 1


def test_another_document_is_refused() -> None:
    stored, _ = _stored()
    other = PyMuPDFParser().parse((SAMPLES / "cv.pdf").read_bytes(), "cv.pdf")
    with pytest.raises(InputError, match="SHA-256 differs"):
        reverify(stored, other, SCHEMA)
