"""Letter agreements: "Dear …:" / "Ladies and Gentlemen:" over the terms, no "between" sentence.

A letter names its parties by layout and its first paragraph: the addressee is the name over an
address block above the salutation ("Allergan, Inc." / "2525 Dupont Drive"), the writer the
first company (a name with a corporate suffix) its first paragraph names. The letter's date is a
line holding only a date above the salutation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .clauses import Flow
from .dates import parse_date
from .match import Match, Span
from .parties import party_spans

__all__ = ["letter_date", "letter_parties", "salutation", "signed_date"]

_SIGNED = re.compile(r"(?i)(?:^|\|)\s*dated?\s*(?::|\|)\s*(?:\|\s*)?")

_SALUTATION = re.compile(
    r"(?i)\s*(?:dear\s+[^:,]{1,60}|ladies\s+and\s+gentlemen|gentlemen|gentlepersons"
    r"|to\s+whom\s+it\s+may\s+concern)\s*[:,]\s*"
)
_NOT_NAME = re.compile(
    r"(?i)\s*(?:re\b|attn|attention|via\b|by\b|exhibit|personal|private|strictly|confidential"
    r"|dear\b|ex-\d|page\b)"
)
_ADDRESS = re.compile(r"\d|[A-Z][a-z]+,\s+[A-Z]{2}\b")
_CORPORATE = re.compile(
    r"(?<![\w.])(?:[A-Z][\w&'’.-]*\s+){0,6}[A-Z][\w&'’.-]*,?\s+(?:Inc\.?|Incorporated|"
    r"Corporation|Corp\.|LLC|L\.L\.C\.|Ltd\.?|Limited|L\.P\.|Company|plc|N\.V\.|AG|GmbH|S\.A\.)"
    r"(?![\w])"
)
_FIRST_LINES = 40


def salutation(texts: Sequence[str]) -> int | None:
    """The row of the salutation, when the document opens as a letter."""
    return next((i for i, t in enumerate(texts[:_FIRST_LINES]) if _SALUTATION.fullmatch(t)), None)


def letter_date(texts: Sequence[str], greeting: int) -> tuple[int, Match] | None:
    """A line holding only a date above the salutation: the letter's date."""
    for row in range(greeting):
        text = texts[row]
        start = len(text) - len(text.lstrip())
        found = parse_date(text, start)
        if found is not None and not text[found.end :].strip(" ."):
            return row, found
    return None


def letter_parties(texts: Sequence[str], flow: Flow, greeting: int) -> list[Span]:
    """The addressee's name over its address block, then the first company the opening
    paragraph names (flow offsets)."""
    out: list[Span] = []
    for row in range(greeting):
        text = texts[row].strip()
        below = texts[row + 1 : row + 3]
        if _NOT_NAME.match(text) or not any(_ADDRESS.search(t) for t in below):
            continue
        if row not in flow.rows or re.search(r"\d", text) or len(text.split()) > 7:
            continue
        start = flow.start(row) + len(texts[row]) - len(texts[row].lstrip())
        name = party_spans(flow.text, start, start + len(text))
        if name is not None and name[0] == (start, start + len(text)):
            out.append(name[0])
            break
    if greeting + 1 in flow.rows:
        begin = flow.start(greeting + 1)
        for m in _CORPORATE.finditer(flow.text, begin, begin + 900):
            if not out or flow.text[m.start() : m.end()] != flow.text[out[0][0] : out[0][1]]:
                out.append(m.span())
                break
    return out


def signed_date(texts: Sequence[str]) -> tuple[int, Match] | None:
    """The latest date written after "Date:" / "Dated:" (signature blocks): an agreement that
    gives no date of its own takes effect when the last party signs."""
    best: tuple[int, Match] | None = None
    for row, text in enumerate(texts):
        for m in _SIGNED.finditer(text):
            at, found = row, parse_date(text, m.end())
            if found is None and not text[m.end() :].strip() and row + 1 < len(texts):
                below = texts[row + 1]  # "Date:" / "10/11/04": the date on the line below
                at, found = row + 1, parse_date(below, len(below) - len(below.lstrip()))
            if found is not None and (best is None or found.value["iso"] > best[1].value["iso"]):
                best = at, found
    return best
