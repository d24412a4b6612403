"""What every finder answers: a value read from a slice of one line's text.

A finder takes a line's text (and a position) and answers character offsets into that text, so
the quote the backend cites is always a verbatim slice of a visible line.
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
