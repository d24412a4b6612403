"""Invoices scanned: the invoice2data PDFs rendered as images and read by OCR, and a careful
model's total and date judged by the words that print them, beside their whole lines.

    .venv/bin/python -m bench.invoice_scans [--dpi 150] [--ocr auto]

Over ``shared/eval/invoice2data`` (``pdfs/<name>.pdf``, ``expected_json/<name>.json``; skipped
with a message when absent): each invoice's first page rendered at ``--dpi`` (75 reads like a
poor fax, 150 like an office scan) and read by ``OcrParser(engine=--ocr)``. For the expected
``amount`` and ``date``, a careful model quotes the first OCR line that prints them (a number
equal to the amount; the date in either day/month order) with the true value, then with a
wrong one (the amount plus 1, the next day), through the real verification, with a plain
schema ``{total_amount: number, invoice_date: date}``; once with values read from figures
judged by their own words (what evidex does, :mod:`evidex.extractors.verify.confidence`) and
once by their lines' confidence (``FIGURES`` emptied). None of these documents was looked at
while the word confidence was built: a check that it carries over.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pymupdf

from bench.common import eval_dir
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.ocr import OcrParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify import confidence
from evidex.extractors.verify.readings import dates_in, numbers_in
from evidex.schemas import schema_from_json

mu: Any = pymupdf
SCHEMA = schema_from_json(
    {
        "type": "object",
        "properties": {
            "total_amount": {"type": "number"},
            "invoice_date": {"type": "string", "format": "date"},
        },
    }
)
Case = tuple[str, Any, Any, dict[str, Any]]  # field, true value, wrong value, quoted line


def cases(doc: ParsedDocument, expected: dict[str, Any]) -> list[Case]:
    rows: list[dict[str, Any]] = [
        {str(k): v for k, v in r.items()} for r in doc.lines.to_dict("records")
    ]
    out: list[Case] = []
    if expected.get("amount") is not None:
        want = Decimal(str(expected["amount"]))
        near = (
            r for r in rows if any(abs(n - want) < Decimal("0.005") for n in numbers_in(r["text"]))
        )
        row = next(near, None)
        if row is not None:
            true, wrong = {"value": float(want), "currency": None}, float(want + 1)
            out.append(("total_amount", true, {"value": wrong, "currency": None}, row))
    if expected.get("date"):
        day = dt.date.fromisoformat(expected["date"])
        dated = (r for r in rows if day in dates_in(r["text"], "dmy") | dates_in(r["text"], "mdy"))
        row = next(dated, None)
        if row is not None:
            iso, after = day.isoformat(), (day + dt.timedelta(days=1)).isoformat()
            out.append(
                (
                    "invoice_date",
                    {"iso": iso, "original": iso},
                    {"iso": after, "original": after},
                    row,
                )
            )
    return out


def verified(doc: ParsedDocument, path: str, value: Any, row: dict[str, Any]) -> tuple[bool, str]:
    line = int(row["line"])
    leaf = {"value": value, "quote": row["text"], "page": 1, "line_start": line, "line_end": line}
    got = extract_parsed(doc, SCHEMA, llm=ScriptedLLM(build_answer(SCHEMA, {path: leaf})))
    field = got.fields[path]
    ocr = [r for r in field.reasons if "OCR confidence" in r or "read by OCR" in r]
    return field.status.value == "verified", ocr[0] if ocr else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--ocr", default="auto")
    args = ap.parse_args()
    root = eval_dir()
    if root is None or not (root / "invoice2data" / "pdfs").is_dir():
        print("shared/eval/invoice2data is not here (set EVIDEX_EVAL_DIR): skipped")
        return
    figures = confidence.FIGURES
    # per mode: true values verified, true values, wrong values verified, wrong values
    tally = {mode: [0, 0, 0, 0] for mode in ("words", "lines")}
    for pdf in sorted((root / "invoice2data" / "pdfs").glob("*.pdf")):
        name = root / "invoice2data" / "expected_json" / f"{pdf.stem}.json"
        expected = json.loads(name.read_text(encoding="utf-8"))[0]
        with mu.open(pdf) as source:
            png = source[0].get_pixmap(dpi=args.dpi).tobytes("png")
        doc = OcrParser(engine=args.ocr).parse(png, f"{pdf.stem}.png")
        for mode in tally:
            confidence.FIGURES = figures if mode == "words" else frozenset()
            for path, true, wrong, row in cases(doc, expected):
                ok, why = verified(doc, path, true, row)
                bad, _ = verified(doc, path, wrong, row)
                counts = [int(ok), 1, int(bad), 1]
                tally[mode] = [a + b for a, b in zip(tally[mode], counts, strict=True)]
                if mode == "words":
                    print(f"  {pdf.stem:24} {path:13} {row['text']!r}: {why}")
        confidence.FIGURES = figures
    print(f"\n{args.ocr} at {args.dpi} dpi: careful model's total and date")
    for mode, (right, n, wrong_ok, m) in tally.items():
        print(f"  judged by {mode:5}: true verified {right}/{n}, wrong verified {wrong_ok}/{m}")


if __name__ == "__main__":
    main()
