"""A receipt's OCR reading kept on disk, so a bench run after the first reads no image again.

``<cache>/<n>.<engine>.json`` holds the line table and page table of one image read by one engine
(``OcrParser(engine=...)``, what ``--ocr`` runs), with the image's SHA-256: another image, or a
reading stored before the line table had all of today's columns, is read again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from evidex.extractors.document import LINE_COLUMNS, ParsedDocument, make_lines, make_pages

__all__ = ["load_document", "ocr_document", "save_document"]


def _plain(value: Any) -> Any:
    """A line-table cell as JSON holds it (numpy scalars as Python numbers, tuples as lists)."""
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def save_document(doc: ParsedDocument, path: Path, image_sha: str, engine: str) -> None:
    """One receipt's OCR line table and page table as JSON (written whole, then renamed, so a
    run stopped half-way leaves no half file)."""
    lines = [
        {name: _plain(row[name]) for name in LINE_COLUMNS} for row in doc.lines.to_dict("records")
    ]
    pages = [{k: _plain(v) for k, v in row.items()} for row in doc.pages.to_dict("records")]
    body = {
        "image_sha256": image_sha,
        "engine": engine,
        "document": {
            "sha256": doc.sha256,
            "filename": doc.filename,
            "parser": doc.parser,
            "media_type": doc.media_type,
        },
        "lines": lines,
        "pages": pages,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_text(json.dumps(body), encoding="utf-8")
    part.replace(path)


def load_document(path: Path, image_sha: str) -> ParsedDocument | None:
    """A stored OCR line table, or None when there is none for this image or it was stored
    before the line table had all its columns."""
    if not path.is_file():
        return None
    body = json.loads(path.read_text(encoding="utf-8"))
    if body.get("image_sha256") != image_sha or any(
        set(LINE_COLUMNS) - set(row) for row in body["lines"]
    ):
        return None
    rows = [
        {
            **row,
            "words": [tuple(w) for w in row["words"]],
            "word_confidence": tuple(row["word_confidence"]),
        }
        for row in body["lines"]
    ]
    lines = make_lines(rows)
    meta = body["document"]
    return ParsedDocument(
        lines,
        make_pages(body["pages"]),
        meta["sha256"],
        meta["filename"],
        meta["parser"],
        meta["media_type"],
    )


def ocr_document(image: Path, engine: str, cache: Path | None) -> ParsedDocument:
    """``image`` read by ``engine`` (``OcrParser(engine=...)``, what ``--ocr`` runs), from
    ``cache`` when it holds this image's reading."""
    data = image.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    stored = cache / f"{image.stem}.{engine}.json" if cache is not None else None
    if stored is not None and (doc := load_document(stored, sha)) is not None:
        return doc
    from evidex.extractors.parse.ocr import OcrParser  # only when a receipt must be read

    doc = OcrParser(engine=engine).parse(data, image.name)
    if stored is not None:
        save_document(doc, stored, sha, engine)
    return doc
