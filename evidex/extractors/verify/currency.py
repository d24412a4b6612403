"""Currency marks as documents print them: ISO codes and local symbols, glued to the number or
spaced from it, on either side (``RM7.70``, ``7.70RM``, ``USD12.00``, ``12,00 €``, ``Rs.500``,
``R$ 10,00``).

Pure. The symbols come from Babel (CLDR): for each territory, the symbol its own main language
writes for each currency legal there (``RM`` for MYR in Malaysian, ``R$`` for BRL, ``Rs`` for
PKR), plus the ISO codes. A symbol several currencies share (``$``, ``kr``, ``Rs``) names them
all; the old single-symbol table of :mod:`.readings` (``$`` is USD) keeps its word where it has
one, so a quote's ``$`` still states USD. A letter symbol counts only as a word of its own
(``RM`` in ``RM7.70`` or ``(RM)``, never in ``FORM``); one-letter symbols (``R``, ``K``) are
too common in text to count at all.

:func:`unglue` puts a space between a mark and a number written against it, so the number
reader (which refuses a number glued to letters: ``INV12345`` holds no amount) reads it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from evidex.extractors.verify.literals import literals

__all__ = [
    "PREFERRED",
    "codes_of",
    "currency_codes",
    "currency_marks",
    "issuer",
    "main_locales",
    "symbol_table",
    "tender_codes",
    "unglue",
]

# Rupee symbols CLDR leaves to ₹/රු/रु in the local scripts but receipts print in Latin letters.
_RUPEES = ("INR", "PKR", "LKR", "NPR", "MUR", "SCR")
# Symbols read as one currency whatever else shares them ("$" is USD unless a prefix says
# otherwise: "A$", "HK$").
PREFERRED = {
    "$": "USD",
    "US$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "₩": "KRW",
    "₽": "RUB",
    "₺": "TRY",
    "zł": "PLN",
    "Kč": "CZK",
    "Fr.": "CHF",
    "A$": "AUD",
    "AU$": "AUD",
    "C$": "CAD",
    "CA$": "CAD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "R$": "BRL",
}


@lru_cache(maxsize=1)
def currency_codes() -> frozenset[str]:
    from babel.numbers import list_currencies

    return frozenset(list_currencies())


@lru_cache(maxsize=1)
def _current() -> dict[str, frozenset[str]]:
    """Territory -> the currencies legal tender there now."""
    from babel.core import get_global

    out: dict[str, frozenset[str]] = {}
    for territory, rows in get_global("territory_currencies").items():
        codes = {code for code, _start, end, tender in rows if end is None and tender}
        if codes:
            out[territory] = frozenset(codes)
    return out


@lru_cache(maxsize=1)
def tender_codes() -> frozenset[str]:
    """The ISO codes legal tender somewhere now: a word of an address that was once a code
    ("SUR" of "AV. INSURGENTES SUR 1235", the Soviet rouble's) names no currency."""
    return frozenset(code for codes in _current().values() for code in codes)


@lru_cache(maxsize=1)
def main_locales() -> dict[str, str]:
    """Territory -> the locale of its most spoken official language (else its most spoken
    language) that CLDR has data for, e.g. ``MY`` -> ``ms_MY``, ``US`` -> ``en_US``."""
    from babel.core import get_global
    from babel.localedata import locale_identifiers

    known = set(locale_identifiers())
    out: dict[str, str] = {}
    for territory, languages in get_global("territory_languages").items():
        ranked = sorted(
            languages.items(),
            key=lambda kv: (
                (kv[1].get("official_status") or "") not in ("official", "de_facto_official"),
                -float(kv[1].get("population_percent") or 0),
            ),
        )
        for language, _info in ranked:
            if f"{language}_{territory}" in known:
                out[territory] = f"{language}_{territory}"
                break
    return out


@lru_cache(maxsize=1)
def symbol_table() -> dict[str, frozenset[str]]:
    """Mark (symbol or ISO code) -> the ISO 4217 codes it may stand for."""
    from babel import Locale

    table: dict[str, set[str]] = {code: {code} for code in currency_codes()}
    locales = main_locales()
    for territory, codes in _current().items():
        name = locales.get(territory)
        if name is None:
            continue
        symbols = Locale.parse(name).currency_symbols
        for code in codes:
            symbol = symbols.get(code)
            if symbol is not None and _usable(symbol, code):
                table.setdefault(symbol, set()).add(code)
    table.setdefault("Rs", set()).update(_RUPEES)
    for mark, code in PREFERRED.items():
        table.setdefault(mark, set()).add(code)
    return {mark: frozenset(codes) for mark, codes in table.items()}


def _usable(symbol: str, code: str) -> bool:
    """A symbol worth reading: visible, not the code itself, not one letter ("R", "K")."""
    if not symbol or symbol == code:
        return False
    visible = [c for c in symbol if unicodedata.category(c)[0] not in "CZ"]
    return bool(visible) and not (symbol.isalpha() and len(symbol) < 2)


def codes_of(mark: str) -> frozenset[str]:
    """The ISO codes a mark states: its preferred reading where it has one (``$`` is USD)."""
    if mark in PREFERRED:
        return frozenset({PREFERRED[mark]})
    return symbol_table().get(mark, frozenset())


def issuer(code: str) -> frozenset[str]:
    """The territories whose currency ``code`` is: its issuer when the code names one
    (ISO 4217: the first two letters are the issuing country, ``MYR`` -> ``MY``), else every
    territory where it is legal tender (``EUR``, ``XOF``)."""
    current, countries = _current(), main_locales()
    own = code[:2]
    if own in countries and code in current.get(own, frozenset()):
        return frozenset({own})
    return frozenset(t for t, codes in current.items() if code in codes and t in countries)


@lru_cache(maxsize=1)
def _mark_pattern() -> re.Pattern[str]:
    return literals(symbol_table(), edges="letters")


_NUMBER_AFTER = re.compile(r"\.?\s?[-+]?\d")
_NUMBER_BEFORE = re.compile(r"\d\s?$")


def currency_marks(text: str, beside_number: bool = False) -> list[tuple[int, int, str]]:
    """Every currency mark in ``text``: (start, end, mark). With ``beside_number``, only marks
    written against a number or standing in parentheses (``Total (RM)``)."""
    out = []
    for m in _mark_pattern().finditer(text):
        if beside_number:
            after = _NUMBER_AFTER.match(text, m.end()) is not None
            before = _NUMBER_BEFORE.search(text, 0, m.start()) is not None
            bracketed = text[max(0, m.start() - 1) : m.start()] == "(" and (
                text[m.end() : m.end() + 1] == ")"
            )
            if not (after or before or bracketed):
                continue
        out.append((m.start(), m.end(), m.group()))
    return out


_GLUED_AFTER = re.compile(r"\.?(?=[-+]?\d)")


def unglue(text: str) -> str:
    """``text`` with a space between a currency mark and a number written against it
    (``RM7.70`` -> ``RM 7.70``, ``Rs.500`` -> ``Rs. 500``, ``7.70RM`` -> ``7.70 RM``)."""
    if not any(c.isdigit() for c in text):
        return text
    out, last = [], 0
    for start, end, _mark in currency_marks(text):
        out.append(text[last:start])
        if start and text[start - 1].isdigit():
            out.append(" ")
        out.append(text[start:end])
        last = end
        glued = _GLUED_AFTER.match(text, end)
        if glued is not None:
            out.append(glued.group() + " ")
            last = glued.end()
    out.append(text[last:])
    return "".join(out)
