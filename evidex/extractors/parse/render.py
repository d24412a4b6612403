"""Pages as images for the review page: PyMuPDF renders, the service only serves the bytes.

Sizes are those of the *displayed* page (rotation applied), in points, the space the result's
boxes are in (see :class:`evidex.schemas.Box`), so a box at ``x0`` points lies at
``x0 * dpi / 72`` pixels of the image. The image is the page's pixel rectangle rounded outwards,
so it may be up to one pixel wider or taller than ``width_pt * dpi / 72``; :func:`pixel_size`
gives the exact size without rendering.

Image files (PNG, JPEG, TIFF: one page per frame) are shown as they are, upright as the file's
orientation says, scaled down to at most ``max_pixels``: :func:`image_frames` gives each frame's
size in the file's pixels and the size it is shown at, :func:`render_image_png` the PNG. Their
boxes are in the pixels the OCR read (``page_info``'s ``unit: "px"``), so a box is placed on the
shown image by its fraction of the page's width and height, whatever size it is shown at.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pymupdf

from evidex.extractors.errors import CorruptDocument
from evidex.extractors.parse.images import image_type, open_image

__all__ = [
    "MAX_DPI",
    "MIN_DPI",
    "ImageFrame",
    "image_frames",
    "page_sizes",
    "pixel_size",
    "render_image_png",
    "render_page_png",
]

MIN_DPI, MAX_DPI = 36, 300


def _open(pdf_bytes: bytes) -> Any:  # a pymupdf.Document
    try:
        return pymupdf.open(stream=pdf_bytes, filetype="pdf")  # type: ignore[no-untyped-call]
    except (RuntimeError, ValueError) as exc:  # pymupdf.FileDataError is a RuntimeError
        raise CorruptDocument(f"the document cannot be opened to render it: {exc}") from None


def _check_dpi(dpi: int) -> None:
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise ValueError(f"dpi must be {MIN_DPI}..{MAX_DPI}, got {dpi}")


def page_sizes(pdf_bytes: bytes) -> list[tuple[float, float]]:
    """Each page's displayed ``(width, height)`` in points, in page order."""
    with _open(pdf_bytes) as doc:
        return [(float(page.rect.width), float(page.rect.height)) for page in doc]


def pixel_size(width_pt: float, height_pt: float, dpi: int) -> tuple[int, int]:
    """The size in pixels of a page of ``width_pt`` x ``height_pt`` rendered at ``dpi``
    (what :func:`render_page_png` produces: the scaled rectangle rounded outwards)."""
    _check_dpi(dpi)
    zoom = pymupdf.Matrix(dpi / 72, dpi / 72)  # type: ignore[no-untyped-call]
    irect = (pymupdf.Rect(0, 0, width_pt, height_pt) * zoom).irect  # type: ignore[no-untyped-call]
    return int(irect.width), int(irect.height)


def render_page_png(pdf_bytes: bytes, page: int, dpi: int) -> tuple[bytes, float, float]:
    """Page ``page`` (1-based) as a PNG at ``dpi``, with the page's displayed width and height
    in points. ``IndexError`` when the document has no such page."""
    _check_dpi(dpi)
    with _open(pdf_bytes) as doc:
        if not 1 <= page <= doc.page_count:
            raise IndexError(f"page {page} is not in the document (1..{doc.page_count})")
        loaded = doc[page - 1]
        pixmap = loaded.get_pixmap(dpi=dpi, alpha=False, annots=False)
        width, height = float(loaded.rect.width), float(loaded.rect.height)
        if not (math.isfinite(width) and math.isfinite(height)):
            raise CorruptDocument(f"page {page} has no usable size")
        return bytes(pixmap.tobytes("png")), width, height


@dataclass(frozen=True, slots=True)
class ImageFrame:
    """One frame of an image file: its size in the file's pixels (as the OCR reads it) and the
    size :func:`render_image_png` shows it at (upright, at most ``max_pixels``)."""

    page: int
    width: int
    height: int
    shown_width: int
    shown_height: int


def _open_image(data: bytes) -> Any:  # a pymupdf.Document of the image's frames
    kind = image_type(data)
    if kind is None:
        raise CorruptDocument("the file is not a PNG, JPEG or TIFF image; it cannot be shown")
    return open_image(data, "image", kind)


def _frame(page: Any, number: int, max_pixels: int) -> tuple[ImageFrame, Any]:
    """The frame's sizes and the matrix that renders it at its shown size."""
    info = (page.get_image_info() or [{}])[0]
    rect = page.rect  # upright: the file's orientation applied
    width = int(info.get("width") or round(rect.width))
    height = int(info.get("height") or round(rect.height))
    if not (rect.width > 0 and rect.height > 0 and width > 0 and height > 0):
        raise CorruptDocument(f"frame {number} of the image has no size")
    zoom = math.sqrt(min(width * height, max_pixels) / (rect.width * rect.height))
    shown_w = max(1, round(rect.width * zoom))
    shown_h = max(1, round(rect.height * zoom))
    matrix = pymupdf.Matrix(shown_w / rect.width, shown_h / rect.height)  # type: ignore[no-untyped-call]
    return ImageFrame(number, width, height, shown_w, shown_h), matrix


def image_frames(data: bytes, max_pixels: int) -> list[ImageFrame]:
    """Each frame's sizes, without decoding its pixels."""
    with _open_image(data) as doc:
        return [_frame(doc[n], n + 1, max_pixels)[0] for n in range(doc.page_count)]


def render_image_png(data: bytes, page: int, max_pixels: int) -> bytes:
    """Frame ``page`` (1-based) as a PNG of its shown size (see :class:`ImageFrame`).
    ``IndexError`` when the file has no such frame."""
    with _open_image(data) as doc:
        if not 1 <= page <= doc.page_count:
            raise IndexError(f"page {page} is not in the image (1..{doc.page_count})")
        loaded = doc[page - 1]
        frame, matrix = _frame(loaded, page, max_pixels)
        pixmap = loaded.get_pixmap(matrix=matrix, alpha=False, annots=False)
        if (pixmap.width, pixmap.height) != (frame.shown_width, frame.shown_height):
            pixmap = pymupdf.Pixmap(pixmap, frame.shown_width, frame.shown_height, None)  # type: ignore[no-untyped-call]
        return bytes(pixmap.tobytes("png"))
