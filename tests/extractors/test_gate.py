"""The pre-call gate (``evidex.extractors.gate``): no text, no call; a document that does not
answer the schema is refused naming what was looked for; a schema that says too little is never
refused; the right documents pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gate_documents import CV, RECIPE
from sample_answers import SAMPLES

from evidex.extractors.document import ParsedDocument, make_lines, make_pages
from evidex.extractors.errors import DocumentMismatch, EmptyDocument
from evidex.extractors.gate import MIN_STEMS, THRESHOLD, assess, profile, screen
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract, extract_parsed
from evidex.schemas import BUILTIN, get_schema, schema_from_json


def _text(text: str) -> ParsedDocument:
    return TextParser().parse(text.encode(), "doc.txt")


def _lines(*texts: str, visible: bool = True) -> ParsedDocument:
    rows = [
        {"page": 1, "text": t, "x0": 0.0, "y0": 12.0 * i, "x1": 100.0, "y1": 12.0 * i + 10,
         "font_size": 10.0, "visible": visible, "hidden_reason": "", "words": []}
        for i, t in enumerate(texts)
    ]  # fmt: skip
    pages = make_pages([{"page": 1, "width": 612.0, "height": 792.0, "rotation": 0,
                         "parser": "text", "has_text_layer": True}])  # fmt: skip
    return ParsedDocument(make_lines(rows), pages, "0" * 64, "doc.pdf", "text")


@pytest.mark.parametrize(
    "document",
    [
        _lines(),  # a blank page: no lines at all
        _lines("~ . ,", "|", "- -"),  # OCR that read only specks
        _lines("Invoice total 413.99", visible=False),  # text no reader sees
    ],
    ids=["no-lines", "specks", "only-hidden"],
)
def test_no_text_is_document_empty(document: ParsedDocument) -> None:
    report = assess(document.lines, get_schema("invoice"), BUILTIN)
    assert report.decision == "document_empty" and report.score is None
    with pytest.raises(EmptyDocument) as caught:
        screen(document, get_schema("invoice"))
    assert caught.value.code == "document_empty" and "no text" in caught.value.message


def test_a_cv_as_an_invoice_names_what_was_looked_for_and_what_it_reads_like() -> None:
    report = assess(_text(CV).lines, get_schema("invoice"), BUILTIN)
    assert report.decision == "document_mismatch"
    assert report.score is not None and report.score < THRESHOLD
    assert report.reads_like == "candidate_profile"
    assert report.reason.startswith("none of invoice number, purchase order, issue date")
    assert "reads like a CV (schema 'candidate_profile')" in report.reason
    assert "--no-gate" in report.reason
    with pytest.raises(DocumentMismatch) as caught:
        screen(_text(CV), get_schema("invoice"))
    assert caught.value.code == "document_mismatch" and caught.value.exit_code == 2
    assert caught.value.reads_like == "candidate_profile"


def test_a_recipe_reads_like_no_built_in_schema() -> None:
    for name in ("invoice", "contract", "candidate_profile"):
        report = assess(_text(RECIPE).lines, get_schema(name), BUILTIN)
        assert report.decision == "document_mismatch", name
        assert report.reads_like == ""
        assert "reads like none of the built-in schemas" in report.reason


@pytest.mark.parametrize(
    ("name", "schema"),
    [("invoice", "invoice"), ("cv", "candidate_profile"), ("contract", "contract")],
)
def test_the_samples_pass_with_their_own_schema(name: str, schema: str) -> None:
    lines = PyMuPDFParser().parse((SAMPLES / f"{name}.pdf").read_bytes(), name).lines
    report = assess(lines, get_schema(schema), BUILTIN)
    assert report.decision == "pass" and report.score is not None
    assert report.score >= 0.5
    assert not report.reason


VAGUE: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "string"}}},
    {"type": "object", "properties": {k: {"type": "string"} for k in ("a", "b", "c", "d", "e")}},
    # words the gate knows nothing of, and no kind
    {
        "type": "object",
        "properties": {k: {"type": "string"} for k in ("foo", "bar", "quux", "zork", "blip")},
    },
]


@pytest.mark.parametrize("raw", VAGUE, ids=["one-letter", "letters", "unknown-words"])
def test_a_schema_that_says_too_little_is_never_refused(raw: dict[str, Any]) -> None:
    schema = schema_from_json(raw, name="client")
    for text in (CV, RECIPE):
        report = assess(_text(text).lines, schema, BUILTIN)
        assert report.decision == "pass" and report.score is None


def test_a_document_that_says_too_little_is_never_refused() -> None:
    tiny = _lines("RESTAURANT SIN DU", "09/03/2018 21:28", "CASH RM 170.00")
    assert len(profile(tiny.lines).stems) < MIN_STEMS
    assert assess(tiny.lines, get_schema("candidate_profile"), BUILTIN).decision == "pass"


def test_named_fields_support_the_document_and_are_recorded() -> None:
    report = assess(_text(CV).lines, get_schema("candidate_profile"), BUILTIN)
    assert report.decision == "pass"
    support = {f.field: f for f in report.fields}
    assert support["skills"].support == 1.0 and support["skills"].named_by == ("skill",)
    # an email address, but no word naming it: the value alone is a weak hint
    assert support["email"].support == 0.25 and support["email"].hinted_by == ("email",)
    assert support["work_authorization"].support == 0.0


def test_the_pipeline_refuses_before_the_call_and_records_the_verdict_when_skipped() -> None:
    schema = get_schema("invoice")
    llm = ScriptedLLM(build_answer(schema, {}))
    with pytest.raises(DocumentMismatch):
        extract(CV.encode(), schema, parser=TextParser(), llm=llm, filename="cv.txt")
    assert llm.requests == []
    result = extract(CV.encode(), schema, parser=TextParser(), llm=llm, gate=False)
    assert len(llm.requests) == 1
    gate = result.trace.gate
    assert gate is not None and gate.decision == "document_mismatch" and not gate.enforced
    assert gate.score is not None and gate.score < gate.threshold
    assert "invoice_number" in gate.missing and gate.reads_like == "candidate_profile"
    assert json.loads(result.to_json())["trace"]["gate"]["decision"] == "document_mismatch"


def test_a_passing_document_records_the_gate_in_the_trace() -> None:
    path: Path = SAMPLES / "invoice.pdf"
    document = PyMuPDFParser().parse(path.read_bytes(), path.name)
    schema = get_schema("invoice")
    result = extract_parsed(document, schema, llm=ScriptedLLM(build_answer(schema, {})))
    gate = result.trace.gate
    assert gate is not None and gate.decision == "pass" and gate.enforced
    assert gate.score is not None and gate.score >= THRESHOLD
    assert {"invoice_number", "total", "due_date"} <= set(gate.supported)


def test_every_eval_invoice_cv_and_receipt_passes_with_its_own_schema() -> None:
    """``shared/eval`` (when present): the invoices, the CVs and the first 40 receipts with
    their own schemas -- the families whose scores sit nearest the threshold (``bench/gate.py``
    runs all of them)."""
    from bench.common import eval_dir
    from bench.gate import PAIRS, gold_lines, schemas

    root = eval_dir()
    if root is None:
        pytest.skip("shared/eval is not here (set EVIDEX_EVAL_DIR)")
    named, parser = schemas(), PyMuPDFParser()
    documents = [
        (family, path.name, parser.parse(path.read_bytes(), path.name).lines)
        for family in ("invoice2data", "rendercv_cv")
        for path in sorted((root / family / "pdfs").glob("*.pdf"))
    ]
    receipts = sorted((root / "sroie" / "ocr_gold").glob("*.csv"))[:40]
    documents += [("sroie", path.name, gold_lines(path)) for path in receipts]
    refused = [
        f"{family}/{name} as {key}: {report.reason}"
        for family, name, lines in documents
        for key in PAIRS[family][0]
        if (report := assess(lines, named[key], BUILTIN)).refused
    ]
    assert len(documents) == 60 and refused == []
