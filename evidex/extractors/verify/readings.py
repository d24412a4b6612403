"""What a piece of text states: its numbers, currencies and dates, every plausible reading.

Pure. The verifier compares a value with these readings (:mod:`.compare`); the cross-field rules
read a quote's numbers to see whether a member's own text would make a failed rule hold
(:mod:`.crossfield`). Numbers are read across en/de/fr/ch conventions and from number words
(text2num); dates by their numeric forms (day/month order settled by the document where it can
be) and written ones (dateparser, many languages).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Literal, overload

from text_to_num import alpha2digit

from evidex.extractors.verify.currency import codes_of, currency_codes, currency_marks, unglue

__all__ = [
    "EN_MONTHS",
    "ISO",
    "MONEY_UNKNOWN",
    "NUMBER",
    "PERCENT",
    "YEAR_FIRST_TEXT",
    "Money",
    "currencies_in",
    "date_order",
    "dates_in",
    "iso_codes",
    "numbers_in",
    "open_dates",
    "prints_whole",
    "readings",
    "year_first",
]

NUMBER = re.compile(r"(?<![\w.,])[-+]?\d[\d.,'\u2019 \u00a0\u202f]*\d(?![\d])|(?<![\w.,])[-+]?\d")
ISO = re.compile(r"\b[A-Z]{3}\b")
PERCENT = re.compile(r"[-+]?\d[\d.,]*\s?%")


def iso_codes() -> frozenset[str]:
    return currency_codes()


def readings(token: str) -> set[Decimal]:
    """Every plausible reading of a numeric token across en/de/fr/ch conventions."""
    t = re.sub(r"[\s'\u2019\u00a0\u202f]", "", token)
    sign = ""
    if t[:1] in "+-":
        sign, t = t[0], t[1:]
    out: set[str] = set()
    dots, commas = t.count("."), t.count(",")
    if dots and commas:
        dec = "." if t.rfind(".") > t.rfind(",") else ","
        grp = "," if dec == "." else "."
        if t.count(dec) == 1:
            out.add(t.replace(grp, "").replace(dec, "."))
    elif dots or commas:
        sep = "." if dots else ","
        groups = t.split(sep)
        if len(groups) == 2:
            out.add(groups[0] + "." + groups[1])  # decimal separator
        if all(len(g) == 3 for g in groups[1:]) and 1 <= len(groups[0]) <= 3:
            out.add("".join(groups))  # thousands separator
    else:
        out.add(t)
    values = set()
    for text in out:
        try:
            values.add(Decimal(sign + text))
        except InvalidOperation:
            continue
    return values


def numbers_in(text: str) -> set[Decimal]:
    """Numbers in ``text``, digits or words (en/de/fr/es/it/pt/nl), all plausible readings."""
    found: set[Decimal] = set()
    text = unglue(text)  # "RM7.70", "Rs.500": the number is read apart from its currency
    variants = {text}
    words = re.sub(r"(?<=[^\W\d])-(?=[^\W\d])", " ", text)  # "three-year" -> "three year"
    for lang in ("en", "de", "fr", "es"):
        try:
            variants.add(alpha2digit(words, lang, threshold=0))
        except (ValueError, IndexError):
            continue
    for variant in variants:
        for m in NUMBER.finditer(variant):
            read = readings(m.group())
            pieces = m.group().split()
            # "9.81 0.59 10.40", "APP: 83650 41.50": figures side by side, not one number
            # grouped by spaces ("1 234 567,89")
            if len(pieces) > 1 and (not read or _side_by_side(pieces)):
                read |= {n for piece in pieces for n in readings(piece)}
            found |= read
    return found


def _side_by_side(pieces: list[str]) -> bool:
    """Whether spaced digits are figures of their own ("APP: 83650 41.50"), not one number:
    neither grouped by spaces ("1 234 567,89"), nor a number an OCR engine spaced (a piece
    that opens or ends on its decimal point, "33 .92"; a lone first digit, "1 8.50")."""
    grouped = re.fullmatch(r"[-+]?\d{1,3}", pieces[0]) and all(
        re.match(r"\d{3}(?:[.,]\d+)?$", group) for group in pieces[1:]
    )
    whole = all(re.fullmatch(r"[-+]?\d(?:[\d.,]*\d)?", piece) for piece in pieces)
    return whole and not grouped and len(pieces[0].lstrip("+-")) > 1


@dataclass(frozen=True, slots=True)
class Money:
    """How the document writes money, from all its lines: the currency its ``$`` stands for
    (None: USD, :func:`.locales.local_currency`), and whether it prints every amount whole (no
    figure with cents anywhere, two or more in groups of thousands: a slip in rupiah or won,
    where "32.200" is thirty-two thousand two hundred, never 32.2)."""

    dollar: str | None = None
    whole: bool = False


MONEY_UNKNOWN = Money()  # nothing known of how the document writes money


_CENTS = re.compile(r"\d[.,]\d{2}(?![\d.,]?\d)")
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:[.,]\d{3})+(?![\d.,]?\d)")


def prints_whole(texts: Sequence[str]) -> bool:
    """Whether ``texts`` print no figure with cents and two or more in groups of thousands,
    and name no currency whose minor unit is three digits (``KWD 3.250`` is three dinars and a
    quarter: Babel's currency precision)."""
    from babel.numbers import get_currency_precision

    grouped = 0
    for text in texts:
        if _CENTS.search(text):
            return False
        grouped += len(_GROUPED.findall(text))
    if grouped < 2:
        return False
    named = {code for text in texts for code in currencies_in(text)}
    return not any(get_currency_precision(code) == 3 for code in named)


def currencies_in(text: str, dollar: str | None = None) -> set[str]:
    """ISO 4217 codes stated in ``text`` by code or by symbol, glued to a number or not
    (:mod:`.currency`); a symbol several currencies share states each of them, except those
    with one customary reading (``$`` is USD, or ``dollar`` where the document places itself:
    :func:`.locales.local_currency`). A local symbol of letters (``RM``, ``Rs``) counts beside
    a number or in parentheses, as ISO codes and signs (``R$`` too) count anywhere."""
    placed = {m for _s, _e, m in currency_marks(text, beside_number=True)}
    return {
        code
        for _start, _end, mark in currency_marks(text)
        if mark in placed or mark in currency_codes() or not mark[0].isalpha() or "$" in mark
        for code in ({dollar} if dollar and mark == "$" else codes_of(mark))
    }


_MONTH_WORD = r"[A-Za-zÀ-ÿ]{3,}\.?"
_YEAR_SEP = r"(?:\s*,\s*|\s+)"  # "May 5, 2010", "May 5 , 2010" (a PDF's spacing)
_WRITTEN = [
    re.compile(
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:day\s+of\s+|of\s+)?{_MONTH_WORD}{_YEAR_SEP}\d{{4}}\b"
    ),
    re.compile(rf"\b{_MONTH_WORD}\s+\d{{1,2}}(?:st|nd|rd|th)?{_YEAR_SEP}\d{{4}}\b"),
    re.compile(rf"\b{_MONTH_WORD}\s+\d{{4}}\b"),
]
# a day before a month's name: what a month and year is read with, as a date of that day
_DAY_BEFORE = re.compile(r"(?<!\d)\d{1,2}(?:st|nd|rd|th)?\.?[\s/-]*$")
_ISO_DATE = re.compile(r"\b(\d{4})([-/])(\d{1,2})\2(\d{1,2})\b")  # "2018-02-22", "2018/02/22"
# year first with dots ("2025.07.03", as Korean and Hungarian tills print it) and as Japanese,
# Chinese and Korean write it ("2025年7月3日", "2025년 7월 3일"); the rules' date grammar reads
# the same forms (``rules/dates.py``)
YEAR_FIRST_TEXT = (
    r"(?<![\d.])(?P<yd_y>\d{4})\.(?P<yd_m>\d{2})\.(?P<yd_d>\d{2})(?!\.?\d)"
    r"|(?<!\d)(?P<yc_y>\d{4})\s?[年년]\s?(?P<yc_m>\d{1,2})\s?[月월]\s?(?P<yc_d>\d{1,2})\s?[日일]"
)
_YEAR_FIRST = re.compile(YEAR_FIRST_TEXT)


def year_first(m: re.Match[str]) -> tuple[int, int, int]:
    """(year, month, day) of a match of :data:`YEAR_FIRST_TEXT`."""
    if m["yd_y"]:
        return int(m["yd_y"]), int(m["yd_m"]), int(m["yd_d"])
    return int(m["yc_y"]), int(m["yc_m"]), int(m["yc_d"])


# ISO's basic form, as a till prints it beside the time ("20180428/191204"): this century only
_ISO_BASIC = re.compile(r"(?<![\d.,])(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?![\d.,])")
# a label or a time OCR ran into it aside ("Date14/03/2018", "14/03/2018Time"), never a piece
# of a longer figure ("1234/05/2018")
_NUMERIC = re.compile(r"(?<![\d/])(?<!\d\.)(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})(?![\d/]|\.\d)")
# a month and year ("03/2019", "2019-03"), never the tail of a full date ("15.04.2026")
_MONTH_YEAR = re.compile(r"(?<![\d./-])(\d{1,2})[./](\d{4})\b|\b(\d{4})-(\d{1,2})\b(?!-)")


def _date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def date_order(texts: Iterable[str]) -> str | None:
    """``"dmy"`` or ``"mdy"`` when the document's numeric dates settle day/month order, else None.

    A date like 25/03/2026 can only be day-first; 03/25/2026 only month-first. A document that
    shows one kind and never the other settles the order of its ambiguous dates (04/05/2026).
    """
    day_first = month_first = False
    for text in texts:
        for m in _NUMERIC.finditer(text):
            a, b = int(m[1]), int(m[2])
            day_first |= 12 < a <= 31 and b <= 12
            month_first |= 12 < b <= 31 and a <= 12
    if day_first != month_first:
        return "dmy" if day_first else "mdy"
    return None


def _numeric_dates(text: str, order: str | None) -> tuple[set[dt.date | None], bool, bool]:
    """Numeric dates in ``text``; the flags say whether one's order was open and unsettled, and
    whether one's order was open and the document's ``order`` settled it.

    Dotted dates (15.04.2026) are day first wherever they are written; slashes and dashes are
    settled by the document's ``order`` or stay open.
    """
    found: set[dt.date | None] = set()
    open_order = settled = False
    for m in _NUMERIC.finditer(text):
        a, b, y = int(m[1]), int(m[2]), int(m[3])
        y = y + 2000 if y < 100 else y
        day_first, month_first = _date(y, b, a), _date(y, a, b)
        dotted = "." in m.group()
        ambiguous = day_first is not None and month_first is not None and a != b
        if dotted or month_first is None:
            found.add(day_first)
        elif day_first is None:
            found.add(month_first)
        elif order in ("dmy", "mdy"):
            found.add(day_first if order == "dmy" else month_first)
            settled |= ambiguous
        else:
            found |= {day_first, month_first}
            open_order |= a != b
    return found, open_order, settled


def dates_in(text: str, order: str | None = None) -> set[dt.date]:
    """Dates in ``text``; a numeric date whose day/month order is open gives both readings."""
    return open_dates(text, order)[0]


@overload
def open_dates(
    text: str, order: str | None, settled: Literal[False] = False
) -> tuple[set[dt.date], bool]: ...
@overload
def open_dates(
    text: str, order: str | None, settled: Literal[True]
) -> tuple[set[dt.date], bool, bool]: ...
def open_dates(
    text: str, order: str | None, settled: bool = False
) -> tuple[set[dt.date], bool] | tuple[set[dt.date], bool, bool]:
    """Dates in ``text`` and whether a numeric one's order stayed open; with ``settled``, also
    whether the document's ``order`` decided one."""
    import dateparser

    found, open_order, decided = _numeric_dates(text, order)
    for m in _ISO_DATE.finditer(text):
        found.add(_date(int(m[1]), int(m[3]), int(m[4])))
    for m in _ISO_BASIC.finditer(text):
        found.add(_date(int(m[1]), int(m[2]), int(m[3])))
    for m in _YEAR_FIRST.finditer(text):
        found.add(_date(*year_first(m)))
    for m in _short_year().finditer(text):
        found.add(_date(2000 + int(m[3]), EN_MONTHS[m[2].lower()[:3]], int(m[1])))
    for m in _month_between().finditer(text):
        found.add(_date(int(m[4]), EN_MONTHS[m[3].lower()[:3]], int(m[1])))
    for m in _MONTH_YEAR.finditer(text):
        month, year = (m[1], m[2]) if m[1] else (m[4], m[3])
        found.add(_date(int(year), int(month), 1))
    options: Any = {"PREFER_DAY_OF_MONTH": "first", "REQUIRE_PARTS": ["month", "year"]}
    for pattern in _WRITTEN:
        for m in pattern.finditer(text):
            if pattern is _WRITTEN[-1] and _DAY_BEFORE.search(text, 0, m.start()):
                continue  # "Apr 2018" of "02 Apr 2018": a day's month, not the 1st of it
            phrase = re.sub(r"\b(?:day\s+)?of\s+|(?<=\d)(st|nd|rd|th)\b", " ", m.group())
            english = _english_date(phrase)
            if english is not None:
                found.add(english)
                continue
            parsed = dateparser.parse(phrase, settings=options)
            if parsed is not None:
                found.add(parsed.date())
    dates = {d for d in found if d is not None}
    return (dates, open_order, decided) if settled else (dates, open_order)


EN_MONTHS = {
    name: number
    for number, month in enumerate(
        ("january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"),
        start=1,
    )
    for name in (month, month[:3])
}  # fmt: skip
"""English month names and their three-letter forms, lower case -> number."""


@lru_cache(maxsize=1)
def _short_year() -> re.Pattern[str]:
    """A day, an English month's name or its three letters, and a year of two digits, as a till
    prints them ("30 DEC 17", "12-Mar-18"); never a time's or a figure's digits after it."""
    months = "|".join(sorted(EN_MONTHS, key=len, reverse=True))
    return re.compile(rf"(?i)(?<![\w.])(\d{{1,2}})[\s-]*({months})\.?[\s-]*(\d{{2}})(?![\d:.,/-])")


@lru_cache(maxsize=1)
def _month_between() -> re.Pattern[str]:
    """A day, an English month's name or its three letters and a four-digit year, one slash or
    hyphen between each ("05-AUG-2017", "02/JAN/2017")."""
    months = "|".join(sorted(EN_MONTHS, key=len, reverse=True))
    return re.compile(rf"(?i)(?<![\w.])(\d{{1,2}})([/-])({months})\.?\2(\d{{4}})(?!\d)")


_EN_DMY = re.compile(r"(\d{1,2})\s+([A-Za-z]+)\.?(?:\s*,\s*|\s+)(\d{4})")
_EN_MDY = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2})(?:\s*,\s*|\s+)(\d{4})")
_EN_MY = re.compile(r"([A-Za-z]+)\.?\s+(\d{4})")


def _english_date(phrase: str) -> dt.date | None:
    """``phrase`` read without dateparser when it is a valid day (or none), English month name
    and year: what dateparser reads it as (the first of the month without a day), at a
    thousandth of the cost (dateparser tries every language: ~1 ms a phrase). Anything else,
    an impossible date included, is left to dateparser (None)."""
    phrase = phrase.strip()
    day: str | None
    if m := _EN_DMY.fullmatch(phrase):
        day, month, year = m.groups()
    elif m := _EN_MDY.fullmatch(phrase):
        month, day, year = m.groups()
    elif m := _EN_MY.fullmatch(phrase):
        (month, year), day = m.groups(), None
    else:
        return None
    number = EN_MONTHS.get(month.lower())
    if number is None:
        return None
    try:
        return dt.date(int(year), number, int(day) if day else 1)
    except ValueError:
        return None
