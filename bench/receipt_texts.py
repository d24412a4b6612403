"""Receipts from anywhere, as text: what the rules backend verifies of their merchant, date and
total, right and wrong.

    .venv/bin/python -m bench.receipt_texts DIR [--image DPI] [--show]

``DIR`` holds one ``<name>.txt`` per receipt (its lines as printed or as an OCR engine read
them) and ``keys.json``: ``{"<name>": {"merchant": str|null, "total": "12.34"|null, "date":
"YYYY-MM-DD"|null}}``. Each receipt is set as a text-layer PDF (one line of DejaVu Sans per
line, so "€" and "¥" survive) and read with the default parser and the rules backend, schema
``{merchant: string, date: date, total: number}``; with ``--image``, the page is rendered at
that resolution and read from the PNG by OCR instead (a clean scan: what the OCR path makes of
words in other languages). Per field: right values verified or sent to
review, wrong values verified or sent to review, keys not found, values answered where the key
has none. A merchant is right when its letters and digits hold the key's or the key's hold
its; a total when its figure is the key's; a date when its ISO date is the key's.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pymupdf

from evidex.extractors.backends import make_parser
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.pipeline import extract
from evidex.schemas import FieldResult, schema_from_json

mu: Any = pymupdf
FIELDS = ("merchant", "date", "total")
SCHEMA = schema_from_json(
    {
        "type": "object",
        "properties": {
            "merchant": {"type": "string"},
            "date": {"type": "string", "format": "date"},
            "total": {"type": "number"},
        },
    },
    name="receipt_texts",
)
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def as_pdf(lines: list[str], out: Path) -> Path:
    """``lines`` set one under another on a narrow page, as a till prints them."""
    doc = mu.open()
    page = doc.new_page(width=320, height=max(300, 12 * len(lines) + 60))
    font = {"fontname": "dv", "fontfile": str(FONT)} if FONT.is_file() else {}
    for n, text in enumerate(lines):
        page.insert_text((10, 30 + 12 * n), text, fontsize=7, **font)
    doc.save(out)
    return out


def _value(field: FieldResult) -> Any:
    value = field.value
    return (value.get("iso") or value.get("value")) if isinstance(value, dict) else value


def _fold(text: Any) -> str:
    return re.sub(r"[^0-9a-z]", "", str(text).lower())


def right(name: str, got: Any, key: str) -> bool:
    if name == "merchant":
        return bool(_fold(got)) and (_fold(got) in _fold(key) or _fold(key) in _fold(got))
    if name == "total":
        try:
            return abs(float(got) - float(key)) < 0.005
        except (TypeError, ValueError):
            return False
    return str(got) == key


def run(folder: Path, show: bool, image_dpi: int = 0) -> Counter[tuple[str, str]]:
    keys = json.loads((folder / "keys.json").read_text(encoding="utf-8"))
    parser = make_parser("auto")
    tally: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory() as scratch:
        for name, key in keys.items():
            lines = (folder / f"{name}.txt").read_text(encoding="utf-8").splitlines()
            page = as_pdf(lines, Path(scratch) / f"{name}.pdf")
            if image_dpi:
                png = page.with_suffix(".png")
                mu.open(page)[0].get_pixmap(dpi=image_dpi).save(png)
                page = png
            fields = extract(page, SCHEMA, parser=parser, llm=RulesBackend()).fields
            for field in FIELDS:
                got, want, status = _value(fields[field]), key.get(field), fields[field].status
                if got is None or status.value == "not_found":
                    outcome = "not found" if want else "not found, no key"
                elif not want:
                    outcome = f"{status.value}, no key"
                else:
                    outcome = f"{'right' if right(field, got, want) else 'wrong'} {status.value}"
                tally[(field, outcome)] += 1
                if show and outcome.startswith("wrong verified"):
                    print(f"  {name} {field}: {got!r} (key {want!r})")
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--image", type=int, default=0, metavar="DPI", help="read a rendered scan")
    ap.add_argument("--show", action="store_true", help="list the wrong values verified")
    args = ap.parse_args()
    tally = run(args.folder, args.show, args.image)
    outcomes = sorted({o for _, o in tally})
    print(f"{'':9}" + "".join(f"{o:>22}" for o in outcomes))
    for field in FIELDS:
        print(f"{field:9}" + "".join(f"{tally[(field, o)]:>22}" for o in outcomes))


if __name__ == "__main__":
    main()
