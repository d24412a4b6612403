"""What the offline rules backend can read off one line: label synonyms and a parser per kind.

Every parser takes a line's text and a position, and answers character offsets into that text,
so the quote the backend cites is always a verbatim slice of the line. Most parsers are
*anchored*: the value must start where the parser is asked to look, because a label followed by
something else must not borrow a value from further along the line ("Total VAT: 190,00" is not
the total). Kinds that identify themselves (an email, an IBAN whose check digits hold, a
percentage, a date, a duration) may also be *searched* for after a label, and the checksummed
ones (IBAN, VAT ID) and unmistakable ones (email, URL, international phone) even without one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dateparser
import phonenumbers
from babel.numbers import list_currencies
from schwifty import BIC, IBAN
from stdnum.eu import vat as eu_vat
from stdnum.gb import vat as gb_vat
from text_to_num import text2num

__all__ = [
    "ANCHORED",
    "DATE_TEXT",
    "DURATION_TEXT",
    "LABELS",
    "PARENT_LABELS",
    "PERCENT_PREFIX",
    "SEARCHED",
    "Match",
    "Span",
    "currency_marks",
    "description_label",
    "find_emails",
    "find_ibans",
    "find_phones",
    "find_urls",
    "find_vat_ids",
    "label_regex",
    "near_value",
    "norm_label",
    "parse_string",
    "plausible_heading",
    "split_items",
]


Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Match:
    """A value read from ``text[start:end]``, already in its wire shape."""

    start: int
    end: int
    value: Any
    caveat: str = ""


# Label synonyms keyed by field NAME (the last path segment), most specific first: the rank of
# the label that matched decides between candidates ("amount due" beats a bare "total"). The
# field's own name ("po_number" -> "po number") and a short description are labels too.
_LABEL_TABLE = """
invoice_number      invoice no | invoice number | invoice # | invoice nr | invoice id
                    | rechnungsnummer
purchase_order      purchase order | po number | po no | po # | order no | order number | po
issue_date          invoice date | issue date | date of issue | issued on | rechnungsdatum
                    | date
due_date            due date | payment due | due on | pay by | fällig am | fälligkeitsdatum
total               total due | amount due | grand total | total amount | invoice total
                    | balance due | gesamtbetrag | total
subtotal            subtotal | sub total | net amount | total net | net total | nettobetrag
tax                 vat amount | tax amount | total vat | total tax | sales tax | vat | tax
                    | mwst | ust
tax_rate            vat rate | tax rate | vat | tax | mwst | ust
currency            currency | währung
payment_terms       payment terms | terms of payment | zahlungsbedingungen | terms
iban                iban
bic                 bic/swift | swift/bic | swift code | bic | swift
vat_id              vat id | vat no | vat number | vat reg no | vat registration number
                    | ust-idnr | ust-id | tax id | vat
email               e-mail | email | mail
phone               telephone | phone | mobile | tel | cell | telefon
bank_name           bank name | bank
account_holder      account holder | account name | beneficiary | kontoinhaber
payment_reference   payment reference | verwendungszweck | reference | ref
effective_date      effective date | effective as of | effective
expiration_date     expiration date | expiry date | expires on | end date | valid until
                    | terminates on | ending on | ends on
term                initial term | term of this agreement | term
renewal_term        renewal term | renewal period | renew for | renews for | successive
termination_notice  notice period | written notice | prior notice | notice
governing_law       governing law | applicable law
skills              technical skills | key skills | core skills | skills | competencies
                    | technologies
certifications      certifications | certificates | licenses | licences
location            location | based in
work_authorization  work authorization | work authorisation | work permit | visa status
                    | right to work
availability        availability | available from | notice period
linkedin_url        linkedin
github_url          github
website_url         website | portfolio | homepage
years_of_experience years of experience | total experience
auto_renewal        auto renewal | automatic renewal
"""


def _table(text: str) -> dict[str, tuple[str, ...]]:
    """``name  a | b`` rows; an indented row continues the one above."""
    rows: dict[str, list[str]] = {}
    name = ""
    for row in text.strip("\n").splitlines():
        if not row[:1].isspace():
            name, row = row.split(None, 1)
        rows.setdefault(name, []).extend(x.strip() for x in row.split("|") if x.strip())
    return {key: tuple(labels) for key, labels in rows.items()}


LABELS = _table(_LABEL_TABLE)

# Words that name a parent object ("seller.vat_id" may be labelled "Supplier VAT ID", and a
# block headed "Bill to" belongs to the buyer).
PARENT_LABELS: dict[str, tuple[str, ...]] = {
    "seller": ("seller", "supplier", "vendor", "issued by", "from"),
    "buyer": ("buyer", "customer", "client", "bill to", "billed to", "invoice to", "sold to"),
    "payment": ("payment", "bank details"),
}

_CURRENCIES = frozenset(list_currencies())
_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "¥": "JPY"}
_NUM = r"[-−]?\d{1,3}(?:[.,'\u00a0\u202f ]\d{3})+(?:[.,]\d{1,2})?|[-−]?\d+(?:[.,]\d{1,2})?"
_END = r"(?![\d%]|[.,]\d)"
_AMOUNT = re.compile(
    rf"(?P<pre>[€$£¥]|[A-Z]{{3}}(?=\s?[-−\d]))?\s?(?P<num>{_NUM}){_END}"
    r"(?:\s?(?P<post>[€$£¥]|[A-Z]{3}(?![A-Za-z])))?"
)
PERCENT_PREFIX = re.compile(r"\(?\d{1,2}(?:[.,]\d+)?\s?%\)?\s*:?\s*")
_NUMBER = re.compile(rf"(?:{_NUM}){_END}")
_PERCENT = re.compile(r"(?<![\d.,])(?P<n>\d{1,3}(?:[.,]\d{1,3})?)\s?%")
_MONTH = (
    r"jan(?:uary|uar)?|feb(?:ruary|ruar)?|mar(?:ch)?|märz|apr(?:il)?|ma[iy]|june?|juni|"
    r"july?|juli|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|"
    r"dec(?:ember)?|dez(?:ember)?"
)
# The date and duration grammars, also embedded in the clause sentences (``clauses.py``).
DATE_TEXT = (
    rf"(?<!\d)(?P<ymd>\d{{4}}-\d{{1,2}}-\d{{1,2}})|(?P<dot>\d{{1,2}}\.\d{{1,2}}\.(?:\d{{4}}|\d{{2}}))"
    rf"|(?P<sl>\d{{1,2}}[/-]\d{{1,2}}[/-]\d{{4}})"
    rf"|(?P<dm>\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:day\s+of\s+)?(?:{_MONTH})\.?,?\s+\d{{4}})"
    rf"|(?P<md>(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})"
    rf"|(?P<my>(?:{_MONTH})\.?,?\s+\d{{4}})(?!\d)"
)
_DATE = re.compile("(?i)" + DATE_TEXT)
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
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_URL = re.compile(
    r"(?i)(?:https?://|www\.)[^\s<>()\"']+|\b(?:[a-z0-9-]+\.)*"
    r"(?:linkedin\.com|github\.com)/[^\s<>()\"']+"
)
_IBAN_RUN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9])+")
_VAT_RUN = re.compile(r"\b(?:[A-Z]{2}|ATU)[ ]?\d(?:[ .]?[0-9A-Z])+")
_BIC = re.compile(r"[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?\b")
_BOOL = re.compile(r"(?i)(?P<v>yes|no|true|false|ja|nein|y|n)\b")
_CURRENCY = re.compile(r"[€$£¥]|(?<![A-Za-z0-9])[A-Z]{3}(?![A-Za-z0-9])")
_ISO = re.compile(r"(?<![A-Za-z0-9])(?P<v>[A-Z]{3})(?![A-Za-z0-9])")
# A string value ends at a column gap, " | ", the next "Label:" or a sentence end ("Net 30. Next").
_STRING_CUT = re.compile(
    r"\s{2,}|\t|\s\|\s|\s+(?=[A-Z][A-Za-z .#/-]{0,24}:\s)"
    r"|(?:(?<=[a-z]{3})|(?<=\d))\.\s+(?=[A-Z])"
)
_PHONE_REGIONS = ("US", "GB", "DE", "FR", "NL", "CH", "AT", "IT", "ES")


def parse_number(text: str) -> float:
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


def _amount(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    skip = PERCENT_PREFIX.match(text, pos)  # "VAT 19%: 190,00" states the tax after its rate
    m = _AMOUNT.match(text, skip.end() if skip else pos)
    if not m:
        return None
    pre, post = m["pre"], m["post"]
    if pre and len(pre) == 3 and pre not in _CURRENCIES:
        return None
    end = m.end() if not post or post in _SYMBOLS or post in _CURRENCIES else m.end("num")
    code = _SYMBOLS.get(pre or "", pre) or (_SYMBOLS.get(post, post) if end == m.end() else None)
    caveat = ""
    if code is None:
        code = next(iter(_iso_codes(text)), None)
        caveat = f"currency {code} read from elsewhere on the line" if code else ""
    if "$" in (pre or "", post or ""):
        caveat = "'$' read as USD"
    return Match(m.start(), end, {"value": parse_number(m["num"]), "currency": code}, caveat)


def _iso_codes(text: str) -> list[str]:
    return [m["v"] for m in _ISO.finditer(text) if m["v"] in _CURRENCIES]


def currency_marks(text: str) -> list[Match]:
    """Currency codes and symbols written next to a number, as ISO codes."""
    out = []
    for m in _CURRENCY.finditer(text):
        near = text[max(0, m.start() - 2) : m.end() + 2]
        code = _SYMBOLS.get(m.group(), m.group())
        if code in _CURRENCIES and re.search(r"\d", near):
            caveat = f"derived from the symbol {m.group()}" if m.group() in _SYMBOLS else ""
            out.append(
                Match(
                    m.start(), m.end(), code, caveat + ("; read as USD" if m.group() == "$" else "")
                )
            )
    return out


def _currency(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _CURRENCY.match(text, pos)
    if not m or _SYMBOLS.get(m.group(), m.group()) not in _CURRENCIES:
        return None
    return Match(m.start(), m.end(), _SYMBOLS.get(m.group(), m.group()))


def _number(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _NUMBER.match(text, pos)
    return Match(m.start(), m.end(), parse_number(m.group())) if m else None


def _integer(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _number(text, pos, enum)
    return Match(m.start, m.end, int(m.value)) if m and float(m.value).is_integer() else None


def _percentage(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _PERCENT.match(text, pos)
    return Match(m.start(), m.end(), parse_number(m["n"])) if m else None


def _date(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _DATE.match(text, pos)
    if not m or (m.end() < len(text) and text[m.end()].isdigit()):
        return None
    raw, caveat, order = m.group(), "", "DMY"
    if m["ymd"]:
        order = "YMD"
    elif m["md"]:
        order = "MDY"
    elif m["sl"]:
        a, b = (int(x) for x in re.split(r"[/-]", raw)[:2])
        order = "DMY" if a > 12 else "MDY"
        if a <= 12 and b <= 12 and a != b:
            caveat = "day and month order is ambiguous; read as month/day"
    elif m["my"]:
        caveat = "the document gives only month and year; the day is set to the 1st"
    parsed = dateparser.parse(
        re.sub(r"(?i)\s+day\s+of", "", raw),
        languages=["en", "de"],
        settings={
            "DATE_ORDER": order,
            "PREFER_DAY_OF_MONTH": "first",
            "REQUIRE_PARTS": ["month", "year"],
        },
    )
    if parsed is None:
        return None
    return Match(m.start(), m.end(), {"iso": parsed.date().isoformat(), "original": raw}, caveat)


def _word_number(word: str) -> int:
    return int(text2num(word.lower().replace(" ", "-"), "en"))


def _duration(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _DURATION.match(text, pos)
    if not m:
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


def _bic(text: str, pos: int, enum: tuple[str, ...]) -> Match | None:
    m = _BIC.match(text, pos)
    if not m:
        return None
    try:
        BIC(m.group())
    except ValueError:
        return None
    return Match(m.start(), m.end(), m.group())


def parse_string(text: str, pos: int, enum: tuple[str, ...] = ()) -> Match | None:
    """The rest of the line from ``pos``, cut at a column gap or the next ``Label:``."""
    cut = _STRING_CUT.search(text, pos)
    end = cut.start() if cut else len(text)
    while end > pos and text[end - 1] in " .,;:":
        end -= 1
    value = text[pos:end]
    return Match(pos, end, value) if re.search(r"\w", value) else None


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
    found = _checked_runs(text, _IBAN_RUN, _valid_iban)
    bad = [
        m.group()
        for m in _IBAN_RUN.finditer(text)
        if len(re.sub(r"\s", "", m.group())) >= 15 and not any(f.start == m.start() for f in found)
    ]
    return found, bad


def find_vat_ids(text: str) -> list[Match]:
    ibans = {m.start for m in find_ibans(text)[0]}
    return [m for m in _checked_runs(text, _VAT_RUN, _valid_vat) if m.start not in ibans]


def find_emails(text: str) -> list[Match]:
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
    for region in ("ZZ", *(_PHONE_REGIONS if labelled else ())):
        found = [
            Match(m.start, m.end, m.raw_string)
            for m in phonenumbers.PhoneNumberMatcher(text, region)
        ]
        if found:
            return found
    return []


def _searcher(
    parse: Callable[[str, int, tuple[str, ...]], Match | None], pattern: re.Pattern[str]
) -> Callable[[str], list[Match]]:
    def search(text: str) -> list[Match]:
        hits = (parse(text, m.start(), ()) for m in pattern.finditer(text))
        return [h for h in hits if h is not None]

    return search


# Anchored parsers: the value must start at ``pos``.
ANCHORED: dict[str, Callable[[str, int, tuple[str, ...]], Match | None]] = {
    "string": parse_string,
    "text": parse_string,
    "integer": _integer,
    "number": _number,
    "years": _number,
    "percentage": _percentage,
    "boolean": _boolean,
    "enum": _enum,
    "date": _date,
    "amount": _amount,
    "currency": _currency,
    "duration": _duration,
    "bic": _bic,
}
# Kinds that identify themselves: searched for anywhere in a text (after a label, or the line).
SEARCHED: dict[str, Callable[[str], list[Match]]] = {
    "email": find_emails,
    "url": find_urls,
    "iban": lambda t: find_ibans(t)[0],
    "vat_id": find_vat_ids,
    "phone": lambda t: find_phones(t, labelled=True),
    "percentage": _searcher(_percentage, _PERCENT),
    "date": _searcher(_date, _DATE),
    "duration": _searcher(_duration, _DURATION),
}


# -- helpers for the backend: labels, items, headings ---------------------------------------------

_BREAK = re.compile(r"[;)]|[,.](?:\s|$)")  # a clause ends between a label and a value
_NOT_A_NAME = {"curriculum vitae", "resume", "résumé", "invoice", "agreement", "contract"}


def description_label(description: str) -> list[str]:
    """A short description ("Purchase order number") doubles as a label."""
    text = re.sub(r"\([^)]*\)", "", description.split(";")[0]).strip().rstrip(".").lower()
    return [text] if text and len(text.split()) <= 4 else []


def norm_label(label: str) -> str:
    return re.sub(r"[^a-z0-9#äöüß]", "", label.lower())


def label_regex(labels: list[str]) -> re.Pattern[str]:
    alts = []
    for label in sorted(set(labels), key=len, reverse=True):
        body = r"[\s\-_./]*".join(re.escape(w) for w in label.split())
        left = r"(?<![A-Za-z0-9])" if label[0].isalnum() else ""
        right = r"(?![A-Za-z0-9])" if label[-1].isalnum() else ""
        alts.append(left + body + right)
    return re.compile("(?i)" + "|".join(alts))


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


def plausible_heading(path: str, text: str) -> bool:
    clean = text.strip()
    if clean.lower() in _NOT_A_NAME or "@" in clean or not re.search(r"[A-Za-z]{2}", clean):
        return False
    if path == "title":
        return (
            len(clean.split()) <= 15
            and not clean.endswith(".")
            and not re.match(r"(?i)page\b", clean)
        )
    words = r"[A-ZÀ-Þ][\w.'’&-]*"
    many = r"{1,5}" if path == "full_name" else r"{0,5}"
    return re.fullmatch(rf"{words}(?:\s+{words}){many}", clean) is not None and not re.search(
        r"\d", clean
    )
