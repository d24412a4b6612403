"""The pre-call gate on ``shared/eval``: false refusals on the right schema, refusals of mismatches.

    PYTHONPATH=. .venv/bin/python -m bench.gate [--show] [--threshold 0.13]

Every document is scored against its own schema (*right* pairs: NDAs with a plain NDA schema and
with ``contract``, CUAD contracts with ``contract`` and the plain NDA schema, invoices with
``invoice`` and a plain receipt schema, the CVs with ``candidate_profile``, the SROIE receipts
with a plain receipt schema and with ``invoice``; with the built-in ``receipt`` too, invoices
and receipts, where it exists) and against the schemas of the other families
(*mismatched* pairs: a CV sent as an invoice, a receipt as a contract ...). Printed per family:
the false-refusal rate on right pairs (the requirement is 0) and the refusal rate on mismatched
pairs. ``kleister_nda_train`` is the held-out family: the threshold was not chosen on it.

Receipts are read from SROIE's ``ocr_gold`` transcripts (the annotators' lines), not OCR, so the
figures measure the gate, not an OCR engine.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from bench.common import eval_dir
from evidex.extractors.document import make_lines
from evidex.extractors.gate import THRESHOLD, assess, profile
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.schemas import BUILTIN, SchemaDef, get_schema, schema_from_json
from tests.plain_schemas import NDA, plain

RECEIPT = plain(company="string", date="string", address="string", total="number")
PDF_FAMILIES = ("kleister_nda", "cuad", "invoice2data", "rendercv_cv", "kleister_nda_train")
HELD_OUT = "kleister_nda_train"


def schemas() -> dict[str, SchemaDef]:
    out = {name: get_schema(name) for name in BUILTIN}
    out["nda_plain"] = schema_from_json(NDA, name="nda_plain")
    out["receipt_plain"] = schema_from_json(RECEIPT, name="receipt_plain")
    return out


# family -> (its own schemas, the schemas of other families it is a clear mismatch for)
PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "kleister_nda": (("nda_plain", "contract"), ("invoice", "candidate_profile", "receipt_plain")),
    "kleister_nda_train": (
        ("nda_plain", "contract"),
        ("invoice", "candidate_profile", "receipt_plain"),
    ),
    "cuad": (("contract", "nda_plain"), ("invoice", "candidate_profile", "receipt_plain")),
    "invoice2data": (("invoice", "receipt_plain"), ("candidate_profile", "contract", "nda_plain")),
    "rendercv_cv": (
        ("candidate_profile",),
        ("invoice", "contract", "nda_plain", "receipt_plain"),
    ),
    "sroie": (("receipt_plain", "invoice"), ("candidate_profile", "contract", "nda_plain")),
}
if "receipt" in BUILTIN:  # the built-in receipt schema, where this version has it
    PAIRS = {
        family: (
            (*own, "receipt") if family in ("sroie", "invoice2data") else own,
            (*others, "receipt") if family in ("rendercv_cv", "cuad") else others,
        )
        for family, (own, others) in PAIRS.items()
    }


def gold_lines(path: Path) -> pd.DataFrame:
    """A receipt's line table from its ``ocr_gold`` transcript (``x1,y1,…,x4,y4,text``)."""
    rows = []
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        for cells in csv.reader(fh):
            if len(cells) < 9:
                continue
            text = ",".join(cells[8:]).strip()
            xs, ys = [float(c) for c in cells[0:8:2]], [float(c) for c in cells[1:8:2]]
            if text:
                rows.append(
                    {"page": 1, "text": text, "x0": min(xs), "y0": min(ys), "x1": max(xs),
                     "y1": max(ys), "font_size": 10.0, "visible": True, "hidden_reason": "",
                     "words": []}
                )  # fmt: skip
    return make_lines(rows, "ocr")


def documents(root: Path) -> Iterator[tuple[str, str, pd.DataFrame]]:
    """(family, file name, line table) for every document of the eval set."""
    parser = PyMuPDFParser()
    for family in PDF_FAMILIES:
        for path in sorted((root / family / "pdfs").glob("*.pdf")):
            yield family, path.name, parser.parse(path.read_bytes(), path.name).lines
    for path in sorted((root / "sroie" / "ocr_gold").glob("*.csv")):
        yield "sroie", path.name, gold_lines(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threshold", type=float, default=THRESHOLD)
    ap.add_argument("--show", action="store_true", help="print every refused right pair")
    args = ap.parse_args()
    root = eval_dir()
    if root is None:
        print("shared/eval not found (set EVIDEX_EVAL_DIR); nothing to measure")
        return
    named = schemas()
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # family -> [refused, pairs]
    wrong: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    lowest: dict[str, float] = {}
    for family, name, lines in documents(root):
        own, others = PAIRS[family]
        doc = profile(lines)
        for key in (*own, *others):
            report = assess(lines, named[key], BUILTIN, args.threshold, doc)
            tally = right if key in own else wrong
            tally[family][0] += report.refused
            tally[family][1] += 1
            if key in own and report.score is not None:
                lowest[family] = min(lowest.get(family, 1.0), report.score)
            if key in own and report.refused and args.show:
                print(f"  false refusal: {family}/{name} as {key}: {report.reason}")
    print(f"threshold {args.threshold:.2f}")
    print(f"{'family':20} {'right pairs':>11} {'false ref.':>10} {'lowest':>7}   "
          f"{'mismatched':>10} {'refused':>8}")  # fmt: skip
    for family in PAIRS:
        r, w = right[family], wrong[family]
        mark = "  (held out)" if family == HELD_OUT else ""
        print(
            f"{family:20} {r[1]:11d} {r[0] / max(r[1], 1):10.1%} {lowest.get(family, 0):7.2f}   "
            f"{w[1]:10d} {w[0] / max(w[1], 1):8.1%}{mark}"
        )
    tuned = [f for f in PAIRS if f != HELD_OUT]
    for label, fams in (("tuning set", tuned), ("held out", [HELD_OUT])):
        rr = sum(right[f][0] for f in fams), sum(right[f][1] for f in fams)
        ww = sum(wrong[f][0] for f in fams), sum(wrong[f][1] for f in fams)
        print(
            f"{label:20} false refusals {rr[0]}/{rr[1]} ({rr[0] / max(rr[1], 1):.1%}), "
            f"mismatches refused {ww[0]}/{ww[1]} ({ww[0] / max(ww[1], 1):.1%})"
        )


if __name__ == "__main__":
    main()
