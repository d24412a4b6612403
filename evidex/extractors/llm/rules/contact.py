"""Values that identify themselves, found without a label: an email, a URL, an international
phone number, an IBAN or EU VAT ID whose check digits hold, a BIC.

Check digits are the libraries' (schwifty for IBAN/BIC, python-stdnum for VAT IDs), phone
numbers libphonenumber's. Looking for a phone number is the costliest test on a line, so a line
without enough digits is never handed to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import phonenumbers
from schwifty import BIC, IBAN
from stdnum.eu import vat as eu_vat
from stdnum.gb import vat as gb_vat

from .match import Match

__all__ = ["find_emails", "find_ibans", "find_phones", "find_urls", "find_vat_ids", "parse_bic"]

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(
    r"(?i)(?:https?://|www\.)[^\s<>()\"']+|\b(?:[a-z0-9-]+\.)*"
    r"(?:linkedin\.com|github\.com)/[^\s<>()\"']+"
)
_IBAN_RUN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9])+")
_VAT_RUN = re.compile(r"\b(?:[A-Z]{2}|ATU)[ ]?\d(?:[ .]?[0-9A-Z])+")
_BIC = re.compile(r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b")
_DIGITS = re.compile(r"\d")
_PHONE_REGIONS = ("US", "GB", "DE", "FR", "NL", "CH", "AT", "IT", "ES")


def _checked_runs(text: str, run: re.Pattern[str], valid: Callable[[str], bool]) -> list[Match]:
    """Longest prefix of each run, ending at a token end, that passes ``valid``."""
    out = []
    for m in run.finditer(text):
        ends = [
            m.start() + i + 1
            for i, c in enumerate(m.group())
            if c not in " ." and (i + 1 == len(m.group()) or m.group()[i + 1] in " .")
        ]
        for end in reversed(ends):
            if valid(text[m.start() : end]):
                out.append(Match(m.start(), end, text[m.start() : end]))
                break
    return out


def _valid_iban(s: str) -> bool:
    try:
        IBAN(s)
    except ValueError:
        return False
    return True


def _valid_vat(s: str) -> bool:
    return bool(eu_vat.is_valid(s) or (s.startswith("GB") and gb_vat.is_valid(s)))


def find_ibans(text: str) -> tuple[list[Match], list[str]]:
    """Valid IBANs on the line, and IBAN-looking runs whose check digits fail."""
    if not _IBAN_RUN.search(text):
        return [], []
    found = _checked_runs(text, _IBAN_RUN, _valid_iban)
    bad = [
        m.group()
        for m in _IBAN_RUN.finditer(text)
        if len(re.sub(r"\s", "", m.group())) >= 15 and not any(f.start == m.start() for f in found)
    ]
    return found, bad


def find_vat_ids(text: str) -> list[Match]:
    if not _VAT_RUN.search(text):
        return []
    ibans = {m.start for m in find_ibans(text)[0]}
    return [m for m in _checked_runs(text, _VAT_RUN, _valid_vat) if m.start not in ibans]


def find_emails(text: str) -> list[Match]:
    if "@" not in text:
        return []
    return [Match(m.start(), m.end(), m.group()) for m in _EMAIL.finditer(text)]


def find_urls(text: str) -> list[Match]:
    out = []
    for m in _URL.finditer(text):
        end = m.end()
        while text[end - 1] in ".,;:!?)":
            end -= 1
        out.append(Match(m.start(), end, text[m.start() : end]))
    return out


def find_phones(text: str, labelled: bool = False) -> list[Match]:
    """International numbers anywhere; after a phone label, national ones of common regions."""
    if len(_DIGITS.findall(text)) < 6 or ("+" not in text and not labelled):
        return []
    for region in ("ZZ", *(_PHONE_REGIONS if labelled else ())):
        found = [
            Match(m.start, m.end, m.raw_string)
            for m in phonenumbers.PhoneNumberMatcher(text, region)
        ]
        if found:
            return found
    return []


def parse_bic(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    m = _BIC.match(text, pos)
    if not m:
        return None
    try:
        BIC(m.group())
    except ValueError:
        return None
    return Match(m.start(), m.end(), m.group())
