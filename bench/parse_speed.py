"""Parse time per page (evidex's line table vs raw PyMuPDF ``get_text("dict")``, same files, same
run) and verification time per field, on the samples and on ``shared/eval`` when present; the
table rows found on the invoices and CUAD contracts; the peak memory of parsing a generated
500-page PDF.

    .venv/bin/python -m bench.parse_speed [--tables words|layout|off] [--rows-layout]

``--tables``: the parser's table mode for the timings (default ``words``, the parser's default).
``--rows-layout``: also count table rows with the layout model (slow: minutes on CUAD).
The memory figure is the peak RSS of a fresh process that parses the file (``ru_maxrss``),
beside the same process's RSS before parsing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pymupdf

from bench.common import SAMPLES, best_of, eval_dir
from evidex.extractors.errors import DocumentError
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import TABLE_MODES, PyMuPDFParser
from evidex.extractors.verify.align import DocText
from evidex.extractors.verify.fields import verify
from evidex.schemas import get_schema

FAMILY_SCHEMA = {
    "samples": None,
    "kleister_nda": "contract",
    "cuad": "contract",
    "invoice2data": "invoice",
    "rendercv_cv": "candidate_profile",
}
SAMPLE_SCHEMA = {
    "cv.pdf": "candidate_profile",
    "invoice.pdf": "invoice",
    "contract.pdf": "contract",
}


def raw_dict(data: bytes) -> None:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            page.get_text("dict")


def families() -> list[tuple[str, list[Path]]]:
    out = [("samples", sorted(SAMPLES.glob("*.pdf")))]
    root = eval_dir()
    if root is not None:
        for name in ("kleister_nda", "cuad", "invoice2data", "rendercv_cv"):
            out.append((name, sorted((root / name / "pdfs").glob("*.pdf"))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="words", choices=TABLE_MODES)
    ap.add_argument("--rows-layout", action="store_true", help="count rows with the model too")
    args = ap.parse_args()
    parser, rules = PyMuPDFParser(tables=args.tables), RulesBackend()
    print(f"tables={args.tables}; best of 3 wall times per document, same files, same run")
    print(
        f"{'family':14} {'docs':>4} {'pages':>5} {'evidex ms/page':>15} {'raw dict ms/page':>17}"
        f" {'ratio':>6} {'fields':>7} {'verify ms/field':>16}"
    )
    both = [0, 0.0, 0.0]  # pages, ours, raw over kleister_nda + invoice2data
    for family, files in families():
        pages = 0
        ours = raw = verify_s = 0.0
        fields = 0
        docs = 0
        for path in files:
            data = path.read_bytes()
            try:
                parsed = parser.parse(data, path.name)
            except DocumentError:
                continue
            docs += 1
            pages += parsed.page_count
            ours += best_of(lambda d=data, n=path.name: parser.parse(d, n))
            raw += best_of(lambda d=data: raw_dict(d))
            schema = get_schema(FAMILY_SCHEMA[family] or SAMPLE_SCHEMA.get(path.name, "contract"))
            output = rules.complete(LLMRequest("", "", schema, parsed)).output
            start = time.perf_counter()
            checked = verify(schema, output, parsed.lines, DocText(parsed.lines))
            verify_s += time.perf_counter() - start
            fields += len(checked.fields)
        if not pages:
            continue
        if family in ("kleister_nda", "invoice2data"):
            both = [both[0] + pages, both[1] + ours, both[2] + raw]
        print(
            f"{family:14} {docs:4d} {pages:5d} {ours / pages * 1000:15.2f} "
            f"{raw / pages * 1000:17.2f} {ours / raw:6.2f} {fields:7d} "
            f"{verify_s / max(fields, 1) * 1000:16.3f}"
        )
    if both[0]:
        pages, ours, raw = both
        print(
            f"{'nda+invoices':14} {'':4} {int(pages):5d} {ours / pages * 1000:15.2f} "
            f"{raw / pages * 1000:17.2f} {ours / raw:6.2f}   (target: ratio <= 2)"
        )
    else:
        print("(shared/eval not found: samples only; set EVIDEX_EVAL_DIR to include it)")
    table_rows(["words", "layout"] if args.rows_layout else ["words"])
    memory(500)


def table_rows(modes: list[str]) -> None:
    """Table rows (lines with ``table >= 0``) and tables found per family, per table mode."""
    root = eval_dir()
    if root is None:
        return
    print(f"\n{'table rows':14} " + " ".join(f"{m + ' tables/rows':>20}" for m in modes))
    for family in ("invoice2data", "cuad"):
        cells = []
        for mode in modes:
            parser, tables, rows = PyMuPDFParser(tables=mode), 0, 0
            for path in sorted((root / family / "pdfs").glob("*.pdf")):
                try:
                    lines = parser.parse(path.read_bytes(), path.name).lines
                except DocumentError:
                    continue
                tables += int(lines["table"].max() + 1) if len(lines) else 0
                rows += int((lines["table"] >= 0).sum())
            cells.append(f"{tables:>9}/{rows:<10}")
        print(f"{family:14} " + " ".join(f"{c:>20}" for c in cells))


def generated_pdf(pages: int) -> bytes:
    """``pages`` pages of numbered prose with a small priced table on every page."""
    mu: Any = pymupdf
    doc = mu.open()
    words = ["the", "supplier", "shall", "deliver", "goods", "within", "thirty", "days", "of"]
    for n in range(pages):
        page = doc.new_page(width=595, height=842)
        y = 60.0
        for i in range(40):
            text = " ".join(words[(i + k + n) % len(words)] for k in range(14))
            page.insert_text((56, y), f"{n + 1}.{i + 1} {text}", fontsize=9)
            y += 13
        for r in range(6):
            for x, cell in (
                (56, f"Item {r}"),
                (300, f"{r + 1}"),
                (380, "pcs"),
                (480, f"{r * 9.5:.2f}"),
            ):
                page.insert_text((x, y + 14 * r), cell, fontsize=9)
    data: bytes = doc.tobytes(garbage=1)
    return data


_CHILD = """
import json, resource, sys
from evidex.extractors.parse.pymupdf_parser import TABLE_MODES, PyMuPDFParser
data = open(sys.argv[1], "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
lines = PyMuPDFParser().parse(data, "generated.pdf").lines
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"before": before / 1024, "peak": peak / 1024, "lines": len(lines)}))
"""


def memory(pages: int) -> None:
    """Peak RSS (MB) of a fresh process parsing a generated ``pages``-page PDF."""
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(generated_pdf(pages))
        f.flush()
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, f.name], capture_output=True, text=True, check=True
        )
    got = json.loads(out.stdout)
    print(
        f"\nmemory: {pages}-page generated PDF, {got['lines']} lines: peak RSS "
        f"{got['peak']:.0f} MB (process before parsing {got['before']:.0f} MB; target <= 500 MB)"
    )


if __name__ == "__main__":
    main()
