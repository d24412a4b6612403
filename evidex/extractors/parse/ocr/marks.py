"""A line's last comma or full stop put back, told apart by its ink.

The detector's box often ends just before a line's last comma, which is then never read
("JALAN SAGU 18" for "JALAN SAGU 18,"): an address compared as printed fails on one character.
A comma and a full stop differ where a reader looks: a full stop sits on the baseline, a comma
hangs below it. So the page's ink decides, in a line's band (its box, grey pixels, dark ink):

* the **type**: per column holding ink, its top and bottom ink rows; around a mark, the medians
  over the columns within :data:`_NEAR` type heights are the top of the type and its baseline
  (most letters and digits stand on the baseline, descenders are few; measured near the mark
  since the baseline of a slanted line moves along it);
* a **mark** is a run of ink columns no wider than :data:`MARK_WIDTH` of the type's height,
  blank on both sides, whose ink starts below :data:`MARK_TOP` of the height and reaches the
  baseline (a hyphen stops above it);
* a mark whose ink reaches :data:`COMMA_DROP` of the type's height below the baseline is a
  comma, else a full stop; the mark's extent is measured on fainter ink (:data:`FAINT` of the
  way to the paper's grey), since a thermal printer's comma tail is often grey.

Nothing is changed when the band has no clear type (under three columns of ink, no contrast).
"""

from __future__ import annotations

import numpy as np

from evidex.extractors.parse.ocr.prepare import otsu, runs
from evidex.extractors.parse.ocr.words import BoxPx

__all__ = [
    "COMMA_DROP",
    "FAINT",
    "MARK_GAP",
    "MARK_TOP",
    "MARK_WIDTH",
    "mark_near",
    "trailing_mark",
]

MARK_WIDTH = 0.45  # of the type's height: the widest a comma or full stop is
MARK_TOP = 0.5  # of the type's height below its top: where a mark's ink may start
COMMA_DROP = 0.2  # of the type's height below the baseline: a comma's tail reaches this far
MARK_GAP = 0.8  # of the type's height: the widest blank between a line's end and its last mark
FAINT = 0.35  # of the way from the ink threshold to the paper: a mark's faint tail still counts
_NEAR = 3.0  # type heights either side of a mark: where its line's baseline is measured
_BELOW = 0.5  # of the band's height: how far under the band a comma's tail is looked for


class _Band:
    """A line's band: ink masks (rows from the band's top to ``_BELOW`` under it), the type's
    top and baseline rows over the whole line, per column whether the band holds ink there
    (``filled``) and its top and bottom ink rows (NaN where it holds none), and the band's left
    edge in page pixels."""

    def __init__(
        self, ink: np.ndarray, faint: np.ndarray, rows: int, type_: tuple[float, float], left: int
    ) -> None:
        self.ink, self.faint, self.left = ink, faint, left
        self.top, self.base = type_
        inside = ink[:rows]
        self.filled = np.asarray(inside.any(axis=0), bool)  # per column: ink within the band
        self.tops = np.where(self.filled, np.argmax(inside, axis=0), np.nan)
        self.bottoms = np.where(self.filled, rows - 1 - np.argmax(inside[::-1], axis=0), np.nan)

    @property
    def height(self) -> float:
        return max(self.base - self.top, 1.0)

    def type_at(self, a: int, b: int) -> tuple[float, float]:
        """The type's top and baseline around columns ``a:b``: the median top and bottom ink
        rows of the columns within :data:`_NEAR` type heights, the mark's own left out (a
        slanted line's baseline moves along it); the whole line's where those are too few or
        measure a type 40% taller or shorter than the line's."""
        reach = int(_NEAR * self.height)
        near = np.r_[max(0, a - reach) : a, b : min(len(self.tops), b + reach)]
        top, base = _median(self.tops[near]), _median(self.bottoms[near])
        if top is None or base is None or abs((base - top) / self.height - 1) > 0.4:
            return self.top, self.base  # too few columns, or another line's ink among them
        return top, base

    def mark(self, a: int, b: int) -> str | None:
        """ "," or "." for the ink in columns ``a:b`` (band coordinates), None if no mark."""
        top, base = self.type_at(a, b)
        height = base - top
        if b <= a or b - a > MARK_WIDTH * height:
            return None
        rows = np.flatnonzero(self.faint[:, a:b].any(axis=1))
        if len(rows) == 0:
            return None
        first = int(rows[0])
        last = first
        for row in rows[1:]:  # the mark's ink, downwards while it continues (a thin tail
            if row > last + 2:  # may skip a row)
                break
            last = int(row)
        if first < top + MARK_TOP * height or last < base - 0.15 * height:
            return None
        return "," if last >= base + COMMA_DROP * height else "."


def _median(values: np.ndarray) -> float | None:
    kept = values[~np.isnan(values)]
    return float(np.median(kept)) if len(kept) >= 3 else None


def _band(pixels: np.ndarray, box: BoxPx, right: float) -> _Band | None:
    x0, y0, y1 = max(0, int(box[0])), max(0, int(box[1])), int(np.ceil(box[3]))
    x1 = min(pixels.shape[1], int(np.ceil(right)))
    below = min(pixels.shape[0], y1 + int(np.ceil(_BELOW * (y1 - y0))))
    strip = pixels[y0:below, x0:x1]
    body = pixels[y0:y1, x0 : min(x1, int(np.ceil(box[2])))]
    if strip.size == 0 or body.size == 0 or float(body.max()) - float(body.min()) < 32:
        return None
    threshold = otsu(body)
    ink = strip <= threshold
    paper = float(np.percentile(body, 90))
    faint = strip <= threshold + FAINT * max(paper - threshold, 0.0)
    inked = ink[: y1 - y0, : body.shape[1]]
    columns = np.flatnonzero(inked.any(axis=0))
    if len(columns) < 3:
        return None
    tops = [int(np.flatnonzero(inked[:, c])[0]) for c in columns]
    bottoms = [int(np.flatnonzero(inked[:, c])[-1]) for c in columns]
    top, base = float(np.median(tops)), float(np.median(bottoms))
    if base - top < 4:
        return None
    return _Band(ink, faint, y1 - y0, (top, base), x0)


def trailing_mark(pixels: np.ndarray, box: BoxPx, end: float) -> tuple[str, BoxPx] | None:
    """The comma or full stop just after a line's last word (``end``: its right ink edge),
    outside the detector's ``box``, and its box; None when there is none."""
    height = box[3] - box[1]
    band = _band(pixels, box, end + (MARK_GAP + MARK_WIDTH + 0.5) * height)
    if band is None:
        return None
    filled = band.filled
    start = int(end) - 1 - band.left  # the word's last ink column
    spans = runs(filled)
    ended = max([b for a, b in spans if a <= start], default=start + 1)
    after = [(a, b) for a, b in spans if a >= ended]
    if not after:
        return None
    a, b = after[0]
    if a - ended > MARK_GAP * band.height or b >= len(filled):
        return None  # too far from the word, or running on past the strip: not a line end
    if len(after) > 1 and after[1][0] - b < 0.5 * band.height:
        return None  # more ink close after it: the start of something else
    found = band.mark(a, b)
    if found is None:
        return None
    return found, (float(band.left + a), box[1], float(band.left + b), box[3])


def mark_near(pixels: np.ndarray, box: BoxPx, centre: float, reach: float) -> str | None:
    """ "," or "." for the run of ink nearest column ``centre`` (its middle within ``reach``)
    in a line's ``box``, told apart as a line's last mark is; None when that ink is no mark."""
    band = _band(pixels, box, box[2])
    if band is None:
        return None
    spans = [(a, b) for a, b in runs(band.filled) if abs((a + b) / 2 + band.left - centre) <= reach]
    if not spans:
        return None
    a, b = min(spans, key=lambda r: abs((r[0] + r[1]) / 2 + band.left - centre))
    return band.mark(a, b)
