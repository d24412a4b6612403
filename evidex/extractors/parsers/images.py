"""Image input (PNG, JPEG, TIFF with one or more frames): recognise, open, and highlight.

An image has no text layer, so it is always read by OCR (:class:`.ocr.OcrParser`, or Azure when
configured). Each frame is a page, and everything about it is in the image's own pixels, never
converted to points: ``page_df`` width and height, line and word boxes, the result's boxes (the
result's ``document.page_info`` says ``unit: "px"``), and :func:`annotate_image`, which draws the
boxes on the image itself. A reviewer comparing a box with the file opened in any image viewer
then reads the same numbers.

PyMuPDF opens the image as a document (``pymupdf.open(stream=..., filetype=...)``) whose pages
are the frames; each frame is rendered at its native pixel size (a matrix from the page's points to
the image's pixels), so no resampling happens before OCR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pymupdf

from evidex.extractors.errors import CorruptDocument, EmptyDocument, NoPages
from evidex.extractors.highlight import COLOURS
from evidex.schemas import Result

__all__ = ["IMAGE_TYPES", "Frame", "annotate_image", "image_pages", "image_type", "open_image"]

_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any
# What MuPDF raises for a damaged file: RuntimeError (FileDataError), ValueError, or, while decoding
# the pixels of a page, its own FzErrorBase (not a RuntimeError).
_ERRORS: tuple[type[Exception], ...] = (RuntimeError, ValueError, _mupdf.mupdf.FzErrorBase)

IMAGE_TYPES = {"png": "PNG", "jpeg": "JPEG", "tiff": "TIFF"}
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
)
_MIN_DPI = 150  # below this, an image's resolution tag is a default (72, 96), not a scan's
_FILL_OPACITY = 0.35


def image_type(data: bytes) -> str | None:
    """``png``, ``jpeg`` or ``tiff`` from the file's first bytes; None for anything else."""
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


@dataclass(frozen=True, slots=True)
class Frame:
    """One page of an image file: its PNG (grey, native pixels) and size in pixels; ``dpi`` is
    the resolution the file states when it looks like a scan's, else None."""

    page: int
    png: bytes
    width: int
    height: int
    dpi: int | None


def _open(data: bytes, filename: str, kind: str) -> Any:
    if not data:
        raise EmptyDocument(f"{filename}: the file is empty (0 bytes); upload the complete image")
    try:
        doc = _mupdf.open(stream=data, filetype=kind)
    except _ERRORS as exc:
        raise CorruptDocument(
            f"{filename}: the {IMAGE_TYPES[kind]} image is damaged or truncated and cannot be "
            f"opened ({exc}); export or scan it again"
        ) from exc
    if doc.page_count == 0:
        doc.close()
        raise NoPages(f"{filename}: the {IMAGE_TYPES[kind]} file holds no image")
    return doc


def _native(page: Any) -> tuple[Any, int, int, int | None]:
    """The matrix that renders ``page`` at the image's own pixels, its size and stated dpi."""
    info = (page.get_image_info() or [{}])[0]
    rect = page.rect
    width = int(info.get("width") or round(rect.width))
    height = int(info.get("height") or round(rect.height))
    xres = int(info.get("xres") or 0)
    matrix = _mupdf.Matrix(width / rect.width, height / rect.height)
    return matrix, width, height, xres if xres >= _MIN_DPI else None


def image_pages(data: bytes, filename: str, kind: str) -> list[Frame]:
    """Every frame of an image file, rendered grey at its native size for OCR."""
    with _open(data, filename, kind) as doc:
        frames = []
        for number in range(1, doc.page_count + 1):
            try:
                page = doc[number - 1]
                matrix, width, height, dpi = _native(page)
                pix = page.get_pixmap(matrix=matrix, colorspace=_mupdf.csGRAY, alpha=False)
            except _ERRORS as exc:
                raise CorruptDocument(
                    f"{filename}: the {IMAGE_TYPES[kind]} image is damaged or truncated (frame "
                    f"{number}: {exc}); export or scan it again"
                ) from exc
            frames.append(Frame(number, pix.tobytes("png"), width, height, dpi))
    return frames


def annotate_image(image: bytes, result: Result, page: int = 1) -> bytes:
    """A PNG of frame ``page`` of ``image`` with every field's boxes drawn on it: a translucent
    fill in the status colour (:data:`evidex.extractors.highlight.COLOURS`) and a border. The
    boxes must be in the image's pixels, as :class:`.ocr.OcrParser` gives them."""
    kind = image_type(image)
    if kind is None:
        raise CorruptDocument("annotate_image: the file is not a PNG, JPEG or TIFF image")
    with _open(image, "image", kind) as doc:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"annotate_image: page {page} of {doc.page_count}")
        matrix, width, height, _ = _native(doc[page - 1])
        pix = doc[page - 1].get_pixmap(matrix=matrix, alpha=False)
    with _mupdf.open() as canvas:
        sheet = canvas.new_page(width=width, height=height)
        sheet.insert_image(sheet.rect, pixmap=pix)
        for field in result.fields.values():
            colour = COLOURS.get(field.status)
            if colour is None:
                continue
            for box in field.boxes:
                if box.page != page:
                    continue
                sheet.draw_rect(
                    _mupdf.Rect(box.x0, box.y0, box.x1, box.y1),
                    color=colour,
                    fill=colour,
                    fill_opacity=_FILL_OPACITY,
                    width=max(1.0, height / 1000),
                )
        png: bytes = sheet.get_pixmap(alpha=False).tobytes("png")
    return png


open_image = _open
