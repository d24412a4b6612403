"""Write the fictional sample PDFs and the extraction each one should yield.

Run ``python -m samples.make_samples [--out DIR]`` from the repository root. For every sample it
writes ``<name>.pdf`` and ``<name>.expected.json`` (field path -> ``{"value", "quote"}``), then
reads the PDF back with PyMuPDF and fails loudly when an expected quote is not in the extracted
text, or when a quote meant to sit on one rendered line does not. Everything is fixed content
with fixed metadata, so the output is reproducible.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pymupdf

from samples.pdf_kit import SampleError, collapse
from samples.sample_contract import build_contract
from samples.sample_cv import build_cv
from samples.sample_invoice import build_invoice

__all__ = ["SAMPLES", "SampleError", "check_pdf", "main", "write_samples"]

SAMPLES = ("cv", "invoice", "contract")
"""Sample names; each gives ``<name>.pdf`` and ``<name>.expected.json``."""


# --------------------------------------------------------------------------------------------
# Checking and writing


def _page_lines(doc: pymupdf.Document) -> list[str]:
    lines = []
    for page in doc:
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                lines.append(collapse("".join(span["text"] for span in line["spans"])))
    return lines


def check_pdf(
    pdf: Path, expected: dict[str, dict[str, Any]], multiline: Iterable[str] = ()
) -> None:
    """Fail unless every expected quote is in the PDF's text; single-line quotes on one line.

    ``multiline`` names the paths whose quote may wrap (a paragraph, an address block); every
    other quote must be found inside one extracted line.
    """
    wrapped = set(multiline)
    with pymupdf.open(pdf) as doc:
        text = collapse(" ".join(page.get_text("text") for page in doc))
        lines = _page_lines(doc)
    problems = []
    for path, entry in expected.items():
        quote = collapse(entry["quote"])
        if not quote:
            problems.append(f"{path}: empty quote")
        elif quote not in text:
            problems.append(f"{path}: quote {quote!r} not in the PDF text")
        elif path not in wrapped and not any(quote in line for line in lines):
            problems.append(f"{path}: quote {quote!r} is split across rendered lines")
        elif path in wrapped and any(quote in line for line in lines):
            problems.append(f"{path}: quote {quote!r} fits one line; drop it from multiline")
    if problems:
        raise SampleError(f"{pdf.name}:\n  " + "\n  ".join(problems))


_BUILDERS = {"cv": build_cv, "invoice": build_invoice, "contract": build_contract}


def write_samples(out_dir: Path) -> list[Path]:
    """Write every sample PDF and expected file into ``out_dir``, check them, return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SAMPLES:
        doc, ex = _BUILDERS[name]()
        pdf = out_dir / f"{name}.pdf"
        doc.subset_fonts()
        doc.save(pdf, garbage=4, deflate=True, no_new_id=True)
        doc.close()
        check_pdf(pdf, ex.fields, ex.multiline)
        expected = out_dir / f"{name}.expected.json"
        expected.write_text(
            json.dumps(ex.fields, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written += [pdf, expected]
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m samples.make_samples", description=__doc__)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="output directory (default: the samples/ folder)",
    )
    args = parser.parse_args(argv)
    for path in write_samples(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
