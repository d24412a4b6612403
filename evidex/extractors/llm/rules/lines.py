"""The visible lines the backend reads, the candidates it weighs, and the leaf it answers."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

from evidex.extractors.document import ParsedDocument, with_edges

from .match import Match

__all__ = ["Hit", "Leaf", "Line", "Lines", "join_caveats", "leaf"]

Leaf = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Line:
    index: int  # position among the visible lines
    no: int  # global line number, what a quote cites
    page: int
    text: str
    size: float
    x0: float
    x1: float
    y0: float
    y1: float
    ocr: float = math.nan  # the OCR confidence its text was read with; NaN: not read by OCR
    edge: str = ""  # the side of the image it runs to, maybe cut off there (``with_edges``)

    @property
    def read_by_ocr(self) -> bool:
        return not math.isnan(self.ocr)

    def continued_by(self, below: Line) -> bool:
        """``below`` is the next line of the same block: same row, or just under, no gap."""
        if below.page != self.page or math.isnan(self.y1 + below.y0):
            return below.page == self.page
        return below.y0 >= self.y0 - 1 and below.y0 - self.y1 <= 0.8 * max(self.y1 - self.y0, 1)


@dataclass(frozen=True, slots=True)
class Hit:
    rank: tuple[int, int]  # (tier, label rank): lower wins
    line: Line
    match: Match  # the value's span in line.text
    quote: tuple[int, int]
    qualified: bool = False  # tied to the leaf's parent by a label or a block heading
    last: int = -1  # for a quote over several lines: the index of its last line
    source: str = ""  # and the text its offsets point into (the lines joined by spaces)

    @property
    def text(self) -> str:
        """What ``match`` and ``quote`` offsets point into."""
        return self.source or self.line.text

    @property
    def key(self) -> tuple[int, int, int]:
        return self.line.no, self.match.start, self.match.end


def _num(value: Any) -> float:
    return float(value) if value is not None and value == value else math.nan


class Lines:
    """The visible lines, and all of them as one text (``joined``, one line per row) so a
    pattern runs once over the document instead of once per line."""

    def __init__(self, document: ParsedDocument) -> None:
        lines = with_edges(document)
        df = lines[lines["visible"].astype(bool)]
        columns = ("line", "page", "text", "font_size", "x0", "x1", "y0", "y1")
        ocr = df["ocr_confidence"] if "ocr_confidence" in df else [math.nan] * len(df)
        rows = zip(*(df[c].tolist() for c in columns), list(ocr), df["edge"], strict=True)
        self.rows = []
        for i, (no, page, text, *rest, edge) in enumerate(rows):
            size, x0, x1, y0, y1, conf = map(_num, rest)
            text = str(text).replace("\n", " ")
            self.rows.append(Line(i, int(no), int(page), text, size, x0, x1, y0, y1, conf, edge))
        # whether the lines' boxes and sizes are the print's: a plain text file's are made up
        self.typeset = document.parser != "text"
        self.joined = "\n".join(line.text for line in self.rows)
        self.lower = self.joined.lower()
        self.starts: list[int] = []
        pos = 0
        for line in self.rows:
            self.starts.append(pos)
            pos += len(line.text) + 1

    def at(self, pos: int) -> tuple[Line, int]:
        """The line holding offset ``pos`` of ``joined``, and the offset within it."""
        k = bisect.bisect_right(self.starts, pos) - 1
        return self.rows[k], pos - self.starts[k]

    def after(self, line: Line) -> Line | None:
        return self.rows[line.index + 1] if line.index + 1 < len(self.rows) else None

    def before(self, line: Line) -> Line | None:
        return self.rows[line.index - 1] if line.index else None


def leaf(line: Line, start: int, end: int, value: Any, caveat: str = "") -> Leaf:
    return {
        "quote": line.text[start:end],
        "page": line.page,
        "line_start": line.no,
        "line_end": line.no,
        "found": True,
        "value": value,
        "caveat": caveat,
    }


def join_caveats(*caveats: str) -> str:
    return "; ".join(c for c in caveats if c)
