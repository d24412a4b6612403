"""Local OCR: scans of the samples read by Tesseract verify, with OCR named in every reason and
boxes on the same words as the original PDF's; OCR confidence and noise in verification.

The scans are made here: each sample page rasterised at 200 dpi and wrapped into an image-only
PDF page of the same size. Each scan is OCRed once per session (a few seconds a page).
"""

from __future__ import annotations

import shutil
from functools import cache
from typing import Any

import pandas as pd
import pymupdf
import pytest
from sample_answers import SAMPLES, SCHEMAS, expected, leaf, perfect_fields

from evidex.extractors.document import ParsedDocument
from evidex.extractors.errors import NoTextLayer
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.ocr import OcrParser, OcrWord, Tesseract, find_tessdata
from evidex.extractors.parse.ocr.lines import page_rows
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Box, ConfigError, Result, Status, get_schema

mu: Any = pymupdf  # PyMuPDF's annotations are partial
needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None or find_tessdata() is None,
    reason="Tesseract with English language data is not installed",
)
SLACK = 3.0  # points: OCR boxes must contain the text layer's boxes within this
INVOICE = (SAMPLES / "invoice.pdf").read_bytes()


def scan(pdf: bytes, dpi: int = 200, rotate: int = 0) -> bytes:
    """An image-only PDF: every page rasterised at ``dpi`` and placed on a page of its size.
    ``rotate=90``: the image is stored sideways and the page's /Rotate turns it upright."""
    src, out = mu.open(stream=pdf, filetype="pdf"), mu.open()
    for page in src:
        pix = page.get_pixmap(dpi=dpi)
        width, height = page.rect.width, page.rect.height
        if rotate:
            sheet = out.new_page(width=height, height=width)
            sheet.insert_image(sheet.rect, pixmap=pix, rotate=rotate)
            sheet.set_rotation(rotate)
        else:
            sheet = out.new_page(width=width, height=height)
            sheet.insert_image(sheet.rect, pixmap=pix)
    data: bytes = out.tobytes()
    return data


@cache
def scanned(name: str) -> bytes:
    return scan((SAMPLES / f"{name}.pdf").read_bytes())


@cache
def ocred(name: str, engine: str = "tesseract") -> ParsedDocument:
    return OcrParser(engine=engine).parse(scanned(name), f"{name}-scan.pdf")


@cache
def digital(name: str) -> ParsedDocument:
    return PyMuPDFParser(tables=False).parse((SAMPLES / f"{name}.pdf").read_bytes(), name)


def run(document: ParsedDocument, name: str, fields: dict[str, dict[str, Any]]) -> Result:
    schema = get_schema(SCHEMAS[name])
    return extract_parsed(document, schema, llm=ScriptedLLM(build_answer(schema, fields)))


@cache
def truth(name: str) -> Result:
    """The perfect answer on the original PDF: where each expected quote really is."""
    return run(digital(name), name, perfect_fields(name, digital(name).lines))


def cite_ocr_lines(lines: pd.DataFrame, boxes: list[Box]) -> tuple[int, int, int]:
    """A perfect answer for the scan cites the OCR lines lying where the quote is printed."""
    hit: list[int] = []
    for b in boxes:
        near = lines[
            (lines["page"] == b.page)
            & (lines["y0"] < b.y1)
            & (lines["y1"] > b.y0)
            & (lines["x0"] < b.x1)
            & (lines["x1"] > b.x0)
        ]
        hit += [int(n) for n in near["line"]]
    assert hit, f"no OCR line where {boxes} are"
    return boxes[0].page, min(hit), max(hit)


def contains(outer: Box, inner: Box) -> bool:
    return (
        outer.page == inner.page
        and outer.x0 - SLACK <= inner.x0
        and outer.y0 - SLACK <= inner.y0
        and outer.x1 + SLACK >= inner.x1
        and outer.y1 + SLACK >= inner.y1
    )


@needs_tesseract
@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_scanned_sample_verifies_with_ocr_evidence_on_the_right_words(name: str) -> None:
    with pytest.raises(NoTextLayer):  # the set-up really made a scan
        PyMuPDFParser().parse(scanned(name), "scan.pdf")
    document = ocred(name)
    fields = {}
    for path, item in expected(name).items():
        page, start, end = cite_ocr_lines(document.lines, truth(name).fields[path].boxes)
        fields[path] = {**item, "page": page, "line_start": start, "line_end": end}
    result = run(document, name, fields)

    verified = [p for p in expected(name) if result.fields[p].status == Status.VERIFIED]
    assert len(verified) >= 0.9 * len(expected(name)), {
        p: (f.status, f.reasons) for p, f in result.fields.items() if p not in verified
    }
    for path in verified:
        field = result.fields[path]
        assert any(r.startswith("read by OCR (confidence 0.") for r in field.reasons), path
        for box in truth(name).fields[path].boxes:
            assert any(contains(ocr, box) for ocr in field.boxes), (path, box, field.boxes)
    assert result.document.parser == "ocr"
    assert [p.unit for p in result.document.page_info] == ["pt"] * document.page_count


@needs_tesseract
def test_ocr_lines_say_where_they_come_from() -> None:
    document = ocred("invoice")
    lines, pages = document.lines, document.pages
    assert (lines["source"] == "ocr").all() and lines["visible"].all()
    assert lines["ocr_confidence"].between(0, 1).all() and lines["ocr_confidence"].mean() > 0.8
    assert (lines["table"] == -1).all()
    assert pages[["parser", "has_text_layer", "width", "height"]].values.tolist() == [
        ["ocr", False, 595.0, 842.0]
    ]
    row = lines[lines["text"] == "INV-2026-00418"].iloc[0]
    start, end, *box = row["words"][0]
    assert row["text"][start:end] == "INV-2026-00418"
    assert box == [row["x0"], row["y0"], row["x1"], row["y1"]]


@needs_tesseract
def test_a_sideways_scan_turned_upright_by_rotate_gets_boxes_on_the_displayed_page() -> None:
    data = scan(INVOICE, rotate=90)
    document = OcrParser(engine="tesseract").parse(data, "rotated.pdf")
    assert document.pages["rotation"].tolist() == [90]
    for text in ("INV-2026-00418", "Total due"):
        ocr = document.lines[document.lines["text"].str.contains(text, regex=False)].iloc[0]
        pdf = digital("invoice").lines
        true = pdf[pdf["text"].str.contains(text, regex=False)].iloc[0]
        assert all(abs(ocr[k] - true[k]) <= SLACK for k in ("x0", "x1")), text
        assert ocr["y0"] - SLACK <= true["y0"] and ocr["y1"] + SLACK >= true["y1"], text


@needs_tesseract
def test_force_reads_a_digital_page_by_ocr_and_keeps_it_otherwise() -> None:
    pdf = INVOICE
    kept = OcrParser(engine="tesseract").parse(pdf, "invoice.pdf")
    assert kept.pages["parser"].tolist() == ["pymupdf"]
    assert kept.lines["text"].tolist() == PyMuPDFParser().parse(pdf, "i").lines["text"].tolist()
    forced = OcrParser(force=True, engine="tesseract").parse(pdf, "invoice.pdf")
    assert forced.pages[["parser", "has_text_layer"]].values.tolist() == [["ocr", True]]
    assert (forced.lines["source"] == "ocr").all()
    assert "INV-2026-00418" in forced.lines["text"].tolist()


def test_a_missing_tesseract_is_a_configuration_error_that_says_what_to_install() -> None:
    with pytest.raises(ConfigError, match="install tesseract-ocr"):
        OcrParser(engine="tesseract", tesseract="/nonexistent/tesseract").parse(
            scan(INVOICE, dpi=30), "x.pdf"
        )
    # a digital PDF needs no OCR, so no Tesseract either
    digital = OcrParser(tesseract="/nonexistent/tesseract").parse(INVOICE, "invoice.pdf")
    assert digital.parser == "pymupdf" and digital.pages["parser"].tolist() == ["pymupdf"]


def test_missing_language_data_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _: "/usr/bin/tesseract")
    monkeypatch.setenv("TESSDATA_PREFIX", "/nonexistent")
    with pytest.raises(ConfigError, match="language data for 'xx'"):
        Tesseract(language="xx").check()


def _word(text: str, x0: float, y0: float, line: tuple[int, int, int], conf: float = 0.9) -> Any:
    box = (x0, y0, x0 + 10.0 * len(text), y0 + 30.0)
    return OcrWord(text, box, conf, line, box)


def test_tesseract_lines_are_split_at_column_gaps_and_read_like_a_text_layer() -> None:
    # One Tesseract paragraph: an address far left of a stamp, then a label/value form below.
    # Tesseract joins address and stamp into lines; the parser splits them where words are far
    # apart, reads the address down (its segments stand alone) and the form in rows (label and
    # value sit close), like a text layer.
    words = []
    for i, (left, right) in enumerate(
        [("Brouwer Analytics B.V.", "COPY"), ("Wibautstraat 212", "")]
    ):
        key = (1, 1, i + 1)
        words += [_word(w, 100 + 110 * j, 100.0 + 40 * i, key) for j, w in enumerate(left.split())]
        words += [_word(right, 1800, 100.0 + 40 * i, key)] if right else []
    for i, (label, value) in enumerate([("Invoice", "INV-1"), ("Due", "15.04.2026")]):
        key = (1, 1, i + 3)
        words += [_word(label, 100, 300.0 + 40 * i, key), _word(value, 300, 300.0 + 40 * i, key)]
    rows = page_rows(words, 1, 72 / 300, (595.0, 842.0))
    assert [r["text"] for r in rows] == [
        "Brouwer Analytics B.V.",
        "Wibautstraat 212",
        "Invoice",
        "INV-1",
        "Due",
        "15.04.2026",
        "COPY",  # a column of its own, right of everything else
    ]
    first = rows[0]
    assert first["x0"] == round(100 * 72 / 300, 2)
    # the line's height (30 px) grown by 30% above and 10% below, in points
    assert (first["y0"], first["y1"]) == (round(91 * 0.24, 2), round(133 * 0.24, 2))
    assert [first["text"][w[0] : w[1]] for w in first["words"]] == ["Brouwer", "Analytics", "B.V."]
    assert first["source"] == "ocr" and first["ocr_confidence"] == 0.9


def test_each_word_keeps_its_own_confidence_beside_the_line_s() -> None:
    words = [
        _word("Total", 100, 100, (1, 1, 1), 0.99),
        _word("9.00", 170, 100, (1, 1, 1), 0.5),
    ]
    rows = page_rows(words, 1, 1.0, (600.0, 400.0), word_confidence=lambda w: w.conf / 2)
    assert [r["text"] for r in rows] == ["Total 9.00"]
    assert rows[0]["word_confidence"] == (0.495, 0.25)
    assert rows[0]["ocr_confidence"] == round((0.99 + 0.5) / 2, 3)


def test_a_receipt_s_labels_and_their_far_off_figures_read_in_rows() -> None:
    # A till receipt: labels at the left edge, amounts at the right, 24 line heights apart, one
    # detection box each (RapidOCR). Read down the columns, every label would come before every
    # amount; a figure pairs with its label however far apart, so each reads in its row.
    rows = [("SUBTOTAL", "4.60"), ("TAX", "0.28"), ("ROUNDING", "RM 0.02"), ("TOTAL", "4.90 SR")]
    words = []
    for i, (label, value) in enumerate(rows):
        key = (1, 1, i + 1)
        y = 100.0 + 40 * i
        words += [_word(label, 100, y, key)]
        words += [_word(w, 900 + 30 * j, y, key) for j, w in enumerate(value.split())]
    read = page_rows(words, 1, 1.0, (1000.0, 400.0))
    assert [r["text"] for r in read] == [
        "SUBTOTAL",
        "4.60",
        "TAX",
        "0.28",
        "ROUNDING",
        "RM 0.02",
        "TOTAL",
        "4.90 SR",
    ]


def test_a_line_that_ends_in_a_figure_reads_as_one_row_beside_a_block_of_text() -> None:
    # A till receipt set in three columns: labels, the currency, the amounts, with a two-line
    # note stacked beside them. Read by columns (the XY-cut of a page with a text block), the
    # labels, the "RM"s and the amounts would each come as a run; a line that ends in a figure
    # is one printed row, its cells read together.
    rows = [("TOTAL :", "39.80"), ("CASH", "50.00"), ("CHANGE:", "10.20")]
    words = [
        _word("Goods sold are", 100, 20, (1, 1, 1)),
        _word("not returnable", 100, 52, (1, 1, 2)),
    ]
    for i, (label, value) in enumerate(rows):
        key = (1, 1, i + 3)
        y = 200.0 + 40 * i
        words += [_word(label, 100, y, key), _word("RM", 500, y, key), _word(value, 800, y, key)]
    read = page_rows(words, 1, 1.0, (1000.0, 400.0))
    assert [r["text"] for r in read] == [
        "Goods sold are",
        "not returnable",
        *(cell for label, value in rows for cell in (label, "RM", value)),
    ]


def test_line_confidence_leaves_out_marks_without_letters_or_digits() -> None:
    line = (1, 1, 1)
    bullet = [_word("•", 100, 100, line, conf=0.1), _word("Python", 130, 100, line, conf=0.8)]
    marks = [_word("•", 100, 200, (2, 1, 1), conf=0.1), _word("-", 130, 200, (2, 1, 1), 0.3)]
    rows = page_rows(bullet + marks, 1, 1.0, (2000.0, 3000.0))
    assert [(r["text"], r["ocr_confidence"]) for r in rows] == [("• Python", 0.8), ("• -", 0.2)]


# --- verification of OCR evidence, on line tables made to look OCRed --------------------------

TEXT = """\
Brouwer Analytics B.V.
Invoice no. INV-2026-00418
Total due 19.953,80 EUR
"""


def ocr_like(text: str, confidence: float, source: str = "ocr") -> ParsedDocument:
    doc = TextParser().parse(text.encode(), "scan.pdf")
    lines = doc.lines.assign(ocr_confidence=confidence, source=source)
    return ParsedDocument(lines, doc.pages, doc.sha256, doc.filename, "ocr")


def verify_invoice(document: ParsedDocument, fields: dict[str, dict[str, Any]]) -> Result:
    schema = get_schema("invoice")
    return extract_parsed(document, schema, llm=ScriptedLLM(build_answer(schema, fields)))


@pytest.mark.parametrize(
    ("confidence", "status", "reason"),
    [
        (0.87, Status.VERIFIED, "read by OCR (confidence 0.87)"),
        (0.6, Status.VERIFIED, "read by OCR (confidence 0.60)"),
        (0.42, Status.NEEDS_REVIEW, "low OCR confidence (0.42)"),
    ],
)
def test_ocr_evidence_is_named_and_low_confidence_goes_to_review(
    confidence: float, status: Status, reason: str
) -> None:
    result = verify_invoice(
        ocr_like(TEXT, confidence), {"invoice_number": leaf("INV-2026-00418", "INV-2026-00418", 2)}
    )
    got = result.fields["invoice_number"]
    assert got.status == status
    assert any(r.startswith(reason) for r in got.reasons), got.reasons


def test_text_layer_evidence_says_nothing_about_ocr() -> None:
    doc = TextParser().parse(TEXT.encode(), "a.txt")
    got = verify_invoice(doc, {"invoice_number": leaf("INV-2026-00418", "INV-2026-00418", 2)})
    assert got.fields["invoice_number"].status == Status.VERIFIED
    assert not any("OCR" in r for r in got.fields["invoice_number"].reasons)


@pytest.mark.parametrize(
    ("source", "status"), [("ocr", Status.VERIFIED), ("pymupdf", Status.UNSUPPORTED)]
)
def test_ocr_noise_is_tolerated_only_over_ocr_lines(source: str, status: Status) -> None:
    # Tesseract read "v" for "u", "i" for "l" and lost a dot: 86% alike, under the 90% that any
    # text needs, over the 85% that lines read by the local OCR get.
    noisy = TEXT.replace("Brouwer Analytics B.V.", "Brovwer Anaiytics B V.")
    quote = "Brouwer Analytics B.V."
    got = verify_invoice(ocr_like(noisy, 0.9, source), {"buyer.name": leaf(quote, quote, 1)})
    buyer = got.fields["buyer.name"]
    assert buyer.status == status, buyer.reasons
    if source == "ocr":
        assert buyer.match == "fuzzy" and buyer.line_start == 1 and buyer.boxes
        assert "the quote matches the OCR text approximately (86%)" in buyer.reasons
        assert "read by OCR (confidence 0.90)" in buyer.reasons


SLIP = """\
Brouwer Analytics B.V.
Bi11 Date : 20/12/2017
Due 05 Mar 2018
Total due 19.953,80 EUR
"""


def ocr_words(text: str, line: float, words: dict[str, float]) -> ParsedDocument:
    """``text`` as OCR lines of confidence ``line``, each word of confidence ``words[word]``
    (else the line's)."""
    doc = ocr_like(text, line)
    confs = [
        tuple(words.get(str(t)[w[0] : w[1]], line) for w in ws)
        for t, ws in zip(doc.lines["text"], doc.lines["words"], strict=True)
    ]
    return ParsedDocument(
        doc.lines.assign(word_confidence=confs), doc.pages, doc.sha256, doc.filename, "ocr"
    )


def test_a_date_read_right_in_a_misread_line_is_judged_by_its_own_words() -> None:
    # the label "Bill" read "Bi11" pulls the line down; the date's own word was read surely
    read = ocr_words(SLIP, 0.45, {"Bi11": 0.2, "20/12/2017": 0.97})
    quote = "Bi11 Date : 20/12/2017"
    date = {"iso": "2017-12-20", "original": "20/12/2017"}
    got = verify_invoice(read, {"issue_date": leaf(date, quote, 2)}).fields["issue_date"]
    assert got.status == Status.VERIFIED, got.reasons
    assert "read by OCR (confidence 0.97 on '20/12/2017')" in got.reasons


def test_a_misread_figure_in_a_confident_line_goes_to_review_naming_its_word() -> None:
    read = ocr_words(SLIP, 0.95, {"19.953,80": 0.41})
    quote = "Total due 19.953,80 EUR"
    value = {"value": 19953.8, "currency": "EUR"}
    got = verify_invoice(read, {"total": leaf(value, quote, 4)}).fields["total"]
    assert got.status == Status.NEEDS_REVIEW
    assert got.reasons[0].startswith("low OCR confidence (0.41) on '19.953,80': ")


def test_a_date_s_month_name_counts_among_its_words() -> None:
    read = ocr_words(SLIP, 0.95, {"Mar": 0.3})
    date = {"iso": "2018-03-05", "original": "05 Mar 2018"}
    got = verify_invoice(read, {"due_date": leaf(date, "05 Mar 2018", 3)})
    assert got.fields["due_date"].status == Status.NEEDS_REVIEW
    assert got.fields["due_date"].reasons[0].startswith("low OCR confidence (0.30) on 'Mar': ")


def test_a_name_is_judged_by_its_line_not_its_least_sure_word() -> None:
    read = ocr_words(SLIP, 0.87, {"B.V.": 0.3})
    quote = "Brouwer Analytics B.V."
    got = verify_invoice(read, {"seller.name": leaf(quote, quote, 1)}).fields["seller.name"]
    assert got.status == Status.VERIFIED
    assert "read by OCR (confidence 0.87)" in got.reasons


def test_ocr_noise_never_forgives_a_digit() -> None:
    noisy = TEXT.replace("19.953,80", "19.958,80")
    got = verify_invoice(
        ocr_like(noisy, 0.95),
        {"total": leaf({"value": 19953.8, "currency": "EUR"}, "Total due 19.953,80 EUR", 3)},
    )
    assert got.fields["total"].status == Status.UNSUPPORTED
