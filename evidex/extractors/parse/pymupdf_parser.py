"""``PyMuPDFParser``: a PDF's text layer as a line table. The only parser that imports PyMuPDF.

Extraction: per page one MuPDF text page, infinite clip and no ``TEXT_MEDIABOX_CLIP`` (off-page
text is extracted and reported hidden), ligatures and whitespace preserved, no dehyphenation, no
image blocks. Rows are built from ``rawdict`` characters, so ``text`` is exactly what MuPDF
extracted (edge whitespace dropped) and ``text[start:end]`` is each word. A MuPDF line is one row,
or several where its characters differ in visibility: white text inside a line is its own row.

Coordinates: MuPDF reports the *unrotated* page; every box goes through ``page.rotation_matrix``
into the *displayed* page (what a viewer shows), in points, origin top-left.

Visibility, first reason that applies:
``outside the page`` (character centre off the displayed page); ``near-zero font size`` (< 1 pt);
``clipped/hidden``: alpha 0 (render mode 3/7, fill opacity 0) unless on an image (an OCR layer
over a scan), covered by an opaque filled path drawn later (``get_texttrace``/``get_drawings``
seqno), or dropped by MuPDF's clip-path test (``TEXT_CLIP``); ``white or background-coloured
text``: colour within 0.1 per channel of the last filled path beneath it, else the white page
(text on an image is not judged by colour). Not detected: text under an image or annotation,
overlapping text, colour against a background image.

Reading order (not ``sort=True``, which ignores columns): a recursive XY-cut over MuPDF's blocks
that prefers columns. (1) Blocks that split at vertical gutters (x-ranges >= 6 pt apart) are read
column by column, left to right, each recursively; if no block in the group has two lines it is a
table or key/value form, read in rows. (2) Else cut into horizontal bands at vertical gaps,
merging neighbouring bands that share a gutter (a two-column body whose paragraphs line up stays
one band), and read the bands top to bottom, each recursively: a full-width title or footer is a
band of its own. A narrow block below one column (not crossing the gutter) is read with it.
(3) Else read in rows: top to bottom, left to right within a row. Lines in a block: in rows too.

Tables (``tables=True``, the default): on pages whose text looks tabular, PyMuPDF's
``find_tables`` locates tables and each table row becomes one line of `` | ``-joined cells, read
where the table stands (:mod:`.tables`).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, TypeVar

import pymupdf

from evidex.extractors.document import (
    PAGE_COLUMNS,
    ParsedDocument,
    Word,
    line_row,
    make_lines,
    make_pages,
)
from evidex.extractors.errors import (
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    NoPages,
    NoTextLayer,
    UnsupportedDocument,
)
from evidex.extractors.parse.geometry import (
    RGB,
    Box,
    Char,
    as_box,
    block_box,
    char_row,
    clips_text,
    first_gap,
    in_rows,
    inside,
    origin_key,
    reading_order,
    rgb,
    row_box,
    same_colour,
    union,
    union_boxes,
    within,
)
from evidex.extractors.parse.tables import (
    Grid,
    find_grids,
    fold_tables,
    grids_from_words,
    worth_looking,
)

__all__ = [
    "CLIPPED",
    "COLOUR",
    "OFF_PAGE",
    "TABLE_MODES",
    "TINY",
    "PyMuPDFParser",
    "TableMode",
    "open_pdf",
    "reading_order",
]

T = TypeVar("T")
_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any

_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_PRESERVE_LIGATURES
_PDF_ERRORS = (RuntimeError, ValueError)  # pymupdf.FileDataError is a RuntimeError
GUTTER = 6.0
_MIN_SIZE = 1.0
_WHITE: RGB = (1.0, 1.0, 1.0)
OFF_PAGE, TINY = "outside the page", "near-zero font size"
COLOUR, CLIPPED = "white or background-coloured text", "clipped/hidden"
TableMode = Literal["words", "layout", "off"]
TABLE_MODES: tuple[TableMode, ...] = ("words", "layout", "off")
_PIECE = re.compile(r"\S+")
_BLOCK_LINE = operator.itemgetter(5, 6)  # an extractWORDS row's block and line numbers
_SNIFF = {b"\x89PNG": "a PNG image", b"\xff\xd8": "a JPEG image", b"PK\x03\x04": "a ZIP/DOCX file"}


class PyMuPDFParser:
    """Reads a PDF's text layer with PyMuPDF; raises a ``DocumentError`` for unusable input.

    ``tables``: how tables are found and folded into one line per row (module docstring):
    ``"words"`` (the default, ``True``) from the text layer's lines and columns, ``"layout"``
    with PyMuPDF's layout model (``find_tables``, ~0.2-0.6 s a tabular page), ``"off"``
    (``False``) not at all.
    """

    name = "pymupdf"

    def __init__(self, *, tables: bool | TableMode = True) -> None:
        mode = (
            {True: "words", False: "off"}.get(tables, tables)
            if isinstance(tables, bool)
            else tables
        )
        if mode not in TABLE_MODES:
            raise ValueError(f"tables={tables!r}: use one of {', '.join(TABLE_MODES)}")
        self.tables: str = str(mode)

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        doc = _open(data, filename)
        rows: list[dict[str, Any]] = []
        pages: list[dict[str, Any]] = []
        tables = 0
        try:
            for number in range(1, doc.page_count + 1):
                try:
                    pdf_page = doc.load_page(number - 1)
                    page = _Page.read(pdf_page)
                except _PDF_ERRORS as exc:
                    raise CorruptDocument(
                        f"{filename}: page {number} of the PDF cannot be read ({exc}); the file is "
                        "damaged: re-export or re-download it and try again"
                    ) from exc
                grids: list[Grid] = []
                if self.tables == "words":
                    grids = grids_from_words(page.line_blocks(number))
                elif self.tables == "layout" and worth_looking(page.rows(number)):
                    grids = find_grids(pdf_page, page._show)
                found = page.rows(number, grids, tables)
                if grids:
                    tables += len({r["table"] for r in found if r.get("table", -1) >= 0})
                rows.extend(found)
                facts = (number, page.width, page.height, page.rotation, self.name, bool(found))
                pages.append(dict(zip(PAGE_COLUMNS, facts, strict=True)))
            repaired = bool(doc.is_repaired)
        finally:
            doc.close()
        if not rows and repaired:
            raise CorruptDocument(
                f"{filename}: the PDF is damaged (truncated or corrupt) and no "
                "text could be recovered; re-export or re-download it"
            )
        if not rows:
            raise NoTextLayer(
                f"{filename}: the PDF has no text layer on any page (it looks like a "
                "scan), so it needs OCR: use --parser auto (the default), --parser ocr "
                "or --parser azure, or send a PDF with selectable text"
            )
        sha256 = hashlib.sha256(data).hexdigest()
        return ParsedDocument(
            make_lines(rows, self.name), make_pages(pages), sha256, filename, self.name
        )


def _open(data: bytes, filename: str) -> Any:  # a pymupdf.Document
    if not data:
        raise EmptyDocument(f"{filename}: the file is empty (0 bytes); upload the complete PDF")
    if b"%PDF-" not in data[:1024]:
        kind = next((k for magic, k in _SNIFF.items() if data.startswith(magic)), "not a PDF")
        raise UnsupportedDocument(
            f"{filename}: {kind}, no %PDF- header in its first 1024 bytes; "
            "only PDF is supported: convert it to PDF and try again"
        )
    try:
        doc = _mupdf.open(stream=data, filetype="pdf")
    except _PDF_ERRORS as exc:
        raise CorruptDocument(
            f"{filename}: the PDF is damaged or truncated and cannot be opened "
            f"({exc}); re-export or re-download it and try again"
        ) from exc
    if doc.needs_pass:
        doc.close()
        raise EncryptedDocument(
            f"{filename}: the PDF is password-protected; remove the password "
            "(print or save an unprotected copy) and try again"
        )
    if doc.page_count == 0:
        doc.close()
        raise NoPages(f"{filename}: the PDF has no pages; send a PDF with at least one page")
    return doc


@dataclass
class _Page:
    """What one page offers, read from PyMuPDF (boxes still unrotated). One text page and one
    pass over the drawings; images, draw order and the clip test are read only when a span needs
    them, and characters only for the lines words cannot describe (:meth:`line_blocks`): a line
    that reaches past the page, mixes visibilities or loses glyphs to the clip test."""

    pdf_page: Any
    textpage: Any
    blocks: list[dict[str, Any]]
    words: dict[tuple[int, int], list[tuple[Any, ...]]]  # (block, line) -> extractWORDS rows
    fills: list[tuple[Box, RGB, float, int]]  # filled paths: rect, colour, opacity, seqno
    scissors: list[Box]  # clip rectangles
    # The first drawing sequence number that is not a path or clip: text (or an image or a
    # shading) may have been drawn there, so a fill numbered below it lies under all text.
    first_other: int
    matrix: Any  # unrotated -> displayed page; None on an unrotated page
    rotation: int
    width: float
    height: float
    _built: list[list[list[dict[str, Any]]]] | None = None

    @classmethod
    def read(cls, page: Any) -> _Page:
        textpage = page.get_textpage(clip=_mupdf.INFINITE_RECT(), flags=_FLAGS)
        blocks = [b for b in textpage.extractDICT(cb=None)["blocks"] if b.get("type", 0) == 0]
        words: dict[tuple[int, int], list[tuple[Any, ...]]] = {}
        for key, group in itertools.groupby(textpage.extractWORDS(), _BLOCK_LINE):
            words.setdefault(key, []).extend(group)
        fills: list[tuple[Box, RGB, float, int]] = []
        scissors: list[Box] = []
        drawings = _optional(lambda: page.get_cdrawings(extended=True), [])
        numbers = sorted(d["seqno"] for d in drawings if "seqno" in d)
        for at, d in enumerate(drawings):
            kind = d.get("type")
            if kind == "clip":
                if clips_text(at, drawings, numbers):
                    scissors.append(as_box(d["scissor"]))
                continue
            if kind in ("f", "s", "fs") and "rect" in d and d.get("fill") is not None:
                rect = as_box(d["rect"])
                fills.append(
                    (rect, rgb(d["fill"]), float(d.get("fill_opacity") or 1.0), d["seqno"])
                )
        rotation, shown = int(page.rotation), page.rect  # each a few calls into MuPDF
        return cls(
            page,
            textpage,
            blocks,
            words,
            fills,
            scissors,
            first_gap(set(numbers)),
            page.rotation_matrix if rotation else None,
            rotation,
            float(shown.width),
            float(shown.height),
        )

    @cached_property
    def images(self) -> list[Box]:
        return [as_box(i["bbox"]) for i in _optional(self.pdf_page.get_image_info, [])]

    @cached_property
    def clipped(self) -> Any:
        """The page's text page under MuPDF's clip-path test (``TEXT_CLIP``); None where that
        drops nothing. Run only where a clip rectangle leaves some text outside it (a glyph is
        dropped only when it lies entirely outside the clip in force), and then kept only if the
        texts differ."""
        if not self.scissors:
            return None
        spans = [s["bbox"] for b in self.blocks for ln in b["lines"] for s in ln["spans"]]
        if not spans:
            return None
        text = union_boxes(spans)  # inside a clip rectangle: so is every span
        if all(within(text, c) for c in self.scissors):
            return None
        flags = _FLAGS | pymupdf.TEXT_CLIP
        clipped = self.pdf_page.get_textpage(clip=_mupdf.INFINITE_RECT(), flags=flags)
        if clipped.extractText() == self.textpage.extractText():
            return None
        return clipped

    @cached_property
    def kept_words(self) -> set[tuple[Any, ...]]:
        """MuPDF's words (text and box) on the clipped text page: a line whose words are all
        here lost no character to the clip test."""
        return {w[:5] for w in self.clipped.extractWORDS()}

    @cached_property
    def shown(self) -> set[tuple[float, float]] | None:
        """Origins of characters kept by MuPDF's clip test; None: every character is kept."""
        if self.clipped is None:
            return None
        return {
            origin_key(ch["origin"])
            for b in self.clipped.extractRAWDICT(cb=None)["blocks"]
            for ln in b["lines"]
            for s in ln["spans"]
            for ch in s["chars"]
        }

    def rows(
        self, page_no: int, grids: Sequence[Grid] = (), first_table: int = 0
    ) -> list[dict[str, Any]]:
        """This page's rows in reading order; ``grids``: tables to fold into row lines, numbered
        from ``first_table``."""
        blocks = list(self.line_blocks(page_no))
        table_boxes: list[Box | None] = [None] * len(blocks)
        if grids:
            blocks, table_boxes = fold_tables(blocks, grids, first_table)
        order = reading_order(
            [
                tb or (row_box(b[0][0]) if len(b) == 1 and len(b[0]) == 1 else block_box(b))
                for b, tb in zip(blocks, table_boxes, strict=True)
            ],
            [tb is not None or len(b) > 1 for b, tb in zip(blocks, table_boxes, strict=True)],
        )
        return [row for i in order for line in blocks[i] for row in line]

    def line_blocks(self, page_no: int) -> list[list[list[dict[str, Any]]]]:
        """Block -> line (in rows) -> rows: from words where they describe the page exactly,
        else from characters (:meth:`_char_rows`). Built once."""
        if self._built is not None:
            return self._built
        out: list[list[list[dict[str, Any]]]] = []
        raw = None
        words, word_rows = self.words, self._word_rows
        kept = None if self.clipped is None else self.kept_words
        for b, block in enumerate(self.blocks):
            lines: list[list[dict[str, Any]]] = []
            for n, line in enumerate(block["lines"]):
                found = words.get((b, n), [])
                rows = (
                    word_rows(line, found, page_no)
                    if kept is None or all(w[:5] in kept for w in found)
                    else None
                )
                if rows is None and raw is None:
                    raw = self.textpage.extractRAWDICT(cb=None)["blocks"]
                if rows is None:
                    assert raw is not None
                    rows = self._char_rows(raw[b]["lines"][n], page_no)
                if rows:
                    lines.append(rows)
            if len(lines) > 1:
                boxes = [union(r) if len(r) > 1 else row_box(r[0]) for r in lines]
                order = in_rows(list(range(len(lines))), boxes)
                lines = [lines[i] for i in order]
            if lines:
                out.append(lines)
        self._built = out
        return out

    def _word_rows(
        self, line: dict[str, Any], words: list[tuple[Any, ...]], page_no: int
    ) -> list[dict[str, Any]] | None:
        """A line as one row built from MuPDF's words; None when that would not be exact: its
        spans differ in visibility, a span reaches past the page, or MuPDF's words are not the
        line's whitespace-separated pieces (characters then decide, :meth:`_char_rows`)."""
        spans = line["spans"]
        reason: str | None = None
        size = 0.0
        width, height = self.width, self.height
        for span in spans:
            piece = span["text"]
            if not piece or piece.isspace():
                continue
            x0, y0, x1, y1 = self._show(span["bbox"]) if self.rotation else span["bbox"]
            if not (x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height):
                return None
            found = self._span_reason(span)
            if reason is None:
                reason = found
            elif found != reason:
                return None
            size = max(size, float(span["size"]))
        body = "".join([span["text"] for span in spans]).strip()
        if not body:
            return []
        if reason is None or not words:
            return None
        if self.rotation:
            words = [(*self._show(w[:4]), w[4]) for w in words]
        if tuple(w[4] for w in words) != tuple(body.split()):
            return None
        # extractWORDS reports Python floats: a word is its character range and its box
        boxed: list[Word] = [
            m.span() + w[:4] for m, w in zip(_PIECE.finditer(body), words, strict=True)
        ]
        return [line_row(page_no, body, boxed, size, hidden_reason=reason)]

    def _char_rows(self, line: dict[str, Any], page_no: int) -> list[dict[str, Any]]:
        runs: list[tuple[str, list[Char]]] = []
        for span in line["spans"]:
            span_reason = self._span_reason(span)
            for ch in span["chars"]:
                if not ch["c"]:
                    continue
                box = self._show(ch["bbox"])
                cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
                reason = (
                    OFF_PAGE
                    if not (0 <= cx <= self.width and 0 <= cy <= self.height)
                    else span_reason
                    or (
                        ""
                        if self.shown is None or origin_key(ch["origin"]) in self.shown
                        else CLIPPED
                    )
                )
                char = Char(ch["c"], box, float(span["size"]), reason)
                if runs and (char.c.isspace() or reason == runs[-1][0]):
                    runs[-1][1].append(char)
                else:
                    runs.append((reason, [char]))
        return [r for r in (char_row(chars, reason, page_no) for reason, chars in runs) if r]

    @cached_property
    def _seqno(self) -> dict[tuple[float, float], int]:
        """Character origin -> drawing sequence number, read only when a span sits on a fill."""
        traces = _optional(self.pdf_page.get_texttrace, [])
        return {origin_key(ch[2]): t["seqno"] for t in traces for ch in t["chars"]}

    def _span_reason(self, span: dict[str, Any]) -> str:
        if float(span["size"]) < _MIN_SIZE:
            return TINY
        if not span.get("chars", True) or not span.get("text", True):
            return ""
        x0, y0, x1, y1 = span["bbox"]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if span.get("alpha", 255) == 0 and not self._on_image(cx, cy):
            return CLIPPED
        under = [f for f in self.fills if f[0][0] <= cx <= f[0][2] and f[0][1] <= cy <= f[0][3]]
        background = _WHITE
        if under:
            if all(f[3] < self.first_other for f in under):
                seq: float = math.inf  # every fill beneath was drawn before any text: no trace
            else:
                origin = span["chars"][0]["origin"] if "chars" in span else span["origin"]
                seq = self._seqno.get(origin_key(origin), math.inf)
            if any(s > seq and opacity >= 0.99 for _, _, opacity, s in under):
                return CLIPPED
            background = next(
                (c for _, c, opacity, s in reversed(under) if s < seq and opacity >= 0.5), _WHITE
            )
        same = same_colour(int(span["color"]), background)
        return COLOUR if same and not self._on_image(cx, cy) else ""

    def _on_image(self, x: float, y: float) -> bool:
        return any(inside(x, y, b) for b in self.images)

    def _show(self, bbox: Sequence[float]) -> Box:
        if not self.rotation:
            return as_box(bbox)
        return as_box(_mupdf.Rect(bbox) * self.matrix)


def _optional(read: Callable[[], list[T]], default: list[T]) -> list[T]:
    """Extra page facts (drawings, images, trace) are best effort: a failure leaves them out."""
    try:
        return read()
    except _PDF_ERRORS:
        return default


# Shared with the other PyMuPDF-based parsers (OCR, tables), under a public name.
open_pdf = _open
