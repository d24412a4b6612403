"""What every finder answers: a value read from a slice of one line's text.

A finder takes a line's text (and a position) and answers character offsets into that text, so
the quote the backend cites is always a verbatim slice of a visible line. A finder that read the
value by a weak rule, or saw the document point two ways, says why in ``doubt``: the backend
reports it as conflicting evidence for the field, and verification sends the field to review
instead of verifying it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Match", "Span"]

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Match:
    """A value read from ``text[start:end]``, already in its wire shape."""

    start: int
    end: int
    value: Any
    caveat: str = ""
    doubt: str = ""  # a sentence naming what leaves the reading open; empty when nothing does
    written: str = ""  # the value as written, where the slice holds more (an OCR's stray spaces)
