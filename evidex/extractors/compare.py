"""Does the value say what its quote says? One check per value kind.

Pure. Each check re-reads the quote with a library where a good one exists (dateparser for
written dates in many languages, phonenumbers, schwifty for IBAN/BIC check digits, python-stdnum
for VAT ids, text2num for numbers written as words, rapidfuzz for near-verbatim strings) and
compares. A check that fails says, in a reviewer's words, what disagrees.

Values written differently from the quote but equal in meaning must pass: ``1.234,56`` is 1234.56,
``€`` is EUR, ``Eight years`` is 8, ``15 March 2026`` is 2026-03-15, an IBAN with spaces is the
same IBAN. Values that differ in any digit must fail.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

import phonenumbers
from rapidfuzz import fuzz
from schwifty import BIC, IBAN
from schwifty.exceptions import SchwiftyException
from stdnum.eu import vat as eu_vat
from text_to_num import alpha2digit

from evidex.extractors.normalize import normalize

__all__ = ["Check", "check_value", "currencies_in", "date_order", "dates_in", "numbers_in"]


@dataclass(frozen=True, slots=True)
class Check:
    ok: bool
    reason: str = ""
    computed: bool = False


OK = Check(True)

_NUMBER = re.compile(r"(?<![\w.,])[-+]?\d[\d.,'\u2019 \u00a0\u202f]*\d(?![\d])|(?<![\w.,])[-+]?\d")
_SYMBOLS = {
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
    "C$": "CAD",
    "CA$": "CAD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "R$": "BRL",
}
_ISO = re.compile(r"\b[A-Z]{3}\b")
_PERCENT = re.compile(r"[-+]?\d[\d.,]*\s?%")


@lru_cache(maxsize=1)
def _iso_codes() -> frozenset[str]:
    from babel.numbers import list_currencies

    return frozenset(list_currencies())


def _readings(token: str) -> set[Decimal]:
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
    variants = {text}
    words = re.sub(r"(?<=[^\W\d])-(?=[^\W\d])", " ", text)  # "three-year" -> "three year"
    for lang in ("en", "de", "fr", "es"):
        try:
            variants.add(alpha2digit(words, lang, threshold=0))
        except (ValueError, IndexError):
            continue
    for variant in variants:
        for m in _NUMBER.finditer(variant):
            found |= _readings(m.group())
    return found


def _close(a: Decimal, b: float, tolerance: float) -> bool:
    return abs(float(a) - float(b)) <= tolerance + 1e-9 * max(abs(float(a)), abs(b))


def currencies_in(text: str) -> set[str]:
    """ISO 4217 codes stated in ``text`` by code or by symbol."""
    codes = {c for c in _ISO.findall(text) if c in _iso_codes()}
    for symbol, code in sorted(_SYMBOLS.items(), key=lambda kv: -len(kv[0])):
        if symbol in text:
            codes.add(code)
            break
    return codes


_MONTH_WORD = r"[A-Za-zÀ-ÿ]{3,}\.?"
_WRITTEN = [
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:day\s+of\s+)?{_MONTH_WORD},?\s+\d{{4}}\b"),
    re.compile(rf"\b{_MONTH_WORD}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"),
    re.compile(rf"\b{_MONTH_WORD}\s+\d{{4}}\b"),
]
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC = re.compile(r"\b(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})\b")
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


def _numeric_dates(text: str, order: str | None) -> tuple[set[dt.date | None], bool]:
    """Numeric dates in ``text``; the flag says whether one's order was open and unsettled.

    Dotted dates (15.04.2026) are day first wherever they are written; slashes and dashes are
    settled by the document's ``order`` or stay open.
    """
    found: set[dt.date | None] = set()
    open_order = False
    for m in _NUMERIC.finditer(text):
        a, b, y = int(m[1]), int(m[2]), int(m[3])
        y = y + 2000 if y < 100 else y
        day_first, month_first = _date(y, b, a), _date(y, a, b)
        dotted = "." in m.group()
        if order == "dmy" or dotted or month_first is None:
            found.add(day_first)
        elif order == "mdy" or day_first is None:
            found.add(month_first)
        else:
            found |= {day_first, month_first}
            open_order |= a != b
    return found, open_order


def dates_in(text: str, order: str | None = None) -> set[dt.date]:
    """Dates in ``text``; a numeric date whose day/month order is open gives both readings."""
    return _dates(text, order)[0]


def _dates(text: str, order: str | None) -> tuple[set[dt.date], bool]:
    import dateparser

    found, open_order = _numeric_dates(text, order)
    for m in _ISO_DATE.finditer(text):
        found.add(_date(int(m[1]), int(m[2]), int(m[3])))
    for m in _MONTH_YEAR.finditer(text):
        month, year = (m[1], m[2]) if m[1] else (m[4], m[3])
        found.add(_date(int(year), int(month), 1))
    settings: Any = {"PREFER_DAY_OF_MONTH": "first", "REQUIRE_PARTS": ["month", "year"]}
    for pattern in _WRITTEN:
        for m in pattern.finditer(text):
            phrase = re.sub(r"\bday\s+of\s+|(?<=\d)(st|nd|rd|th)\b", " ", m.group())
            parsed = dateparser.parse(phrase, settings=settings)
            if parsed is not None:
                found.add(parsed.date())
    return {d for d in found if d is not None}, open_order


def _digits(text: str) -> list[str]:
    return re.findall(r"\d+", text)


def _words(text: str) -> list[str]:
    """Lower-case words without accents or punctuation ("Müller & Söhne" -> muller, sohne)."""
    folded = unicodedata.normalize("NFKD", normalize(text).text)
    return re.findall(r"[^\W_]+", "".join(c for c in folded if not unicodedata.combining(c)))


def _text(value: Any, quote: str, fuzzy: bool = False) -> Check:
    """Every word of the value is in the quote (in any order; case, accents and punctuation
    aside). A one-letter difference in a name is a different name; only when the quote itself
    was matched approximately (OCR noise) may words match approximately too."""
    v, q = _words(str(value)), _words(quote)
    if not v:
        return Check(False, "the value is empty but the field is marked found")
    missing = [d for d in _digits(str(value)) if d not in _digits(quote)]
    if missing:
        return Check(False, f"the digits {', '.join(missing)} in the value are not in the quote")
    if " ".join(v) in " ".join(q):
        return OK
    absent = [w for w in v if w not in q]
    if fuzzy:
        absent = [w for w in absent if not any(fuzz.ratio(w, x) >= 80 for x in q)]
    if not absent:
        return OK
    return Check(
        False, f"value {str(value)!r} is not what the quote says ({', '.join(absent)} not in it)"
    )


def _number(value: Any, quote: str, tolerance: float = 0.0) -> Check:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return Check(False, f"value {value!r} is not a number")
    numbers = numbers_in(quote)
    if any(_close(n, float(value), tolerance) for n in numbers):
        return OK
    said = ", ".join(sorted({_fmt(n) for n in numbers})[:4]) or "no number"
    return Check(False, f"value {_fmt(value)} does not match {said} in the quote")


def _fmt(n: Decimal | float) -> str:
    return f"{float(n):,.10g}".replace(",", "")


def _percentage(value: Any, quote: str) -> Check:
    check = _number(value, quote)
    if check.ok or not isinstance(value, int | float):
        return check
    if _number(value * 100, quote).ok:
        return Check(
            False, f"value {_fmt(value)} is a fraction; the quote says {_fmt(value * 100)}%"
        )
    return check


def _amount(value: Any, quote: str) -> Check:
    if not isinstance(value, dict):
        return Check(False, "the amount has no value")
    # a percentage is never an amount: "VAT 19%: 234.00" holds the amount 234, not 19
    check = _number(value.get("value"), _PERCENT.sub(" ", quote), tolerance=0.005)
    if not check.ok:
        return check
    currency = value.get("currency")
    stated = currencies_in(quote)
    if currency and stated and currency not in stated:
        return Check(
            False, f"currency {currency} does not match {', '.join(sorted(stated))} in the quote"
        )
    if currency and currency not in _iso_codes():
        return Check(False, f"currency {currency!r} is not an ISO 4217 code")
    if currency and not stated:
        return Check(True, f"currency {currency} is not stated in the quote", computed=True)
    return OK


def _currency(value: Any, quote: str) -> Check:
    code = str(value).upper()
    if code not in _iso_codes():
        return Check(False, f"{value!r} is not an ISO 4217 currency code")
    if code in _ISO.findall(quote):
        return OK
    if code in currencies_in(quote):
        return Check(True, f"{code} derived from the currency symbol in the quote", computed=True)
    return Check(False, f"currency {code} is not stated in the quote")


def _date_check(value: Any, quote: str, order: str | None = None) -> Check:
    iso = value.get("iso") if isinstance(value, dict) else value
    try:
        day = dt.date.fromisoformat(str(iso))
    except ValueError:
        return Check(False, f"{iso!r} is not a valid calendar date (YYYY-MM-DD)")
    found, open_order = _dates(quote, order)
    if day in found and open_order and len(found) > 1:
        return Check(
            False,
            "the day/month order of the quoted date is not settled by the "
            f"document; {day.isoformat()} is one of two readings",
        )
    if day in found:
        return OK
    said = ", ".join(sorted(d.isoformat() for d in found)) or "no readable date"
    hint = {
        "dmy": " (the document writes dates day first)",
        "mdy": " (the document writes dates month first)",
    }.get(order or "", "")
    return Check(False, f"date {day.isoformat()} does not match {said} in the quote{hint}")


def _email(value: Any, quote: str) -> Check:
    v = str(value).strip().lower().removeprefix("mailto:")
    if "@" not in v:
        return Check(False, f"{value!r} is not an email address")
    return OK if v in quote.lower() else Check(False, f"email {value!r} is not in the quote")


def _phone(value: Any, quote: str) -> Check:
    def key(text: str) -> set[str]:
        keys = set()
        for match in phonenumbers.PhoneNumberMatcher(text, "US", leniency=0):
            keys.add(str(match.number.national_number))
        digits = re.sub(r"\D", "", text)
        if digits:
            keys.add(digits[-9:])
        return keys

    v = key(str(value))
    if not v:
        return Check(False, f"{value!r} is not a phone number")
    return OK if v & key(quote) else Check(False, f"phone {value!r} does not match the quote")


def _url(value: Any, quote: str) -> Check:
    def core(u: str) -> str:
        u = normalize(u).text
        u = re.sub(r"^[a-z]+://", "", u).removeprefix("www.")
        return u.rstrip("/")

    return (
        OK
        if core(str(value)) in normalize(quote).text.replace("www.", "")
        else Check(False, f"URL {value!r} is not in the quote")
    )


def _compact(text: str) -> str:
    return re.sub(r"[\s.\-/]", "", text).upper()


def _bank_code(kind: type[IBAN] | type[BIC], label: str) -> Callable[[Any, str], Check]:
    """IBAN and BIC: valid check digits (schwifty), and the same code as the quote, spaces aside."""

    def check(value: Any, quote: str) -> Check:
        try:
            code = kind(str(value))
        except SchwiftyException as exc:
            return Check(False, f"{label} {value!r} is not valid ({exc})")
        if code.compact in _compact(quote):
            return OK
        return Check(False, f"{label} {value!r} differs from the quote")

    return check


_iban = _bank_code(IBAN, "IBAN")
_bic = _bank_code(BIC, "BIC")


def _vat(value: Any, quote: str) -> Check:
    compact = _compact(str(value))
    if compact not in _compact(quote):
        return Check(False, f"VAT id {value!r} is not in the quote")
    if (
        compact[:2].isalpha()
        and compact[:2].lower() in eu_vat.MEMBER_STATES | {"el"}
        and not (eu_vat.is_valid(compact))
    ):
        return Check(False, f"VAT id {value!r} fails its check digits")
    return OK


def _duration(value: Any, quote: str) -> Check:
    if not isinstance(value, dict):
        return Check(False, "the duration has no amount")
    check = _number(value.get("amount"), quote)
    if not check.ok:
        return check
    unit = str(value.get("unit", "")).rstrip("s")
    if unit and not re.search(rf"\b{unit}s?\b", normalize(quote).text):
        return Check(False, f"unit {value.get('unit')!r} is not in the quote")
    return OK


def _address(value: Any, quote: str) -> Check:
    if not isinstance(value, dict):
        return Check(False, "the address has no parts")
    for part, text in value.items():
        if text:
            check = _text(text, quote)
            if not check.ok:
                return Check(False, f"address {part}: {check.reason}")
    return OK


_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|without|cannot|false)\b|n't\b", re.I)
_AFFIRMATION = re.compile(r"\b(?:shall|will|must|is|are|does|do|has|have|yes|true)\b", re.I)


def _boolean(value: Any, quote: str) -> Check:
    """A negated quote cannot support true; a quote that affirms cannot support false."""
    if not isinstance(value, bool):
        return Check(False, f"{value!r} is not true or false")
    negated = bool(_NEGATION.search(quote))
    if value and negated:
        return Check(False, "value true, but the quote is negated")
    if not value and not negated:
        if _AFFIRMATION.search(quote):
            return Check(False, "value false, but the quote affirms it")
        return Check(True, "false is inferred: the quote does not say no", computed=True)
    return OK


def _enum(value: Any, quote: str) -> Check:
    return OK


_CHECKS: dict[str, Callable[[Any, str], Check]] = {
    "string": _text,
    "text": _text,
    "integer": _number,
    "number": _number,
    "years": _number,
    "percentage": _percentage,
    "amount": _amount,
    "currency": _currency,
    "date": _date_check,
    "email": _email,
    "phone": _phone,
    "url": _url,
    "iban": _iban,
    "bic": _bic,
    "vat_id": _vat,
    "duration": _duration,
    "address": _address,
    "boolean": _boolean,
    "enum": _enum,
}


def check_value(
    kind: str, value: Any, quote: str, date_order: str | None = None, fuzzy: bool = False
) -> Check:
    """Compare a value (JSON form) with the text it was read from.

    ``date_order`` is the document's settled day/month order (:func:`date_order`), if any;
    ``fuzzy`` says the quote itself was only matched approximately (OCR noise).
    """
    if kind == "date":
        return _date_check(value, quote, date_order)
    if kind in ("string", "text"):
        return _text(value, quote, fuzzy)
    return _CHECKS.get(kind, _text)(value, quote)
