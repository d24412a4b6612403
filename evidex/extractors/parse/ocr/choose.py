"""``auto``: which engine's reading of a page to keep, by measured quality, not by guess.

A page's quality is the mean calibrated line confidence of its reading, weighted by characters:
calibrated confidences (:mod:`.calibrate`) estimate the share of lines read exactly right, on the
same scale for both engines, so two readings of one page compare directly. ``auto`` reads each
page with its first engine and, only when that reading's quality is under :data:`SECOND_BELOW`,
with the second too, keeping the better reading.

The order and the threshold, measured on receipts 000-019 (``bench/receipts.py`` and each
receipt read by both engines): RapidOCR keeps 72.5% of the key values, Tesseract 57.5%, so
RapidOCR reads first. Its page quality ranged 0.71-0.97 there, and on every receipt where
Tesseract's reading would have kept more key values (2 of 20) RapidOCR's quality was the higher
one, so a second reading of a receipt like these costs time and changes nothing. The second
engine is for pages RapidOCR cannot read at all (a script or print its recogniser does not
know), hence a low threshold, :data:`SECOND_BELOW`. With the PP-OCRv6 small recogniser and its
curve, RapidOCR's page quality on receipts 000-049 is 0.60-0.98, so none is read twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SECOND_BELOW", "Reading", "better", "needs_second", "quality"]

SECOND_BELOW = 0.5  # page quality under which auto runs the second engine (see above)


@dataclass(frozen=True)
class Reading:
    """One engine's rows for one page."""

    engine: str
    rows: list[dict[str, Any]]

    @property
    def quality(self) -> float:
        return quality(self.rows)


def quality(rows: list[dict[str, Any]]) -> float:
    """The character-weighted mean line confidence of a page's rows (0 with no text)."""
    weights = [sum(c.isalnum() for c in str(r["text"])) for r in rows]
    total = sum(weights)
    if not total:
        return 0.0
    return sum(w * float(r["ocr_confidence"]) for w, r in zip(weights, rows, strict=True)) / total


def needs_second(reading: Reading, below: float | None = None) -> bool:
    return reading.quality < (SECOND_BELOW if below is None else below)


def better(first: Reading, second: Reading) -> Reading:
    """The reading of higher quality; the first on a tie."""
    return second if second.quality > first.quality else first
