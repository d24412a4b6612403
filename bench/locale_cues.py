"""Settling a document's day/month order from its cues (currency marks, company forms, region
and country names: ``verify/locales.settle_order``) with the patterns as tries
(``verify/literals``), beside the plain alternations they replaced, on the same lines in the same
run: the samples' lines, and the CUAD contracts of ``shared/eval`` when present (the longest
documents there).

    .venv/bin/python -m bench.locale_cues [--contracts N]

Prints seconds per 10,000 lines for each (best of 3) and their ratio, and checks that both find
the same order and the same cues on every document.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from contextlib import contextmanager

from bench.common import SAMPLES, best_of, eval_dir
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.verify import currency, locales
from evidex.extractors.verify.currency import symbol_table
from evidex.extractors.verify.literals import Edges


def alternation(
    strings: list[str], edges: Edges, flags: int = 0, between: str = ""
) -> re.Pattern[str]:
    """The plain alternation of ``strings``, longest first, that a trie stands for."""
    out = []
    for text in sorted(strings, key=len, reverse=True):
        left = edges == "always" or (edges == "letters" and text[0].isalpha())
        right = edges == "always" or (edges == "letters" and text[-1].isalpha())
        before, after = r"(?<![A-Za-z])" if left else "", r"(?![A-Za-z])" if right else ""
        out.append(before + between.join(re.escape(c) for c in text) + after)
    return re.compile("|".join(out), flags)


@contextmanager
def plain_patterns() -> Iterator[None]:
    """Verification as it ran with plain alternations: every country name looked for on every
    line."""
    marks = alternation(list(symbol_table()), "letters")
    regions = alternation(list(locales._regions()[0]), "always", re.IGNORECASE)
    every_line = re.compile("")
    _, forms = locales._legal_forms()
    keys = alternation(list(forms), "always", between=r"[.\s]*").pattern
    legal = re.compile(rf"(?:{keys})\.?(?=\s*(?:[)(,;]|$))", re.IGNORECASE)
    saved = (
        currency._mark_pattern,
        locales._region_pattern,
        locales._any_country_name,
        locales._legal_forms,
    )
    currency._mark_pattern = lambda: marks  # type: ignore[assignment]
    locales._region_pattern = lambda: regions  # type: ignore[assignment]
    locales._any_country_name = lambda: every_line  # type: ignore[assignment]
    locales._legal_forms = lambda: (legal, forms)  # type: ignore[assignment]
    try:
        yield
    finally:
        (
            currency._mark_pattern,
            locales._region_pattern,
            locales._any_country_name,
            locales._legal_forms,
        ) = saved


def documents(contracts: int) -> list[tuple[str, list[str]]]:
    paths = sorted(SAMPLES.glob("*.pdf"))
    root = eval_dir()
    if root is not None and contracts:
        cuad = sorted((root / "cuad" / "pdfs").glob("*.pdf"), key=lambda p: -p.stat().st_size)
        paths += cuad[:contracts]
    parser = PyMuPDFParser(tables=False)
    out = []
    for path in paths:
        lines = parser.parse(path.read_bytes(), path.name).lines
        out.append((path.name, [str(t) for t in lines["text"]]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--contracts", type=int, default=10, help="longest CUAD contracts to add")
    args = ap.parse_args()
    docs = documents(args.contracts)
    total = sum(len(lines) for _, lines in docs)
    print(f"{len(docs)} documents, {total} lines")
    locales.settle_order(docs[0][1])  # load the tables both use
    tries = [locales.settle_order(lines) for _, lines in docs]
    with plain_patterns():
        plain = [locales.settle_order(lines) for _, lines in docs]
        plain_s = best_of(lambda: [locales.settle_order(lines) for _, lines in docs])
    tries_s = best_of(lambda: [locales.settle_order(lines) for _, lines in docs])
    differ = [name for (name, _), a, b in zip(docs, tries, plain, strict=True) if a != b]
    per = 10_000 / max(total, 1)
    print(f"{'patterns':14} {'s / 10k lines':>14}")
    print(f"{'plain':14} {plain_s * per:14.3f}")
    print(f"{'tries':14} {tries_s * per:14.3f}")
    print(f"ratio (plain / tries): {plain_s / tries_s:.1f}x; documents whose order or cues differ: "
          f"{len(differ)} {differ[:5]}")  # fmt: skip


if __name__ == "__main__":
    main()
