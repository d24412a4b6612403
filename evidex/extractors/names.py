"""The names a deployment and a job choose from: backends, parsers and OCR engines.

Apart from :mod:`.settings` so that the command line can offer them without loading pydantic.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["BackendName", "OcrEngineName", "ParserName"]

BackendName = Literal["openai", "rules"]
ParserName = Literal["auto", "pymupdf", "ocr", "azure"]
OcrEngineName = Literal["tesseract", "rapidocr", "auto"]
