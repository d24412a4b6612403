"""Image input (PNG, JPEG, TIFF with one or more frames, WebP, HEIC/HEIF): recognise, open, and
highlight.

An image has no text layer, so it is always read by OCR (:class:`.ocr.OcrParser`, or Azure when
configured). Each frame is a page, and everything about it is in the image's own pixels as a
viewer shows it (upright, the file's EXIF orientation applied), never converted to points:
``page_df`` width and height, line and word boxes, the result's boxes (the result's
``document.page_info`` says ``unit: "px"``), and :func:`annotate_image`, which draws the boxes on
the image itself. A reviewer comparing a box with the file opened in any image viewer then reads
the same numbers.

The kind is read from the bytes, never the name (:func:`image_type`). Pillow decodes every kind
for OCR (:func:`decode_frames`; HEIC/HEIF through ``pillow-heif``, the libheif binding: phones
save photos as HEIC); a file over Pillow's decompression-bomb limit (about 179 million pixels) is
refused as :class:`~evidex.extractors.errors.ImageTooLarge` before its pixels are decoded, and a
large JPEG is decoded at a reduced scale straight away (JPEG's DCT scaling), so a 100-megapixel
photo never sits in memory at full size. :func:`open_image` gives the frames as a PyMuPDF
document (WebP and HEIC converted to PNG first, which MuPDF cannot open), for rendering.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pymupdf
from PIL import Image, ImageOps, ImageSequence

from evidex.extractors.errors import CorruptDocument, EmptyDocument, ImageTooLarge, NoPages
from evidex.extractors.parse.highlight import COLOURS
from evidex.schemas import Result

__all__ = [
    "DECODE_SIDE",
    "IMAGE_TYPES",
    "DecodedFrame",
    "Frame",
    "annotate_image",
    "count_frames",
    "decode_frames",
    "image_pages",
    "image_type",
    "open_image",
]

_mupdf: Any = pymupdf  # PyMuPDF's annotations are partial (untyped calls); go through Any
# What MuPDF raises for a damaged file: RuntimeError (FileDataError), ValueError, or, while decoding
# the pixels of a page, its own FzErrorBase (not a RuntimeError).
_ERRORS: tuple[type[Exception], ...] = (RuntimeError, ValueError, _mupdf.mupdf.FzErrorBase)

IMAGE_TYPES = {"png": "PNG", "jpeg": "JPEG", "tiff": "TIFF", "webp": "WebP", "heif": "HEIC/HEIF"}
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
)
# ISO base media brands of HEIF still images (HEIC from phones, and the generic ones)
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}
DECODE_SIDE = 8192  # a JPEG larger than this on its long side is decoded at a reduced scale
_MIN_DPI = 150  # below this, an image's resolution tag is a default (72, 96), not a scan's
_FILL_OPACITY = 0.35


def image_type(data: bytes) -> str | None:
    """``png``, ``jpeg``, ``tiff``, ``webp`` or ``heif`` from the file's first bytes; None for
    anything else."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "heif"
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


@dataclass(frozen=True, slots=True)
class DecodedFrame:
    """One frame decoded for OCR: upright grey pixels, the frame's size in the file's pixels as
    shown (``width`` x ``height``; ``image`` may be smaller, see ``DECODE_SIDE``) and the
    resolution the file states when it looks like a scan's, else None."""

    page: int
    image: Image.Image
    width: int
    height: int
    dpi: int | None


def _pillow(data: bytes, filename: str, kind: str) -> Image.Image:
    """The file opened by Pillow (headers only); the errors a client can act on."""
    if not data:
        raise EmptyDocument(f"{filename}: the file is empty (0 bytes); upload the complete image")
    if kind == "heif":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    try:
        with warnings.catch_warnings():  # between Pillow's warning and its limit: accepted
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(
            f"{filename}: the image is too large to read safely ({exc}); send it at a lower "
            "resolution, e.g. at most 100 megapixels"
        ) from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise CorruptDocument(
            f"{filename}: the {IMAGE_TYPES[kind]} image is damaged or truncated and cannot be "
            f"opened ({exc}); export or scan it again"
        ) from None


def count_frames(data: bytes, filename: str, kind: str) -> int:
    """How many frames the file holds, from its headers; the errors :func:`decode_frames`
    would raise for a damaged or over-large file. A JPEG's whole stream is read too, at an
    eighth of its size (a few milliseconds), so a file cut short in transfer is refused here,
    as :func:`decode_frames` would refuse it; other kinds' pixels are not decoded."""
    with _pillow(data, filename, kind) as image:
        try:
            if kind == "jpeg":
                image.draft("L", (max(1, image.width // 8), max(1, image.height // 8)))
                image.load()
            return int(getattr(image, "n_frames", 1))
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise CorruptDocument(
                f"{filename}: the {IMAGE_TYPES[kind]} image is damaged or truncated and cannot be "
                f"opened ({exc}); export or scan it again"
            ) from None


def decode_frames(data: bytes, filename: str, kind: str) -> Iterator[DecodedFrame]:
    """Every frame of an image file, decoded grey and upright, one at a time."""
    image = _pillow(data, filename, kind)
    with image:
        for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
            try:
                yield _decode(frame, number)
            except (OSError, ValueError, SyntaxError) as exc:
                raise CorruptDocument(
                    f"{filename}: the {IMAGE_TYPES[kind]} image is damaged or truncated (frame "
                    f"{number}: {exc}); export or scan it again"
                ) from None


def _on_white(frame: Image.Image, mode: str) -> Image.Image:
    """``frame`` in ``mode``, its transparent parts white as a viewer shows them: converted
    as it is, a PNG's transparent background turns black (its pixels' colour is usually 0),
    and black print on it vanishes."""
    if not frame.has_transparency_data:
        return frame.convert(mode)
    rgba = frame.convert("RGBA")
    return Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert(mode)


def _decode(frame: Image.Image, number: int) -> DecodedFrame:
    stated = frame.info.get("dpi") or (0, 0)
    try:
        xres = int(float(stated[0]))
    except (TypeError, ValueError, IndexError):
        xres = 0
    orientation = frame.getexif().get(0x0112, 1)
    turned = orientation in (5, 6, 7, 8)  # EXIF orientations that swap width and height
    width, height = (frame.height, frame.width) if turned else frame.size
    if frame.format == "JPEG" and max(frame.size) > DECODE_SIDE:
        frame.draft("L", (frame.width // 4, frame.height // 4))
    flat = _on_white(frame, "L")
    grey = ImageOps.exif_transpose(flat) if orientation != 1 else flat
    grey.load()
    return DecodedFrame(number, grey, width, height, xres if xres >= _MIN_DPI else None)


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
    if kind in ("webp", "heif"):  # MuPDF reads neither: hand it the frames as one TIFF
        data, kind = _as_tiff(data, filename, kind), "tiff"
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


def _as_tiff(data: bytes, filename: str, kind: str) -> bytes:
    image = _pillow(data, filename, kind)
    with image:
        try:
            frames = [
                ImageOps.exif_transpose(_on_white(f, "RGB")) for f in ImageSequence.Iterator(image)
            ]
        except (OSError, ValueError, SyntaxError) as exc:
            raise CorruptDocument(
                f"{filename}: the {IMAGE_TYPES[kind]} image is damaged or truncated and cannot be "
                f"opened ({exc}); export or scan it again"
            ) from None
    out = io.BytesIO()
    frames[0].save(out, format="TIFF", save_all=True, append_images=frames[1:])
    return out.getvalue()


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
    fill in the status colour (:data:`evidex.extractors.parse.highlight.COLOURS`) and a border. The
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
