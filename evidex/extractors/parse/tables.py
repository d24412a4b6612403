"""Tables on digital PDF pages: PyMuPDF's ``page.find_tables()``, folded into the line table.

A table row becomes ONE line whose text is its cells joined by `` | `` in column order (an empty
cell stays an empty slot, so every row of a table has the same number of separators and the
header row names the columns); ``words`` are the cells' words with character ranges into that
joined text, so a quote inside one cell still gets a box on its words; ``table`` is the table's
index in the document (0-based, counted over all pages). The row lines take the place of the
table in the reading order: the table is one block of the XY-cut, its rows read top to bottom.

Which text goes into a table: the visible rows of the text layer whose words mostly (by count)
have their centre inside the table's box; each of their words goes to the cell holding its centre,
else to the nearest row and column, so no text is ever lost. Inside a cell, words read in visual
lines (top to bottom, left to right). Text a reader cannot see is never folded into a row: it
stays a line of its own, flagged, next to the table.

Cost: PyMuPDF 2.0 finds tables with its layout model (``pymupdf_layout``, ONNX), about 0.2-0.6 s
a page, against ~10 ms to read a page's text. :func:`worth_looking` runs it only on pages with
table-like text (three or more visual rows holding three or more separate pieces of text side by
side), so a page of prose never pays for it. A failure of the finder costs the page its tables,
never its text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evidex.extractors.document import Word, line_row
from evidex.extractors.parse.geometry import Box, inside, union, union_boxes

__all__ = ["Grid", "find_grids", "fold_tables", "grids_from_words", "table_row", "worth_looking"]

Row = dict[str, Any]
Block = list[list[Row]]  # block -> line -> rows, as the PyMuPDF parser builds them
SEPARATOR = " | "
_MIN_ROWS, _MIN_CELLS = 3, 3


@dataclass(frozen=True, slots=True)
class Grid:
    """A table found on a page: its box and its rows of cell boxes (None: a merged-away cell),
    in the displayed page's points."""

    bbox: Box
    rows: tuple[tuple[Box | None, ...], ...]


def worth_looking(rows: Sequence[Row]) -> bool:
    """Whether a page's text looks tabular enough to run the (slow) table finder on."""
    centres = sorted(((r["y0"] + r["y1"]) / 2, r["y1"] - r["y0"]) for r in rows if r["visible"])
    bands: list[int] = []
    top = -math.inf
    for centre, height in centres:
        if bands and centre - top <= 0.4 * max(height, 1.0):
            bands[-1] += 1
        else:
            bands.append(1)
            top = centre
    return sum(1 for n in bands if n >= _MIN_CELLS) >= _MIN_ROWS


def find_grids(page: Any, show: Callable[[Sequence[float]], Box]) -> list[Grid]:
    """The tables PyMuPDF finds on ``page``; ``show`` maps its (unrotated) boxes to the displayed
    page. Best effort: an error inside the finder means no tables on this page."""
    try:
        found = page.find_tables()
    except (RuntimeError, ValueError, IndexError, KeyError, TypeError, AttributeError):
        return []
    grids: list[Grid] = []
    for table in found.tables:
        rows = [tuple(show(c) if c else None for c in row.cells) for row in table.rows]
        header = table.header
        if getattr(header, "external", False) and header.cells:
            rows.insert(0, tuple(show(c) if c else None for c in header.cells))
        if rows:
            bbox = union_boxes([c for row in rows for c in row if c] or [show(table.bbox)])
            grids.append(Grid(bbox, tuple(rows)))
    return grids


def fold_tables(
    blocks: list[Block], grids: Sequence[Grid], first_index: int
) -> tuple[list[Block], list[Box | None]]:
    """``blocks`` with each grid's text replaced by one block of row lines (see the module
    docstring); also the box of each returned block that is a table (None for the others), so
    the caller can read a table as one multi-line block."""
    taken_ids: set[int] = set()
    tables: list[list[Row]] = []
    every = [row for block in blocks for line in block for row in line]
    for grid in grids:
        candidates = [
            r
            for r in every
            if id(r) not in taken_ids and r["visible"] and _inside_share(r, grid.bbox) > 0.5
        ]
        if not candidates:
            continue
        end = _body_end(_assign(grid, candidates))
        if end < 2:
            continue
        body = Grid(grid.bbox, grid.rows[:end])
        taken = [r for r in candidates if _row_of(body, grid, r) < end]
        lines = [
            r
            for r in (
                table_row(cells, first_index + len(tables), int(taken[0]["page"]))
                for cells in _assign(body, taken)
            )
            if r is not None
        ]
        if len(lines) >= 2:
            tables.append(lines)
            taken_ids.update(id(r) for r in taken)
    out: list[Block] = [
        [kept for kept in ([r for r in line if id(r) not in taken_ids] for line in block) if kept]
        for block in blocks
    ]
    out = [b for b in out if b]
    boxes: list[Box | None] = [None] * len(out)
    for lines in tables:
        out.append([[r] for r in lines])
        boxes.append(union(lines))
    return out, boxes


def _body_end(cells: Sequence[Sequence[Sequence[_CellWord]]]) -> int:
    """How many rows (header included) the table really has: it ends before a run of trailing
    rows that each leave empty a column every body row above them fills. Those are a summary
    or a notes block the layout model took in (totals, bank details beside them), read better
    as ordinary lines; a wrapped row in the middle of a table is followed by full rows again
    and does not end it."""
    filled = [{j for j, cell in enumerate(row) if cell} for row in cells]
    for end in range(3, len(filled)):
        always = set.intersection(*filled[1:end])
        if always and all(not always <= f for f in filled[end:]):
            return end
    return len(filled)


def _row_of(body: Grid, grid: Grid, row: Row) -> int:
    """The grid row holding most of a text row's words (rows past ``body`` included)."""
    words = row["words"] or [(0, 0, row["x0"], row["y0"], row["x1"], row["y1"])]
    hits = [_cell_of(grid, (w[2] + w[4]) / 2, (w[3] + w[5]) / 2)[0] for w in words]
    return max(set(hits), key=hits.count) if hits else len(body.rows)


def _inside_share(row: Row, box: Box) -> float:
    words = row["words"] or [(0, 0, row["x0"], row["y0"], row["x1"], row["y1"])]
    held = sum(1 for w in words if inside((w[2] + w[4]) / 2, (w[3] + w[5]) / 2, box))
    return held / len(words)


@dataclass(frozen=True, slots=True)
class _CellWord:
    text: str
    box: Box
    size: float


def _assign(grid: Grid, rows: Sequence[Row]) -> list[list[list[_CellWord]]]:
    """The taken rows' words, per table row and column (column order of the grid)."""
    columns = max(len(r) for r in grid.rows)
    cells: list[list[list[_CellWord]]] = [[[] for _ in range(columns)] for _ in grid.rows]
    for row in rows:
        for w in row["words"]:
            word = _CellWord(
                str(row["text"])[w[0] : w[1]], (w[2], w[3], w[4], w[5]), row["font_size"]
            )
            i, j = _cell_of(grid, (w[2] + w[4]) / 2, (w[3] + w[5]) / 2)
            cells[i][j].append(word)
    return cells


def _cell_of(grid: Grid, x: float, y: float) -> tuple[int, int]:
    best: tuple[float, int, int] = (math.inf, 0, 0)
    for i, row in enumerate(grid.rows):
        for j, cell in enumerate(row):
            if cell is None:
                continue
            if inside(x, y, cell):
                return i, j
            dx = max(cell[0] - x, 0.0, x - cell[2])
            dy = max(cell[1] - y, 0.0, y - cell[3])
            best = min(best, (dy * 4 + dx, i, j))  # the nearest row first, then column
    return best[1], best[2]


def table_row(cells: Sequence[Sequence[_CellWord]], table: int, page: int) -> Row | None:
    """One line-table row from a table row's cells; None when every cell is empty."""
    texts: list[str] = []
    words: list[Word] = []
    pos = 0
    for cell in cells:
        if texts:
            pos += len(SEPARATOR)
        parts: list[str] = []
        for word in _visual_order(cell):
            if parts:
                pos += 1
            words.append((pos, pos + len(word.text), *word.box))
            parts.append(word.text)
            pos += len(word.text)
        texts.append(" ".join(parts))
    if not words:
        return None
    size = max(w.size for cell in cells for w in cell)
    return line_row(page, SEPARATOR.join(texts), words, size, table=table)


def _visual_order(words: Sequence[_CellWord]) -> list[_CellWord]:
    """Words in visual lines: a word whose middle is above the bottom of a line's first word
    joins that line; lines top to bottom, words left to right."""
    lines: list[list[_CellWord]] = []
    for w in sorted(words, key=lambda w: (w.box[1], w.box[0])):
        if lines and (w.box[1] + w.box[3]) / 2 < lines[-1][0].box[3]:
            lines[-1].append(w)
        else:
            lines.append([w])
    return [w for line in lines for w in sorted(line, key=lambda w: w.box[0])]


def grids_from_words(blocks: Sequence[Block]) -> list[Grid]:
    """Tables found from the text layer alone (no model): runs of three or more visual rows
    that each hold three or more separate lines side by side (:data:`_MIN_CELLS`), close
    together, whose lines line up in three or more columns. A column is the union of the
    x-ranges of the lines in it, so a header spanning two columns joins them. A run that is
    really text beside text is no table: a column where one MuPDF block runs over two or more
    of its rows is a paragraph, an address or a key/value list beside the rest, and is left out
    (with fewer than three columns left, so is the table). A row with fewer pieces between two
    table rows is a wrapped cell, a group label or a subtotal: its own row (at most two such in
    a row); the rows of a table are its visual rows."""
    pieces = [
        (row, b)
        for b, block in enumerate(blocks)
        for line in block
        for row in line
        if row["visible"]
    ]
    bands = _bands(pieces)
    grids: list[Grid] = []
    i = 0
    while i < len(bands):
        if len(bands[i]) < _MIN_CELLS:
            i += 1
            continue
        run = [bands[i]]
        j = i + 1
        while j < len(bands):
            # up to two sparser rows (a wrapped cell, a group label, a subtotal) between rows
            # of the table are its rows too; a full row that reaches across columns ends it
            k = next((k for k in range(j, min(j + 3, len(bands))) if _full(bands[k])), None)
            between = bands[j : k if k is not None else j]
            if k is None or not all(
                _close(a, b) for a, b in zip([run[-1], *between], [*between, bands[k]], strict=True)
            ):
                break
            if any(_joins_columns(run, band) for band in [*between, bands[k]]):
                break
            run += [*between, bands[k]]
            j = k + 1
        grid = _grid(run) if len(run) >= _MIN_ROWS else None
        if grid is not None:
            grids.append(grid)
        i = j
    return grids


_Piece = tuple[Row, int]  # a row of the page and the block it came from


def _bands(pieces: Sequence[_Piece]) -> list[list[_Piece]]:
    """Pieces grouped into visual rows, top to bottom (as :func:`worth_looking` counts them)."""
    out: list[list[_Piece]] = []
    top = -math.inf
    for piece in sorted(pieces, key=lambda p: ((p[0]["y0"] + p[0]["y1"]) / 2, p[0]["x0"])):
        r = piece[0]
        centre, height = (r["y0"] + r["y1"]) / 2, r["y1"] - r["y0"]
        if out and centre - top <= 0.4 * max(height, 1.0):
            out[-1].append(piece)
        else:
            out.append([piece])
            top = centre
    return out


def _full(band: Sequence[_Piece]) -> bool:
    return len(band) >= _MIN_CELLS


def _close(upper: Sequence[_Piece], lower: Sequence[_Piece]) -> bool:
    """Whether ``lower`` follows ``upper`` without more than two line heights of space."""
    height = max(float(p[0]["y1"] - p[0]["y0"]) for p in upper)
    bottom = max(float(p[0]["y1"]) for p in upper)
    return min(float(p[0]["y0"]) for p in lower) - bottom <= 2 * height


def _columns(run: Sequence[Sequence[_Piece]]) -> list[list[float]]:
    """The union of the pieces' x-ranges: one [x0, x1] per column, left to right."""
    columns: list[list[float]] = []
    for x0, x1 in sorted((p[0]["x0"], p[0]["x1"]) for band in run for p in band):
        if columns and x0 <= columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    return columns


def _joins_columns(run: Sequence[Sequence[_Piece]], band: Sequence[_Piece]) -> bool:
    """Whether a piece of ``band`` reaches across two columns of ``run``: a summary or a
    paragraph below the table, not one of its rows."""
    columns = _columns(run)
    return any(sum(1 for a, b in columns if p[0]["x0"] <= b and p[0]["x1"] >= a) > 1 for p in band)


def _grid(run: Sequence[Sequence[_Piece]]) -> Grid | None:
    columns = _columns(run)

    def column(p: _Piece) -> int:
        return next(k for k, (a, b) in enumerate(columns) if a <= p[0]["x0"] <= b)

    prose = set()
    for k in range(len(columns)):
        fed = Counter(b for band in run for b in {p[1] for p in band if column(p) == k})
        if fed and max(fed.values()) >= 2:
            prose.add(k)
    kept = [k for k in range(len(columns)) if k not in prose]
    if len(kept) < _MIN_CELLS:
        return None
    cells = [[p for p in band if column(p) in kept] or list(band) for band in run]
    if sum(1 for band in cells if _full(band)) < _MIN_ROWS:
        return None
    rows = []
    for band in cells:
        y0, y1 = min(p[0]["y0"] for p in band), max(p[0]["y1"] for p in band)
        rows.append(tuple((columns[k][0], y0, columns[k][1], y1) for k in kept))
    bbox = union_boxes([c for row in rows for c in row])
    return Grid(bbox, tuple(rows))
