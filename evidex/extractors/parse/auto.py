"""``AutoParser`` (``--parser auto``, the default): the right parser for each page.

* A PDF page with a real text layer is read from it by :class:`PyMuPDFParser` (exact text, exact
  boxes, ~10 ms a page). "Real" is :func:`.ocr.needs_ocr`: some visible text, not mostly
  replacement or private-use characters, and not a page-sized image carrying a stray label. A
  scan with an invisible OCR layer from the scanner counts as text: that layer is used as is.
* The other pages are read by Azure Document Intelligence when it is configured (an endpoint and
  a key, :meth:`AzureLayoutParser.from_settings`), sent together as one PDF of just those pages;
  else by the local OCR (:class:`.ocr.OcrParser`: RapidOCR or Tesseract, ``--ocr``).
* An image file (PNG, JPEG, TIFF) has no text layer: Azure when configured, else local OCR.

The result says who read what: ``page_df.parser`` per page (``pymupdf``, ``ocr``, ``azure``), and
the document's ``parser`` is the one parser that read every page, or ``auto`` when pages differ.
So a digital PDF parsed by ``auto`` is indistinguishable from one parsed by ``pymupdf``, and a
stored result can be re-verified with the parser it names.
"""

from __future__ import annotations

from typing import Any

import pymupdf

from evidex.extractors.document import ParsedDocument, Parser
from evidex.extractors.parse.images import image_type
from evidex.extractors.parse.ocr import (
    OcrParser,
    Part,
    combine,
    mixed_name,
    page_part,
    pages_to_ocr,
    read_text_layer,
)
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser, open_pdf
from evidex.extractors.settings import Settings

__all__ = ["AutoParser", "azure_parser"]

_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any


class AutoParser:
    """Text layer where there is one, Azure (when given) or local OCR elsewhere, per page."""

    name = "auto"

    def __init__(
        self,
        *,
        text_layer: Parser | None = None,
        ocr: OcrParser | None = None,
        azure: Parser | None = None,
    ) -> None:
        self.text_layer = text_layer or PyMuPDFParser()
        self.ocr = ocr or OcrParser(text_layer=self.text_layer)
        self.azure = azure

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        kind = image_type(data)
        if kind is not None:
            if self.azure is not None:
                return self.azure.parse(data, filename)
            return self.ocr.parse_image(data, filename, kind)
        layer = read_text_layer(self.text_layer, data, filename)
        todo = pages_to_ocr(data, filename, layer)
        if layer is not None and not todo:
            return layer
        if self.azure is not None:
            parts = self._azure(data, filename, todo)
        else:
            self.ocr.check()
            parts = self.ocr.read_pdf(data, filename, todo, layer)
        if layer is not None:
            parts += [page_part(layer, n) for n in layer.pages["page"] if n not in todo]
        return combine(parts, data, filename, mixed_name(parts, self.name))

    def _azure(self, data: bytes, filename: str, pages: list[int]) -> list[Part]:
        """``pages`` sent to Azure as one PDF of just those pages, mapped back to their numbers."""
        assert self.azure is not None
        with open_pdf(data, filename) as doc:
            if len(pages) < doc.page_count:
                doc.select([n - 1 for n in pages])
            subset: bytes = doc.tobytes(garbage=1)
        read = self.azure.parse(subset, filename)
        return [page_part(read, i, as_page=n) for i, n in enumerate(pages, start=1)]


def azure_parser(settings: Settings) -> Parser | None:
    """Azure's parser when the settings configure it (endpoint and key) and its module is
    installed; None otherwise (``auto`` then reads scans with the local OCR)."""
    if not settings.azure_document_intelligence_endpoint:
        return None
    try:
        from evidex.extractors.parse.azure_layout import AzureLayoutParser
    except ImportError:
        return None
    parser: Parser = AzureLayoutParser.from_settings(settings)
    return parser
