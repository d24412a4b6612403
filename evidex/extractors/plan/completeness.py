"""Whether a list runs on past the last page the model saw: the next-page check.

Pure: the line table and where a list's evidence ends in; a signal (or None) out.

A model cannot say that a list is complete when it was not sent the page where the list goes on;
only the pipeline knows which pages it sent. So when a list's evidence ends on page P and page
P + 1 was not sent, the first lines of P + 1 are read for one of three signals:

* **numbering that carries on**: the last item marker from the list's last item to the end of
  P is ``(e)``, ``6.``, ``(iv)``, ``c)``, ``23.8``; P + 1 opens with the next one, in the same
  style (``(f)``, ``7.``, ``(v)``, ``d)``, ``23.9``). ``(i)`` may be a letter or a roman numeral:
  either next marker counts;
* **a table row with the same columns**: P ends on a table row (cells joined by `` | ``) and
  P + 1 opens with a row of as many cells;
* **a sentence cut mid-way**: P's last line ends without closing punctuation and P + 1 opens in
  lower case.

Page furniture (running headers and footers, page numbers) is skipped on both sides: a parser
that knows layout roles marks it; otherwise a short line naming a page number is taken for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from evidex.schemas import FieldResult, ListCompleteness, Status

__all__ = [
    "HEAD_LINES",
    "Continuation",
    "continuation",
    "mark_incomplete",
    "marker",
    "next_markers",
]

HEAD_LINES = 3  # lines of the next page read for a continuing marker
_FURNITURE_ROLES = frozenset({"pageHeader", "pageFooter", "pageNumber"})
_PAGE_NUMBER = re.compile(
    r"^\W*(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\W*$|\bpage\s+\d{1,4}\b", re.IGNORECASE
)
_MARKER = re.compile(r"^\s*(?:(\()([a-z]{1,4}|\d{1,3})\)|([a-z]|\d{1,3})([.)])(?=\s|$))")
_DOTTED = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})+)\.?(?=\s+[A-Z(])")  # 23.8 Insolvency
_ROMAN = re.compile(r"^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_CLOSED = re.compile(r"[.;:!?)\]\"'”’]\s*$")


@dataclass(frozen=True, slots=True)
class Continuation:
    """The next page ``page`` continues the list; ``signal`` says how it was seen."""

    page: int
    signal: str


def _roman_value(token: str) -> int | None:
    if not token or not _ROMAN.match(token):
        return None
    total, prev = 0, 0
    for ch in reversed(token):
        v = _ROMAN_VALUES[ch]
        total, prev = (total - v, prev) if v < prev else (total + v, v)
    return total


def _roman(n: int) -> str:
    out = ""
    for value, letters in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while n >= value:
            out, n = out + letters, n - value
    return out


def marker(text: str) -> tuple[str, str] | None:
    """The item marker a line opens with, as ``(style, token)``: ``("()", "e")`` for ``(e)``,
    ``(".", "6")`` for ``6.``, ``(")", "c")`` for ``c)``, ``("§", "23.8")`` for ``23.8``; None
    when it opens with none."""
    dotted = _DOTTED.match(text)
    if dotted:
        return "§", dotted.group(1)
    m = _MARKER.match(text.lower())
    if m is None:
        return None
    if m.group(1):
        return "()", m.group(2)
    return m.group(4), m.group(3)


def next_markers(style: str, token: str) -> set[tuple[str, str]]:
    """The markers that would follow ``token`` in the same style."""
    out: set[tuple[str, str]] = set()
    if style == "§":  # 23.8 -> 23.9
        head, _, last = token.rpartition(".")
        out.add((style, f"{head}.{int(last) + 1}"))
        return out
    if token.isdigit():
        out.add((style, str(int(token) + 1)))
        return out
    roman = _roman_value(token)
    if roman:
        out.add((style, _roman(roman + 1)))
    if len(token) == 1 and token < "z":
        out.add((style, chr(ord(token) + 1)))
    elif len(token) > 1 and len(set(token)) == 1 and token[0] < "z":  # (aa) after (z) styles
        out.add((style, chr(ord(token[0]) + 1) * len(token)))
    if token == "z":
        out.add((style, "aa"))
    return out


def _furniture(text: str) -> bool:
    return not text.strip() or (len(text) <= 60 and bool(_PAGE_NUMBER.search(text)))


def _content(page: pd.DataFrame) -> pd.DataFrame:
    """The page's visible lines without running headers, footers and page numbers."""
    roles = page["role"].astype(str).tolist() if "role" in page.columns else [""] * len(page)
    keep = [
        bool(visible) and role not in _FURNITURE_ROLES and not _furniture(str(text))
        for visible, role, text in zip(page["visible"], roles, page["text"], strict=True)
    ]
    return page[pd.Series(keep, index=page.index, dtype=bool)]


def _cells(text: str) -> int:
    return text.count(" | ") + 1 if " | " in text else 0


def continuation(lines: pd.DataFrame, last_line: int) -> Continuation | None:
    """Whether the page after the one holding global line ``last_line`` continues the list
    whose evidence ends there; None when it does not (or there is no next page in ``lines``)."""
    at = lines[lines["line"] == last_line]
    if at.empty:
        return None
    page = int(at["page"].iloc[0])
    tail = _content(lines[(lines["page"] == page) & (lines["line"] >= last_line)])
    head = _content(lines[lines["page"] == page + 1])
    if tail.empty or head.empty:
        return None
    nxt = page + 1
    last_marker = None
    for text in tail["text"].astype(str):
        found = marker(text)
        if found is not None:
            last_marker = found
    head_texts = head["text"].astype(str).tolist()
    if last_marker is not None:
        expected = next_markers(*last_marker)
        for text in head_texts[:HEAD_LINES]:
            found = marker(text)
            if found in expected:
                shown = _shown(*last_marker)
                return Continuation(nxt, f"numbering carries on: {_shown(*found)} after {shown}")
    last_text, first_text = str(tail["text"].iloc[-1]).strip(), head_texts[0].strip()
    cells = _cells(last_text)
    if cells >= 2 and _cells(first_text) == cells:
        return Continuation(nxt, f"a table row of {cells} columns carries on")
    if not _CLOSED.search(last_text) and first_text[:1].islower():
        return Continuation(nxt, "a sentence is cut at the end of the page")
    return None


def _shown(style: str, token: str) -> str:
    if style == "§":
        return token
    return f"({token})" if style == "()" else f"{token}{style}"


def mark_incomplete(fields: dict[str, FieldResult], lists: dict[str, ListCompleteness]) -> None:
    """Send every found field of a list that may continue to review, with the reason first."""
    for name, info in lists.items():
        if info.complete:
            continue
        for path, result in fields.items():
            if not path.startswith(f"{name}[") or result.status is Status.NOT_FOUND:
                continue
            if info.reason not in result.reasons:
                result.reasons.insert(0, info.reason)
            if result.status is Status.VERIFIED:
                result.status = Status.NEEDS_REVIEW
