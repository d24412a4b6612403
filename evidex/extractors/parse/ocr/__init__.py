"""Local OCR: scans and photos read into a line table with boxes and calibrated confidence.

One folder for the stage, one module per part (the docling layout): :mod:`.parser` (the
``OcrParser``), :mod:`.pages` (which PDF pages need OCR), :mod:`.prepare` (turn, deskew, crop,
contrast, scale), one module per engine behind :class:`.words.OcrEngine` (:mod:`.tesseract`,
:mod:`.rapid`, whose characters :mod:`.spacing` makes words, with :mod:`.marks` putting back a
line's last comma or full stop), :mod:`.choose` (``auto``), :mod:`.reading` (what engines
misread, put right), :mod:`.lines` (rows from words) and :mod:`.calibrate` (confidence that
means what it says).
"""

from evidex.extractors.parse.ocr.pages import (
    Part,
    combine,
    image_cover,
    mixed_name,
    needs_ocr,
    page_lines,
    page_part,
    pages_to_ocr,
    read_text_layer,
)
from evidex.extractors.parse.ocr.parser import (
    DEFAULT_DPI,
    DEFAULT_ENGINE,
    ENGINES,
    OcrParser,
    make_engines,
)
from evidex.extractors.parse.ocr.tesseract import Tesseract, find_tessdata
from evidex.extractors.parse.ocr.words import OcrEngine, OcrWord, ScriptedEngine

__all__ = [
    "DEFAULT_DPI",
    "DEFAULT_ENGINE",
    "ENGINES",
    "OcrEngine",
    "OcrParser",
    "OcrWord",
    "Part",
    "ScriptedEngine",
    "Tesseract",
    "combine",
    "find_tessdata",
    "image_cover",
    "make_engines",
    "mixed_name",
    "needs_ocr",
    "page_lines",
    "page_part",
    "pages_to_ocr",
    "read_text_layer",
]
