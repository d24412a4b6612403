"""What a till receipt (or any sales slip) says by where it prints it, not by a label.

* the **issuer block** at the top (:mod:`.issuer`): the merchant's name and, under it, the
  address up to the first registration, phone or date line, quoted over the lines it runs on;
* the **total**: the amount on the last line that names the total (``TOTAL``, ``ROUNDED
  TOTAL``, ``NETT TOTAL``, ``AMOUNT DUE``; in the till's own language ``SUMME``, ``NET À
  PAYER``, ``TOTALE``, ``TOTAAL``, ``TOPLAM``: :mod:`.total_labels`), never a line that names a
  part of it or what was handed over (``SUB TOTAL``, ``TOTAL QTY``, ``TOTAL GST``, ``CASH``,
  ``CHANGE``, ``ZWISCHENSUMME``, ``TOTAL HT``, ``RÜCKGELD``; a total that says it includes its
  tax, "Total Incl. 6% GST", is the total); the amount stands on the label's line, in a cell of
  its row, or alone (a currency before it) on the line under it;
  where no line names it, the amount cash less change says was paid, where a line prints it;
* the **date**: the first date printed that gives its day (a month and year alone, a
  promotion's "MAR 2018", only where no date does), when no label names it.

A document is read this way only when it shows money the way a sale does (an amount beside a
total, cash or tax label, or beside a currency mark, on a line or across the cells of its row;
a currency that prints no cents beside a total label: "Total ¥753"): a CV has no issuer block.
Pure; every value quotes visible lines.

**Lines an OCR engine read** are read as it reads them (:mod:`.ocr_text`): cells of one row
apart ("Total :" | "9.00"), spaces inside amounts ("RM 33 .92") and dates ("1 8/01/201 8")
and inside words ("TO TAL"); the value is written without those spaces, the quote keeps the line
as read. A text layer's lines are read as they are.

**How sure each reading is.** A value read by a strong rule stands; one read by a weak rule, or
where the slip points two ways, carries a ``doubt`` (:mod:`.match`) that sends it to review:

* the merchant: the name above its registration number stands, unless a name above it carries
  a company form; the first name with a company form stands, unless another one does too; a
  name taken for standing above the address stands only when the block holds no other name;
* the address: in doubt when nothing closes it (no phone, id, date or title line within six
  lines), when its last line runs on (ends in a comma, "&", "/"), when a line between the
  name and the address could belong to either, or when lines follow the one that ends in its
  region or country (a branch's or a mall's name: "41150 KLANG, SELANGOR" / "1132-PK SS6");
* the merchant read by OCR: in doubt when it stands off the centre the header's rows under it
  share (a word lost on one side, :mod:`.issuer`), when a piece of its row was read apart
  from it ("B &" of "B & BEST RESTAURANT"), or when the engine could not read the line under
  it (:data:`_UNREAD`: the company's name under a brand, lost to a curl);
* the merchant: in doubt when a line with no company form stands right over it in the same
  size of type ("AMPANG 210" / "FIRST CITY PARKING SDN BHD"): a brand or a branch set over
  the company, or the first line of its name, and the print does not say which (a plain text
  file has no type to compare);
* the merchant and the address read by OCR: in doubt when their text shows a misreading (a zero
  between letters, a letter O in a number, a CJK mark, letters spaced apart:
  :func:`.ocr_text.misread`), or when the engine read one of their lines with less confidence
  than :data:`OCR_SURE`: nothing else printed confirms a name's letters;
* the total: settled when what was paid (cash less change, else a card charge) confirms it; in
  doubt when what was paid is another figure, when the label it is read by names a part of the
  total ("Total (Excluding GST)", found by a label where no line names the whole), when another
  total line disagrees and nothing printed accounts for the difference (a rounding, charges
  added after an earlier total), or when a rounding follows a plain total (:mod:`.payment`).
  Read by OCR, it also needs a second printed figure: what was paid, or the same amount on
  another line (OCR misreads a digit now and then, seldom the same figure twice the same way);
* the first date printed (never one end of a period: "24 NOVEMBER 2017 - 4 MARCH 2018"): in
  doubt when the slip prints another date no label explains, or
  when it gives only a month and year (a sale is dated to the day); its day/month order is
  still the document's to settle (:mod:`evidex.extractors.verify.locales`);
* the total, when a cell of its row runs to the left or right edge of the photo ("TOTAL" of
  "SUB TOTAL" cut, its amount whole in a cell of its own), unless cash less change confirms it;
  a quote from a line at the edge goes to review anyway in verification
  (:func:`evidex.extractors.document.with_edges`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from evidex.extractors.verify.currency import currency_marks
from evidex.extractors.verify.fields import cut_off
from evidex.extractors.verify.locales import region_misread

from .dates import MONTH_ONLY, find_dates, readings, spaced_dates
from .issuer import Issuer, form_misread, name_end, name_start, nos, owner_named, read_issuer
from .lines import Hit, Line, Lines, join_caveats
from .match import Match, token_start, word_end
from .meaning import Concept
from .money import DOLLAR, as_read, closed_up, parse_amount
from .ocr_text import marked_word, misread, tidied
from .payment import Payment, accounted, amount_of, close, names_payment, payment, row_cells
from .total_labels import (
    NOT_TOTAL,
    final_words,
    names_a_part,
    names_total,
    other_measure,
    part_misread,
    total_words,
)

__all__ = ["OCR_SURE", "ReceiptFinder"]

# The OCR confidence from which a name or an address read by OCR stands without review. On the
# receipts it was measured on (lines of five letters or more against the annotators'
# transcript), lines read at 0.95 or more were right 98% of the time, lines at 0.90-0.95 89%,
# lines at 0.80-0.90 75%: below this a reviewer, not the engine, settles the letters.
OCR_SURE = 0.95
# Below this the engine did not read a line: on receipts 100-399, of the lines of three letters
# or more read under 0.50 (47 as scanned, 313 from a curled photo) none was what the annotators'
# transcript prints; from 0.50 to 0.60, 14-18% were.
_UNREAD = 0.5

_AMOUNT = re.compile(
    rf"(?:(?:\b{DOLLAR}|\$)\s?|[€£¥]\s?)?"  # "R$ 11,50": BRL, not "$ 11,50"
    r"(?<![\d.,/-])\d{1,3}(?:[,.\s]\d{3})*[.,]\d{2}(?![\d%]|[.,/-]\d)"
)
# an amount on a slip that prints no cents (a currency without them: "TOTAL RWF 6,300", "Total
# ¥753", "Kembali Rp 31.800", "839 Ft"): in groups of thousands, or a bare number against its
# currency, before it or after it
_MARK = r"(?:[€$£¥₩₫₹]|Rp\.?|[A-Z]{3})\s?"
_AFTER = r"\s?(?:Ft|Frw|Kč|kr|zł|đ|₫|円|원|[A-Z]{3}(?![A-Za-z]))"
_WHOLE_AMOUNT = re.compile(
    rf"(?:{_MARK})?(?<![\d.,/-])\d{{1,3}}(?:[.,]\d{{3}})+(?![\d%]|[.,/-]\d)"
    rf"|{_MARK}(?<![\d.,/-])\d+(?![\d%:]|[.,/-]\d)"
    rf"|(?<![\d.,/-])\d+(?={_AFTER})"
)
# a date another label owns: not the date of the sale (a due or delivery date, the last day to
# return or exchange what was bought, a best-before date)
_OTHER_DATE = re.compile(
    r"(?i)\b(?:due|expir\w*|valid|deliver\w*|ship\w*|birth|until|period|start|end|from|"
    r"returns?|refunds?|exchanges?|warranty|best\s+before|use\s+by)\b"
)
# what joins the two ends of a period
_RANGE = re.compile(r"(?i)\s*(?:-|–|—|~|to|until|till|s/d)\s*")
# what may stand before an amount on the line under its label: a currency ("RM 37.10")
_CURRENCY_LEAD = re.compile(r"\s*(?:[A-Z]{2,3}\.?\s?|[€$£¥]\s?)?")
_SUMMARY = re.compile(r"(?i)\b(?:gst|tax|vat|sst)\s+(?:summary|code)\b|\bsummary\b")
_MONEY_LINE = re.compile(
    r"(?i)\b(?:total|sub\s*-?\s*total|cash|change|amount|rounding|gst|tax|vat|paid|due)\b"
)


def _money_line(text: str) -> bool:
    """Whether ``text`` names money as a sale does: a total, cash, change or a tax in English,
    or a total in another language a till prints (:mod:`.total_labels`)."""
    return bool(_MONEY_LINE.search(text) or names_total(text))


def _marked(text: str) -> bool:
    """Whether ``text`` writes a currency against a number ("RM7.70", "¥753", "6,300 RWF")."""
    return bool(currency_marks(text, beside_number=True))


def _dates(line: Line) -> list[Match]:
    """The dates ``line`` prints, with those an OCR engine spaced out on a line it read."""
    return spaced_dates(line.text) if line.read_by_ocr else find_dates(line.text)


def _period(text: str, dates: list[Match]) -> bool:
    """Whether ``text`` gives its dates as a period, one to the next ("24 NOVEMBER 2017 - 4
    MARCH 2018", "01/03/2018 TO 31/03/2018"): a promotion's or a statement's, not the date of
    a sale."""
    return any(_RANGE.fullmatch(text[a.end : b.start]) for a, b in pairwise(dates))


@dataclass(frozen=True, slots=True)
class _Total:
    """A line that names the total (``label``) and the amount it gives, on ``line``."""

    label: Line
    line: Line
    amount: Match


def _amounts(line: Line, whole: bool = False) -> list[Match]:
    """The amounts ``line`` prints (:data:`_AMOUNT`; with ``whole``, :data:`_WHOLE_AMOUNT`),
    read as amounts with their currency; on a line read by OCR, with the spaces the engine put
    inside them taken out (:func:`.money.closed_up`), quoted from the line as read."""
    text, at = closed_up(line.text) if line.read_by_ocr else (line.text, [])
    out = []
    for found in (_WHOLE_AMOUNT if whole else _AMOUNT).finditer(text):
        read = parse_amount(text, found.start())
        if read is None:
            continue
        out.append(as_read(read, text, at) if at else read)
    return out


def _doubted(hit: Hit, doubt: str) -> Hit:
    return replace(hit, match=replace(hit.match, doubt=doubt)) if doubt else hit


class ReceiptFinder:
    lines: Lines

    def _receipt_like(self) -> bool:
        cached: bool | None = getattr(self, "_receipt_cache", None)
        if cached is None:
            cached = (
                any(
                    (
                        _AMOUNT.search(text)
                        and (_money_line(text) or _marked(text) or names_payment(text))
                    )
                    or (_money_line(text) and _marked(text))  # "Total ¥753": no cents to print
                    for text in self._row_texts()
                )
                or self._whole()
            )
            self._receipt_cache = cached
        return cached

    def _whole(self) -> bool:
        """Whether the slip is in a currency printed without cents: no line prints cents, and
        two or more lines that name a total, a tax or a payment print a whole amount in groups
        of thousands or against its currency ("TOTAL : 32.200" / "TUNAI : 50.000", "Total
        ¥753" / "Cash ¥1,000")."""
        cached: bool | None = getattr(self, "_whole_cache", None)
        if cached is None:
            texts = self._row_texts()
            whole = [t for t in texts if _WHOLE_AMOUNT.search(t)]
            cached = (
                len(whole) >= 2
                and sum(1 for t in whole if _money_line(t) or names_payment(t)) >= 2
                and not any(_AMOUNT.search(t) for t in texts)
            )
            self._whole_cache = cached
        return cached

    def _amounts(self, line: Line) -> list[Match]:
        """The amounts ``line`` prints, whole ones on a slip without cents (:meth:`_whole`)."""
        return _amounts(line, self._whole())

    def _shown(self, amount: float) -> str:
        """``amount`` as the slip prints its figures (whole on a slip without cents)."""
        return self._payment().shown(amount)

    # -- the issuer block ---------------------------------------------------------------------

    def _issuer(self) -> Issuer | None:
        """The issuer block at the top of the first page, or None when the top holds no name."""
        if not hasattr(self, "_issuer_cache"):
            self._issuer_cache = read_issuer(self.lines.rows, self._cells(), self.lines.typeset)
        return self._issuer_cache

    def _quote_rows(self, first: int, last: int, caveat: str, trim_id: bool = False) -> Hit:
        """Lines ``first``..``last`` quoted whole, their text the value (spaced as print sets
        it where OCR read them: :func:`.ocr_text.tidied`)."""
        rows = self.lines.rows
        ocr = any(r.read_by_ocr for r in rows[first : last + 1])
        if first == last:
            text = rows[first].text
            end = name_end(text) if trim_id else len(text.rstrip())
            start = name_start(text) if trim_id else len(text) - len(text.lstrip())
            value = tidied(text[start:end]) if ocr else text[start:end]
            return Hit((3, -1), rows[first], Match(start, end, value, caveat), (start, end))
        joined = " ".join(r.text for r in rows[first : last + 1])
        start = len(rows[first].text) - len(rows[first].text.lstrip())
        end = len(joined.rstrip())
        if trim_id:  # "… T.A.S LEISURE SDN BHD (256864-P)": the id after the name's last line
            end = len(joined) - len(rows[last].text) + name_end(rows[last].text)
        value = tidied(joined[start:end]) if ocr else joined[start:end]
        match = Match(start, end, value, caveat)
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
        doubt = (
            found.name_doubt
            or owner_named(self.lines.rows, found.first, found.last)
            or self._misread(found.first, found.last)
            or self._unread_under(found)
        )
        return [_doubted(hit, doubt)]

    def _unread_under(self, found: Issuer) -> str:
        """Why the line right under the name leaves the name in doubt: the engine could not
        read it (confidence under :data:`_UNREAD`: "Harve Noa M'ia Paradd Ma1", where a curl
        ran two lines into one), so the company's own name, or the rest of this one, may stand
        there unread; or ``""``."""
        under = self.lines.after(self.lines.rows[found.last])
        if under is None or not under.read_by_ocr or under.ocr >= _UNREAD:
            return ""
        if sum(c.isalpha() for c in under.text) < 3:
            return ""
        return (
            f"line {under.no} under the name was read by OCR with confidence {under.ocr:.2f} "
            f"({under.text.strip()!r}): it may hold the merchant's name or the rest of it, "
            "unread; check the name against the image"
        )

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
        return [_doubted(hit, found.address_doubt or self._misread(start, end))]

    def _misread(self, first: int, last: int) -> str:
        """Why the OCR reading of lines ``first``..``last`` may not be what is printed, or
        ``""``: a sign of a misreading in the text (:func:`.ocr_text.misread`, a company form
        or a region one letter off: "SON BHD", "Selaugor"; a marked letter on a slip with no
        other), else a line the engine was less than :data:`OCR_SURE` sure of. A name or an
        address has no second reading on the receipt (a total has cash less change, or the same
        figure again; a date its form and the document's locale), and one misread letter
        ("PASAF" for "PASAR", "9/6" for "9/5") leaves a name or an address as plausible as the
        printed one."""
        rows = self.lines.rows[first : last + 1]
        others = self.lines.rows[:first] + self.lines.rows[last + 1 :]
        for line in rows:
            if not line.read_by_ocr:
                continue
            sign = (
                misread(line.text)
                or misread(tidied(line.text))
                or form_misread(line.text)
                or region_misread(line.text)
            )
            if sign:
                return f"line {line.no} was read by OCR and {sign}: it may not be what is printed"
            word = marked_word(line.text)
            if word and not any(marked_word(other.text) for other in others):
                return (
                    f"line {line.no} was read by OCR and {word!r} has a letter with a mark, where "
                    "no other line of the slip has one: an engine reads a speck over a letter as "
                    "an accent, so it may not be what is printed"
                )
        unsure = [line for line in rows if line.read_by_ocr and line.ocr < OCR_SURE]
        if unsure:
            line = min(unsure, key=lambda r: r.ocr)
            return (
                f"line {line.no} was read by OCR with confidence {line.ocr:.2f}, and nothing else "
                "on the receipt confirms the letters of a name or an address: check them "
                "against the image"
            )
        return ""

    # -- the total and the date ---------------------------------------------------------------

    def _cells(self) -> dict[int, list[Line]]:
        if not hasattr(self, "_cells_cache"):
            self._cells_cache = row_cells(self.lines.rows)
        return self._cells_cache

    def _row_texts(self) -> list[str]:
        """Each line with the cells of its row (left to right): an OCR engine reads "Total :"
        and "9.00" apart, and puts spaces inside amounts ("73. 00")."""
        out = []
        for line in self.lines.rows:
            row = sorted([line, *self._row(line)], key=lambda r: r.x0)
            text = " ".join(r.text for r in row)
            out.append(closed_up(text)[0] if line.read_by_ocr else text)
        return out

    def _row(self, line: Line) -> list[Line]:
        """The other lines printed on ``line``'s row (:func:`.payment.row_cells`)."""
        return self._cells().get(line.index, [])

    def _total_lines(self) -> list[_Total]:
        """Lines that name the total, with where their amount is (on the line, in a cell to its
        right on the same row, or on the line under it). A line or row of several amounts is a
        table's (a tax summary's) totals row, and nothing under a summary heading is the
        receipt's total."""
        out: list[_Total] = []
        for line in self.lines.rows:
            if out and _SUMMARY.search(line.text):
                break
            if not total_words(line).search(line.text):
                continue
            if names_a_part(line.text):
                continue
            amounts = self._amounts(line)
            if len({amount_of(a.value) for a in amounts}) > 1:
                continue
            if amounts:
                out.append(_Total(line, line, amounts[-1]))
                continue
            cells = [(r, a) for r in self._row(line) if r.x0 > line.x0 for a in self._amounts(r)]
            if len({amount_of(a.value) for _, a in cells}) > 1:
                continue
            if cells:
                out.append(_Total(line, cells[-1][0], cells[-1][1]))
                continue
            below = self.lines.after(line)
            if (
                below is not None
                and (read := self._amounts(below))
                and _CURRENCY_LEAD.fullmatch(below.text[: read[0].start])
            ):
                out.append(_Total(line, below, read[0]))
        return out

    def total_hits(self) -> list[Hit]:
        """The last line of the most specific kind of total line there is: one that says the
        amount is due or final (``AMOUNT DUE``, ``GRAND TOTAL``, ``ROUNDED TOTAL``, ``NETT
        TOTAL``), else a plain ``TOTAL``."""
        found = self._total_lines()
        final = [t for t in found if final_words(t.label).search(t.label.text)]
        chosen = final or found
        if not chosen:
            return self._paid_alone()
        line, match = chosen[-1].line, chosen[-1].amount
        caveat = f"the last of {len(chosen)} total lines" if len(chosen) > 1 else ""
        match = replace(match, caveat=join_caveats(match.caveat, caveat))
        paid = self._paid_instead(chosen[-1])
        if paid is not None:
            line, match = paid
        label = total_words(line).search(line.text)  # quoted with its label on one line
        first = min(label.start(), match.start) if label else token_start(line.text, match.start)
        return [Hit((1, -1), line, match, (first, match.end))]

    def _cash_paid(self) -> tuple[float, str] | None:
        """What cash less change says was paid (a card charge may carry a tip or a fee, so it
        is no measure of the total here)."""
        pay = self._payment()
        return pay.paid if pay.change_given else None

    def _paid_instead(self, total: _Total) -> tuple[Line, Match] | None:
        """Where cash less change says another amount was paid than the total line gives, and
        a line from the total line on prints that amount (a rounded total whose label was lost,
        the cash handed over with no change), that line and its amount; still in doubt, since
        the total line says otherwise."""
        figure = amount_of(total.amount.value)
        paid = self._cash_paid()
        if figure is None or paid is None or close(paid[0], figure):
            return None
        found = self._printing(paid[0], total.label.index)
        if found is None:
            return None
        doubt = (
            f"the total line (line {total.line.no}) reads {self._shown(figure)}; {paid[1]}, the "
            f"amount line {found[0].no} prints, so that is answered"
        )
        return found[0], replace(found[1], doubt=doubt)

    def _paid_alone(self) -> list[Hit]:
        """No line names the total (an OCR engine misread its label, or the slip prints none):
        what the slip says was paid (cash less change, else an amount paid or a card charge:
        :attr:`.payment.Payment.paid`), where a line prints that amount; in doubt, since no
        label says it is the total."""
        paid = self._payment().paid
        found = self._printing(paid[0], 0) if paid is not None else None
        if paid is None or found is None:
            return []
        line, read = found
        doubt = (
            f"no line names the total; {paid[1]}, the amount line {line.no} prints, so that is "
            "answered"
        )
        return [Hit((1, -1), line, replace(read, doubt=doubt), (read.start, read.end))]

    def _printing(self, amount: float, start: int) -> tuple[Line, Match] | None:
        """The first line from row ``start`` on that prints ``amount``, and its reading: one
        whose row names no part of the total or payment (``SUBTOTAL``, ``CASH``) first."""
        found = [
            (line, read)
            for line in self.lines.rows[start:]
            for read in self._amounts(line)
            if (figure := amount_of(read.value)) is not None and close(figure, amount)
        ]
        texts = self._row_texts()
        plain = [(line, read) for line, read in found if not NOT_TOTAL.search(texts[line.index])]
        return (plain or found)[0] if found else None

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
            return f"{how}, not the {self._shown(amount)} read as the total"
        # a label cut in a cell of its own ("TOTAL" of "SUB TOTAL"); the quoted line itself is
        # verification's to judge (``verify.fields``)
        cut = next((r for r in self._row(line) if r.edge), None)
        if cut is not None:
            return cut_off(cut.no, cut.edge)
        sizes = [r.amount for r in pay.rounding]
        others = [
            (other.no, figure)
            for other in (t.line for t in self._total_lines())
            for read in self._amounts(other)[-1:]
            if (figure := amount_of(read.value)) is not None
            and not close(figure, amount)
            and not any(close(abs(figure - amount), size) for size in sizes)
            and not (
                other.index < line.index
                and accounted(self.lines.rows, other.index, line.index, figure, amount)
            )
        ]
        if others:
            listed = ", ".join(f"{self._shown(figure)} on line {no}" for no, figure in others)
            return (
                f"the total lines disagree: {self._shown(amount)} on line {line.no}, {listed}; "
                "nothing printed (a rounding, cash and change) settles which was paid"
            )
        row = self._row(line)
        printed = {
            figure
            for r in (line, *row)
            for a in self._amounts(r)  # "0 .00" as an engine spaced it is an amount too
            if (figure := amount_of(a.value)) is not None
        }
        if len(printed) > 1:
            listed = ", ".join(self._shown(figure) for figure in sorted(printed))
            return (
                f"the row of line {line.no} prints several amounts ({listed}): a table's row, "
                "which need not be the receipt's total"
            )
        beside = [r for r in row if r.x0 < line.x0]
        labels = [r for r in (line, *beside) if total_words(r).search(r.text)]
        if labels and all(names_a_part(r.text) for r in labels):
            return (
                f"its label on line {labels[0].no} ({labels[0].text.strip()!r}) names a part "
                "of the total (a subtotal, an amount before tax), not what was paid"
            )
        if not labels:
            return (
                f"the amount is read from line {line.no}, under a total label on a line of its "
                "own, so which label it belongs to is not printed"
            )
        if part := part_misread(labels[-1]):
            return (
                f"its label on line {labels[-1].no} ({labels[-1].text.strip()!r}) may name a part "
                f"of the total, not what was paid: {part}, as OCR misreads a letter"
            )
        if measure := other_measure(labels[-1]):
            return (
                f"its label on line {labels[-1].no} ({labels[-1].text.strip()!r}) totals "
                f"{measure!r}, which names no money (an amount, a currency): it may be a sum of "
                "points or units, not what was paid"
            )
        later = [
            r
            for r in pay.rounding
            if r.below(line) and (math.isnan(r.amount) or r.amount >= 0.005)  # NaN: misread
        ]
        if later and not any(final_words(r).search(r.text) for r in (line, *beside)):
            size = "" if math.isnan(later[0].amount) else f" of {self._shown(later[0].amount)}"
            unread = ", its amount misread," if not size else ""
            return (
                f"a rounding{size} (line {later[0].line}){unread} follows this total, so the "
                "amount paid may be the rounded one"
            )
        return self._unconfirmed(line, amount)

    def _unconfirmed(self, line: Line, amount: float) -> str:
        """On a line read by OCR, a total is settled only by a second printed figure: cash
        less change or a card charge (checked before), or the same amount on another line (an
        item, a subtotal, a rounded total, the cash handed over). OCR misreads a digit now and
        then ("32.69" for "32.70"); it seldom misreads the same figure twice the same way.
        A zero is confirmed by no other zero: a slip prints 0.00 for a tax, a discount or a
        rounding on many lines, and a total read as 0.00 is as likely one of those.
        A text layer's figures are what the document holds: nothing to confirm."""
        if not line.read_by_ocr:
            return ""
        if close(amount, 0.0):
            return (
                "the total 0.00 was read by OCR, and a receipt prints 0.00 on many lines (a tax, "
                "a discount, a rounding): check which line is the total"
            )
        for other in self.lines.rows:
            if other.index != line.index and any(
                (figure := amount_of(a.value)) is not None and close(figure, amount)
                for a in self._amounts(other)
            ):
                return ""
        return (
            f"the total {self._shown(amount)} was read by OCR and no other figure on the receipt "
            "(cash less change, a card charge, the same amount on another line) confirms it"
        )

    def _payment(self) -> Payment:
        if not hasattr(self, "_payment_cache"):
            self._payment_cache = payment(self.lines.rows, self._cells(), self._whole())
        return self._payment_cache

    def first_date_hits(self) -> list[Hit]:
        if not self._receipt_like():
            return []
        dated = [
            (line, dates[0])
            for line in self.lines.rows
            if (dates := _dates(line))
            and not _OTHER_DATE.search(line.text[: dates[0].start])
            and not _period(line.text, dates)
        ]
        # a sale is dated to the day: a month and year alone (a promotion's "MAR 2018") is
        # the date only where nothing gives a day
        dated = [(line, m) for line, m in dated if m.caveat != MONTH_ONLY] or dated
        if not dated:
            return []
        line, m = dated[0]
        caveat = join_caveats("the first date printed; no label names it", m.caveat)
        doubt = ""
        meant = readings(m.value)
        other = [o for o, d in dated[1:] if not meant & readings(d.value)]
        if other:
            where = nos(self.lines.rows, [o.index for o in other])
            doubt = (
                f"the receipt prints other dates ({where}) and no label says which is the date "
                f"of the sale; the one on line {line.no} is only the first"
            )
        if m.caveat == MONTH_ONLY:
            doubt = doubt or (
                f"line {line.no} gives only a month and year ({line.text[m.start : m.end]!r}); a "
                "sale is dated to the day, so its day may be printed apart or misread"
            )
        # the order of an ambiguous date is still the document's to settle (``in_order``)
        quote = (m.start, word_end(line.text, m.end))
        return [Hit((3, 0), line, replace(m, caveat=caveat, doubt=doubt), quote)]
