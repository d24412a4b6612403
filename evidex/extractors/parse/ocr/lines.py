"""Line-table rows from an engine's words: the same for every engine.

Lines: the engine's lines, split where two words are more than 1.5 line heights apart (engines
join the columns of a form or a table into one line). A segment and its neighbour on the line
are a pair (a label and its value, two cells of a row) when less than 8 line heights apart, or
however far apart when the neighbour is a figure ("TOTAL" at a receipt's left edge, "4.90" at its
right): a pair reads in its row, not down a column of labels and then one of figures. A line
whose last segment is a figure ("TOTAL :" | "RM" | "39.80") is one printed row: its segments go
to the reading order as one box, so no column cut runs between them.
Segments stacked left-aligned or centred less than a line height apart form a block (a
paragraph, an address, a receipt's centred header); the blocks go through the text layer's
reading order (the XY-cut of :mod:`..pymupdf_parser`), so a column of text reads down and a form
or a table of one-line cells reads in rows.

Boxes: a word's box is its ink box horizontally and its line's extent vertically, grown by 30% of
the line height above and 10% below: ink stops at the glyphs while a text layer's boxes span the
font's ascent and descent, and a highlight should cover the same band whether the page was read
from text or by OCR. ``to_page`` maps the prepared image's pixels back to the page's unit (points
for a PDF page, the file's own pixels for an image), undoing any crop, upscale or turn.

Text: each word as :func:`.reading.read_word` puts it right (full-width forms folded, a lone
digit between letters read as the letter, an O among digits as 0).

Confidence: ``ocr_confidence`` is the engine's calibrated line confidence
(:meth:`.words.OcrEngine.line_confidence`, see :mod:`.calibrate`), ``word_confidence`` each
word's (:meth:`.words.OcrEngine.word_confidence`), on the same scale.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from evidex.extractors.document import Word, line_row
from evidex.extractors.parse.ocr.reading import read_word
from evidex.extractors.parse.ocr.words import BoxPx, OcrWord
from evidex.extractors.parse.pymupdf_parser import reading_order

__all__ = ["mean_confidence", "page_rows"]

_SPLIT_GAP = 1.5  # line heights between two words that start a new segment
_STACK_GAP = 1.0  # line heights between stacked segments of one block
_PAIR_GAP = 8.0  # line heights: segments of one line closer than this are a label and its value
# a segment that is one figure (an amount, a quantity, a code), with a currency or a tax mark
_FIGURE = re.compile(r"(?:[A-Z]{1,3}\$?|[$€£¥])?\s?[-(]?\d[\d.,:/-]*\)?(?:\s?[A-Z*%]{1,3})?")
_PAD_TOP, _PAD_BOTTOM = 0.3, 0.1  # of the line height, see "Boxes"

ToPage = Callable[[BoxPx], BoxPx]


def mean_confidence(words: Sequence[OcrWord]) -> float:
    """The mean word confidence of a line, leaving out words without a letter or digit (bullets,
    rules, stray marks: where engines are least sure, and they carry no value) unless the line
    has nothing else."""
    kept = [w for w in words if any(c.isalnum() for c in w.text)] or list(words)
    return sum(w.conf for w in kept) / max(len(kept), 1)


def _scaled(scale: float) -> ToPage:
    return lambda b: (b[0] * scale, b[1] * scale, b[2] * scale, b[3] * scale)


def page_rows(
    words: Sequence[OcrWord],
    page_no: int,
    scale: float | ToPage,
    size: tuple[float, float],
    confidence: Callable[[Sequence[OcrWord]], float] | None = None,
    word_confidence: Callable[[OcrWord], float] | None = None,
) -> list[dict[str, Any]]:
    """Line-table rows for one page from an engine's words, in reading order. ``scale``: the
    page unit per image pixel (72/dpi for points, 1 for pixels), or a function mapping a box of
    the image to the page; boxes are clipped to ``size``. ``confidence``: the line confidence
    (default: :func:`mean_confidence`); ``word_confidence``: a word's (default: its own score)."""
    to_page = _scaled(scale) if isinstance(scale, int | float) else scale
    rate = confidence or (lambda ws: round(mean_confidence(ws), 3))
    rate_word = word_confidence or (lambda w: round(w.conf, 3))
    by_line: dict[tuple[int, int, int], list[OcrWord]] = {}
    for word in words:
        word = replace(word, text=read_word(word.text))
        by_line.setdefault(word.line, []).append(word)
    segments: list[list[OcrWord]] = []
    rows: list[list[list[OcrWord]]] = []  # lines that end in a figure: their segments, a row
    paired: set[int] = set()  # ids of segments with a close neighbour on their line
    for line_words in by_line.values():
        line_words.sort(key=lambda w: w.box[0])
        height = _height(line_words)
        parts, apart = [[line_words[0]]], []  # segments; line heights between neighbours
        for prev, word in itertools.pairwise(line_words):
            gap = word.box[0] - prev.box[2]
            if gap > _SPLIT_GAP * height:
                parts.append([word])
                apart.append(gap / height)
            else:
                parts[-1].append(word)
        if len(parts) > 1 and _figure(parts[-1]):
            rows.append(parts)
            continue
        segments += parts
        for (left, right), heights in zip(itertools.pairwise(parts), apart, strict=True):
            if heights < _PAIR_GAP or _figure(right):
                paired.update((id(left), id(right)))
    stacked = _stack(segments, paired)
    blocks = stacked + rows  # a row of cells is one printed line, never a paragraph
    boxes = [_union([_seg_box(s) for s in b]) for b in blocks]
    order = reading_order(boxes, [len(b) > 1 for b in stacked] + [False] * len(rows))
    return [
        _row(seg, page_no, to_page, size, (rate, rate_word)) for i in order for seg in blocks[i]
    ]


def _figure(segment: Sequence[OcrWord]) -> bool:
    return bool(_FIGURE.fullmatch(" ".join(w.text for w in segment)))


def _stack(segments: list[list[OcrWord]], paired: set[int]) -> list[list[list[OcrWord]]]:
    """Blocks of segments: a segment stacks on a block when it is in the same engine block,
    starts within a line height of the block's last segment's left edge or has its centre
    within a line height of that segment's (a centred receipt header), and sits less than a
    line height below it (a paragraph, an address). A segment paired with a close neighbour on
    its line (a label or its value, a table cell) stands alone, so a form or a table reads in
    rows."""
    blocks: list[list[list[OcrWord]]] = []
    for seg in sorted(segments, key=lambda s: (_seg_box(s)[1], _seg_box(s)[0])):
        x0, y0, x1, _ = _seg_box(seg)
        height = _height(seg)
        home = None
        for block in blocks if id(seg) not in paired else []:
            last = block[-1]
            lx0, _, lx1, ly1 = _seg_box(last)
            aligned = abs(lx0 - x0) <= height or abs((lx0 + lx1) - (x0 + x1)) / 2 <= height
            if (
                id(last) not in paired
                and last[0].line[0] == seg[0].line[0]
                and aligned
                and -0.5 * height <= y0 - ly1 <= _STACK_GAP * height
            ):
                home = block
        if home is None:
            blocks.append([seg])
        else:
            home.append(seg)
    return blocks


def _height(words: Sequence[OcrWord]) -> float:
    heights = sorted(w.line_box[3] - w.line_box[1] for w in words)
    return max(heights[len(heights) // 2], 1.0)


def _seg_box(seg: Sequence[OcrWord]) -> BoxPx:
    return _union([w.box for w in seg])


def _union(boxes: Iterable[BoxPx]) -> BoxPx:
    b = list(boxes)
    return (min(x[0] for x in b), min(x[1] for x in b), max(x[2] for x in b), max(x[3] for x in b))


def _row(
    seg: Sequence[OcrWord],
    page_no: int,
    to_page: ToPage,
    size: tuple[float, float],
    rates: tuple[Callable[[Sequence[OcrWord]], float], Callable[[OcrWord], float]],
) -> dict[str, Any]:
    top = min(w.line_box[1] for w in seg)
    bottom = max(w.line_box[3] for w in seg)
    height = bottom - top
    band = (top - _PAD_TOP * height, bottom + _PAD_BOTTOM * height)
    placed = [to_page((w.box[0], band[0], w.box[2], band[1])) for w in seg]
    y0 = max(0.0, min(p[1] for p in placed))
    y1 = min(size[1], max(p[3] for p in placed))
    mark = to_page((seg[0].box[0], top, seg[0].box[0], bottom))  # the line's height, on the page
    font = max(mark[2] - mark[0], mark[3] - mark[1])
    words: list[Word] = []
    pos = 0
    for w, p in zip(seg, placed, strict=True):
        x0, x1 = max(0.0, p[0]), min(size[0], p[2])
        words.append(
            (pos, pos + len(w.text), round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))
        )
        pos += len(w.text) + 1
    text = " ".join(w.text for w in seg)
    rate, rate_word = rates
    return line_row(
        page_no,
        text,
        words,
        round(font, 1),
        ocr_confidence=float(rate(seg)),
        word_confidence=tuple(float(rate_word(w)) for w in seg),
        source="ocr",
    )
