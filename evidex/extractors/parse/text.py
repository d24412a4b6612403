"""``TextParser``: plain UTF-8 text as a line table. A shipped fake for tests and demos.

Each text line becomes one row; a form feed (``\\f``) starts a new page. Boxes are synthetic but
consistent (a 612x792 pt page, 12 pt lines, 6 pt per character), so code that reads boxes works.
"""

from __future__ import annotations

import hashlib
import re

from evidex.extractors.document import ParsedDocument, Word, line_row, make_lines, make_pages
from evidex.extractors.errors import EmptyDocument, UnsupportedDocument

__all__ = ["TextParser"]

_WIDTH, _HEIGHT, _MARGIN, _LEADING, _CHAR = 612.0, 792.0, 72.0, 14.0, 6.0


class TextParser:
    name = "text"

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        if not data.strip():
            raise EmptyDocument(f"{filename}: the file is empty; send a document with text")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise UnsupportedDocument(f"{filename}: not UTF-8 text") from None
        rows = []
        pages = text.split("\f")
        for page_no, page in enumerate(pages, start=1):
            y = _MARGIN
            for raw in page.splitlines():
                if raw.strip():
                    rows.append(_row(raw, page_no, y))
                y += _LEADING
        page_rows = [
            {
                "page": i,
                "width": _WIDTH,
                "height": _HEIGHT,
                "rotation": 0,
                "parser": self.name,
                "has_text_layer": True,
            }
            for i in range(1, len(pages) + 1)
        ]
        return ParsedDocument(
            make_lines(rows, self.name),
            make_pages(page_rows),
            hashlib.sha256(data).hexdigest(),
            filename,
            self.name,
            "text/plain",
        )


def _row(text: str, page: int, y: float) -> dict[str, object]:
    words: list[Word] = [
        (m.start(), m.end(), _MARGIN + m.start() * _CHAR, y, _MARGIN + m.end() * _CHAR, y + 12.0)
        for m in re.finditer(r"\S+", text)
    ]
    return line_row(page, text, words, 10.0)
