"""Dates as documents write them: ``2026-03-15``, ``15.03.2026``, ``03/15/2026``, ``9/4/12``,
``15 March 2026``, ``March 15, 2026``, ``the 11th day of January, 2012``, ``March 2026``, and
a till's ``05Mar2018`` (or ``12Mar 2018``, as an OCR engine reads "12 Mar 2018" now and then),
``02/JAN/2017``, ``24-MAR-2018`` and ``30 DEC 17``; year first with dots (``2025.07.03``) and
as Japanese, Chinese and Korean write it (``2025年7月3日``, ``2025년 7월 3일``).

The grammar below recognises each written form and names its parts, so the date is computed
from those parts with :mod:`datetime` (which also rejects impossible dates such as 30 February).
A general date parser (dateparser) reads far more forms, but costs tens of milliseconds a call
and would accept fragments ("May") the backend must not take for a date; the forms here are the
ones a label or a contract sentence is followed by. English and German month names.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from evidex.extractors.verify.readings import YEAR_FIRST_TEXT, year_first
from evidex.extractors.verify.spacing import SPACED_DATE, SPLIT_DAY

from .match import Match

__all__ = [
    "AMBIGUOUS",
    "DATE",
    "DATE_TEXT",
    "MONTH_ONLY",
    "date_at",
    "find_dates",
    "in_order",
    "parse_date",
    "readings",
    "spaced_dates",
]

AMBIGUOUS = "day and month order is ambiguous; read as month/day"
MONTH_ONLY = "the document gives only month and year; the day is set to the 1st"

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "mär": 3, "apr": 4, "may": 5, "mai": 5, "jun": 6, "jul": 7,
    "aug": 8, "sep": 9, "oct": 10, "okt": 10, "nov": 11, "dec": 12, "dez": 12,
}  # fmt: skip
_MONTH = (
    r"jan(?:uary|uar)?|feb(?:ruary|ruar)?|mar(?:ch)?|märz|apr(?:il)?|ma[iy]|june?|juni|"
    r"july?|juli|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|"
    r"dec(?:ember)?|dez(?:ember)?"
)
_DAY = r"(?P<{}>\d{{1,2}})(?:st|nd|rd|th)?\.?"
_YEAR_SEP = r"(?:\s*,\s*|\s+)"  # "May 5, 2010", "May 5 , 2010" (a PDF's spacing), "May 5,2010"
# The date grammar, also embedded in the contract sentences (``clauses.py``).
DATE_TEXT = (
    r"(?<!\d)(?P<ymd>(?P<y1>\d{4})(?P<s1>[-/])(?P<m1>\d{1,2})(?P=s1)(?P<d1>\d{1,2}))"
    rf"|(?P<yf>{YEAR_FIRST_TEXT})"
    r"|(?<!\d)(?<!\d\.)(?P<dot>(?P<d2>\d{1,2})\.(?P<m2>\d{1,2})\.(?P<y2>\d{4}|\d{2}))(?!\.\d)"
    # "02/12/2017", "16-03-18": one separator throughout ("11/3-21" is an item's code), and
    # no more digits before it ("2018/02/22" is read whole, above)
    r"|(?<!\d)(?P<sl>(?P<a3>\d{1,2})(?P<s3>[/-])(?P<b3>\d{1,2})(?P=s3)(?P<y3>\d{4}|\d{2}(?!\d)))"
    rf"|(?P<dm>{_DAY.format('d4')}(?:\s+(?:day\s+of\s+|of\s+)?|(?=[a-z]))(?P<m4>{_MONTH})\.?{_YEAR_SEP}(?P<y4>\d{{4}}))"
    rf"|(?P<md>(?P<m5>{_MONTH})\.?\s+{_DAY.format('d5')}{_YEAR_SEP}(?P<y5>\d{{4}}))"
    rf"|(?P<my>(?P<m6>{_MONTH})\.?,?\s+(?P<y6>\d{{4}}))(?!\d)"
    # "05Mar2018", "12 Mar2018", "10Mar201818:24": a till's date run together (before a time)
    r"|(?<!\d)(?P<dmy>(?P<d7>\d{1,2})\s?(?P<m7>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"(?P<y7>\d{4}))(?=\d{1,2}:\d{2}|\D|$)"
    # "02/JAN/2017", "24-MAR-2018", "30 DEC 17": a till's day, month name and year, one
    # separator throughout (a two-digit year not followed by a time's colon)
    rf"|(?<!\d)(?P<dny>(?P<d8>\d{{1,2}})(?P<s8>[/-]|\s)(?P<m8>{_MONTH})\.?(?P=s8)"
    r"(?P<y8>\d{4}|\d{2}(?![\d:])))"
)
DATE = re.compile("(?i)" + DATE_TEXT)
_TIME = re.compile(r"\d{1,2}:\d{2}")
_COLON_RUN = re.compile(r":\d")
_SHORT_YEAR = re.compile(r"(?<!\d)\d{2}$")


def _month(name: str) -> int:
    return _MONTHS[name.lower()[:3]]


def _year(text: str) -> int:
    year = int(text)
    return year + (2000 if year < 70 else 1900) if len(text) == 2 else year


def _parts(m: re.Match[str]) -> tuple[int, int, int, str] | None:
    """(year, month, day, caveat) of a date match."""
    if m["ymd"]:
        return int(m["y1"]), int(m["m1"]), int(m["d1"]), ""
    if m["dot"]:
        return _year(m["y2"]), int(m["m2"]), int(m["d2"]), ""
    if m["yf"]:
        return (*year_first(m), "")
    if m["sl"]:
        a, b = int(m["a3"]), int(m["b3"])
        if a > 12:
            return _year(m["y3"]), b, a, ""
        caveat = AMBIGUOUS if b <= 12 and a != b else ""
        return _year(m["y3"]), a, b, caveat
    if m["dm"]:
        return int(m["y4"]), _month(m["m4"]), int(m["d4"]), ""
    if m["md"]:
        return int(m["y5"]), _month(m["m5"]), int(m["d5"]), ""
    if m["dmy"]:
        return int(m["y7"]), _month(m["m7"]), int(m["d7"]), ""
    if m["dny"]:
        return _year(m["y8"]), _month(m["m8"]), int(m["d8"]), ""
    if m["my"]:
        return int(m["y6"]), _month(m["m6"]), 1, MONTH_ONLY
    return None


def _read(m: re.Match[str]) -> Match | None:
    parts = _parts(m)
    if parts is None:
        return None
    year, month, day, caveat = parts
    try:
        date = dt.date(year, month, day)
    except ValueError:
        return None  # 30 February is no date
    return Match(m.start(), m.end(), {"iso": date.isoformat(), "original": m.group()}, caveat)


def _runs_on(m: re.Match[str], text: str) -> bool:
    """More digits follow the date, so it is part of a longer number, or a colon and a digit
    follow a two-digit year ("25/10/20:7", a year OCR misread: no date of 2020); a run-together
    date followed by its time ("10Mar201818:24") is not, nor a date whose four-digit year OCR
    ran into the time after it ("09/03/201821:28")."""
    if _COLON_RUN.match(text, m.end()) and _SHORT_YEAR.search(m.group()):
        return True
    if m.end() >= len(text) or not text[m.end()].isdigit():
        return False
    return not (m["dmy"] or (m.group()[-4:].isdigit() and _TIME.match(text, m.end())))


def parse_date(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    """The date that starts at ``pos`` (and is not followed by more digits)."""
    m = DATE.match(text, pos)
    if not m or _runs_on(m, text):
        return None
    return _read(m)


def find_dates(text: str) -> list[Match]:
    out = []
    for m in DATE.finditer(text):
        if _runs_on(m, text):
            continue
        found = _read(m)
        if found is not None:
            out.append(found)
    return out


def spaced_dates(text: str) -> list[Match]:
    """The dates of a line an OCR engine read, also those it spaced out (as verification reads
    them: :data:`~evidex.extractors.verify.spacing.SPACED_DATE`), read without the spaces
    (``written``) and quoted as read; one wins over a reading of part of it
    ("1/01/2019" of "1 1/01/2019"). Only for OCR text: in a text layer "1 1/01/2019" is a
    number and a date."""
    found = find_dates(text)
    for m in SPACED_DATE.finditer(text):
        close = m.group().replace(" ", "")
        read = find_dates(close)
        if close == m.group() or not read or (read[0].start, read[0].end) != (0, len(close)):
            continue
        found = [d for d in found if not (d.start < m.end() and m.start() < d.end)]
        found.append(replace(read[0], start=m.start(), end=m.end(), written=close))
    for m in SPLIT_DAY.finditer(text):  # "1 7 JAN 2018": the day's digits read apart
        close = text[: m.start() + 1] + text[m.end() :]
        read = [d for d in find_dates(close) if d.start == m.start()]
        if not read:
            continue
        end = read[0].end + 1
        found = [d for d in found if not (d.start < end and m.start() < d.end)]
        found.append(replace(read[0], start=m.start(), end=end, written=close[m.start() : end - 1]))
    return sorted(found, key=lambda d: d.start)


def date_at(text: str, pos: int, ocr: bool) -> Match | None:
    """The date that starts at ``pos``; on a line an OCR engine read, the spaced-out reading
    where it runs further ("25/12/20 18" is 25/12/2018, not 25/12/20 and a stray 18)."""
    plain = parse_date(text, pos)
    if not ocr:
        return plain
    spaced = next((d for d in spaced_dates(text) if d.start == pos), None)
    return spaced if spaced is not None and (plain is None or spaced.end > plain.end) else plain


def in_order(match: Match, order: str | None, why: str) -> Match:
    """``match`` re-read day first when its order was open and the document writes dates day
    first (``why`` says how the document settles it, :mod:`evidex.extractors.verify.locales`); the
    finder's other caveats and its doubt are kept."""
    if AMBIGUOUS not in match.caveat or order is None or not isinstance(match.value, dict):
        return match
    rest = [c for c in match.caveat.replace(AMBIGUOUS, "").split("; ") if c]
    if order == "mdy":
        caveat = "; ".join([*rest, f"read month first ({why})"])
        return replace(match, caveat=caveat)
    month_first = dt.date.fromisoformat(match.value["iso"])
    day_first = dt.date(month_first.year, month_first.day, month_first.month)
    value = {**match.value, "iso": day_first.isoformat()}
    return replace(match, value=value, caveat="; ".join([*rest, f"read day first ({why})"]))


def readings(value: Any) -> set[str]:
    """The days a date finder's answer may mean: its reading, and where the day could be the
    month, the other one."""
    iso = value.get("iso") if isinstance(value, dict) else None
    if not isinstance(iso, str):
        return set()
    day = dt.date.fromisoformat(iso)
    out = {iso}
    if day.day <= 12:
        out.add(dt.date(day.year, day.day, day.month).isoformat())
    return out
