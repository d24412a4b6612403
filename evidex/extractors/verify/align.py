"""Locate a quote in the line table: which lines, which characters, how well.

Pure: works on a :class:`DocText` built once per document from the line table.

Why the rules are what they are:

* Matching runs on normalised text (:mod:`.normalize`) over the whole document joined line by
  line, so a quote can cross lines and pages, and a word hyphenated over a break still matches.
* A match must start and end on word boundaries: a quote ``1`` must never match the last digit of
  ``4821``, or a quantity would "verify" against any number that ends in 1.
* The model's cited lines win when they hold the quote. Otherwise the nearest occurrence is taken
  and the span is marked corrected; if several occurrences are equally plausible the match is
  ambiguous and goes to review instead of silently picking one.
* Fuzzy matching (rapidfuzz) is a fallback for near-verbatim quotes (OCR noise, a dropped
  accent). It never forgives digits: every digit run of the quote must be in the matched text.
  Over lines read by local OCR (``source == "ocr"``) it accepts a slightly lower score
  (:data:`FUZZY_MIN_OCR`): Tesseract misreads a character in ten or twenty (``·`` as ``-``,
  ``l`` as ``|``), so a true quote of a short field scores in the high 80s there.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import pandas as pd
from rapidfuzz import fuzz

from evidex.extractors.verify.normalize import normalize, normalize_quote

__all__ = ["DocText", "Match", "locate"]

FUZZY_MIN = 90.0
FUZZY_MIN_OCR = 85.0  # only where every matched line was read by local OCR
_FUZZY_MIN_CHARS = 6  # shorter quotes must match exactly: too many near misses
_NEAR = 3
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class Match:
    """Where a quote was found. ``ranges`` holds ``(row, start, end)`` per line, in order."""

    ranges: tuple[tuple[int, int, int], ...]
    level: str  # exact | normalized | fuzzy
    score: float
    occurrences: int
    in_cited: bool
    ambiguous: bool


class DocText:
    """The document's normalised text joined over lines, with maps back to rows and characters,
    and the line table's columns verification reads per match as plain lists (indexed by row),
    built once per document: looking a row up in the DataFrame per match costs more than the
    match."""

    def __init__(self, lines: pd.DataFrame) -> None:
        self.line_numbers: list[int] = [int(v) for v in lines["line"]]
        self.sources: list[str] = _column(lines, "source", "")
        self.ocr: list[bool] = [s == "ocr" for s in self.sources]
        self.raw: list[str] = [str(t) for t in lines["text"]]
        self.pages: list[int] = [int(v) for v in _column(lines, "page", 1)]
        self.visible: list[bool] = [bool(v) for v in _column(lines, "visible", True)]
        self.hidden_reason: list[str] = [str(v) for v in _column(lines, "hidden_reason", "")]
        self.ocr_confidence: list[float] = _column(lines, "ocr_confidence", math.nan)
        self.word_confidence: list[list[float]] = [
            list(c) if isinstance(c, list | tuple) else []
            for c in _column(lines, "word_confidence", ())
        ]
        self.boxes: list[tuple[float, float, float, float]] = list(
            zip(*(_column(lines, k, 0.0) for k in ("x0", "y0", "x1", "y1")), strict=True)
        )
        self.words: list[list[Any]] = [list(w or []) for w in _column(lines, "words", None)]
        # the side of the image a line read by OCR runs to (``document.with_edges``), else ""
        self.edge: list[str] = [str(e or "") for e in _column(lines, "edge", "")]
        self.row_of_line = {n: i for i, n in enumerate(self.line_numbers)}
        chars: list[str] = []
        rows: list[int] = []
        offsets: list[int] = []
        self.row_start: list[int] = []
        for row, raw in enumerate(self.raw):
            norm = normalize(raw)
            if chars:
                hyphen_break = (
                    len(chars) >= 2
                    and chars[-1] == "-"
                    and chars[-2].isalpha()
                    and norm.text[:1].islower()
                )
                if hyphen_break:
                    chars.pop(), rows.pop(), offsets.pop()
                else:
                    chars.append(" ")
                    rows.append(rows[-1])
                    offsets.append(len(self.raw[rows[-1]]))
            self.row_start.append(len(chars))
            chars.extend(norm.text)
            rows.extend([row] * len(norm.text))
            offsets.extend(norm.index)
        self.text = "".join(chars)
        self.rows = rows
        self.offsets = offsets

    def _ranges(self, start: int, end: int) -> tuple[tuple[int, int, int], ...]:
        first, last = self.rows[start], self.rows[end - 1]
        out = []
        for row in range(first, last + 1):
            a = self.offsets[start] if row == first else 0
            b = self.offsets[end - 1] + 1 if row == last else len(self.raw[row])
            if b > a:
                out.append((row, a, b))
        return tuple(out)

    def raw_text(self, ranges: tuple[tuple[int, int, int], ...]) -> str:
        return " ".join(self.raw[row][a:b] for row, a, b in ranges)

    def _occurrences(self, needle: str) -> list[int]:
        found, i = [], self.text.find(needle)
        while i >= 0:
            if self._starts_word(i, needle[0]) and self._ends_word(i + len(needle), needle[-1]):
                found.append(i)
            i = self.text.find(needle, i + 1)
        return found

    def _starts_word(self, i: int, first: str) -> bool:
        text = self.text
        if not first.isalnum() or i == 0:
            return True
        if text[i - 1].isalnum():
            return False
        # "1" must not match inside "1.234" or "3,1": a separator between digits joins a number
        return not (first.isdigit() and text[i - 1] in ".," and i > 1 and text[i - 2].isdigit())

    def _ends_word(self, j: int, last: str) -> bool:
        text = self.text
        if not last.isalnum() or j >= len(text):
            return True
        if text[j].isalnum():
            return False
        return not (
            last.isdigit() and text[j] in ".," and j + 1 < len(text) and text[j + 1].isdigit()
        )

    def _cited_rows(self, line_start: int | None, line_end: int | None) -> tuple[int, int] | None:
        """Rows of the cited lines; None when nothing usable was cited."""
        if line_start is None:
            return None
        lo = self.row_of_line.get(line_start)
        hi = self.row_of_line.get(line_end if line_end is not None else line_start)
        lo = hi if lo is None else lo
        hi = lo if hi is None else hi
        if lo is None or hi is None:
            return None
        return (min(lo, hi), max(lo, hi))

    def locate(
        self, quote: str, line_start: int | None, line_end: int | None, near: int | None = None
    ) -> Match | None:
        """Find ``quote``; ``near`` (a line number, e.g. where sibling fields sit) breaks ties
        between occurrences when the cited lines hold none of them."""
        needle = normalize_quote(quote)
        if not needle or not self.text:
            return None
        cited = self._cited_rows(line_start, line_end)
        hits = self._occurrences(needle)
        if hits:
            match = self._choose(quote, needle, hits, cited)
            hint = self._cited_rows(near, near) if near is not None else None
            if match.ambiguous and not match.in_cited and hint is not None:
                near_match = self._choose(quote, needle, hits, hint)
                return Match(
                    near_match.ranges,
                    near_match.level,
                    near_match.score,
                    near_match.occurrences,
                    False,
                    near_match.ambiguous,
                )
            return match
        return self._fuzzy(needle, cited)

    def _choose(
        self, quote: str, needle: str, hits: list[int], cited: tuple[int, int] | None
    ) -> Match:
        def distance(start: int) -> int:
            if cited is None:
                return 0
            first, last = self.rows[start], self.rows[start + len(needle) - 1]
            if first <= cited[1] and last >= cited[0]:
                return 0
            return min(abs(first - cited[1]), abs(cited[0] - last))

        ranked = sorted(hits, key=distance)
        best = ranked[0]
        in_cited = cited is not None and distance(best) == 0
        tied = len(ranked) > 1 and distance(ranked[1]) == distance(best)
        ambiguous = (tied and not in_cited) or (
            not in_cited and len(ranked) > 1 and distance(best) > _NEAR
        )
        ranges = self._ranges(best, best + len(needle))
        exact = " ".join(quote.split()) == " ".join(self.raw_text(ranges).split())
        return Match(
            ranges, "exact" if exact else "normalized", 100.0, len(hits), in_cited, ambiguous
        )

    def _fuzzy(self, needle: str, cited: tuple[int, int] | None) -> Match | None:
        windows: list[tuple[int, int]] = []
        if len(needle) < _FUZZY_MIN_CHARS:
            return None
        if cited is not None:
            lo = max(0, cited[0] - _NEAR)
            hi = min(len(self.raw) - 1, cited[1] + _NEAR)
            windows.append((self.row_start[lo], self._row_end(hi)))
        if len(needle) >= 12:
            windows.append((0, len(self.text)))
        cutoff = FUZZY_MIN_OCR if any(self.ocr) else FUZZY_MIN
        for start, end in windows:
            hay = self.text[start:end]
            res = fuzz.partial_ratio_alignment(needle, hay, score_cutoff=cutoff)
            if res is None or res.dest_end <= res.dest_start:
                continue
            a, b = self._widen(start + res.dest_start, start + res.dest_end)
            score = float(fuzz.ratio(needle, self.text[a:b]))
            ocr = all(self.ocr[row] for row in range(self.rows[a], self.rows[b - 1] + 1))
            if score < (FUZZY_MIN_OCR if ocr else FUZZY_MIN):
                continue
            if not set(_DIGITS.findall(needle)) <= set(_DIGITS.findall(self.text[a:b])):
                continue
            ranges = self._ranges(a, b)
            in_cited = cited is not None and cited[0] <= ranges[0][0] and ranges[-1][0] <= cited[1]
            return Match(ranges, "fuzzy", score, 1, in_cited, False)
        return None

    def _widen(self, a: int, b: int) -> tuple[int, int]:
        """Grow a fuzzy alignment to whole words, so the digits check sees whole numbers."""
        text = self.text
        while a > 0 and not self._starts_word(a, text[a]):
            a -= 1
        while b < len(text) and not self._ends_word(b, text[b - 1]):
            b += 1
        return a, b

    def _row_end(self, row: int) -> int:
        return self.row_start[row + 1] if row + 1 < len(self.row_start) else len(self.text)


def _column(lines: pd.DataFrame, name: str, default: Any) -> list[Any]:
    return lines[name].tolist() if name in lines.columns else [default] * len(lines)


def locate(doc: DocText, quote: str, line_start: int | None, line_end: int | None) -> Match | None:
    return doc.locate(quote, line_start, line_end)
