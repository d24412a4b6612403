"""``evidex lines FILE``: the line table exactly as the model will see it.

    evidex lines FILE [--parser auto|pymupdf|ocr|azure] [--ocr tesseract|rapidocr|auto]
                      [--tables words|layout|off] [--pages 1-3,5] [--format tsv|jsonl]

One row per line: ``line`` (the global number the model cites), ``page``, ``line_in_page``,
``text`` (as the prompt holds it: :func:`evidex.extractors.plan.prompt.render_lines`),
``confidence`` (the calibrated OCR confidence, empty / null for text read from a text layer)
and ``source`` (the parser that read it). TSV has a header row; JSONL one object per line with
those keys and ``words``: each word's ``text`` and calibrated ``confidence`` where the parser
gives one (OCR, Azure), else null, so a reviewer sees which word a "low OCR confidence on …"
reason names. So a person, or a script, can tell what OCR lost from what extraction missed
without importing evidex.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

__all__ = ["COLUMNS", "line_rows", "run_lines"]

COLUMNS = ("line", "page", "line_in_page", "text", "confidence", "source")


def line_rows(lines: Any) -> list[dict[str, Any]]:
    """The rows of a line table as ``evidex lines`` prints them."""
    from evidex.extractors.plan.prompt import render_lines

    rendered = render_lines(lines).split("\n") if len(lines) else []
    out = []
    for text_row, confidence, source, words in zip(
        rendered,
        lines["ocr_confidence"].tolist(),
        lines["source"].tolist(),
        _words(lines),
        strict=True,
    ):
        line, page, number, text = text_row.split("\t", 3)
        conf = float(confidence)
        out.append(
            {
                "line": int(line),
                "page": int(page),
                "line_in_page": int(number),
                "text": text,
                "confidence": None if math.isnan(conf) else round(conf, 3),
                "source": str(source),
                "words": words,
            }
        )
    return out


def _words(lines: Any) -> list[list[dict[str, Any]] | None]:
    """Per line, its words' text and confidence, or None where the parser gave none."""
    out: list[list[dict[str, Any]] | None] = []
    confidences = lines["word_confidence"] if "word_confidence" in lines else [()] * len(lines)
    for text, words, confs in zip(lines["text"], lines["words"], confidences, strict=True):
        if not len(confs) or len(confs) != len(words):
            out.append(None)
            continue
        out.append(
            [
                {"text": str(text)[w[0] : w[1]], "confidence": round(float(c), 3)}
                for w, c in zip(words, confs, strict=True)
            ]
        )
    return out


def run_lines(args: argparse.Namespace) -> int:
    from evidex.extractors.backends import make_parser
    from evidex.extractors.document import select_pages
    from evidex.extractors.settings import Settings
    from evidex.schemas import InputError

    path: Path = args.file
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    parser = make_parser(args.parser, Settings(), args.tables, args.ocr)
    document = parser.parse(path.read_bytes(), path.name)
    if args.pages:
        try:
            document = select_pages(document, args.pages)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    rows = line_rows(document.lines)
    out = sys.stdout
    if args.format == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        return 0
    out.write("\t".join(COLUMNS) + "\n")
    for row in rows:
        conf = "" if row["confidence"] is None else f"{row['confidence']:.3f}"
        cells = [str(row["line"]), str(row["page"]), str(row["line_in_page"]), row["text"], conf]
        out.write("\t".join([*cells, row["source"]]) + "\n")
    return 0
