"""What a receipt's own figures say about its total.

A till prints more than one figure the total must agree with: the rounding it applied
(``TOTAL 33.92`` / ``ROUNDING ADJ -0.02`` / ``TOTAL ROUNDED 33.90``), what it added after an
earlier total (``TOTAL AMOUNT 49.60`` / ``SERV CHARGE 4.96`` / ``GST 3.27`` / ``ROUNDING -0.03``
/ ``TOTAL AMOUNT 57.80``) and what was handed over (``CASH 50.00`` / ``CHANGE 16.10``: 33.90 was
paid), or what it says was paid in so many words (``AMT PAID INCL. GST : RM78.30``, which a
``TOTAL EV :2.10`` of loyalty points under it does not match). A total that what was paid
confirms is settled whatever else the slip prints; one that another total line contradicts,
with nothing printed to explain the difference, is not. The sign of a rounding alone is not
trusted (tills print ``-0.02``, ``-RM 0.02`` and ``0.02`` for the same adjustment): its size is
compared.

A slip in a currency a till prints without cents (``TOTAL RWF 6,300`` / ``CASH 10,000`` /
``CHANGE 3,700``, ``Kembali Rp 31.800``, ``Change ¥247``) is read in whole amounts: a figure in
groups of thousands or a bare number, where no line of the slip prints cents
(:func:`payment`'s ``whole``).

Pure: the lines in, figures out.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from .lines import Line
from .money import closed_up, read_number

__all__ = [
    "Figure",
    "Payment",
    "accounted",
    "amount_of",
    "close",
    "money",
    "names_payment",
    "payment",
    "row_cells",
    "shown",
    "signed",
]

_FIGURE = re.compile(
    r"(?<![\d.,])(?P<sign>[-−(]\s?)?(?:[A-Z]{2,3}\s?|[€$£¥]\s?)?"
    r"(?P<n>\d{1,3}(?:,\d{3})*[.,]\d{2})(?![\d%]|[.,]\d)"
)
# the same in whole amounts: groups of thousands ("10,000", "31.800") or a bare number ("247")
_WHOLE = re.compile(
    r"(?<![\d.,])(?<!\d[:/])(?P<sign>[-−(]\s?)?(?:[A-Z]{2,3}\.?\s?|Rp\.?\s?|[€$£¥₩₫₹]\s?)?"
    r"(?P<n>\d{1,3}(?:[.,]\d{3})+|\d+)(?![\d%:/]|[.,]\d)"
)
# change and cash in English and Malay, and in the languages of :mod:`.total_labels`: German
# (RÜCKGELD, GEG. BAR), French (RENDU, ESPÈCES), Spanish (CAMBIO, EFECTIVO), Italian (RESTO,
# CONTANTI), Dutch (WISSELGELD, CONTANT), Portuguese (TROCO, DINHEIRO), Turkish (PARA ÜSTÜ,
# NAKİT), Polish (RESZTA, GOTÓWKA), Indonesian (KEMBALI, TUNAI), Vietnamese (TIỀN THỪA, TIỀN
# KHÁCH ĐƯA), Japanese (お釣り, お預り), Chinese (找零, 现金), Korean (거스름돈, 받은금액) and
# Hungarian (KÉSZPÉNZ, VISSZAJÁRÓ); "ü" also as written without it ("Rueckgeld") and as an
# engine reads it ("Riickgeld")
_CHANGE = re.compile(
    r"(?i)\b(?:change|baki|r(?:ü|ue|u|ii)ckgeld|wechselgeld|zur(?:ü|ue|u|ii)ck|rendu|"
    r"[àa]\s+rendre|monnaie|cambio|vuelt[oa]|resto|wisselgeld|troco|para\s+[uü]st[uü]|reszta|"
    r"kembali(?:an)?|ti[ềe]n\s+th[ừu]a|ti[ềe]n\s+th[ốo]i|ti[ềe]n\s+tr[ảa]\s+l[ạa]i|"
    r"お釣り?|おつり|釣銭|找零|거스름돈|visszaj[áa]r[óo])\b"
)
_CASH = re.compile(
    r"(?i)^\W*(?:cash|tunai|tender(?:ed)?|amount\s+tendered|paid|(?:geg(?:eben)?\.?\s*)?bar|"
    r"gegeben|esp[eè]ces|efectivo|(?:pagamento\s+)?contant[ei]|contant|dinheiro|nak[iİı]t|"
    r"got[oó]wka|kontant|(?:ti[ềe]n\s+)?kh[áa]ch\s+[đd][ưu]a|お預り|お預かり|預り金?|现金|現金|"
    r"받은\s*금액|k[ée]szp[ée]nz)\b"
    r"(?!\s*(?:bill|sales?|receipt|refund|register|mode|method)\b)"
)
# what the slip says was paid, in so many words ("AMOUNT PAID", "AMT PAID INCL. GST"), not
# a part of it ("AMT PAID EXCL. GST", as OCR reads it too: "Amt Paid xcl. GST")
_PAID = re.compile(r"(?i)^\W*(?:amount|amt)\.?\s+paid\b(?!.*\b(?:e?x\w*|before|less)\b)")
# a card, as English and the languages above name it ("EC-Karte", "CB", "Tarjeta", "Pinnen"),
# not what a loyalty card saved or earned ("Card Savings 1.80-", "Card Points 12")
_CARD_WORD = (
    r"(?i)^\W*(?:visa|master\s*card|amex|credit\s*card|debit\s*card|card|e-?wallet|debit|"
    r"ec[\s-]?karte|girocard|karte|carte(?:\s+bancaire)?|cb|tarjeta|carta|pin(?:nen)?|kartu)\b"
)
_CARD = re.compile(rf"{_CARD_WORD}(?!\s*(?:sav\w*|discount|disc|points?|rewards?|member)\b)")
_CARD_LINE = re.compile(_CARD_WORD)  # a card's line of either kind: a till's slip
_ROUNDING = re.compile(r"(?i)^(?!.*\btotal\b).*\b(?:round(?:ing)?|rnd)\b")
_STACKED = 0.1  # of the narrower line: cells of one row stand side by side, not over each other


@dataclass(frozen=True, slots=True)
class Figure:
    line: int  # the global line number it is printed on
    amount: float  # its size (a rounding's sign is not trusted)
    page: int = 1
    y: float = math.nan  # where its row is printed on the page (NaN: unknown)

    def below(self, line: Line) -> bool:
        """Printed under ``line``'s row (by position; by line number where none is known)."""
        middle = (line.y0 + line.y1) / 2
        if math.isnan(self.y) or math.isnan(middle):
            return self.line > line.no
        return (self.page, self.y) > (line.page, middle)


@dataclass(frozen=True, slots=True)
class Payment:
    rounding: tuple[Figure, ...]  # every rounding the slip prints (NaN: its amount misread)
    cash: Figure | None  # the last cash handed over
    change: Figure | None  # the last change given back
    card: Figure | None = None  # the last amount charged to a card
    stated: Figure | None = None  # the last "AMOUNT PAID"
    places: int = 2  # 0 on a slip read in whole amounts

    @property
    def paid(self) -> tuple[float, str] | None:
        """What the slip says was paid, and how it says so: cash (or an amount paid) less
        change when both are printed, else the amount a line says was paid ("AMOUNT PAID")
        when no change is, else the one amount charged to a card when no cash is printed."""
        handed = self.cash if self.cash is not None else self.stated
        if handed is not None and self.change is not None:
            paid = round(handed.amount - self.change.amount, 2)
            if paid <= 0:
                return None
            what = "cash" if handed is self.cash else "the amount paid"
            n = self.places
            how = (
                f"{what} {shown(handed.amount, n)} (line {handed.line}) less change "
                f"{shown(self.change.amount, n)} (line {self.change.line}) is {shown(paid, n)}"
            )
            return paid, how
        if self.stated is not None:
            stated = self.stated
            return stated.amount, f"line {stated.line} says {self.shown(stated.amount)} was paid"
        if self.card is not None and self.cash is None:
            card = self.card
            charged = self.shown(card.amount)
            return card.amount, f"{charged} was charged to a card (line {card.line})"
        return None

    def shown(self, amount: float) -> str:
        """``amount`` as the slip prints its figures: with cents, or whole."""
        return shown(amount, self.places)

    @property
    def change_given(self) -> bool:
        """Whether the slip prints cash (or an amount paid) and the change given back."""
        return (self.cash is not None or self.stated is not None) and self.change is not None


def shown(amount: float, places: int = 2) -> str:
    """``amount`` with ``places`` decimals, as a slip with cents (2) or without (0) prints it."""
    return f"{amount:.{places}f}"


def money(text: str, whole: bool = False) -> float | None:
    """The one amount a line prints (its size), or None for none or several different ones;
    with ``whole``, in whole amounts (:data:`_WHOLE`)."""
    found = {read_number(m["n"]) for m in (_WHOLE if whole else _FIGURE).finditer(text)}
    return found.pop() if len(found) == 1 else None


def names_payment(text: str) -> bool:
    """Whether ``text`` names cash handed over, change given back, a card or an amount paid."""
    return bool(
        _CHANGE.search(text) or _PAID.match(text) or _CASH.match(text) or _CARD_LINE.match(text)
    )


def signed(text: str) -> float | None:
    """The one amount a line prints, negative when written so (``-0.03``, ``-RM 0.02``,
    ``(0.02)``), or None for none or several."""
    found = {(m["sign"] or "") + m["n"] for m in _FIGURE.finditer(text)}
    if len(found) != 1:
        return None
    figure = found.pop()
    return -read_number(figure.lstrip("-−( ")) if figure[0] in "-−(" else read_number(figure)


def accounted(rows: list[Line], earlier: int, later: int, start: float, end: float) -> bool:
    """Whether the amounts printed after row ``earlier`` (an index) take ``start`` to ``end``
    by the time a line up to row ``later`` prints ``end``: the charges, tax and rounding a
    till adds after an intermediate total."""
    running = start
    for row in rows[earlier + 1 : later + 1]:
        amount = signed(row.text)
        if amount is None:
            continue
        if close(amount, end) and close(running, end):
            return True
        running += amount
    return False


def amount_of(value: Any) -> float | None:
    """The number of an amount as the finders answer it (``{"value": 9.0, …}`` or a number)."""
    number = value.get("value") if isinstance(value, dict) else value
    return float(number) if isinstance(number, (int, float)) else None


def close(a: float, b: float) -> bool:
    return abs(a - b) < 0.005


def row_cells(rows: list[Line]) -> dict[int, list[Line]]:
    """Line index -> the other lines printed on its row: cells a parser read apart ("Total due"
    | "19.953,80 €", "CASH" | "70.30"). Lines whose heights overlap by half the smaller one
    share a row, unless they stand over each other (across more than :data:`_STACKED` of the
    narrower one: a large name over its address, whose boxes reach into each other); a line
    without a position shares none."""
    out: dict[int, list[Line]] = {}
    ordered = sorted((r for r in rows if not math.isnan(r.y0 + r.y1)), key=lambda r: (r.page, r.y0))
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b.page != a.page or b.y0 >= a.y1:
                break
            across = min(a.x1, b.x1) - max(a.x0, b.x0)
            if across > _STACKED * min(a.x1 - a.x0, b.x1 - b.x0):
                continue
            if min(a.y1, b.y1) - max(a.y0, b.y0) >= 0.5 * min(a.y1 - a.y0, b.y1 - b.y0):
                out.setdefault(a.index, []).append(b)
                out.setdefault(b.index, []).append(a)
    return out


def payment(rows: list[Line], cells: dict[int, list[Line]], whole: bool = False) -> Payment:
    """The slip's figures, read row by row: a label and its amount in two cells of one row are
    one figure (``cells``: :func:`row_cells`); with ``whole``, in whole amounts (a slip that
    prints no cents)."""
    rounding: list[Figure] = []
    cash = change = card = stated = None
    for line in rows:
        row = cells.get(line.index, [])
        if any(r.x0 < line.x0 for r in row):
            continue  # a cell read with the row's first one
        text = " ".join([line.text, *(r.text for r in sorted(row, key=lambda r: r.x0))])
        text = closed_up(text)[0] if line.read_by_ocr else text
        line = replace(line, text=text)
        amount = money(line.text, whole)
        if amount is None:
            if _ROUNDING.match(line.text) and re.search(r"\d", line.text):
                rounding.append(Figure(line.no, math.nan, line.page, line.y0))  # "-J.02"
            continue
        figure = Figure(line.no, amount, line.page, line.y0)
        if _CHANGE.search(line.text):
            change = figure
        elif _PAID.match(line.text):
            stated = figure
        elif _CASH.match(line.text):
            cash = figure
        elif _CARD.match(line.text):
            card = figure
        elif _ROUNDING.match(line.text):
            rounding.append(figure)
    return Payment(tuple(rounding), cash, change, card, stated, 0 if whole else 2)
