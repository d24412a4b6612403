"""The offline rules backend on documents it was and was not tuned on, in one run.

Kleister-NDA, two disjoint folders of the same task: ``kleister_nda`` (40 NDAs of upstream
``dev-0``, the folder the rules were TUNED on) and ``kleister_nda_train`` (100 NDAs of upstream
``train``, NEVER looked at while writing rules: the figure that counts). Each is read with two
schemas naming the same facts: the built-in ``contract`` schema (typed: ``DateValue``,
``Duration``, a list of party objects) and a plain client schema (``party`` array of strings,
``jurisdiction``, ``term``, ``effective_date``, all ``{"type": "string"}`` without
``x-evidex-kind``), so the backend must map fields by meaning, not by its own field names.

Metric (upstream ``config.txt``: ``MultiLabel-F1:uN<F1(UC)>``): F1 over upper-cased
``key=value`` labels, counts summed over all documents, only for the keys a document asks
(``keys_asked``; an asked key absent from ``expected`` means "no value"). Values use the
upstream normalisation: spaces become ``_``, dates ``YYYY-MM-DD``, terms ``3_years``, party
names without commas.

Then the fields found and verified on ``invoice2data`` (``invoice`` schema) and
``rendercv_cv`` (``candidate_profile``), with how many verified values agree with a value of
the folder's ground truth files; and the rules backend's time per page beside the parse time
per page of the same documents in the same run.

    .venv/bin/python -m bench.kleister_f1
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dateparser
from text_to_num import alpha2digit

from bench.common import SAMPLES, eval_dir
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Result, SchemaDef, Status, get_schema, schema_from_json
from tests.plain_schemas import NDA

TUNED, REPORTED = "kleister_nda", "kleister_nda_train"
KEYS = ("EFFECTIVE_DATE", "PARTY", "JURISDICTION", "TERM")
ASKED = {"effective_date": "EFFECTIVE_DATE", "party": "PARTY", "jurisdiction": "JURISDICTION"}
ASKED["term"] = "TERM"

Labels = Counter[str]
Pairs = list[tuple[Labels, Labels]]


def norm(value: str) -> str:
    return re.sub(r"\s+", "_", value.strip()).upper()


def jurisdiction(text: str) -> str:
    text = re.sub(r"^(the\s+)?(state|commonwealth)\s+of\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[.,;]+$", "", text)


_TERM = re.compile(r"(?i)(\d+(?:\.\d+)?)\s*(day|week|month|year)s?")


def iso_date(value: Any) -> str | None:
    if isinstance(value, dict):
        return str(value["iso"])
    text = re.sub(r"(?i)(\d)(?:st|nd|rd|th)\b|\s+day\s+of\b", r"\1", str(value))
    parsed = dateparser.parse(text, languages=["en"], settings={"DATE_ORDER": "MDY"})
    return parsed.date().isoformat() if parsed else None


def term_label(value: Any) -> str | None:
    if isinstance(value, dict):
        amount, unit = float(value["amount"]), str(value["unit"]).rstrip("s")
    else:
        m = _TERM.search(alpha2digit(str(value).replace("-", " "), "en", threshold=0))
        if m is None:
            return None
        amount, unit = float(m[1]), m[2].lower()
    n = int(amount) if amount.is_integer() else amount
    return f"{n}_{unit}{'' if n == 1 else 's'}".upper()


def labels(result: Result, verified_only: bool) -> Labels:
    """Upstream labels from either schema's result."""
    out: Labels = Counter()

    def value(path: str) -> Any:
        got = result.fields.get(path)
        if got is None or got.status in (Status.NOT_FOUND, Status.UNSUPPORTED):
            return None
        if verified_only and got.status != Status.VERIFIED:
            return None
        return got.value

    date = value("effective_date")
    if date and (iso := iso_date(date)):
        out[f"EFFECTIVE_DATE={iso}"] += 1
    law = value("governing_law") or value("jurisdiction")
    if law:
        out[f"JURISDICTION={norm(jurisdiction(law))}"] += 1
    term = value("term")
    if term and (t := term_label(term)):
        out[f"TERM={t}"] += 1
    for path in result.fields:
        if re.fullmatch(r"parties\[\d+\]\.name|party\[\d+\]", path) and (name := value(path)):
            out[f"PARTY={norm(str(name).replace(',', ''))}"] += 1
    return out


def asked(predicted: Labels, keys: Iterable[str]) -> Labels:
    """Only the keys the document asks: upstream systems answer those alone."""
    wanted = {ASKED[k] for k in keys}
    return Counter({k: n for k, n in predicted.items() if k.split("=", 1)[0] in wanted})


def truth(row: dict[str, Any]) -> Labels:
    return Counter(
        norm(f"{key}={value}") for key, values in row["expected"].items() for value in values
    )


def f1(pairs: Pairs) -> tuple[float, float, float]:
    tp, fp, fn = counts(pairs)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def counts(pairs: Pairs) -> tuple[int, int, int]:
    tp = sum(sum((p & e).values()) for p, e in pairs)
    return (
        tp,
        sum(sum(p.values()) for p, _ in pairs) - tp,
        sum(sum(e.values()) for _, e in pairs) - tp,
    )


def only(key: str, pairs: Pairs) -> Pairs:
    def keep(found: Labels) -> Labels:
        return Counter({k: n for k, n in found.items() if k.startswith(key + "=")})

    return [(keep(p), keep(e)) for p, e in pairs]


@dataclass
class Timing:
    """Parse and rules time over the same documents."""

    pages: int = 0
    parse_s: float = 0.0
    rules_s: float = 0.0
    runs: int = 0  # rules runs per document (one per schema)

    def line(self, name: str) -> str:
        parse = self.parse_s * 1000 / max(self.pages, 1)
        rules = self.rules_s * 1000 / max(self.pages * max(self.runs, 1), 1)
        return (
            f"{name:20} {self.pages:5d} pages   parse {parse:7.1f} ms/page   "
            f"rules {rules:6.1f} ms/page   rules/parse {rules / parse if parse else 0:5.2f}"
        )


@dataclass
class Scored:
    pairs: dict[str, Pairs] = field(default_factory=dict)
    verified: dict[str, Pairs] = field(default_factory=dict)


def parsed(files: list[Path], timing: Timing) -> Iterator[ParsedDocument]:
    parser = PyMuPDFParser()
    for path in files:
        start = time.perf_counter()
        doc = parser.parse(path.read_bytes(), path.name)
        timing.parse_s += time.perf_counter() - start
        timing.pages += doc.page_count
        yield doc


def run(doc: ParsedDocument, schema: SchemaDef, timing: Timing) -> Result:
    result = extract_parsed(doc, schema, llm=RulesBackend())
    timing.rules_s += result.trace.timings_ms["llm"] / 1000
    return result


def schemas() -> dict[str, SchemaDef]:
    return {"contract": get_schema("contract"), "plain": schema_from_json(NDA, "plain")}


def kleister(folder: Path, timing: Timing, docs: Iterable[ParsedDocument] | None = None) -> Scored:
    rows = [json.loads(x) for x in (folder / "ground_truth.jsonl").read_text().splitlines()]
    files = [folder / "pdfs" / row["pdf"] for row in rows]
    scored, kinds = Scored(), schemas()
    timing.runs = len(kinds)
    for row, doc in zip(rows, docs if docs is not None else parsed(files, timing), strict=True):
        for name, schema in kinds.items():
            result = run(doc, schema, timing)
            want = truth(row)
            scored.pairs.setdefault(name, []).append(
                (asked(labels(result, False), row["keys_asked"]), want)
            )
            scored.verified.setdefault(name, []).append(
                (asked(labels(result, True), row["keys_asked"]), want)
            )
    return scored


def flat(value: Any) -> Iterator[str]:
    """Every scalar of a ground truth file, normalised for comparison."""
    if isinstance(value, dict):
        for v in value.values():
            yield from flat(v)
    elif isinstance(value, list):
        for v in value:
            yield from flat(v)
    elif value is not None:
        yield _key(value)


def _key(value: Any) -> str:
    if isinstance(value, dict):
        for part in ("iso", "value"):
            if part in value:
                return _key(value[part])
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float | int) and not isinstance(value, bool):
        return f"{float(value):.2f}"
    return re.sub(r"[\W_]+", " ", str(value)).strip().lower()


@dataclass
class Tally:
    docs: int = 0
    fields: int = 0
    found: int = 0
    verified: int = 0
    agree: int = 0
    by_field: Counter[str] = field(default_factory=Counter)

    def line(self, name: str) -> str:
        return (
            f"{name:20} {self.docs:3d} docs  {self.fields:4d} fields  found {self.found:4d}  "
            f"verified {self.verified:4d}  verified and in the ground truth {self.agree:4d}"
        )


def family(folder: Path, schema: SchemaDef, truths: dict[str, set[str]], timing: Timing) -> Tally:
    tally, files = Tally(), sorted((folder / "pdfs").glob("*.pdf"))
    timing.runs = 1
    for path, doc in zip(files, parsed(files, timing), strict=True):
        result = run(doc, schema, timing)
        tally.docs += 1
        known = truths.get(path.stem, set())
        for path_, got in result.fields.items():
            tally.fields += 1
            if got.status == Status.NOT_FOUND:
                continue
            tally.found += 1
            if got.status == Status.VERIFIED:
                tally.verified += 1
                agrees = _key(got.value) in known
                tally.agree += agrees
                tally.by_field[re.sub(r"\[\d+\]", "[]", path_) + ("" if agrees else " (?)")] += 1
    return tally


def invoice_truths(folder: Path) -> dict[str, set[str]]:
    return {
        p.stem: set(flat(json.loads(p.read_text())))
        for p in sorted((folder / "expected_json").glob("*.json"))
    }


def cv_truths(folder: Path) -> dict[str, set[str]]:
    known = set(flat(json.loads((folder / "ground_truth_cv.json").read_text())))
    return {p.stem: known for p in (folder / "pdfs").glob("*.pdf")}


def report(scored: dict[str, Scored]) -> None:
    print(f"{'folder':20} {'schema':9} {'P':>6} {'R':>6} {'F1':>6} {'F1 verified':>12}")
    for folder, result in scored.items():
        role = "tuned on" if folder == TUNED else "NOT tuned on"
        for name, pairs in result.pairs.items():
            p, r, f = f1(pairs)
            fv = f1(result.verified[name])[2]
            print(
                f"{folder:20} {name:9} {p * 100:6.1f} {r * 100:6.1f} {f * 100:6.1f} "
                f"{fv * 100:12.1f}   ({role})"
            )
    print()
    print(f"{'per key (F1, tp/fp/fn)':32}" + "".join(f"{k:>22}" for k in KEYS))
    for folder, result in scored.items():
        for name, pairs in result.pairs.items():
            cells = []
            for key in KEYS:
                tp, fp, fn = counts(only(key, pairs))
                cells.append(f"{f1(only(key, pairs))[2] * 100:5.1f} {tp:3d}/{fp:3d}/{fn:3d}")
            print(f"{folder[:22] + ' ' + name:32}" + "".join(f"{c:>22}" for c in cells))


def start_up() -> float:
    """Seconds the first calls of a process take (check-digit registries, phone metadata,
    Babel's territory names load once), kept out of the per-page figures."""
    doc = PyMuPDFParser().parse((SAMPLES / "invoice.pdf").read_bytes(), "invoice.pdf")
    start = time.perf_counter()
    for name in ("invoice", "candidate_profile", "contract"):
        extract_parsed(doc, get_schema(name), llm=RulesBackend())
    return time.perf_counter() - start


def main() -> int:
    root = eval_dir()
    if root is None:
        print("shared/eval not found; set EVIDEX_EVAL_DIR")
        return 0
    warm = start_up()
    timings: dict[str, Timing] = {}
    scored: dict[str, Scored] = {}
    for name in (TUNED, REPORTED):
        timings[name] = Timing()
        scored[name] = kleister(root / name, timings[name])
    print(f"Kleister-NDA: tuned on {TUNED}/, reported on {REPORTED}/ (never tuned on)")
    report(scored)
    print()
    tallies = {
        "invoice2data": (get_schema("invoice"), invoice_truths(root / "invoice2data")),
        "rendercv_cv": (get_schema("candidate_profile"), cv_truths(root / "rendercv_cv")),
    }
    for name, (schema, truths) in tallies.items():
        timings[name] = Timing()
        tally = family(root / name, schema, truths, timings[name])
        print(tally.line(name))
        top = ", ".join(f"{k} {n}" for k, n in sorted(tally.by_field.items()))
        print(f"    verified by field ('(?)': not a value of the ground truth): {top}")
    print()
    print(
        f"rules backend time beside parse time, same documents, same run (one-time start-up "
        f"of the process, not counted: {warm * 1000:.0f} ms):"
    )
    for name, timing in timings.items():
        print(timing.line(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
