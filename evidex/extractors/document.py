"""``ParsedDocument``: the line table every later stage reads, and the ``Parser`` protocol.

The line table (``lines``) is a pandas DataFrame with one row per text line:

========================  =====================================================================
``line``                  global line number, 1-based, over the whole document
``page``                  1-based page
``line_in_page``          1-based line number within the page
``text``                  the line's text as extracted (not normalised)
``x0 y0 x1 y1``           the line's box in PDF points, origin top-left
``font_size``             the largest font size on the line, in points
``visible``               False when a reader cannot see the text (white on white, tiny, off page)
``hidden_reason``         why it is not visible ("" when visible)
``words``                 list of ``(start, end, x0, y0, x1, y1)``: each word's character range in
                          ``text`` and its box, so a quote inside a line gets a tight box
``role``                  the layout role when the parser knows it (``title``, ``sectionHeading``,
                          ``pageHeader``, ``pageFooter``, ``pageNumber``, ``footnote``), else ""
``ocr_confidence``        0..1 when the text was read by OCR, else NaN
``word_confidence``       per word of ``words``, its own OCR confidence (0..1, on the line's
                          scale) when the parser gives one, else empty: a line's confidence
                          says how it reads as a whole, a word's where in it the doubt lies
``table``                 index of the table this line is a row of (``-1`` when none); a table row
                          is ONE line whose text is its cells joined by `` | ``
``source``                the parser that produced the line (``pymupdf``, ``azure``, ``ocr``)
========================  =====================================================================

``pages`` has one row per page: ``page``, ``width``, ``height``, ``rotation``, ``parser`` and
``has_text_layer``.

What is checked against the lines (verification, the rules backend) reads them with one more
column, :func:`with_edges`'s ``edge``: the side of the image (``left``, ``right``) a line read
by OCR runs to, where a photo may have cut it off; parsers do not write it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

__all__ = [
    "EDGE",
    "LINE_COLUMNS",
    "LINE_DEFAULTS",
    "PAGE_COLUMNS",
    "ParsedDocument",
    "Parser",
    "Word",
    "line_row",
    "make_lines",
    "make_pages",
    "parse_pages",
    "select_pages",
    "with_edges",
]

Word = tuple[int, int, float, float, float, float]

LINE_COLUMNS = (
    "line",
    "page",
    "line_in_page",
    "text",
    "x0",
    "y0",
    "x1",
    "y1",
    "font_size",
    "visible",
    "hidden_reason",
    "words",
    "role",
    "ocr_confidence",
    "word_confidence",
    "table",
    "source",
)
# Columns a parser may leave out, with the value they then take.
LINE_DEFAULTS: dict[str, Any] = {
    "role": "",
    "ocr_confidence": float("nan"),
    "word_confidence": (),
    "table": -1,
}
# The line table's numeric and boolean columns and their types (the others are text or lists).
_LINE_TYPES: dict[str, Any] = {
    **dict.fromkeys(("line", "page", "line_in_page", "table"), np.int64),
    **dict.fromkeys(("x0", "y0", "x1", "y1", "font_size", "ocr_confidence"), np.float64),
    "visible": np.bool_,
}
PAGE_COLUMNS = ("page", "width", "height", "rotation", "parser", "has_text_layer")


def make_lines(rows: Sequence[dict[str, Any]], source: str = "") -> pd.DataFrame:
    """A line table from row dicts; ``line`` and ``line_in_page`` are numbered here, optional
    columns (:data:`LINE_DEFAULTS`) filled in, and ``source`` set where a row does not say.
    Built column by column, numeric columns straight into typed arrays (a DataFrame from a list
    of dicts, or a cast afterwards, costs more than the parse)."""
    defaults = {**LINE_DEFAULTS, "source": source}
    nan = float("nan")
    count = len(rows)
    columns: dict[str, Any] = {}
    for name in LINE_COLUMNS:
        values: Iterable[Any]
        if name == "line":
            values = range(1, count + 1)
        elif name == "line_in_page":
            seen: dict[Any, int] = {}
            values = []
            for page in columns["page"]:
                seen[page] = seen.get(page, 0) + 1
                values.append(seen[page])
        else:
            default = defaults.get(name, nan)
            values = [row.get(name, default) for row in rows]
        kind = _LINE_TYPES.get(name)
        columns[name] = values if kind is None else np.fromiter(values, dtype=kind, count=count)
    return pd.DataFrame(columns, columns=list(LINE_COLUMNS), copy=False)


def line_row(
    page: int,
    text: str,
    words: list[Word],
    font_size: float,
    *,
    hidden_reason: str = "",
    **columns: Any,
) -> dict[str, Any]:
    """One row for :func:`make_lines`, boxed by the union of its (one or more) words; visible
    unless ``hidden_reason`` says why not; ``columns`` sets optional columns (``table``,
    ``ocr_confidence``, ``word_confidence``, ``source``)."""
    x0, y0 = min(w[2] for w in words), min(w[3] for w in words)
    x1, y1 = max(w[4] for w in words), max(w[5] for w in words)
    shown = {"visible": not hidden_reason, "hidden_reason": hidden_reason}
    place = {"page": page, "text": text, "x0": x0, "y0": y0, "x1": x1, "y1": y1}
    return {**place, "font_size": font_size, **shown, "words": words, **columns}


def make_pages(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(PAGE_COLUMNS))


@dataclass(frozen=True)
class ParsedDocument:
    """A document reduced to its line table, with what the result needs to name it."""

    lines: pd.DataFrame
    pages: pd.DataFrame
    sha256: str
    filename: str
    parser: str
    media_type: str = "application/pdf"

    @property
    def page_count(self) -> int:
        return len(self.pages)


EDGE = 0.015  # of the page's width: a line read by OCR this near a side may be cut off by it
# of the line's height: a cut through a letter leaves the next one up to about half a letter in
# ("YARIKAT PERNIAGAAN GIN KEE" 16 pixels into a cut photo, its line 50 high). On SROIE's scans
# of 100-399 with their left edge cut (``bench.receipts_verify --worse cut``) this took the
# rules' wrong values verified from 28 to 9, for 12 of 1052 true answers sent to review on the
# scans as they are; a page margin of a letter or more (a rendered invoice's) stays clear
CUT_LETTER = 0.4
# on a side the photo cuts two lines or more at (the print runs off it), a letter or nearly
# one: the photo cuts the print there, and a line that starts that near may have lost letters
# too (on the cut scans of 100-399: 9 wrong values verified to 3, 6 more true answers of 1052
# on the scans as they are sent to review)
CUT_PAGE = 0.8
# of the line's height: a side of the page no line comes this near, where three lines or more
# come within CUT_PAGE of it, is a margin the print stands clear of, not a cut. On the scans of
# SROIE's 100-399, cropped tight to the receipt, the nearest line of a side with lines near it
# stands 0.22 of its height or more from it on 111 of 116 receipts; cut through the print
# (``bench.receipts_verify --worse cut``, 000-049), 0.12 or less on all 37 with lines near it
CLEAR = 0.2
CLEAR_LINES = 3


def with_edges(document: ParsedDocument) -> pd.DataFrame:
    """The line table with an ``edge`` column: for a line read by OCR whose box comes within
    :data:`EDGE` of the page's width, or :data:`CUT_LETTER` of its own height
    (:data:`CUT_PAGE` where two lines or more of the page come that near the side), to its left
    or right side, that side, else "". A photo that cuts through a line leaves what remains
    readable and wrong ("HAKKA INTERNATIONAL SDN BHD" of "UNIHAKKA …", "TOTAL" of "SUB
    TOTAL"). A text layer's line is whole wherever it stands. Not the top and bottom: a photo
    that cuts across a line halves its letters, which no engine reads with confidence, and a
    tight scan often starts its first line at the top. Nor a side the print stands clear of
    (:data:`CLEAR`): a scan cropped tight to a receipt starts many lines near its edge, but
    none touches it; a line there that sticks out past the margin the others share is judged
    as before (a header wider than the body, cut between two letters)."""
    lines, pages = document.lines, document.pages
    widths: dict[int, float] = {}
    if {"page", "width"} <= set(pages.columns):
        widths = {int(p): float(w) for p, w in zip(pages["page"], pages["width"], strict=True)}
    ocr = lines["ocr_confidence"] if "ocr_confidence" in lines.columns else [np.nan] * len(lines)
    boxes: list[_Box | None] = []
    for page, x0, x1, y0, y1, conf in zip(
        lines["page"], lines["x0"], lines["x1"], lines["y0"], lines["y1"], ocr, strict=True
    ):
        width = widths.get(int(page))
        if width is None or conf != conf or x0 != x0 or x1 != x1:  # NaN: not read by OCR
            boxes.append(None)
            continue
        height = float(y1 - y0) if y1 == y1 and y0 == y0 else 0.0
        boxes.append(_Box(int(page), float(x0), float(x1), width, height))
    read = [box for box in boxes if box is not None]
    sides = [(box, side) for box in read for side in _SIDES]
    touch = Counter((box.page, side) for box, side in sides if box.near(side, CUT_LETTER))
    near: dict[tuple[int, str], list[float]] = {}  # the gaps of the lines near each side
    for box, side in sides:
        if box.near(side, CUT_PAGE):
            near.setdefault((box.page, side), []).append(box.gap(side))
    cut = {(box.page, side) for box, side in sides if box.touches(side)}
    margin = {  # a clear side: the gap its near lines share (their median)
        key: float(np.median(gaps))
        for key, gaps in near.items()
        if len(gaps) >= CLEAR_LINES and key not in cut
    }

    def edge_of(box: _Box) -> str:
        for side in _SIDES:
            key = (box.page, side)
            if key in margin and box.gap(side) >= margin[key] - CLEAR * box.height:
                continue  # within the print's margin; a line that sticks out past it may be cut
            if box.near(side, CUT_PAGE if touch[(box.page, side)] >= 2 else CUT_LETTER):
                return side
        return ""

    return lines.assign(edge=[edge_of(box) if box else "" for box in boxes])


_SIDES = ("left", "right")


@dataclass(frozen=True, slots=True)
class _Box:
    """A line read by OCR: its page, left and right side, the page's width, its height."""

    page: int
    x0: float
    x1: float
    width: float
    height: float

    def gap(self, side: str) -> float:
        """How far the line stands from the page's ``side``."""
        return self.x0 if side == "left" else self.width - self.x1

    def near(self, side: str, letters: float) -> bool:
        """Whether the line comes within :data:`EDGE` of the page's width, or ``letters`` of
        its own height, of the page's ``side``."""
        return self.gap(side) <= max(3.0, EDGE * self.width, letters * self.height)

    def touches(self, side: str) -> bool:
        """Whether the line comes within :data:`CLEAR` of its height of the page's ``side``
        (a photo's cut through its first letter, or no margin at all)."""
        return self.gap(side) < max(3.0, CLEAR * self.height)


class Parser(Protocol):
    """Turns document bytes into a line table. Raises a ``DocumentError`` for unusable input."""

    name: str

    def parse(self, data: bytes, filename: str) -> ParsedDocument: ...


def parse_pages(spec: str, page_count: int) -> list[int]:
    """Pages named by ``"1-3,5"`` (1-based, in order, without repeats), checked against the count.

    Raises ``ValueError`` with a message for the person who wrote the selection.
    """
    pages: list[int] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        first, _, last = part.partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise ValueError(
                f"page selection {spec!r}: {part!r} is not a page or a range"
            ) from None
        if lo < 1 or hi < lo:
            raise ValueError(f"page selection {spec!r}: {part!r} is not a valid range")
        if hi > page_count:
            raise ValueError(f"page selection {spec!r}: the document has {page_count} page(s)")
        pages.extend(p for p in range(lo, hi + 1) if p not in pages)
    if not pages:
        raise ValueError(f"page selection {spec!r} names no page")
    return pages


def select_pages(document: ParsedDocument, spec: str) -> ParsedDocument:
    """The document restricted to some pages; global line numbers keep their values, so spans
    and boxes still point at the same lines of the original file."""
    pages = parse_pages(spec, document.page_count)
    lines = document.lines[document.lines["page"].isin(pages)].reset_index(drop=True)
    page_rows = document.pages[document.pages["page"].isin(pages)].reset_index(drop=True)
    return ParsedDocument(
        lines, page_rows, document.sha256, document.filename, document.parser, document.media_type
    )
