"""The offline rules backend on CUAD's commercial contracts: parties, governing law and the
agreement's date against the answers CUAD's annotators wrote, with the built-in ``contract``
schema.

    EVIDEX_EVAL_DIR=../shared/eval .venv/bin/python -m bench.cuad_fields [--show]

These 40 contracts (service, consulting, outsourcing, hosting, licence, distributor …) were used
beside ``kleister_nda`` while writing the party, law and date rules, so they are a second
tuned-on set, not a held-out one (``bench.kleister_f1`` reports the held-out NDAs).

Scoring, per contract, as sets of upper-cased values with spaces as ``_``:
- parties: each ``;``-separated name of CUAD's ``Parties`` answer, cut before its role
  parenthesis and before "d/b/a", "together with", "on behalf of"; commas and full stops
  dropped on both sides;
- governing law: CUAD's ``Governing Law`` up to its first comma ("British Columbia, Canada"
  counts as "British Columbia"), without "the State of";
- date: CUAD's ``Effective Date`` answer, else its ``Agreement Date``, when it is a whole
  ``M/D/YY`` date (answers with blanks, ``[]/[]/2020``, are not counted).
``--show`` prints each contract's misses and extras.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from bench.common import eval_dir
from bench.kleister_f1 import Timing, jurisdiction, labels, norm, parsed, run
from evidex.schemas import get_schema

_CUT = re.compile(
    r"\s*\(|\s+d/b/a\s|\s+together\s+with\s|\s+and\s+all\s+of\s|\s+on\s+behalf\s+of\s"
    r"|\s+operating\s+with\s"
)
_MDY = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{2})")


def _bare(value: str) -> str:
    return norm(value.replace(",", "").replace(".", ""))


def party_truth(answer: str) -> set[str]:
    names = set()
    for part in answer.split(";"):
        name = _CUT.split(part.strip())[0].strip(" ,")
        if name and not name.lower().startswith(("each ", "company and", "the parties")):
            names.add(_bare(name))
    return names


def law_truth(answer: str) -> set[str]:
    return {norm(jurisdiction(answer.split(",")[0]))} if answer.strip() else set()


def date_truth(fields: dict[str, Any]) -> set[str]:
    answer = (fields.get("Effective Date") or {}).get("answer") or (
        fields.get("Agreement Date") or {}
    ).get("answer")
    m = _MDY.fullmatch((answer or "").strip())
    if m is None:
        return set()
    month, day, yy = int(m[1]), int(m[2]), int(m[3])
    return {f"{2000 + yy if yy < 50 else 1900 + yy}-{month:02d}-{day:02d}"}


def predicted(found: list[str], key: str) -> set[str]:
    values = {label.split("=", 1)[1] for label in found if label.startswith(key + "=")}
    return {_bare(v) for v in values} if key == "PARTY" else values


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", action="store_true", help="print each contract's misses")
    args = ap.parse_args()
    root = eval_dir()
    if root is None or not (root / "cuad").is_dir():
        print("bench.cuad_fields: no shared/eval/cuad here (set EVIDEX_EVAL_DIR); nothing to run")
        return 0
    folder = root / "cuad"
    rows = [json.loads(line) for line in (folder / "ground_truth.jsonl").open()]
    files = [folder / "pdfs" / Path(row["local_pdf"]).name for row in rows]
    schema, timing = get_schema("contract"), Timing()
    counts = {key: [0, 0, 0] for key in ("PARTY", "JURISDICTION", "EFFECTIVE_DATE")}
    for row, doc in zip(rows, parsed(files, timing), strict=True):
        found = list(labels(run(doc, schema, timing), verified_only=False))
        fields = row["fields"]
        truths = {
            "PARTY": party_truth(fields["Parties"]["answer"]),
            "JURISDICTION": law_truth((fields.get("Governing Law") or {}).get("answer") or ""),
            "EFFECTIVE_DATE": date_truth(fields),
        }
        for key, truth in truths.items():
            got = predicted(found, key)
            tally = counts[key]
            tally[0] += len(got & truth)
            tally[1] += len(got - truth)
            tally[2] += len(truth - got)
            if args.show and got != truth:
                print(
                    f"{doc.filename[:36]:36} {key:14} missed {sorted(truth - got)}"
                    f" extra {sorted(got - truth)}"
                )
    print(f"CUAD, {len(rows)} contracts, rules backend, built-in contract schema (tuned on)")
    print(f"{'field':16} {'tp':>4} {'fp':>4} {'fn':>4} {'P':>6} {'R':>6} {'F1':>6}")
    for key, (tp, fp, fn) in counts.items():
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        print(f"{key:16} {tp:4} {fp:4} {fn:4} {100 * p:6.1f} {100 * r:6.1f} {100 * f:6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
