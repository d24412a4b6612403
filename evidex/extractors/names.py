"""The names a deployment and a job choose from: backends, parsers and OCR engines (the
settings set them, a job's options override them: ``evidex.workers.jobs.JobOptions``).

Apart from :mod:`.settings` so that the command line can offer them without loading pydantic.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["BackendName", "OcrEngineName", "ParserName"]

BackendName = Literal["openai", "rules"]
ParserName = Literal["auto", "pymupdf", "ocr", "azure"]
OcrEngineName = Literal["tesseract", "rapidocr", "auto"]
