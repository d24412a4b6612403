"""What a till receipt (or any sales slip) says by where it prints it, not by a label.

* the **issuer block** at the top: the merchant's name, its registration number, its address,
  then the first line that is something else (a phone, a tax id, a date, a title such as
  "TAX INVOICE", a ``Label: value`` line). A cashier's or customer's name printed above the
  merchant is passed over: the name is the one right above the registration number, else the
  one that carries a company form (cleanco's legal terms: ``SDN BHD``, ``GmbH``, ``Ltd``), else
  the first name of the block;
* the **address**: the block's lines under the name (and its registration line) up to the first
  registration, phone or date line, quoted over the lines it runs on;
* the **total**: the amount on the last line that names the total (``TOTAL``, ``ROUNDED
  TOTAL``, ``NETT TOTAL``, ``AMOUNT DUE``), never a line that names a part of it or what was
  handed over (``SUB TOTAL``, ``TOTAL QTY``, ``TOTAL GST``, ``CASH``, ``CHANGE``);
* the **date**: the first date printed, when no label names it.

A document is read this way only when it shows money the way a sale does (an amount beside a
total, cash or tax label, or beside a currency mark): a CV has no issuer block. Pure; every
value quotes visible lines.

**How sure each reading is.** A value read by a strong rule stands; one read by a weak rule, or
where the slip points two ways, carries a ``doubt`` (:mod:`.match`) that sends it to review:

* the merchant: the name above its registration number stands, unless a name above it carries
  a company form; the first name with a company form stands, unless another one does too; a
  name taken for standing above the address stands only when the block holds no other name;
* the address (never a line that ends in a company form, ``7-ELEVEN MALAYSIA SDN BHD``): in
  doubt when nothing closes it (no phone, id, date or title line within six lines), when its
  last line runs on (ends in a comma, "&", "/"), or when a line between the name and the
  address could belong to either;
* the total: settled when what was paid (cash less change, else a card charge) confirms it; in
  doubt when what was paid is another figure, when another total line disagrees and nothing
  printed accounts for the difference (a rounding, charges added after an earlier total), or
  when a rounding follows a plain total (:mod:`.payment`);
* the first date printed: in doubt when the slip prints another date no label explains; its
  day/month order is still the document's to settle (:mod:`evidex.extractors.verify.locales`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from evidex.extractors.verify.currency import currency_marks

from .dates import find_dates, readings
from .lines import Hit, Line, Lines, join_caveats
from .match import Match
from .meaning import Concept
from .money import parse_amount
from .payment import Payment, accounted, amount_of, close, payment, row_cells

__all__ = ["ReceiptFinder"]

_TOP_LINES = 14  # the issuer block is in the first lines
_TITLE = re.compile(
    r"(?i)^\W*(?:(?:simplified\s+|full\s+)?tax\s*invoice|invoice|receipt|official\s+receipt|"
    r"cash\s*(?:bill|sales?|receipt)|bill|sales\s+receipt|tax\s+receipt|welcome\b.*|"
    r"thank\s+you\b.*)\W*$"
)
_CONTACT = re.compile(
    r"(?i)\b(?:tel|telephone|phone|ph|fax|h/?p|hotline|mobile|whatsapp|email|e-mail|website|"
    r"www)\b|@|https?://|(?<!\d)0\d{1,2}[-\s]?\d{3,4}[\s-]?\d{3,4}(?!\d)"
)
_ID_LABEL = (
    r"(?:co(?:mpany)?\.?\s*(?:reg(?:istration)?|rfg|no)\.?|roc|br|reg(?:istration)?|gst|vat|"
    r"sst|tax|tin|abn|uen|crn|business|id)"
)
_REGISTRATION = re.compile(
    rf"(?i)^\W*(?:{_ID_LABEL}[\s.:#]*(?:id|no|number|reg)?[\s.:#]*)*\(?\s*"
    r"[A-Z]{0,3}\d[\dA-Z]*[\d](?:[-/]?[A-Z])?\s*\)?\W*$"
)
_LABELLED = re.compile(r"(?i)^\W*(?!no\b)[a-z][^:\d]{2,29}:\s*\S")
_TRAILING_ID = re.compile(r"\s*\(\s*[A-Z]{0,3}\d{4,}[\dA-Z-]*\)\s*$")
_AMOUNT = re.compile(
    r"(?:[€$£¥]\s?)?(?<![\d.,/-])\d{1,3}(?:[,.\s]\d{3})*[.,]\d{2}(?![\d%]|[.,/-]\d)"
)
_TOTAL_WORDS = re.compile(
    r"(?i)\b(?:(?:grand|nett?|rounded|round(?:ed)?\s*d?|final)\s*)?total\b|\bamount\s+(?:due|"
    r"payable)\b|\bbalance\s+due\b|\btotal\s+(?:due|payable|amount)\b"
)
# a date another label owns: not the date of the sale
_OTHER_DATE = re.compile(
    r"(?i)\b(?:due|expir\w*|valid|deliver\w*|ship\w*|birth|until|period|start|end|from)\b"
)
_FINAL = re.compile(
    r"(?i)\b(?:grand|nett?|rounded|round(?:ed)?\s*d?|final)\s*total\b|\bamount\s+(?:due|"
    r"payable)\b|\bbalance\s+due\b|\btotal\s+(?:due|payable)\b"
)
_INCLUDED = re.compile(r"(?i)\b(?:incl(?:usive|uding|udes?|\.)?)\s*(?:of\s+)?(?:gst|vat|sst|tax)\b")
_SUMMARY = re.compile(r"(?i)\b(?:gst|tax|vat|sst)\s+(?:summary|code)\b|\bsummary\b")
_MONEY_LINE = re.compile(
    r"(?i)\b(?:total|sub\s*-?\s*total|cash|change|amount|rounding|gst|tax|vat|paid|due)\b"
)
_NOT_TOTAL = re.compile(
    r"(?i)\b(?:sub|subtotal|sub-total|excl\w*|before|qty|quantity|items?|pcs|tax|gst|vat|sst|"
    r"discounts?|disc|savings?|saved|cash|change|tender\w*|points?|weight|units?)\b"
)


@lru_cache(maxsize=1)
def _legal_form() -> re.Pattern[str]:
    from cleanco.termdata import terms_by_type

    terms = {re.sub(r"[^a-z/]", "", t.lower()) for ts in terms_by_type.values() for t in ts}
    keys = sorted((t for t in terms if len(t.replace("/", "")) >= 2), key=len, reverse=True)
    body = "|".join(r"[.\s]*".join(re.escape(c) for c in k) for k in keys)
    return re.compile(rf"(?i)(?<![A-Za-z])(?:{body})\.?(?![A-Za-z])")


def _name_like(text: str) -> bool:
    clean = _TRAILING_ID.sub("", text).strip()
    letters = sum(c.isalpha() for c in clean)
    return (
        letters >= 3
        and letters >= 0.5 * len(clean.replace(" ", ""))
        and not _TITLE.match(clean)
        and not _CONTACT.search(clean)
        and not _LABELLED.match(clean)
        and not find_dates(clean)
    )


def _company(text: str) -> bool:
    """A line that ends in a company form (``… SDN BHD``, ``… S/B (519537-X)``): a name, never
    an address line, even when it holds a digit (``7-ELEVEN MALAYSIA SDN BHD``)."""
    clean = _TRAILING_ID.sub("", text).rstrip(" .,")
    forms = list(_legal_form().finditer(clean))
    return bool(forms) and not re.search(r"\w", clean[forms[-1].end() :])


def _runs_on(text: str) -> bool:
    """A name line that carries on below: it ends in "&" or leaves a parenthesis open."""
    return text.rstrip().endswith("&") or text.count("(") > text.count(")")


_OPEN_END = re.compile(r"[,&/(-]\s*$")
_NAMES = (
    "{} at the top of the receipt could each be the merchant's name, and nothing (a "
    "registration number under one, or one name alone carrying a company form) settles which"
)
_FORMS = (
    "{} at the top of the receipt each carry a company form, and no registration number under "
    "one settles which is the merchant"
)
_FORM_ABOVE = (
    "{} at the top of the receipt could each be the merchant: one stands above the "
    "registration number, another carries a company form"
)


@dataclass(frozen=True, slots=True)
class _Issuer:
    """The issuer block, rows indexing ``lines.rows``: the name's first and last row, the
    address's first and last row (last < first: no address), how the name was chosen and what
    leaves each in doubt."""

    first: int
    last: int
    start: int
    end: int
    how: str
    name_doubt: str = ""
    address_doubt: str = ""


def _aside(text: str) -> bool:
    """A line of the issuer block that is not its address, so one that ends the address: an id,
    a date, a contact, a title, a label."""
    return bool(
        _REGISTRATION.match(text)
        or find_dates(text)
        or _CONTACT.search(text)
        or _TITLE.match(text)
        or _LABELLED.match(text)
    )


def _nos(rows: list[Line], indexes: list[int]) -> str:
    """``line 3`` / ``lines 1, 2 and 4``: some rows by their global numbers, for a reason."""
    nos = [str(rows[i].no) for i in indexes]
    return f"lines {', '.join(nos[:-1])} and {nos[-1]}" if len(nos) > 1 else f"line {nos[0]}"


def _address_doubt(rows: list[Line], name_end: int, start: int, stop: int) -> str:
    """Why the address block ``rows[start:stop]`` may not be the whole address, or ``""``."""
    between = [i for i in range(name_end + 1, start) if not _aside(rows[i].text)]
    if between:
        return (
            f"{_nos(rows, between)} between the merchant's name and its address may belong "
            "to either, so where the address starts is unclear"
        )
    if stop >= len(rows) or not _aside(rows[stop].text):
        return (
            f"no phone, registration or date line closes the address after line "
            f"{rows[stop - 1].no}, so where it ends is unclear"
        )
    last = rows[stop - 1]
    if _OPEN_END.search(last.text):
        return (
            f"the address's last line (line {last.no}) ends in "
            f"{last.text.rstrip()[-1]!r}, so it may run on beyond what was read"
        )
    return ""


def _doubted(hit: Hit, doubt: str) -> Hit:
    return replace(hit, match=replace(hit.match, doubt=doubt)) if doubt else hit


class ReceiptFinder:
    lines: Lines

    def _receipt_like(self) -> bool:
        cached: bool | None = getattr(self, "_receipt_cache", None)
        if cached is None:
            cached = any(
                _AMOUNT.search(r.text)
                and (_MONEY_LINE.search(r.text) or currency_marks(r.text, beside_number=True))
                for r in self.lines.rows
            )
            self._receipt_cache = cached
        return cached

    # -- the issuer block ---------------------------------------------------------------------

    def _issuer(self) -> _Issuer | None:
        """The issuer block at the top of the first page, or None when the top holds no name."""
        if not hasattr(self, "_issuer_cache"):
            self._issuer_cache = self._read_issuer()
        return self._issuer_cache

    def _read_issuer(self) -> _Issuer | None:
        rows = [r for r in self.lines.rows[:_TOP_LINES] if r.page == self.lines.rows[0].page]
        texts = [r.text for r in rows]
        address = next(
            (
                i
                for i, t in enumerate(texts)
                if i and re.search(r"\d", t) and not _aside(t) and not _company(t)
            ),
            None,
        )
        top = texts[: address if address is not None else len(texts)]
        named = [i for i, t in enumerate(top) if _name_like(t)]
        formed = [i for i in named if _legal_form().search(top[i])]
        registration = next(
            (i for i, t in enumerate(top) if _REGISTRATION.match(t) and named and named[0] < i),
            None,
        )
        name: int | None = None
        if registration is not None:  # the name right above its registration number
            name = next((i for i in reversed(named) if i < registration), None)
            how = "the name above its registration number at the top of the receipt"
            rivals, why = [i for i in formed if name is not None and i < name], _FORM_ABOVE
        if name is None and formed:  # the first name with a company form
            name, how = formed[0], "the name with a company form at the top of the receipt"
            rivals, why = formed, _FORMS
        if name is None and named:  # the name right above the address
            name = named[-1] if address is not None else named[0]
            how, rivals, why = "the name at the top of the receipt", named, _NAMES
        if name is None:
            return None
        first = last = name
        if first and _runs_on(texts[first - 1]) and _name_like(texts[first - 1]):
            first -= 1
        if last + 1 < len(texts) and _runs_on(texts[last]) and _name_like(texts[last + 1]):
            last += 1
        rivals = [i for i in rivals if not first <= i <= last]  # other names the rule could take
        name_doubt = why.format(_nos(rows, sorted([first, *rivals]))) if rivals else ""
        start = address if address is not None and address > last else len(texts)
        end = start
        while end < len(texts) and not _aside(texts[end]) and end - start < 6:
            end += 1
        doubt = _address_doubt(rows, last, start, end) if start < end else ""
        return _Issuer(first, last, start, end - 1, how, name_doubt, doubt)

    def _quote_rows(self, first: int, last: int, caveat: str, trim_id: bool = False) -> Hit:
        rows = self.lines.rows
        if first == last:
            text = rows[first].text
            trailing = _TRAILING_ID.search(text) if trim_id else None
            end = trailing.start() if trailing else len(text.rstrip())
            start = len(text) - len(text.lstrip())
            match = Match(start, end, text[start:end], caveat)
            return Hit((3, -1), rows[first], match, (start, end))
        joined = " ".join(r.text for r in rows[first : last + 1])
        start = len(rows[first].text) - len(rows[first].text.lstrip())
        end = len(joined.rstrip())
        match = Match(start, end, joined[start:end], caveat)
        return Hit((3, -1), rows[first], match, (start, end), False, last, joined)

    def receipt_hits(self, concept: Concept | None, kind: str, parent: str) -> list[Hit]:
        """A sales slip's issuer block, last total line and first date, for a top-level field
        that means one of them."""
        if parent:
            return []
        if kind == "date" and (concept is None or concept.key == "issue date"):
            return self.first_date_hits()
        if concept is None:
            return []
        if concept.key == "total" and kind == "amount":
            return self.total_hits()
        if concept.layout in ("merchant", "employer") and kind in ("string", "text"):
            return self.merchant_hits()
        if concept.key == "address" and kind in ("string", "text"):
            return self.issuer_address_hits()
        return []

    def merchant_hits(self) -> list[Hit]:
        if not self._receipt_like():
            return []
        found = self._issuer()
        if found is None:
            return []
        hit = self._quote_rows(found.first, found.last, found.how, True)
        return [_doubted(hit, found.name_doubt)]

    def issuer_address_hits(self) -> list[Hit]:
        if not self._receipt_like():
            return []
        found = self._issuer()
        if found is None or found.end < found.start:
            return []
        start, end = found.start, found.end
        if not any(c.isdigit() for r in self.lines.rows[start : end + 1] for c in r.text):
            return []  # an address gives a number somewhere
        hit = self._quote_rows(start, end, "the lines under the merchant's name")
        return [_doubted(hit, found.address_doubt)]

    # -- the total and the date ---------------------------------------------------------------

    def _cells(self) -> dict[int, list[Line]]:
        if not hasattr(self, "_cells_cache"):
            self._cells_cache = row_cells(self.lines.rows)
        return self._cells_cache

    def _row(self, line: Line) -> list[Line]:
        """The other lines printed on ``line``'s row (:func:`.payment.row_cells`)."""
        return self._cells().get(line.index, [])

    def _total_lines(self) -> list[tuple[Line, int]]:
        """Lines that name the total, with where their amount starts (on the line, in a cell
        to its right on the same row, or on the line under it): (line, start). A line or row of
        several amounts is a table's (a tax summary's) totals row, and nothing under a summary
        heading is the receipt's total."""
        out: list[tuple[Line, int]] = []
        for line in self.lines.rows:
            if out and _SUMMARY.search(line.text):
                break
            if not _TOTAL_WORDS.search(line.text):
                continue
            label = _INCLUDED.sub(" ", line.text)
            if _NOT_TOTAL.search(label.split(":")[0] if ":" in label else label):
                continue
            amounts = list(_AMOUNT.finditer(line.text))
            if len({a.group() for a in amounts}) > 1:
                continue
            if amounts:
                out.append((line, amounts[-1].start()))
                continue
            cells = [
                (r, a) for r in self._row(line) if r.x0 > line.x0 for a in _AMOUNT.finditer(r.text)
            ]
            if len({a.group() for _, a in cells}) > 1:
                continue
            if cells:
                out.append((cells[-1][0], cells[-1][1].start()))
                continue
            below = self.lines.after(line)
            if below is not None and (m := _AMOUNT.match(below.text.strip())):
                out.append((below, len(below.text) - len(below.text.lstrip()) + m.start()))
        return out

    def total_hits(self) -> list[Hit]:
        """The last line of the most specific kind of total line there is: one that says the
        amount is due or final (``AMOUNT DUE``, ``GRAND TOTAL``, ``ROUNDED TOTAL``, ``NETT
        TOTAL``), else a plain ``TOTAL``."""
        found = self._total_lines()
        final = [(line, at) for line, at in found if _FINAL.search(line.text)]
        chosen = final or found
        if not chosen:
            return []
        line, start = chosen[-1]
        match = parse_amount(line.text, start)
        if match is None:
            return []
        caveat = f"the last of {len(chosen)} total lines" if len(chosen) > 1 else ""
        match = Match(match.start, match.end, match.value, join_caveats(match.caveat, caveat))
        label = _TOTAL_WORDS.search(line.text)  # quoted with its label when they share a line
        first = min(label.start(), match.start) if label else match.start
        return [Hit((1, -1), line, match, (first, match.end))]

    def total_doubt(self, line: Line, value: Any) -> str:
        """Why the total ``value`` read from ``line`` may not be what was paid, from the
        slip's other figures (:mod:`.payment`), or ``""``. Cash less change that confirms it
        settles it."""
        amount = amount_of(value)
        if amount is None:
            return ""
        pay = self._payment()
        if pay.paid is not None:
            paid, how = pay.paid
            if close(paid, amount):
                return ""
            return f"{how}, not the {amount:.2f} read as the total"
        sizes = [r.amount for r in pay.rounding]
        others = [
            (other.no, figure)
            for other, at in self._total_lines()
            if (read := parse_amount(other.text, at)) is not None
            and (figure := amount_of(read.value)) is not None
            and not close(figure, amount)
            and not any(close(abs(figure - amount), size) for size in sizes)
            and not (
                other.index < line.index
                and accounted(self.lines.rows, other.index, line.index, figure, amount)
            )
        ]
        if others:
            listed = ", ".join(f"{figure:.2f} on line {no}" for no, figure in others)
            return (
                f"the total lines disagree: {amount:.2f} on line {line.no}, {listed}; nothing "
                "printed (a rounding, cash and change) settles which was paid"
            )
        row = self._row(line)
        printed = {a.group() for r in (line, *row) for a in _AMOUNT.finditer(r.text)}
        if len(printed) > 1:
            return (
                f"the row of line {line.no} prints several amounts ({', '.join(sorted(printed))}):"
                " a table's row, which need not be the receipt's total"
            )
        beside = [r for r in row if r.x0 < line.x0]
        if not any(_TOTAL_WORDS.search(r.text) for r in (line, *beside)):
            return (
                f"the amount is read from line {line.no}, under a total label on a line of its "
                "own, so which label it belongs to is not printed"
            )
        later = [r for r in pay.rounding if r.below(line) and r.amount >= 0.005]
        if later and not any(_FINAL.search(r.text) for r in (line, *beside)):
            return (
                f"a rounding of {later[0].amount:.2f} (line {later[0].line}) follows this total, "
                "so the amount paid may be the rounded one"
            )
        return ""

    def _payment(self) -> Payment:
        if not hasattr(self, "_payment_cache"):
            self._payment_cache = payment(self.lines.rows, self._cells())
        return self._payment_cache

    def first_date_hits(self) -> list[Hit]:
        if not self._receipt_like():
            return []
        dated = [
            (line, dates[0])
            for line in self.lines.rows
            if (dates := find_dates(line.text))
            and not _OTHER_DATE.search(line.text[: dates[0].start])
        ]
        if not dated:
            return []
        line, m = dated[0]
        caveat = join_caveats("the first date printed; no label names it", m.caveat)
        doubt = ""
        meant = readings(m.value)
        other = [o for o, d in dated[1:] if not meant & readings(d.value)]
        if other:
            where = _nos(self.lines.rows, [o.index for o in other])
            doubt = (
                f"the receipt prints other dates ({where}) and no label says which is the date "
                f"of the sale; the one on line {line.no} is only the first"
            )
        # the order of an ambiguous date is still the document's to settle (``in_order``)
        return [Hit((3, 0), line, Match(m.start, m.end, m.value, caveat, doubt), (m.start, m.end))]
