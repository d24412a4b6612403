"""Page geometry and appearance the PyMuPDF-based parsers share: boxes, characters to a row with
its words, the XY-cut reading order (see :mod:`evidex.extractors.parse.pymupdf_parser`),
whether a clip path may hide text drawn under it, and whether text has its background's colour.
Pure: no PyMuPDF calls.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evidex.extractors.document import Word, line_row

__all__ = [
    "GUTTER",
    "RGB",
    "SAME_COLOUR",
    "Box",
    "Char",
    "as_box",
    "block_box",
    "char_row",
    "clips_text",
    "first_gap",
    "in_rows",
    "inside",
    "origin_key",
    "reading_order",
    "rgb",
    "row_box",
    "same_colour",
    "split",
    "union",
    "union_boxes",
    "within",
]

Box = tuple[float, float, float, float]
RGB = tuple[float, float, float]
GUTTER = 6.0  # points of white between two columns
SAME_COLOUR = 0.1  # per channel: text this close to what is under it cannot be seen


@dataclass(frozen=True)
class Char:
    c: str
    box: Box
    size: float
    reason: str


def char_row(chars: list[Char], reason: str, page_no: int) -> dict[str, Any] | None:
    """One row from a run of characters: edge whitespace dropped, words from whitespace gaps."""
    body = list(chars)
    while body and body[0].c.isspace():
        body.pop(0)
    while body and body[-1].c.isspace():
        body.pop()
    if not body:
        return None
    words: list[Word] = []
    word: list[Char] = []
    pos = start = 0
    for char in [*body, Char(" ", (0.0, 0.0, 0.0, 0.0), 0.0, "")]:
        if char.c.isspace():
            if word:
                words.append((start, pos, *union_boxes([c.box for c in word])))
            word = []
        elif not word:
            start, word = pos, [char]
        else:
            word.append(char)
        pos += len(char.c)
    size = max(c.size for c in body if not c.c.isspace())
    return line_row(page_no, "".join(c.c for c in body), words, size, hidden_reason=reason)


def reading_order(boxes: Sequence[Box], multi_line: Sequence[bool]) -> list[int]:
    """Indices of ``boxes`` in reading order (the XY-cut of the module docstring)."""

    def cut(ids: list[int]) -> list[int]:
        if len(ids) <= 1:
            return ids
        columns = split(ids, boxes, 0, GUTTER)
        if len(columns) > 1:
            if not any(multi_line[i] for i in ids):
                return in_rows(ids, boxes)
            return [i for column in columns for i in cut(column)]
        bands: list[list[int]] = []
        for band in split(ids, boxes, 1, 0.0):
            if bands and len(split(bands[-1] + band, boxes, 0, GUTTER)) > 1:
                bands[-1] = bands[-1] + band
            else:
                bands.append(band)
        if len(bands) == 1:
            return in_rows(ids, boxes)
        return [i for band in bands for i in cut(band)]

    return cut(list(range(len(boxes))))


def split(ids: list[int], boxes: Sequence[Box], axis: int, gap: float) -> list[list[int]]:
    """Groups of ``ids`` whose extents on ``axis`` (0: x, 1: y) are at least ``gap`` apart."""
    groups: list[list[int]] = []
    end = -math.inf
    for i in sorted(ids, key=lambda i: (boxes[i][axis], boxes[i][axis + 2], i)):
        if groups and boxes[i][axis] < end + gap:
            groups[-1].append(i)
        else:
            groups.append([i])
        end = max(end, boxes[i][axis + 2]) if len(groups[-1]) > 1 else boxes[i][axis + 2]
    return groups


def in_rows(ids: list[int], boxes: Sequence[Box]) -> list[int]:
    """Top to bottom; boxes whose middle is above the bottom of a row's first box join that row."""
    rows: list[list[int]] = []
    for i in sorted(ids, key=lambda i: (boxes[i][1], boxes[i][0], i)):
        if rows and (boxes[i][1] + boxes[i][3]) / 2 < boxes[rows[-1][0]][3]:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda i: (boxes[i][0], i))]


def row_box(row: dict[str, Any]) -> Box:
    return (row["x0"], row["y0"], row["x1"], row["y1"])


def block_box(block: list[list[dict[str, Any]]]) -> Box:
    return union([r for line in block for r in line])


def union(rows: Sequence[dict[str, Any]]) -> Box:
    return union_boxes([(r["x0"], r["y0"], r["x1"], r["y1"]) for r in rows])


def union_boxes(boxes: Sequence[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def inside(x: float, y: float, box: Box) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def as_box(rect: Any) -> Box:
    x0, y0, x1, y1 = rect
    return (float(x0), float(y0), float(x1), float(y1))


def clips_text(at: int, drawings: list[dict[str, Any]], numbers: list[int]) -> bool:
    """Whether text may be drawn while the clip ``drawings[at]`` is in force: from its number
    until the next drawing at its nesting level or above (the clip's end; none seen: the page's
    end), some number is not a path or clip (text, an image or a shading was drawn there)."""
    start, level = drawings[at].get("seqno"), drawings[at].get("level")
    if not isinstance(start, int) or not isinstance(level, int):
        return True
    end = next(
        (
            int(d["seqno"])
            for d in drawings[at + 1 :]
            if isinstance(d.get("seqno"), int) and d.get("level", 0) <= level
        ),
        None,
    )
    if end is None:
        return True
    inside = bisect.bisect_left(numbers, end) - bisect.bisect_right(numbers, start)
    return inside < end - start - 1


def first_gap(numbers: set[int]) -> int:
    n = 0
    while n in numbers:
        n += 1
    return n


def within(inner: Sequence[float], outer: Box, slack: float = 0.5) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


@functools.lru_cache(maxsize=256)
def same_colour(colour: int, background: RGB) -> bool:
    """Whether an sRGB integer colour is within :data:`SAME_COLOUR` of ``background`` (each
    channel)."""
    text = ((colour >> 16 & 255) / 255, (colour >> 8 & 255) / 255, (colour & 255) / 255)
    return max(abs(a - b) for a, b in zip(text, background, strict=True)) < SAME_COLOUR


def origin_key(origin: Sequence[float]) -> tuple[float, float]:
    return (round(float(origin[0]), 1), round(float(origin[1]), 1))


def rgb(colour: Sequence[float]) -> RGB:  # get_drawings reports fills as RGB
    r, g, b = colour
    return (float(r), float(g), float(b))
