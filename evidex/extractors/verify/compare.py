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
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import phonenumbers
from email_validator import EmailNotValidError, validate_email
from rapidfuzz import fuzz
from schwifty import BIC, IBAN
from schwifty.exceptions import SchwiftyException
from stdnum.eu import vat as eu_vat
from stdnum.util import get_cc_module

from evidex.extractors.verify.currency import currency_marks, unglue
from evidex.extractors.verify.labels import own_label
from evidex.extractors.verify.names import ORGANISATION, cut_short, runs_on
from evidex.extractors.verify.normalize import normalize
from evidex.extractors.verify.readings import (
    ISO,
    MONEY_UNKNOWN,
    NUMBER,
    PERCENT,
    Money,
    currencies_in,
    date_order,
    dates_in,
    iso_codes,
    numbers_in,
    open_dates,
    readings,
)
from evidex.extractors.verify.spacing import closed_up, same_but_spacing

__all__ = [
    "Check",
    "as_day",
    "check_value",
    "currencies_in",
    "date_order",
    "dates_in",
    "numbers_in",
]

_STATES_NONE = "which states no"  # a quote that holds no value of the kind at all


@dataclass(frozen=True, slots=True)
class Check:
    ok: bool
    reason: str = ""
    computed: bool = False


OK = Check(True)


def _close(a: Decimal, b: float, tolerance: float) -> bool:
    return abs(float(a) - float(b)) <= tolerance + 1e-9 * max(abs(float(a)), abs(b))


def _digits(text: str) -> list[str]:
    return re.findall(r"\d+", text)


def _words(text: str) -> list[str]:
    """Lower-case words without accents or punctuation ("Müller & Söhne" -> muller, sohne)."""
    folded = unicodedata.normalize("NFKD", normalize(text).text)
    return re.findall(r"[^\W_]+", "".join(c for c in folded if not unicodedata.combining(c)))


def _text(value: Any, quote: str, fuzzy: bool = False, name: str = "") -> Check:
    """Every word of the value is in the quote (in any order; case, accents and punctuation
    aside). A one-letter difference in a name is a different name; only when the quote itself
    was matched approximately (OCR noise) may words match approximately too. A value that is
    one number, with or without its currency (``"7.70"``, ``"RM 3.90"``), is compared as an
    amount: ``0.00`` is not in ``20.00 20.00`` however its digits fall."""
    v, q = _words(str(value)), _words(quote)
    if not v:
        return Check(False, "the value is empty but the field is marked found")
    said = _digits(unglue(quote))
    missing = [d for d in _digits(str(value)) if d not in said]
    if missing:
        return Check(False, f"the digits {', '.join(missing)} in the value are not in the quote")
    if not _in_order(_digits(str(value)), said):
        shown = " ".join(_digits(str(value)))
        return Check(False, f"the numbers {shown} in the value are not in the quote in that order")
    if isinstance(value, str) and _one_number(value):
        return _amount(value, quote, name)
    # the value's words run whole in the quote: "TIMES" is not in "timesbookstoresetpg.com.my"
    absent = [] if f" {' '.join(v)} " in f" {' '.join(q)} " else [w for w in v if w not in q]
    if fuzzy:
        absent = [w for w in absent if not any(fuzz.ratio(w, x) >= 80 for x in q)]
    if not absent:
        return _piece(value, quote, name) if isinstance(value, str) else OK
    return Check(
        False, f"value {str(value)!r} is not what the quote says ({', '.join(absent)} not in it)"
    )


def _piece(value: str, quote: str, name: str) -> Check:
    """A name the quote holds word for word, failed where it is a piece of the name the quote
    prints: cut short of its legal form (:func:`.names.cut_short`), or, in a field named for a
    business, of any word around it (:func:`.names.runs_on`)."""
    full = cut_short(value, quote)
    if full:
        return Check(False, f"the quote names it in full, with its legal form: {full!r}")
    whole = runs_on(value, quote) if ORGANISATION.search(name) else ""
    if whole:
        return Check(False, f"the value is a piece of the name the quote prints: {whole!r}")
    return OK


def _in_order(runs: list[str], said: list[str]) -> bool:
    """Each digit run of the value is a run of the quote, in the value's order, each used once:
    "14 & 16, 4/4" is not what "14 & 16, 4/3" says although every run of it is there."""
    rest = iter(said)
    return all(any(run == other for other in rest) for run in runs)


def _one_number(text: str) -> bool:
    """``text`` is one amount: a number with cents or a currency mark beside it (``9.00``,
    ``RM 3``); a bare whole number (a postcode, an id) stays text."""
    bare = unglue(text)
    marks = currency_marks(bare)
    for start, end, _mark in sorted(marks, reverse=True):
        bare = bare[:start] + " " + bare[end:]
    bare = bare.strip(" .:")
    if not bare or NUMBER.fullmatch(bare) is None:
        return False
    return bool(marks) or _CENTS.search(bare) is not None


_CENTS = re.compile(r"\d[.,]\d{1,2}$")


def _as_numbers(value: Any) -> list[float]:
    """A number, or every reading of a number written as a string ("1.234,50")."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, str):
        return sorted(
            {float(n) for m in NUMBER.finditer(unglue(value)) for n in readings(m.group())}
        )
    return []


def _number(value: Any, quote: str, tolerance: float = 0.0) -> Check:
    candidates = _as_numbers(value)
    if not candidates:
        return Check(False, f"value {value!r} is not a number")
    numbers = numbers_in(quote)
    if any(_close(n, v, tolerance) for n in numbers for v in candidates):
        return OK
    shown = _fmt(value) if isinstance(value, int | float) else repr(value)
    if not numbers:
        return Check(False, f"value {shown} is not in the quote, {_STATES_NONE} number")
    said = ", ".join(sorted({_fmt(n) for n in numbers})[:4])
    return Check(False, f"value {shown} does not match {said} in the quote")


def _fmt(n: Decimal | float) -> str:
    return f"{float(n):,.10g}".replace(",", "")


def _percentage(value: Any, quote: str) -> Check:
    check = _number(value, quote)
    if check.ok or isinstance(value, bool) or not isinstance(value, int | float):
        return check
    if _number(value * 100, quote).ok:
        return Check(
            False, f"value {_fmt(value)} is a fraction; the quote says {_fmt(value * 100)}%"
        )
    return check


_NEGATIVE = re.compile(r"[-\u2212\u2013(]\s*(?:[^\d\s]{1,3}\s*)?\d")


def _amount(value: Any, quote: str, name: str = "", money: Money = MONEY_UNKNOWN) -> Check:
    """The number outside any percentage, next to the field's own label when the quote holds
    several; the currency as stated (or derived from a symbol)."""
    if isinstance(value, dict):
        number, currency = value.get("value"), value.get("currency")
    elif isinstance(value, str):
        number, currency = value, next(iter(sorted(currencies_in(value))), None)
    else:
        number, currency = value, None
    candidates = _as_numbers(number)
    if not candidates:
        return Check(False, "the amount has no value")
    if _NEGATIVE.search(quote):  # "-$12.00", "(12.00)": the sign is the document's
        candidates += [abs(v) for v in candidates]
    # a percentage is never an amount: "VAT 19%: 234.00" holds the amount 234, not 19
    check = _number(candidates[0], PERCENT.sub(" ", quote), tolerance=0.005)
    if not check.ok and len(candidates) > 1:
        rest = [_number(v, PERCENT.sub(" ", quote), tolerance=0.005) for v in candidates[1:]]
        check = next((c for c in rest if c.ok), check)
    if not check.ok:
        rates = {n for m in PERCENT.finditer(quote) for n in numbers_in(m.group())}
        if any(_close(n, v, 0.0) for n in rates for v in candidates):
            shown = _fmt(candidates[0])
            return Check(
                False, f"value {shown} is a percentage in the quote ({shown}%), not an amount"
            )
        return check
    mislabelled = own_label(candidates, quote, name)
    if mislabelled:
        return Check(False, mislabelled)
    if money.whole and (whole := _read_whole(candidates, quote)):
        return Check(False, whole)
    stated = currencies_in(quote, money.dollar)
    if currency and stated and currency not in stated:
        return Check(
            False, f"currency {currency} does not match {', '.join(sorted(stated))} in the quote"
        )
    if currency and currency not in iso_codes():
        return Check(False, f"currency {currency!r} is not an ISO 4217 code")
    if currency and not stated:
        return Check(True, f"currency {currency} is not stated in the quote", computed=True)
    return OK


_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}[.,]\d{3}(?![\d.,]?\d)")  # "22.900", "5,600"


def _read_whole(candidates: list[float], quote: str) -> str:
    """Why ``candidates`` misread the quote on a document that prints every amount whole: the
    value is the decimal reading of a figure in groups of thousands ("32.200" read as 32.2),
    or ``""``."""
    for m in _THOUSANDS.finditer(quote):
        decimal = Decimal(m.group().replace(",", "."))
        if any(_close(decimal, v, 0.0) for v in candidates):
            whole = m.group().replace(",", "").replace(".", "")
            return (
                f"the document prints every amount whole (none with cents), so {m.group()} is "
                f"{whole}, not {_fmt(decimal)}"
            )
    return ""


def _currency(value: Any, quote: str, money: Money = MONEY_UNKNOWN) -> Check:
    code = str(value).upper()
    if code not in iso_codes():
        return Check(False, f"{value!r} is not an ISO 4217 currency code")
    if code in ISO.findall(quote):
        return OK
    if code in currencies_in(quote, money.dollar):
        return Check(True, f"{code} derived from the currency symbol in the quote", computed=True)
    return Check(False, f"currency {code} is not stated in the quote")


def as_day(value: Any) -> dt.date | None:
    """A date value's day (its ``iso``, or the value itself, as YYYY-MM-DD), or None when that
    is no calendar date."""
    iso = value.get("iso") if isinstance(value, dict) else value
    try:
        return dt.date.fromisoformat(str(iso))
    except ValueError:
        return None


def _date_check(value: Any, quote: str, order: str | None = None, why: str = "") -> Check:
    """``why`` says what settled the document's ``order`` ("day-first: the document prints RM
    …"), or why nothing did (its cues disagree); it is named where it decides."""
    day = as_day(value)
    if day is None:
        iso = value.get("iso") if isinstance(value, dict) else value
        return Check(False, f"{iso!r} is not a valid calendar date (YYYY-MM-DD)")
    found, open_order, settled = open_dates(quote, order, settled=True)
    if day in found and open_order and len(found) > 1:
        because = f" ({why})" if why else ""
        return Check(
            False,
            f"the day/month order of the quoted date is not settled by the document{because}; "
            f"{day.isoformat()} is one of two readings",
        )
    if day in found:
        return Check(True, f"read {why}") if settled and why else OK
    if not found:
        return Check(False, f"date {day.isoformat()} is not in the quote, {_STATES_NONE} date")
    said = ", ".join(sorted(d.isoformat() for d in found))
    hint = {
        "dmy": " (the document writes dates day first)",
        "mdy": " (the document writes dates month first)",
    }.get(order or "", "")
    return Check(False, f"date {day.isoformat()} does not match {said} in the quote{hint}")


def _email(value: Any, quote: str) -> Check:
    """A well-formed address (email-validator's syntax rules, no DNS lookup) that the quote
    holds, case aside."""
    v = str(value).strip().lower().removeprefix("mailto:")
    try:
        validate_email(v, check_deliverability=False)
    except EmailNotValidError as exc:
        return Check(False, f"{value!r} is not a valid email address ({exc})")
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
    if compact[:2].isalpha() and not _vat_valid(compact):
        return Check(False, f"VAT id {value!r} fails its check digits")
    return OK


def _vat_valid(compact: str) -> bool:
    """The check digits of an EU VAT id, or of the country's own VAT number where python-stdnum
    knows it (GB, CH, NO, …); an id of a country it does not know passes."""
    country = compact[:2].lower()
    if country in eu_vat.MEMBER_STATES | {"el"}:
        return bool(eu_vat.is_valid(compact))
    module = get_cc_module(country, "vat")
    if module is None:
        return True
    try:
        return bool(module.is_valid(compact))
    except Exception:  # a country module that cannot read this form says nothing
        return True


def _duration(value: Any, quote: str) -> Check:
    if not isinstance(value, dict):
        return Check(False, "the duration has no amount")
    check = _number(value.get("amount"), quote)
    if not check.ok:
        return check
    unit = str(value.get("unit", "")).rstrip("s")
    said = normalize(quote).text
    if unit == "year" and re.search(r"\banniversary\b", said):
        return OK  # "until the second anniversary of …": counted in years
    if unit and not re.search(rf"\b{unit}s?\b", said):
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
    kind: str,
    value: Any,
    quote: str,
    date_order: str | None = None,
    fuzzy: bool = False,
    name: str = "",
    order_reason: str = "",
    ocr: bool = False,
    money: Money = MONEY_UNKNOWN,
) -> Check:
    """Compare a value (JSON form) with the text it was read from.

    ``date_order`` is the document's settled day/month order (:func:`date_order`), if any;
    ``fuzzy`` says the quote itself was only matched approximately (OCR noise); ``name`` is the
    field's name, whose label in a quote of several amounts owns the value (:func:`own_label`);
    ``order_reason`` what settled the date order, or why nothing did (:mod:`.locales`). ``ocr``
    says the quote's lines were read by OCR: a value that fails as the spacing stands is looked
    at again with the spaces an engine adds or drops set aside (:mod:`.spacing`). ``money`` is
    how the whole document writes money (:class:`.readings.Money`: what its ``$`` stands for,
    whether it prints every amount whole).
    """
    check = _check(kind, value, quote, date_order, fuzzy, name, order_reason, money)
    if check.ok or not ocr:
        return check
    if kind in ("string", "text") and isinstance(value, str) and not _one_number(value):
        spaced = same_but_spacing(value, quote) and _piece(value, quote, name).ok
        return _SPACED if spaced else check
    if kind == "address" and isinstance(value, dict):
        parts = [str(text) for text in value.values() if text]
        spaced = all(_text(p, quote).ok or same_but_spacing(p, quote) for p in parts)
        return _SPACED if parts and spaced else check
    closed = closed_up(quote)
    if closed == quote:
        return check
    again = _check(kind, value, closed, date_order, fuzzy, name, order_reason, money)
    if not again.ok:  # what the quote says once closed up, where as read it said nothing
        return again if _STATES_NONE in check.reason and _STATES_NONE not in again.reason else check
    said = _SPACED.reason
    return Check(True, f"{again.reason}; {said}" if again.reason else said, again.computed)


_SPACED = Check(True, "the quote says it once OCR's stray spaces are set aside")


def _check(
    kind: str,
    value: Any,
    quote: str,
    date_order: str | None,
    fuzzy: bool,
    name: str,
    order_reason: str,
    money: Money = MONEY_UNKNOWN,
) -> Check:
    if kind == "amount":
        return _amount(value, quote, name, money)
    if kind == "currency":
        return _currency(value, quote, money)
    if kind == "date":
        return _date_check(value, quote, date_order, order_reason)
    if kind in ("string", "text"):
        return _text(value, quote, fuzzy, name)
    return _CHECKS.get(kind, _text)(value, quote)


_NUMERIC_KINDS = frozenset({"amount", "number", "integer", "percentage", "years"})


def quoted_values(kind: str, quote: str, order: str | None = None) -> list[Any]:
    """What ``quote`` states for a field of ``kind``, comparable with the rules' values: its
    numbers (outside percentages, for an amount) or its dates as ISO strings."""
    if not quote:
        return []
    if kind in _NUMERIC_KINDS:
        text = PERCENT.sub(" ", quote) if kind == "amount" else quote
        return sorted({float(n) for n in numbers_in(text)})
    if kind == "date":
        return sorted(d.isoformat() for d in dates_in(quote, order))
    return []


def written_number(value: Any, quote: str) -> Decimal | None:
    """``value`` as ``quote`` writes it (``250.00`` for 250.0), or None when it does not."""
    number = value.get("value") if isinstance(value, dict) else value
    if isinstance(number, bool) or not isinstance(number, int | float):
        return None
    same = [n for n in numbers_in(quote) if _close(n, float(number), 0.0)]
    return max(same, key=lambda n: -int(n.as_tuple().exponent)) if same else None
