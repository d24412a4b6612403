"""What an uploaded file is and how many pages it has, cheaply, before a job is accepted.

Opening the file (no text extraction, no OCR, no table finding) is enough to reject what no
parser can read: empty, damaged, password-protected, page-less or unsupported files, and files
whose name says one format while the bytes are another (a PNG named ``.pdf``). Scans are
accepted: the ``auto`` parser reads them by OCR.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from evidex.extractors.errors import EmptyDocument, UnsupportedDocument
from evidex.extractors.parse.images import IMAGE_TYPES, count_frames, image_type
from evidex.extractors.parse.pymupdf_parser import open_pdf

__all__ = ["Probe", "probe"]

_EXTENSIONS = {
    ".pdf": "pdf",
    ".png": "png",
    ".jpg": "jpeg",
    ".jpeg": "jpeg",
    ".tif": "tiff",
    ".tiff": "tiff",
    ".webp": "webp",
    ".heic": "heif",
    ".heif": "heif",
}
_NAMES = {"pdf": "PDF", **IMAGE_TYPES}


@dataclass(frozen=True, slots=True)
class Probe:
    media_type: str
    pages: int


def probe(data: bytes, filename: str) -> Probe:
    """The file's media type and page count; a ``DocumentError`` saying what is wrong."""
    if not data:
        raise EmptyDocument(f"{filename}: the file is empty (0 bytes); upload the complete file")
    kind = image_type(data) or ("pdf" if b"%PDF-" in data[:1024] else None)
    if kind is None:
        raise UnsupportedDocument(
            f"{filename}: not a PDF, PNG, JPEG, TIFF, WebP or HEIC file; convert it to PDF and "
            "try again"
        )
    named = _EXTENSIONS.get(PurePosixPath(filename.lower()).suffix)
    if named is not None and named != kind:
        raise UnsupportedDocument(
            f"{filename}: the file is a {_NAMES[kind]} but is named as a {_NAMES[named]}; "
            "send it with its real extension"
        )
    if kind != "pdf":  # Pillow reads the headers: a decompression bomb is refused here
        return Probe(f"image/{kind}", count_frames(data, filename, kind))
    with open_pdf(data, filename) as doc:
        pages = int(doc.page_count)
    return Probe("application/pdf" if kind == "pdf" else f"image/{kind}", pages)
