"""CUAD evidence spans located as quotes: evidex's aligner beside fieldproof's, same parsed text.

    PYTHONPATH=. .venv/bin/python -m bench.cuad_align

Input: ``shared/eval/cuad`` (``ground_truth.jsonl``: per contract ``fields`` -> 41 categories,
each with ``evidence_spans`` (clause texts) and ``evidence_pages`` (one
``{span_prefix, pages}`` per span); PDFs in ``cuad/pdfs/``). Each PDF is parsed once with
``PyMuPDFParser``; fieldproof gets the same line table as its ``Document`` (see
``bench.verifier_compare.to_fieldproof``).

A span is a quote with no cited lines. CUAD joins text from several places with the separator
``<omitted>``; such a span is split there and counts as located only when every part is.

* located: every part matched (evidex ``DocText.locate``; fieldproof
  ``find_candidates_in_document``, no page hint);
* exact: every part matched exactly (evidex level ``exact``/``normalized``, fieldproof score
  100); fuzzy: located but not exact; ambiguous: some part matched more than once;
* boxed: for every part, the page text inside its first box holds the part's first word and the
  text inside its last box its last word (boxes: evidex ``boxes_for``, fieldproof
  ``rects_for_match``; read back with pymupdf ``page.get_textbox``, padded 1 pt; words NFKC,
  lower case, compared without spaces or punctuation);
* on annotated page: the first part's page is one of the span's ``evidence_pages``; for the
  spans CUAD marks ``cross-page``, the match crosses a page break (fieldproof matches within one
  page, so it never does). Spans with no pages (CUAD could not place them) do not count.

Time: DocText build (evidex) plus locating and boxing every part, per verifier, in the same run;
parsing is timed apart (both read the same parse).
"""

from __future__ import annotations

import json
import re
import sys
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf
from fieldproof import __version__ as FP_VERSION
from fieldproof.document.model import Document
from fieldproof.ground import find_candidates_in_document, rects_for_match

from bench.common import eval_dir
from bench.verifier_compare import to_fieldproof
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.verify.align import DocText
from evidex.extractors.verify.fields import boxes_for

SEP = "<omitted>"
PAD = 1.0

Boxes = list[tuple[int, tuple[float, float, float, float]]]  # (page, x0, y0, x1, y1)


@dataclass
class Part:
    """One part of a span as a verifier found it (None: not found)."""

    page: int
    last_page: int
    exact: bool
    ambiguous: bool
    boxes: Boxes


@dataclass
class Span:
    contract: str
    text: str
    parts: list[str]
    pages: list[int | str]  # [] where CUAD could not place it, ["cross-page"] across a break


def spans(root: Path) -> list[tuple[Path, list[Span]]]:
    out = []
    for raw in (root / "ground_truth.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(raw)
        items = []
        for field in row["fields"].values():
            for text, where in zip(field["evidence_spans"], field["evidence_pages"], strict=True):
                assert text.startswith(where["span_prefix"].rstrip()), (text, where)
                parts = [p.strip() for p in text.split(SEP) if p.strip()]
                items.append(Span(row["local_pdf"], text, parts, list(where["pages"])))
        out.append((root / "pdfs" / row["local_pdf"], items))
    return out


def evidex_parts(lines: Any, items: list[Span]) -> list[list[Part | None]]:
    doc = DocText(lines)
    found: list[list[Part | None]] = []
    for span in items:
        parts: list[Part | None] = []
        for text in span.parts:
            m = doc.locate(text, None, None)
            if m is None:
                parts.append(None)
                continue
            boxes = [(b.page, (b.x0, b.y0, b.x1, b.y1)) for b in boxes_for(doc, m)]
            page, last = (int(lines["page"].iloc[m.ranges[i][0]]) for i in (0, -1))
            exact = m.level in ("exact", "normalized")
            parts.append(Part(page, last, exact, m.ambiguous, boxes))
        found.append(parts)
    return found


def fieldproof_parts(document: Document, items: list[Span]) -> list[list[Part | None]]:
    found: list[list[Part | None]] = []
    for span in items:
        parts: list[Part | None] = []
        for text in span.parts:
            candidates = find_candidates_in_document(text, document)
            if not candidates:
                parts.append(None)
                continue
            m = candidates[0]
            boxes = [(m.page_number, (r.x0, r.top, r.x1, r.bottom)) for r in rects_for_match(m)]
            page = m.page_number  # fieldproof matches within one page
            parts.append(Part(page, page, m.is_exact, len(candidates) > 1, boxes))
        found.append(parts)
    return found


def _compact(text: str) -> str:
    return re.sub(r"\W+", "", unicodedata.normalize("NFKC", text).lower())


def _ends(text: str) -> tuple[str, str]:
    words = re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())
    return (words[0], words[-1]) if words else ("", "")


class Pages:
    """``page.get_textbox`` per distinct box, on one text page per page (PyMuPDF 2.0 walks the
    characters in Python: ~50 ms a call, so each box is read once)."""

    def __init__(self, pdf: Any) -> None:
        self.pdf = pdf
        self.pages: dict[int, tuple[Any, Any]] = {}
        self.texts: dict[tuple[int, tuple[float, ...]], str] = {}

    def textbox(self, page_no: int, box: tuple[float, float, float, float]) -> str:
        key = (page_no, box)
        if key not in self.texts:
            if page_no not in self.pages:
                page = self.pdf[page_no - 1]
                self.pages[page_no] = (page, page.get_textpage())
            page, textpage = self.pages[page_no]
            x0, y0, x1, y1 = box
            rect = pymupdf.Rect(x0 - PAD, y0 - PAD, x1 + PAD, y1 + PAD) * page.derotation_matrix
            self.texts[key] = _compact(str(page.get_textbox(rect, textpage=textpage)))
        return self.texts[key]


def boxed(pages: Pages, text: str, part: Part) -> bool:
    """The part's first word is in its first box, its last word in its last box."""
    first, last = _ends(text)
    head, tail = pages.textbox(*part.boxes[0]), pages.textbox(*part.boxes[-1])
    return bool(first) and first in head and last in tail


class Tally:
    def __init__(self) -> None:
        self.n: Counter[str] = Counter()
        self.ms = 0.0
        self.misses: list[Span] = []

    def add(self, pages: Pages, span: Span, parts: list[Part | None]) -> None:
        self.n["spans"] += 1
        if any(p is None for p in parts) or not parts:
            self.misses.append(span)
            return
        found = [p for p in parts if p is not None]
        self.n["located"] += 1
        self.n["exact" if all(p.exact for p in found) else "fuzzy"] += 1
        self.n["ambiguous"] += any(p.ambiguous for p in found)
        self.n["boxed"] += all(boxed(pages, t, p) for t, p in zip(span.parts, found, strict=True))
        if span.pages == ["cross-page"]:
            self.n["annotated"] += 1
            self.n["on_page"] += found[0].page != found[-1].last_page
        elif span.pages:
            self.n["annotated"] += 1
            self.n["on_page"] += found[0].page in span.pages
        if SEP in span.text:
            self.n["joined_located"] += 1


def main() -> int:
    root = eval_dir()
    if root is None or not (root / "cuad" / "ground_truth.jsonl").is_file():
        print("shared/eval/cuad is not here (set EVIDEX_EVAL_DIR); nothing to measure")
        return 0
    contracts = spans(root / "cuad")
    parser = PyMuPDFParser()
    ours, theirs = Tally(), Tally()
    pages = 0
    parse_s = 0.0
    for path, items in contracts:
        start = time.perf_counter()
        parsed = parser.parse(path.read_bytes(), path.name)
        parse_s += time.perf_counter() - start
        pages += parsed.page_count
        document = to_fieldproof(parsed)
        start = time.perf_counter()
        mine = evidex_parts(parsed.lines, items)
        ours.ms += (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        peer = fieldproof_parts(document, items)
        theirs.ms += (time.perf_counter() - start) * 1000
        with pymupdf.open(path) as pdf:
            pdf_pages = Pages(pdf)
            for span, a, b in zip(items, mine, peer, strict=True):
                ours.add(pdf_pages, span, a)
                theirs.add(pdf_pages, span, b)

    every = [s for _, items in contracts for s in items]
    joined = [s for s in every if SEP in s.text]
    parts = sum(len(s.parts) for s in every)
    print(f"CUAD: {len(contracts)} contracts, {pages} pages, {len(every)} spans ({parts} parts)")
    print(f"spans joined with {SEP!r}: {len(joined)} ({sum(len(s.parts) for s in joined)} parts)")
    print(f"spans with line breaks inside: {sum(chr(10) in s.text for s in every)}")
    print(f"parse (PyMuPDFParser, shared by both): {parse_s:.1f} s; fieldproof {FP_VERSION}\n")
    n = len(every)
    print(f"{'':32} {'evidex':>14} {'fieldproof':>14}")

    def row(label: str, a: int | str, b: int | str, of: int = n) -> None:
        pa = f"{a} ({100 * int(a) / of:.1f}%)" if of else str(a)
        pb = f"{b} ({100 * int(b) / of:.1f}%)" if of else str(b)
        print(f"{label:32} {pa:>14} {pb:>14}")

    for key, label in [
        ("located", "located"),
        ("exact", "  exact/normalized"),
        ("fuzzy", "  fuzzy"),
        ("ambiguous", "ambiguous"),
        ("boxed", "boxed (first+last word)"),
    ]:
        row(label, ours.n[key], theirs.n[key])
    row("not located", len(ours.misses), len(theirs.misses))
    row(f"joined spans located (of {len(joined)})", ours.n["joined_located"],
        theirs.n["joined_located"], len(joined))  # fmt: skip
    print(
        f"{'on annotated page':32} {ours.n['on_page']:>5}/{ours.n['annotated']:<8}"
        f" {theirs.n['on_page']:>5}/{theirs.n['annotated']:<8}  (of located spans with pages)"
    )
    print(f"{'time: locate + boxes (ms)':32} {ours.ms:>14.0f} {theirs.ms:>14.0f}")
    print(f"{'  per span (ms)':32} {ours.ms / n:>14.2f} {theirs.ms / n:>14.2f}")

    print("\nnot located by evidex (first 15; F: fieldproof located it):")
    located_by_peer = {id(s) for s in every} - {id(s) for s in theirs.misses}
    for span in ours.misses[:15]:
        mark = "F" if id(span) in located_by_peer else " "
        text = " ".join(span.text.split())
        print(f"  {mark} {span.contract[:24]:24} {len(text):>5} ch  {text[:70]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
