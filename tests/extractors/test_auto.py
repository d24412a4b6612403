"""``--parser auto``: the text layer where a page has one, OCR (or Azure) for the others."""

from __future__ import annotations

import shutil
from functools import cache
from typing import Any

import pandas as pd
import pymupdf
import pytest
from pydantic import ValidationError
from sample_answers import SAMPLES

from evidex.extractors.backends import PARSERS, make_parser
from evidex.extractors.document import ParsedDocument, make_lines
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.auto import AutoParser
from evidex.extractors.parse.ocr import OcrParser, Tesseract, find_tessdata, needs_ocr
from evidex.extractors.parse.ocr.rapid import RapidOcr
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError, Result, Status, get_schema
from evidex.service.cliargs import build_parser as cli_parser
from evidex.workers.jobs import JobOptions

mu: Any = pymupdf  # PyMuPDF's annotations are partial
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None or find_tessdata() is None,
    reason="Tesseract with English language data is not installed",
)
INVOICE = (SAMPLES / "invoice.pdf").read_bytes()
CONTRACT = (SAMPLES / "contract.pdf").read_bytes()
STAMP = "EVX-000123"


@cache
def mixed() -> bytes:
    """Page 1: the digital invoice. Page 2: page 1 of the contract scanned at 200 dpi, with a
    digital Bates stamp at the foot (a text layer of ten characters on a page-sized image)."""
    out = mu.open()
    with mu.open(stream=INVOICE, filetype="pdf") as invoice:
        out.insert_pdf(invoice)
    with mu.open(stream=CONTRACT, filetype="pdf") as contract:
        page = contract[0]
        sheet = out.new_page(width=page.rect.width, height=page.rect.height)
        sheet.insert_image(sheet.rect, pixmap=page.get_pixmap(dpi=200))
    sheet.insert_text((480, 780), STAMP, fontsize=8)
    data: bytes = out.tobytes()
    return data


@cache
def auto_mixed() -> ParsedDocument:
    return AutoParser().parse(mixed(), "mixed.pdf")


def fields_for(document: ParsedDocument) -> dict[str, dict[str, Any]]:
    def at(text: str, page: int) -> int:
        lines = document.lines
        hit = lines[(lines["page"] == page) & lines["text"].str.contains(text, regex=False)]
        return int(hit.iloc[0]["line"])

    number, law = at("INV-2026-00418", 1), at("Hudson Street, New York, NY 10014", 2)
    return {
        "invoice_number": {
            "value": "INV-2026-00418",
            "quote": "INV-2026-00418",
            "page": 1,
            "line_start": number,
            "line_end": number,
        },
        "buyer.name": {
            "value": "Halvorsen Cloud Systems, Inc.",
            "quote": "Halvorsen Cloud Systems, Inc.",
            "page": 2,
            "line_start": law - 1,
            "line_end": law,
        },
    }


def run(document: ParsedDocument) -> Result:
    schema = get_schema("invoice")
    answer = build_answer(schema, fields_for(document))
    return extract_parsed(document, schema, llm=ScriptedLLM(answer))


@needs_tesseract
def test_auto_reads_the_digital_page_from_its_text_and_the_scanned_page_by_ocr() -> None:
    document = auto_mixed()
    assert document.parser == "auto"
    assert document.pages[["page", "parser", "has_text_layer"]].values.tolist() == [
        [1, "pymupdf", True],
        [2, "ocr", True],  # the stamp is a text layer, but not a real one
    ]
    lines = document.lines
    first, second = lines[lines["page"] == 1], lines[lines["page"] == 2]
    alone = PyMuPDFParser().parse(INVOICE, "invoice.pdf").lines
    assert first["text"].tolist() == alone["text"].tolist()
    assert (first["source"] == "pymupdf").all() and first["ocr_confidence"].isna().all()
    assert (second["source"] == "ocr").all() and second["ocr_confidence"].notna().all()
    assert lines["line"].tolist() == list(range(1, len(lines) + 1))
    assert any(STAMP in t for t in second["text"])  # OCR read the stamp as well
    assert any("MANAGED DATA PLATFORM SERVICES AGREEMENT" in t for t in second["text"])


@needs_tesseract
def test_the_result_records_which_parser_read_each_page() -> None:
    result = run(auto_mixed())
    assert result.document.parser == "auto"
    assert [(p.page, p.parser, p.unit, p.width) for p in result.document.page_info] == [
        (1, "pymupdf", "pt", 595.0),
        (2, "ocr", "pt", 612.0),
    ]
    number, seller = result.fields["invoice_number"], result.fields["buyer.name"]
    assert number.status == Status.VERIFIED and not any("OCR" in r for r in number.reasons)
    assert seller.status == Status.VERIFIED, seller.reasons
    assert any(r.startswith("read by OCR (confidence") for r in seller.reasons)
    assert seller.boxes[0].page == 2


def test_a_digital_pdf_never_runs_ocr_and_reads_like_pymupdf(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail(*_: Any) -> Any:
        raise AssertionError("OCR ran on a digital PDF")

    monkeypatch.setattr(Tesseract, "read", fail)
    monkeypatch.setattr(RapidOcr, "read", fail)
    document = AutoParser().parse(INVOICE, "invoice.pdf")
    alone = PyMuPDFParser().parse(INVOICE, "invoice.pdf")
    assert document.parser == "pymupdf" and document.pages["parser"].tolist() == ["pymupdf"]
    pd.testing.assert_frame_equal(document.lines, alone.lines)


class FakeAzure:
    """Stands in for Azure: records what it was sent, answers with one line per page."""

    name = "azure"

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        self.sent.append(data)
        count = 1
        if data.startswith(b"%PDF"):
            with mu.open(stream=data, filetype="pdf") as doc:
                count = doc.page_count
        text = "\f".join(f"read by the fake service, page {n}" for n in range(1, count + 1))
        plain = TextParser().parse(text.encode(), filename)
        pages = plain.pages.assign(parser="azure", has_text_layer=False)
        records = plain.lines.drop(columns=["line", "line_in_page"]).to_dict("records")
        lines = make_lines([{str(k): v for k, v in r.items()} for r in records])
        lines = lines.assign(source="azure", ocr_confidence=0.97)
        return ParsedDocument(lines, pages, plain.sha256, filename, "azure")


def test_with_azure_configured_only_the_scanned_pages_go_to_it() -> None:
    azure = FakeAzure()
    document = AutoParser(azure=azure).parse(mixed(), "mixed.pdf")
    assert len(azure.sent) == 1
    with mu.open(stream=azure.sent[0], filetype="pdf") as sent:
        assert sent.page_count == 1 and STAMP in sent[0].get_text()  # the scanned page only
    assert document.parser == "auto"
    assert document.pages["parser"].tolist() == ["pymupdf", "azure"]
    second = document.lines[document.lines["page"] == 2]
    assert second["text"].tolist() == ["read by the fake service, page 1"]
    assert second["source"].tolist() == ["azure"]


def test_an_image_goes_to_azure_when_configured() -> None:
    azure = FakeAzure()
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    document = AutoParser(azure=azure).parse(png, "scan.png")
    assert azure.sent == [png] and document.parser == "azure"


def _page(texts: list[str], visible: bool = True) -> pd.DataFrame:
    rows = [
        {
            "page": 1,
            "text": t,
            "x0": 0.0,
            "y0": 0.0,
            "x1": 1.0,
            "y1": 1.0,
            "font_size": 10.0,
            "visible": visible,
            "hidden_reason": "",
            "words": [],
        }
        for t in texts
    ]
    return make_lines(rows, "pymupdf")


@pytest.mark.parametrize(
    ("texts", "visible", "cover", "ocr"),
    [
        ([], True, 1.0, True),  # a scan
        ([], True, 0.0, True),  # a blank page: nothing to lose
        (["secret"], False, 0.0, True),  # only invisible text
        (["\ufffd\ufffd\ufffd \ue001\ue002 ab"], True, 0.0, True),  # a font without Unicode
        ([STAMP], True, 0.9, True),  # a scan with a stamped label
        ([STAMP], True, 0.1, False),  # a short digital page
        (["A page of real text. " * 3], True, 0.9, False),  # text over a background image
    ],
)
def test_which_pages_need_ocr(texts: list[str], visible: bool, cover: float, ocr: bool) -> None:
    assert needs_ocr(_page(texts, visible), cover) is ocr
    measured: list[float] = []

    def measure() -> float:  # the image cover measured only when the answer depends on it
        measured.append(cover)
        return cover

    assert needs_ocr(_page(texts, visible), measure) is ocr
    # only a page with a little real text (the label) needs it; a page of text never does
    assert measured == ([cover] if texts == [STAMP] else [])


def test_make_parser_knows_every_name_and_the_cli_defaults_to_auto() -> None:
    assert PARSERS == ("auto", "pymupdf", "ocr", "azure", "text")
    made = {name: make_parser(name) for name in ("auto", "pymupdf", "ocr", "text")}
    assert {n: type(p).__name__ for n, p in made.items()} == {
        "auto": "AutoParser",
        "pymupdf": "PyMuPDFParser",
        "ocr": "OcrParser",
        "text": "TextParser",
    }
    assert all(p.name == n for n, p in made.items())
    assert isinstance(made["ocr"], OcrParser)
    auto = make_parser("auto", Settings())
    assert isinstance(auto, AutoParser) and auto.azure is None  # no endpoint: local OCR
    with pytest.raises(ConfigError, match="parser 'azure' is not available"):
        make_parser("azure", Settings())
    with pytest.raises(ConfigError, match="does not exist"):
        make_parser("tesseract")
    args = cli_parser().parse_args(["extract", "a.pdf", "--schema", "invoice"])
    assert args.parser == "auto"


@pytest.mark.parametrize(
    ("spec", "env", "engine", "tables"),
    [
        ("auto", None, "auto", "words"),  # the default engine
        ("auto", "tesseract", "tesseract", "words"),  # EVIDEX_OCR_ENGINE
        ("auto:rapidocr", "tesseract", "rapidocr", "words"),  # a job's option beats the setting
        ("auto:layout:rapidocr", None, "rapidocr", "layout"),  # a job's tables and OCR engine
        ("ocr:tesseract:off", None, "tesseract", "off"),
    ],
)
def test_the_ocr_engine_comes_from_the_job_then_the_settings(
    monkeypatch: pytest.MonkeyPatch, spec: str, env: str | None, engine: str, tables: str
) -> None:
    if env:
        monkeypatch.setenv("EVIDEX_OCR_ENGINE", env)
    made = make_parser(spec, Settings())
    ocr = made.ocr if isinstance(made, AutoParser) else made
    assert isinstance(ocr, OcrParser) and ocr.engine_name == engine
    assert [e.name for e in ocr.engines] == {
        "auto": ["rapidocr", "tesseract"],
        "tesseract": ["tesseract"],
        "rapidocr": ["rapidocr"],
    }[engine]
    assert getattr(ocr.text_layer, "tables", "words") == tables


def test_an_unknown_ocr_engine_is_refused_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="OCR engine 'easyocr' does not exist"):
        make_parser("auto", Settings(), ocr="easyocr")
    monkeypatch.setenv("EVIDEX_OCR_ENGINE", "easyocr")
    with pytest.raises(ValidationError):
        Settings()
    with pytest.raises(SystemExit):
        cli_parser().parse_args(["extract", "a.pdf", "--schema", "invoice", "--ocr", "easyocr"])
    assert JobOptions(ocr="rapidocr").ocr == "rapidocr"
    with pytest.raises(ValidationError):
        JobOptions.model_validate({"ocr": "easyocr"})


def test_make_parser_takes_a_table_mode_as_an_argument_or_after_the_name() -> None:
    layout = make_parser("pymupdf", tables="layout")
    assert isinstance(layout, PyMuPDFParser) and layout.tables == "layout"
    auto = make_parser("auto:off")
    assert isinstance(auto, AutoParser) and auto.text_layer.tables == "off"  # type: ignore[attr-defined]
    assert make_parser("auto").text_layer.tables == "words"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="words, layout, off"):
        make_parser("pymupdf", tables="model")
