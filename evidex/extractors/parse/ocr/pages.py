"""Which pages of a PDF need OCR, and putting per-page parts of several parsers back together.

A PDF page is read by OCR when it has no real text layer (:func:`needs_ocr`); the other pages keep
their text layer (:class:`..pymupdf_parser.PyMuPDFParser`), so one scanned page does not cost a
digital document its exact text. ``page_df.parser`` says which parser read each page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import pandas as pd
import pymupdf

from evidex.extractors.document import (
    PAGE_COLUMNS,
    ParsedDocument,
    Parser,
    make_lines,
    make_pages,
)
from evidex.extractors.errors import NoTextLayer
from evidex.extractors.parse.pymupdf_parser import open_pdf

__all__ = [
    "Part",
    "combine",
    "image_cover",
    "mixed_name",
    "needs_ocr",
    "page_lines",
    "page_part",
    "pages_to_ocr",
    "read_text_layer",
]

_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any
Part = tuple[dict[str, Any], list[dict[str, Any]]]  # one page: its page_df facts, its line rows

_MIN_CHARS = 20  # visible characters a text layer needs to count as real...
_IMAGE_PAGE = 0.5  # ...on a page whose images cover at least this share
_GARBLED = 0.3  # share of replacement / private-use characters that makes a text layer junk


def needs_ocr(lines: pd.DataFrame, image_cover: float | Callable[[], float]) -> bool:
    """Whether a page's text layer is not real, so the page must be read by OCR: no visible
    text; text that is mostly replacement or private-use characters (a font without a Unicode
    map); or a page mostly covered by images with next to no text (a scan with a stamped page
    number or Bates label). ``lines`` are the page's rows of the text layer; ``image_cover`` may
    be a function, called only for a page with next to no text (measuring it lists the page's
    images: ~3 ms a page, more than the rest of the check on a page of text)."""
    text = "".join(str(t) for t in lines.loc[lines["visible"], "text"]) if len(lines) else ""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return True
    junk = sum(1 for c in chars if c == "\ufffd" or "\ue000" <= c <= "\uf8ff")
    if junk / len(chars) >= _GARBLED:
        return True
    if len(chars) >= _MIN_CHARS:
        return False
    cover = image_cover() if callable(image_cover) else image_cover
    return cover >= _IMAGE_PAGE


def image_cover(page: Any) -> float:
    """The share of a PyMuPDF page covered by images (overlapping images counted twice)."""
    area = float(page.rect.width * page.rect.height) or 1.0
    rects = [_mupdf.Rect(i["bbox"]) & page.rect for i in page.get_image_info()]
    return min(1.0, sum(float(r.width * r.height) for r in rects) / area)


def read_text_layer(parser: Parser, data: bytes, filename: str) -> ParsedDocument | None:
    """The PDF's text layer read by ``parser`` (PyMuPDF), or None when no page has one."""
    try:
        return parser.parse(data, filename)
    except NoTextLayer:
        return None


def pages_to_ocr(data: bytes, filename: str, layer: ParsedDocument | None) -> list[int]:
    """The pages (1-based) of a PDF whose text layer is not real (:func:`needs_ocr`); every
    page when there is no text layer at all."""
    with open_pdf(data, filename) as doc:
        return [
            n
            for n in range(1, doc.page_count + 1)
            if layer is None or needs_ocr(page_lines(layer, n), partial(image_cover, doc[n - 1]))
        ]


def page_lines(document: ParsedDocument, page: int) -> pd.DataFrame:
    return document.lines[document.lines["page"] == page]


def page_part(document: ParsedDocument, page: int, as_page: int | None = None) -> Part:
    """One page of a parsed document as (page facts, line rows), renumbered ``as_page``."""
    facts_row = document.pages[document.pages["page"] == page].iloc[0]
    facts = {c: facts_row[c] for c in PAGE_COLUMNS}
    rows = page_lines(document, page).drop(columns=["line", "line_in_page"])
    records = [{str(k): v for k, v in r.items()} for r in rows.to_dict("records")]
    if as_page is not None:
        facts["page"] = as_page
        records = [{**r, "page": as_page} for r in records]
    return facts, records


def combine(
    parts: Sequence[Part],
    data: bytes,
    filename: str,
    parser: str,
    media_type: str = "application/pdf",
) -> ParsedDocument:
    """One document from per-page parts (page facts, line rows) of one or more parsers, in page
    order; lines are numbered again over the whole document."""
    ordered = sorted(parts, key=lambda p: int(p[0]["page"]))
    rows = [r for _, page_rows_ in ordered for r in page_rows_]
    pages = make_pages([{c: facts[c] for c in PAGE_COLUMNS} for facts, _ in ordered])
    pages = pages.astype({"page": int, "rotation": int, "has_text_layer": bool})
    return ParsedDocument(
        make_lines(rows),
        pages,
        hashlib.sha256(data).hexdigest(),
        filename,
        parser,
        media_type,
    )


def mixed_name(parts: Sequence[Part], default: str) -> str:
    """The one parser that read every page, else ``default`` (``page_df`` says which read what)."""
    names = {str(facts["parser"]) for facts, _ in parts}
    return names.pop() if len(names) == 1 else default
