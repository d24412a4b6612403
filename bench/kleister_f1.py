"""The rules backend on Kleister-NDA (``shared/eval/kleister_nda``) with the upstream metric,
beside the upstream baseline's own output for the same documents.

Metric (upstream ``config.txt``: ``MultiLabel-F1:uN<F1(UC)>``): F1 over upper-cased
``key=value`` labels, counts summed over all documents. Values use the upstream normalisation:
spaces become ``_``, dates ``YYYY-MM-DD``, terms ``3_years`` (``1_year``), party names without
commas (upstream writes ``JDA_SOFTWARE_GROUP_INC.`` for "JDA Software Group, Inc."). A
per-key table (the upstream ``date``/``party``/``juris``/``term`` metrics) follows the overall
one.

    .venv/bin/python -m bench.kleister_f1
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from typing import Any

from bench.common import eval_dir
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parsers.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract
from evidex.schemas import Result, Status, get_schema


def norm(value: str) -> str:
    return re.sub(r"\s+", "_", value.strip()).upper()


def jurisdiction(text: str) -> str:
    text = re.sub(r"^(the\s+)?(state|commonwealth)\s+of\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[.,;]+$", "", text)


def labels(result: Result, verified_only: bool) -> Counter[str]:
    out: Counter[str] = Counter()

    def value(path: str) -> Any:
        field = result.fields.get(path)
        if field is None or field.status in (Status.NOT_FOUND, Status.UNSUPPORTED):
            return None
        if verified_only and field.status != Status.VERIFIED:
            return None
        return field.value

    date = value("effective_date")
    if date:
        out[f"EFFECTIVE_DATE={date['iso']}"] += 1
    law = value("governing_law")
    if law:
        out[f"JURISDICTION={norm(jurisdiction(law))}"] += 1
    term = value("term")
    if term:
        amount, unit = int(term["amount"]), term["unit"]
        out[f"TERM={amount}_{unit[:-1] if amount == 1 else unit}".upper()] += 1
    i = 0
    while f"parties[{i}].name" in result.fields:
        name = value(f"parties[{i}].name")
        if name:
            out[f"PARTY={norm(name.replace(',', ''))}"] += 1
        i += 1
    return out


def f1(pairs: list[tuple[Counter[str], Counter[str]]]) -> tuple[float, float, float]:
    tp = fp = fn = 0
    for predicted, expected in pairs:
        hit = sum((predicted & expected).values())
        tp += hit
        fp += sum(predicted.values()) - hit
        fn += sum(expected.values()) - hit
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


KEYS = ("EFFECTIVE_DATE", "PARTY", "JURISDICTION", "TERM")


Pairs = list[tuple[Counter[str], Counter[str]]]


def only(key: str, pairs: Pairs) -> Pairs:
    """The pairs restricted to one key's labels."""

    def keep(labels: Counter[str]) -> Counter[str]:
        return Counter({k: n for k, n in labels.items() if k.startswith(key + "=")})

    return [(keep(p), keep(e)) for p, e in pairs]


def counts(pairs: Pairs) -> tuple[int, int, int]:
    tp = sum(sum((p & e).values()) for p, e in pairs)
    return (
        tp,
        sum(sum(p.values()) for p, _ in pairs) - tp,
        sum(sum(e.values()) for _, e in pairs) - tp,
    )


def tsv_labels(line: str) -> Counter[str]:
    return Counter(norm(item) for item in line.split() if "=" in item)


def main() -> int:
    root = eval_dir()
    if root is None:
        print("shared/eval not found; set EVIDEX_EVAL_DIR")
        return 0
    folder = root / "kleister_nda"
    rows = [json.loads(line) for line in (folder / "ground_truth.jsonl").read_text().splitlines()]
    expected = [
        tsv_labels(line) for line in (folder / "expected_subset.tsv").read_text().splitlines()
    ]
    baseline = [
        tsv_labels(line)
        for line in (folder / "baseline_branch_out_subset.tsv").read_text().splitlines()
    ]
    parser, llm, schema = PyMuPDFParser(), RulesBackend(), get_schema("contract")
    ours_all, ours_verified = [], []
    for row, truth in zip(rows, expected, strict=True):
        result = extract(folder / "pdfs" / row["pdf"], schema, parser=parser, llm=llm)
        ours_all.append((labels(result, False), truth))
        ours_verified.append((labels(result, True), truth))
    base = list(zip(baseline, expected, strict=True))
    print(
        f"Kleister-NDA dev-0 subset: {len(rows)} documents, "
        f"{sum(sum(t.values()) for t in expected)} expected labels"
    )
    print(f"{'system':34} {'P':>6} {'R':>6} {'F1':>6}")
    for name, pairs in (
        ("upstream baseline (branch out)", base),
        ("evidex rules, all found values", ours_all),
        ("evidex rules, verified values only", ours_verified),
    ):
        p, r, f = f1(pairs)
        print(f"{name:34} {p * 100:6.2f} {r * 100:6.2f} {f * 100:6.2f}")
    print()
    head = f"{'per key':16} {'baseline P/R/F1':>20}   {'evidex rules (all) P/R/F1':>26}"
    print(f"{head} {'tp/fp/fn':>11}")
    for key in KEYS:
        bp, br, bf = f1(only(key, base))
        p, r, f = f1(only(key, ours_all))
        tp, fp, fn = counts(only(key, ours_all))
        print(
            f"{key:16} {bp * 100:6.2f} {br * 100:6.2f} {bf * 100:6.2f}   "
            f"{p * 100:8.2f} {r * 100:8.2f} {f * 100:8.2f}   {tp:3d}/{fp:2d}/{fn:2d}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
