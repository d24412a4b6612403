"""Line confidence that means what a reviewer reads it as: how often a line like it is right.

An engine's own score is no probability: Tesseract's word confidences and PP-OCR's character
probabilities sit on different scales, and a line read exactly right often scores 0.3-0.6 on
Tesseract's. Verification sends a field to review below ``OCR_LOW`` (0.6), so an uncalibrated
score flags lines that were read right.

What was measured (``bench/receipts.py --calibrate``, receipts of the SROIE tuning half, every
OCR line against the annotators' transcript: a line is read right when its text, spaces aside,
equals the transcript segments lying in its box): the share of lines read exactly right rises
with the raw score (the mean of the line's word scores, :func:`.lines.mean_confidence`) but is
far from it, and no raw score separates right from wrong lines cleanly (the isotonic
reliability curves are printed by the bench). A probability-like mapping would send most lines
read right to review, since half of all lines are not read exactly right. So each engine's curve
puts verification's threshold where it costs little: the raw score under which only 5% of the
lines read right fall is mapped to 0.6 (``OCR_LOW``), 0 to 0 and 1 to 1, linearly between. A line
"low" on this scale is one that scores like the worst 5% of right lines; the bench prints, for the
curve, how many right lines are still flagged and how many wrong ones pass.
"""

from __future__ import annotations

import bisect

__all__ = ["CURVES", "WORD_CURVES", "calibrated"]

# (raw score, calibrated), raw ascending; from bench/receipts.py --calibrate on receipts 000-019
# (Tesseract) and 000-049 (RapidOCR, refitted when its words' spacing and misreads were put right).
CURVES: dict[str, tuple[tuple[float, float], ...]] = {
    # 583 of 1114 lines read right; with the curve 28 of them flagged, 334 of 531 wrong ones not
    "tesseract": ((0.0, 0.0), (0.552, 0.6), (1.0, 1.0)),
    # receipts 000-049, read with the PP-OCRv6 small recogniser: 2118 of 2671 lines read right;
    # with the curve 105 of them flagged, 339 of 553 wrong ones not
    "rapidocr": ((0.0, 0.0), (0.968, 0.6), (1.0, 1.0)),
}


# Words, fitted the same way over the words of the same lines (``--calibrate``): a word is read
# right when the line's text, spaces aside, aligns it character for character with the
# transcript's; the raw score is the word's own: for RapidOCR its least sure character's
# probability (``OcrWord.least``: one misread digit of a date is one unsure character among
# ten, which the mean hides), Tesseract's word confidence.
WORD_CURVES: dict[str, tuple[tuple[float, float], ...]] = {
    # receipts 000-019: 1663 of 2228 words read right; with the curve 83 of them flagged, 320
    # of 565 wrong ones not
    "tesseract": ((0.0, 0.0), (0.504, 0.6), (1.0, 1.0)),
    # receipts 000-049: 4730 of 5279 words read right; with the curve 236 of them flagged, 271
    # of 549 wrong ones not (296 with the characters' mean probability, fitted the same way; of
    # their lines, 362 of 572 wrong ones pass the lines' curve)
    "rapidocr": ((0.0, 0.0), (0.84, 0.6), (1.0, 1.0)),
}


def calibrated(
    engine: str, raw: float, curves: dict[str, tuple[tuple[float, float], ...]] = CURVES
) -> float:
    """``raw`` (0..1) through ``engine``'s curve in ``curves`` (lines' by default, or
    :data:`WORD_CURVES`), rounded to 3 places; unchanged for an engine without one."""
    curve = curves.get(engine)
    raw = min(1.0, max(0.0, raw))
    if not curve:
        return round(raw, 3)
    xs = [x for x, _ in curve]
    i = bisect.bisect_right(xs, raw)
    if i == 0:
        return round(curve[0][1], 3)
    if i == len(curve):
        return round(curve[-1][1], 3)
    (x0, y0), (x1, y1) = curve[i - 1], curve[i]
    share = y0 + (y1 - y0) * (raw - x0) / (x1 - x0) if x1 > x0 else y1
    return round(share, 3)
