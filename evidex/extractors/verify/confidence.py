"""The OCR confidence a field is judged by: of the words its value was read from, where the
line table says.

A line's confidence says how the line reads as a whole; a value read from figures (an amount,
a number, a date) is read from one or two of its words, and the others (a label, a currency,
a time) may be misread without changing it: "Bi11 Date : 20/12/2017" (the label's "Bill"
misread, the date read right) scores low as a line. So where the parser gives each word its
own confidence (``word_confidence``, OCR), a value of a figure kind (:data:`FIGURES`) is judged
by the least sure of the words that print it, named in the reason: the words holding one of
the value's digit runs (:func:`_runs`: "20/12/2017" for 2017-12-20, "9.00" for 9.0) and, for
a date, a word of letters beside one (its month). A misread digit in a confident line is then
what sends it to review. Any other value, a quote without word confidences, or one where no
word prints the value's figures, is judged by its lines' lowest confidence, as before.

Pure.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from evidex.extractors.verify.align import DocText

__all__ = ["FIGURES", "OcrConfidence", "ocr_confidence"]

# kinds whose value is read from the figures printed
FIGURES = frozenset({"integer", "number", "years", "percentage", "amount", "date"})
_RUN = re.compile(r"\d+")


@dataclass(frozen=True)
class OcrConfidence:
    """The confidence a field is judged by; ``local``: every matched line was read by the
    local OCR (whose noise fuzzy matching absorbs); ``word``: the word it is the confidence of,
    "" when it is a line's."""

    value: float
    local: bool
    word: str = ""


def ocr_confidence(
    doc: DocText, ranges: tuple[tuple[int, int, int], ...], kind: str, value: Any
) -> OcrConfidence | None:
    """The OCR confidence of a field matched at ``ranges`` (None when no matched line was
    read by OCR)."""
    rows = [r for r, _, _ in ranges]
    read = [c for c in (doc.ocr_confidence[r] for r in rows) if not math.isnan(c)]
    if not read:
        return None
    local = all(doc.ocr[r] for r in rows)
    words = _value_words(doc, ranges, kind, value) if kind in FIGURES else []
    if words:
        conf, text = min(words)
        return OcrConfidence(conf, local, text)
    return OcrConfidence(float(min(read)), local)


def _value_words(
    doc: DocText, ranges: tuple[tuple[int, int, int], ...], kind: str, value: Any
) -> list[tuple[float, str]]:
    """(confidence, text) of the matched words that print one of ``value``'s digit runs and,
    for a date, a word of letters beside one (a month's name: "05 Mar 2018"); empty when a
    matched line has no word confidences."""
    runs = _runs(value)
    out = []
    for row, a, b in ranges:
        words, confs = doc.words[row], doc.word_confidence[row]
        if not confs or len(confs) != len(words):
            return []
        inside = [
            (float(conf), doc.raw[row][w[0] : w[1]])
            for w, conf in zip(words, confs, strict=True)
            if w[0] < b and w[1] > a and not math.isnan(conf)
        ]
        hits = {i for i, (_, text) in enumerate(inside) if runs & _runs(text)}
        if kind == "date":
            hits |= {
                i
                for i, (_, text) in enumerate(inside)
                if text.strip(".,").isalpha() and (i - 1 in hits or i + 1 in hits)
            }
        out += [inside[i] for i in sorted(hits)]
    return out


def _runs(value: Any) -> set[str]:
    """A value's digit runs, and all its digits run together, without leading zeros and (all
    together) trailing ones: "19.953,80" and 19953.8 both hold "199538", "9.00" and 9.0 "9";
    from its text or, for an amount or a date, its figure."""
    if isinstance(value, dict):
        value = next((value[k] for k in ("iso", "value", "amount") if k in value), None)
    if value is None or isinstance(value, bool):
        return set()
    runs = _RUN.findall(str(value))
    found = {r.lstrip("0") for r in runs} | {"".join(runs).rstrip("0").lstrip("0")}
    return found - {""}  # a zero alone tells no figure from another
