"""Pages as images for the review page: PyMuPDF renders, the service only serves the bytes.

Sizes are those of the *displayed* page (rotation applied), in points, the space the result's
boxes are in (see :class:`evidex.schemas.Box`), so a box at ``x0`` points lies at
``x0 * dpi / 72`` pixels of the image. The image is the page's pixel rectangle rounded outwards,
so it may be up to one pixel wider or taller than ``width_pt * dpi / 72``; :func:`pixel_size`
gives the exact size without rendering.
"""

from __future__ import annotations

import math
from typing import Any

import pymupdf

from evidex.extractors.errors import CorruptDocument

__all__ = ["MAX_DPI", "MIN_DPI", "page_sizes", "pixel_size", "render_page_png"]

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
