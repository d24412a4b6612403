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

__all__ = ["Match", "Span", "token_start", "word_end", "word_start"]

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


def word_end(text: str, end: int) -> int:
    """``end``, or where the word ends when ``end`` cuts it between two letters or digits: a
    quote never stops inside a word ("05Mar2018" of "05Mar201818:24" is quoted whole), as
    verification aligns it."""
    if not (0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum()):
        return end
    while end < len(text) and not text[end].isspace():
        end += 1
    return end


def word_start(text: str, start: int) -> int:
    """``start``, or where the word starts when ``start`` cuts it between two letters or
    digits: a quote never starts inside a word either ("RM41.45" of "SUBTOTAL RM41.45",
    "Date14/03/2018", a label OCR ran into its date), as verification aligns it."""
    if not (0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum()):
        return start
    return token_start(text, start)


def token_start(text: str, start: int) -> int:
    """Where the run of characters other than spaces holding ``text[start]`` starts, marks
    and all ("$33.90", "RM33.90": a currency OCR ran into its amount)."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return start
