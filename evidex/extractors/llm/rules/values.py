"""One parser per value kind, and the kinds that may be searched for along a line.

*Anchored* parsers (:data:`ANCHORED`) read a value that starts where they are asked to look;
kinds that identify themselves (:data:`SEARCHED`: an email, an IBAN whose check digits hold, a
percentage, a date, a duration) may also be searched for after a label. Durations: "three (3)
years", "90 days", "twelve months" (number words read by text2num).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from text_to_num import text2num

from .contact import find_emails, find_ibans, find_phones, find_urls, find_vat_ids, parse_bic
from .dates import find_dates, parse_date
from .match import Match
from .money import (
    PERCENT,
    parse_amount,
    parse_currency,
    parse_integer,
    parse_number,
    parse_percentage,
)

__all__ = [
    "ANCHORED",
    "ANNIVERSARY_TEXT",
    "DURATION_TEXT",
    "SEARCHED",
    "Parse",
    "near_value",
    "parse_string",
    "split_items",
]

Parse = Callable[[str, int, tuple[str, ...]], Match | None]

_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|(?:twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
)
DURATION_TEXT = (
    rf"\b(?:(?P<w>{_WORDS})\s*\(\s*(?P<n1>\d+)\s*\)|(?P<n2>\d+(?:\.\d+)?)|(?P<w2>{_WORDS}))"
    r"[\s-]*(?P<q>business\s+|calendar\s+)?(?P<u>day|week|month|year)s?\b(?:['’]s?)?"
)
_DURATION = re.compile("(?i)" + DURATION_TEXT)
_BOOL = re.compile(r"(?i)(?P<v>yes|no|true|false|ja|nein|y|n)\b")
# A string value ends at a column gap, " | ", the next "Label:" or a sentence end ("Net 30. Next").
_STRING_CUT = re.compile(
    r"\s{2,}|\t|\s\|\s|\s+(?=[A-Z][A-Za-z .#/-]{0,24}:\s)"
    r"|(?:(?<=[a-z]{3})|(?<=\d))\.\s+(?=[A-Z])"
)
_BREAK = re.compile(r"[;)]|[,.](?:\s|$)")  # a clause ends between a label and a value


def _word_number(word: str) -> int:
    return int(text2num(word.lower().replace(" ", "-"), "en"))


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
_ORDINAL = "|".join(_ORDINALS)
# "the second (2nd) anniversary of the Effective Date": so many years
ANNIVERSARY_TEXT = (
    rf"\b(?:(?P<o>{_ORDINAL})|(?P<od>[1-9])(?:st|nd|rd|th))(?:\s*\(\s*\d(?:st|nd|rd|th)?\s*\))?"
    r"\s+anniversary\b"
)
_ANNIVERSARY = re.compile("(?i)" + ANNIVERSARY_TEXT)


def parse_duration(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    m = _DURATION.match(text, pos)
    if not m:
        if a := _ANNIVERSARY.match(text, pos):
            years = _ORDINALS.index(a["o"].lower()) + 1 if a["o"] else int(a["od"])
            caveat = "until an anniversary: counted in years"
            return Match(a.start(), a.end(), {"amount": float(years), "unit": "years"}, caveat)
        return None
    caveat = f"counted in {m['q'].strip()} days" if m["q"] else ""
    if m["n1"]:
        amount = float(m["n1"])
        if _word_number(m["w"]) != amount:
            caveat = f"the words say {_word_number(m['w'])}, the digits {m['n1']}"
    else:
        amount = float(m["n2"]) if m["n2"] else float(_word_number(m["w2"]))
    return Match(m.start(), m.end(), {"amount": amount, "unit": m["u"].lower() + "s"}, caveat)


def _boolean(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _BOOL.match(text, pos)
    return Match(m.start(), m.end(), m["v"].lower() in ("yes", "true", "ja", "y")) if m else None


def _enum(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    for choice in sorted(enum, key=len, reverse=True):
        m = re.compile(rf"(?i){re.escape(choice)}(?![A-Za-z0-9])").match(text, pos)
        if m:
            return Match(m.start(), m.end(), choice)
    return None


def parse_string(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    """The rest of the line from ``pos``, cut at a column gap or the next ``Label:``."""
    cut = _STRING_CUT.search(text, pos)
    end = cut.start() if cut else len(text)
    while end > pos and text[end - 1] in " .,;:":
        end -= 1
    value = text[pos:end]
    return Match(pos, end, value) if re.search(r"\w", value) else None


def _searcher(parse: Parse, pattern: re.Pattern[str]) -> Callable[[str], list[Match]]:
    def search(text: str) -> list[Match]:
        hits = (parse(text, m.start(), ()) for m in pattern.finditer(text))
        return [h for h in hits if h is not None]

    return search


ANCHORED: dict[str, Parse] = {
    "string": parse_string,
    "text": parse_string,
    "integer": parse_integer,
    "number": parse_number,
    "years": parse_number,
    "percentage": parse_percentage,
    "boolean": _boolean,
    "enum": _enum,
    "date": parse_date,
    "amount": parse_amount,
    "currency": parse_currency,
    "duration": parse_duration,
    "bic": parse_bic,
}
SEARCHED: dict[str, Callable[[str], list[Match]]] = {
    "email": find_emails,
    "url": find_urls,
    "iban": lambda t: find_ibans(t)[0],
    "vat_id": find_vat_ids,
    "phone": lambda t: find_phones(t, labelled=True),
    "percentage": _searcher(parse_percentage, PERCENT),
    "date": find_dates,
    "duration": _searcher(parse_duration, _DURATION),
}


def near_value(
    values: list[Match], text: str, m: re.Match[str], pos: int, before: bool
) -> Match | None:
    """The value right after the label (or, for a duration, right before it) in one clause."""
    after = [v for v in values if v.start >= m.end()]
    if after:
        gap = text[pos if after[0].start >= pos else m.end() : after[0].start]
        if len(gap) <= 60 and not _BREAK.search(gap):
            return after[0]
    earlier = [v for v in values if v.end <= m.start()] if before else []
    gap = text[earlier[-1].end : m.start()] if earlier else "-"
    if earlier and len(gap) <= 40 and not _BREAK.search(gap):
        return earlier[-1]
    return None


def split_items(text: str, pos: int) -> list[tuple[int, int]]:
    """Comma/semicolon/bullet separated items, not splitting inside parentheses."""
    spans, depth, start = [], 0, pos
    for k in range(pos, len(text)):
        depth = max(0, depth + (text[k] in "([") - (text[k] in ")]"))
        if depth == 0 and text[k] in ",;•|·":
            spans.append((start, k))
            start = k + 1
    return [*spans, (start, len(text))]
