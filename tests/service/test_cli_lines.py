"""``evidex lines``: the line table as the model sees it, through the real command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from sample_answers import SAMPLES

from evidex.extractors.parse.ocr import find_tessdata
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.plan.prompt import render_lines

INVOICE = SAMPLES / "invoice.pdf"
mu: Any = pymupdf


def lines(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evidex.service.cli", "lines", *map(str, argv)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_tsv_is_the_prompts_numbered_lines_with_confidence_and_source() -> None:
    done = lines(INVOICE)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.rstrip("\n").split("\n")
    assert header == "line\tpage\tline_in_page\ttext\tconfidence\tsource"
    table = PyMuPDFParser().parse(INVOICE.read_bytes(), INVOICE.name).lines
    prompt = render_lines(table).split("\n")
    assert [r.rsplit("\t", 2)[0] for r in rows] == prompt  # exactly what the model is sent
    assert all(r.endswith("\t\tpymupdf") for r in rows)  # a text layer: no OCR confidence


def test_jsonl_rows_carry_line_page_line_in_page_text_and_confidence(tmp_path: Path) -> None:
    two = tmp_path / "two.pdf"
    with mu.open(stream=INVOICE.read_bytes(), filetype="pdf") as doc:
        doc.insert_pdf(mu.open(stream=INVOICE.read_bytes(), filetype="pdf"))
        doc.save(two)
    done = lines(two, "--pages", "2", "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(r) for r in done.stdout.splitlines()]
    per_page = len(PyMuPDFParser().parse(INVOICE.read_bytes(), "i.pdf").lines)
    assert [r["line"] for r in rows] == list(range(per_page + 1, 2 * per_page + 1))  # kept
    assert {r["page"] for r in rows} == {2} and rows[0]["line_in_page"] == 1
    assert set(rows[0]) == {"line", "page", "line_in_page", "text", "confidence", "source", "words"}
    assert rows[0]["confidence"] is None and rows[0]["words"] is None  # a text layer


@pytest.mark.skipif(
    shutil.which("tesseract") is None or find_tessdata() is None,
    reason="Tesseract with English language data is not installed",
)
def test_a_photo_read_by_the_chosen_engine_shows_its_ocr_confidence(tmp_path: Path) -> None:
    photo = tmp_path / "invoice.png"
    with mu.open(stream=INVOICE.read_bytes(), filetype="pdf") as doc:
        photo.write_bytes(doc[0].get_pixmap(dpi=150).tobytes("png"))
    done = lines(photo, "--ocr", "tesseract", "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(r) for r in done.stdout.splitlines()]
    number = next(r for r in rows if r["text"] == "INV-2026-00418")
    assert number["source"] == "ocr" and 0.0 <= number["confidence"] <= 1.0
    (word,) = number["words"]  # each word with its own confidence
    assert word["text"] == "INV-2026-00418" and 0.0 <= word["confidence"] <= 1.0


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cut = tmp_path / "cut.png"
    cut.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 40)
    done = lines(cut)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("evidex: pdf_corrupt: cut.png: the PNG image is damaged")
    unknown = lines(INVOICE, "--ocr", "easyocr")
    assert unknown.returncode == 2 and "invalid choice: 'easyocr'" in unknown.stderr
