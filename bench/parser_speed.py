"""Parse time per page of each parser, on the samples and on a 100-page document.

    PYTHONPATH=. .venv/bin/python -m bench.parser_speed [--repeat 3] [--ocr-repeat 1]

Parsers: ``pymupdf`` (text layer, tables off), ``pymupdf+tables`` (the default: PyMuPDF's
``find_tables`` on pages whose text looks tabular), ``ocr`` (``OcrParser(force=True)``: every page
rendered at 300 dpi and read by Tesseract, one process per CPU), ``auto`` (text layer where a page
has one, local OCR elsewhere). Azure is left out: no service is reachable here.

Documents: the three samples (5 digital pages); the same pages scanned (rasterised at 200 dpi into
an image-only PDF); 100 digital pages taken in order from ``shared/eval`` (or the samples repeated
when it is absent); and those 100 pages with every tenth one scanned, where ``auto`` OCRs 10 pages.
Each figure is the best of ``--repeat`` runs (``--ocr-repeat`` for runs that OCR 100 pages).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pymupdf

from bench.common import SAMPLES, best_of, eval_dir
from evidex.extractors.document import Parser
from evidex.extractors.errors import NoTextLayer
from evidex.extractors.parse.auto import AutoParser
from evidex.extractors.parse.ocr import OcrParser
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser

mu: Any = pymupdf
SAMPLE_FILES = ("cv.pdf", "invoice.pdf", "contract.pdf")
PARSERS: dict[str, Callable[[], Parser]] = {
    "pymupdf": lambda: PyMuPDFParser(tables=False),
    "pymupdf+tables": PyMuPDFParser,
    "ocr": lambda: OcrParser(force=True),
    "auto": AutoParser,
}


def concatenate(files: list[bytes], pages: int | None = None) -> bytes:
    out = mu.open()
    for data in files:
        with mu.open(stream=data, filetype="pdf") as doc:
            room = doc.page_count if pages is None else min(doc.page_count, pages - out.page_count)
            if room > 0:
                out.insert_pdf(doc, to_page=room - 1)
        if pages is not None and out.page_count >= pages:
            break
    data_out: bytes = out.tobytes(garbage=1)
    return data_out


def scan(data: bytes, every: int = 1, dpi: int = 200) -> bytes:
    """``data`` with every ``every``-th page (1st, 1+every-th, ...) replaced by its image."""
    src, out = mu.open(stream=data, filetype="pdf"), mu.open()
    for number, page in enumerate(src):
        if number % every:
            out.insert_pdf(src, from_page=number, to_page=number)
            continue
        sheet = out.new_page(width=page.rect.width, height=page.rect.height)
        sheet.insert_image(sheet.rect, pixmap=page.get_pixmap(dpi=dpi))
    scanned: bytes = out.tobytes(garbage=1)
    return scanned


def hundred_pages() -> tuple[str, bytes]:
    root = eval_dir()
    if root is not None:
        files = sorted(root.glob("*/pdfs/*.pdf"))
        return "shared/eval", concatenate([f.read_bytes() for f in files], pages=100)
    samples = [(SAMPLES / n).read_bytes() for n in SAMPLE_FILES] * 20
    return "samples repeated", concatenate(samples, pages=100)


def page_count(data: bytes) -> int:
    with mu.open(stream=data, filetype="pdf") as doc:
        count: int = doc.page_count
    return count


def _runner(parser: Parser, data: bytes) -> Callable[[], object]:
    return lambda: parser.parse(data, "bench.pdf")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (best is shown)")
    ap.add_argument("--ocr-repeat", type=int, default=1, help="runs when 100 pages are OCRed")
    args = ap.parse_args()

    samples = concatenate([(SAMPLES / n).read_bytes() for n in SAMPLE_FILES])
    source, big = hundred_pages()
    documents = [
        ("samples (digital)", samples),
        ("samples (scanned)", scan(samples)),
        (f"100 pages ({source})", big),
        ("100 pages, 10 scanned", scan(big, every=10)),
    ]
    tesseract = subprocess.run(["tesseract", "--version"], capture_output=True, text=True)
    version = (tesseract.stdout or tesseract.stderr).splitlines()[0]
    print(f"{version}; PyMuPDF {mu.VersionBind}; {os.cpu_count()} CPUs; best of N runs")
    PyMuPDFParser().parse(samples, "warm-up.pdf")  # loads the layout model once
    names = list(PARSERS)
    print(f"{'document':28} {'pages':>5} " + " ".join(f"{n + ' ms/p':>20}" for n in names))
    for label, data in documents:
        pages = page_count(data)
        cells = []
        for name in names:
            parser = PARSERS[name]()
            repeat = args.ocr_repeat if pages > 20 and name in ("ocr", "auto") else args.repeat
            try:
                seconds = best_of(_runner(parser, data), repeat)
            except NoTextLayer:
                cells.append("no text layer")
                continue
            cells.append(f"{seconds / pages * 1000:15.1f} (N={repeat})")
        print(f"{label:28} {pages:5d} " + " ".join(f"{c:>20}" for c in cells))


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
