"""Numbers, amounts, percentages and currencies as invoices write them.

``1.234,56`` and ``1,234.56`` are both 1234.56; a currency is a symbol or an ISO 4217 code of
a currency legal tender now (Babel's data) beside the number: a symbol one currency is written
with (``€``, ``₩``, ``₫``, ``₹``, ``R$``, ``Rp``; Babel's symbols through
:func:`.currency.codes_of`), ``$`` read as USD and ``¥`` as JPY with a caveat, a Vietnamese
till's ``đ`` as VND. An amount parser is *anchored*: the amount must start where it is asked to
look, so "Total VAT: 190,00" never lends its figure to the total; "VAT 19%: 190,00" states the
tax after its rate, so a leading rate is stepped over.
"""

from __future__ import annotations

import re
from dataclasses import replace

from evidex.extractors.verify.currency import codes_of, tender_codes

from .match import Match

__all__ = [
    "DOLLAR",
    "PERCENT",
    "PERCENT_PREFIX",
    "amount_at",
    "as_read",
    "closed_up",
    "currency_marks",
    "parse_amount",
    "parse_currency",
    "parse_integer",
    "parse_number",
    "parse_percentage",
    "read_number",
]

# the currency symbols read against a number: the four of old and those of one currency each
# (codes_of), a dollar that names its country ("R$", "US$", "A$", "S$"), "Rp" with or without
# its dot, and "đ" as Vietnamese tills print the dong
DOLLAR = r"(?:R|US|A|C|S|HK|NZ|NT|MX)\$"  # a dollar that names its country
_SYMBOL = (
    rf"(?<![A-Za-z]){DOLLAR}|(?<!\b[A-Z])(?<!\b[A-Z]{{2}})\$|"
    r"[€£¥₩₫₹₱฿₺₦₽₴₪]|Rp\.?|đ"
)
_SYMBOLS = {"$": "USD", "¥": "JPY", "đ": "VND"}  # what codes_of does not settle alone
_NUM = r"[-−]?\d{1,3}(?:[.,'\u00a0\u202f ]\d{3})+(?:[.,]\d{1,2})?|[-−]?\d+(?:[.,]\d{1,2})?"
_END = r"(?![\d%]|[.,]\d)"
_AMOUNT = re.compile(
    rf"(?P<pre>{_SYMBOL}|[A-Z]{{3}}(?=\s?[-−\d]))?\s?(?P<num>{_NUM}){_END}"
    rf"(?:\s?(?P<post>{_SYMBOL}|[A-Z]{{3}}(?![A-Za-z])))?"
)
PERCENT_PREFIX = re.compile(r"\(?\d{1,2}(?:[.,]\d+)?\s?%\)?\s*:?\s*")
_NUMBER = re.compile(rf"(?:{_NUM}){_END}")
PERCENT = re.compile(r"(?<![\d.,])(?P<n>\d{1,3}(?:[.,]\d{1,3})?)\s?%")
_CURRENCY = re.compile(rf"{_SYMBOL}|(?<![A-Za-z0-9])[A-Z]{{3}}(?![A-Za-z0-9])")
_ISO = re.compile(r"(?<![A-Za-z0-9])(?P<v>[A-Z]{3})(?![A-Za-z0-9])")


def read_number(text: str) -> float:
    """``1.234,56`` and ``1,234.56`` both as 1234.56; a lone 3-digit group is thousands."""
    s = re.sub(r"[\s'\u00a0\u202f]", "", text).replace("−", "-")
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("-")
    if "." in s and "," in s:
        dec = "." if s.rfind(".") > s.rfind(",") else ","
        s = s.replace("," if dec == "." else ".", "").replace(dec, ".")
    elif "," in s or "." in s:
        parts = s.split("," if "," in s else ".")
        thousands = len(parts) > 2 or (len(parts[-1]) == 3 and parts[0] != "0")
        s = "".join(parts) if thousands else ".".join(parts)
    return sign * float(s)


def parse_amount(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    skip = PERCENT_PREFIX.match(text, pos)
    m = _AMOUNT.match(text, skip.end() if skip else pos)
    if not m:
        return None
    pre, post = m["pre"], m["post"]
    if pre and _code(pre) is None:
        return None
    end = m.end() if not post or _code(post) is not None else m.end("num")
    code = _code(pre) if pre else (_code(post) if post and end == m.end() else None)
    caveat = ""
    if code is None:
        code = next(iter(_iso_codes(text)), None)
        caveat = f"currency {code} read from elsewhere on the line" if code else ""
    if "$" in (pre or "", post or ""):
        caveat = "'$' read as USD"
    return Match(m.start(), end, {"value": read_number(m["num"]), "currency": code}, caveat)


def _code(mark: str) -> str | None:
    """The ISO code ``mark`` names: itself when it is one, else the one currency its symbol is
    written for (``₩`` KRW, ``Rp.`` IDR; ``$`` USD and ``¥`` JPY by preference)."""
    if mark in tender_codes():
        return mark
    if mark in _SYMBOLS:
        return _SYMBOLS[mark]
    if re.fullmatch(r"[A-Z]{3}", mark):
        return None  # a code no longer legal tender anywhere
    codes = codes_of(mark.rstrip("."))
    return next(iter(codes)) if len(codes) == 1 else None


def _iso_codes(text: str) -> list[str]:
    return [m["v"] for m in _ISO.finditer(text) if m["v"] in tender_codes()]


def currency_marks(text: str) -> list[Match]:
    """Currency codes and symbols written next to a number, as ISO codes."""
    out = []
    for m in _CURRENCY.finditer(text):
        near = text[max(0, m.start() - 2) : m.end() + 2]
        code = _code(m.group())
        if code is not None and re.search(r"\d", near):
            caveat = f"derived from the symbol {m.group()}" if code != m.group() else ""
            caveat += "; '$' read as USD" if m.group() == "$" else ""
            out.append(Match(m.start(), m.end(), code, caveat))
    return out


def parse_currency(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    m = _CURRENCY.match(text, pos)
    code = _code(m.group()) if m else None
    return Match(m.start(), m.end(), code) if m and code is not None else None


def parse_number(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    m = _NUMBER.match(text, pos)
    return Match(m.start(), m.end(), read_number(m.group())) if m else None


def parse_integer(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    m = parse_number(text, pos, enum)
    return Match(m.start, m.end, int(m.value)) if m and float(m.value).is_integer() else None


def parse_percentage(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    m = PERCENT.match(text, pos)
    return Match(m.start(), m.end(), read_number(m["n"])) if m else None


# An OCR engine's spaces inside an amount: "33 .92", "73. 00", "30 .9 1", "0 . 0 1".
_SPACE_IN_AMOUNT = re.compile(r"(?<=\d) (?=[.,] ?\d)|(?<=\d[.,]) (?=\d)|(?<=\d[.,]\d) (?=\d(?!\d))")


def closed_up(text: str) -> tuple[str, list[int]]:
    """``text`` with the spaces an OCR engine put inside amounts taken out ("RM 33 .92" reads
    "RM 33.92"), and for each character of the result its offset in ``text`` (one more entry
    for the end), so a figure found in the result is quoted from ``text``."""
    at = list(range(len(text)))
    while True:
        drop = {m.start() for m in _SPACE_IN_AMOUNT.finditer(text)}
        if not drop:
            return text, [*at, at[-1] + 1 if at else 0]
        text = "".join(c for i, c in enumerate(text) if i not in drop)
        at = [a for i, a in enumerate(at) if i not in drop]


def amount_at(text: str, pos: int, ocr: bool) -> Match | None:
    """The amount that starts at ``pos``; on a line an OCR engine read, the reading with the
    engine's spaces taken out where it runs further ("10. 75" is 10.75, not 10), quoted as
    read."""
    plain = parse_amount(text, pos)
    if not ocr:
        return plain
    closed, at = closed_up(text)
    if closed == text:
        return plain
    read = parse_amount(closed, next((i for i, a in enumerate(at) if a >= pos), len(closed)))
    if read is None or (plain is not None and at[read.end - 1] + 1 <= plain.end):
        return plain
    return as_read(read, closed, at)


def as_read(read: Match, closed: str, at: list[int]) -> Match:
    """``read``, found in ``closed`` (:func:`closed_up`'s text and offsets), quoted from the text
    as read and written without the engine's spaces."""
    written = closed[read.start : read.end]
    return replace(read, start=at[read.start], end=at[read.end - 1] + 1, written=written)
