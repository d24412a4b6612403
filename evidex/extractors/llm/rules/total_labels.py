"""The words that name a receipt's total ("TOTAL", "NETT TOTAL", "AMOUNT DUE"), those that say
it is the final one ("GRAND TOTAL", "ROUNDED TOTAL"), and those that name a part of it or what
was handed over ("SUB TOTAL", "TOTAL GST", "CASH"), as a text layer prints them and as an OCR
engine reads them; an abbreviation after TOTAL that names no money ("Total GV", a sum of a
loyalty scheme's points); and a code before TOTAL one letter from one that names a part ("TAS
TOTAL", a tax summary's "TAX TOTAL" misread). Pure."""

from __future__ import annotations

import re

from rapidfuzz.distance import Levenshtein

from evidex.extractors.verify.currency import symbol_table

from .lines import Line

__all__ = [
    "NOT_TOTAL",
    "final_words",
    "names_a_part",
    "names_total",
    "other_measure",
    "part_misread",
    "total_words",
]

# The total as receipts print it in English and, where a slip is printed in another language,
# as it names it there: German (SUMME, GESAMT, ZU ZAHLEN), French (NET À PAYER, MONTANT TTC),
# Spanish and Portuguese (TOTAL A PAGAR), Italian (TOTALE), Dutch (TOTAAL, TE BETALEN), Turkish
# (TOPLAM), Polish (SUMA, RAZEM, DO ZAPŁATY), Malay and Indonesian (JUMLAH), Swedish, Danish and
# Norwegian (TOTALT, SUMMA, ATT BETALA), Vietnamese (TỔNG CỘNG, TỔNG TIỀN, not TỔNG TIỀN HÀNG:
# the goods before a discount), Japanese, Chinese and Korean (合計, 总计, 합계), Hungarian
# (ÖSSZESEN, FIZETENDŐ)
_ELSEWHERE = (
    r"summe|gesamt(?:summe|betrag)?|endsumme|totale|totaal|totalt|toplam|suma|summa|razem|"
    r"jumlah|montant\s+(?:ttc|d[uû]|total)|t[ổo]ng\s+c[ộo]ng|t[ổo]ng\s+ti[ềe]n(?!\s+h[àa]ng)|"
    r"合計|合计|总计|總計|합계|총액|[öo]sszesen|fizetend[őo]"
)
# the words that say the amount is the one to pay, in those languages
_TO_PAY = (
    r"zu\s+zahlen|(?:net\s+)?[àa]\s+payer|a\s+pagar|te\s+betalen|do\s+zap[łl]aty|"
    r"att?\s+betal[ae]|å\s+betale|genel\s+toplam|totale\s+complessivo|total\s+bayar|"
    r"t[ổo]ng\s+thanh\s+to[áa]n"
)
_TOTAL_WORDS = re.compile(
    r"(?i)\b(?:(?:grand|nett?|rounded|round(?:ed)?\s*d?|final)\s*)?total\b|\bamount\s+(?:due|"
    rf"payable)\b|\bbalance\s+due\b|\btotal\s+(?:due|payable|amount)\b|\b(?:{_ELSEWHERE}|"
    rf"{_TO_PAY})\b"
)
_FINAL = re.compile(
    r"(?i)\b(?:grand|nett?|rounded|round(?:ed)?\s*d?|final)\s*total\b|\bamount\s+(?:due|"
    rf"payable)\b|\bbalance\s+due\b|\btotal\s+(?:due|payable|rounded)\b|\b(?:{_TO_PAY})\b"
)
# "Inclusive of GST", also as an OCR engine reads its capital I ("lnclusive"), with its rate
# between ("Incl. 6% GST") or after ("INCLUDES GST 6%") or a stray mark OCR read after "Incl"
# ("Incl , GST")
_INCLUDED = re.compile(
    r"(?i)\b(?:[il1]ncl(?:usive|uding|udes?|\.)?)[\s.,]*(?:of\s+)?(?:\d+(?:[.,]\d+)?\s*%?\s*)?"
    r"(?:gst|vat|sst|tax)\b(?:\s*@?\s*\d+(?:[.,]\d+)?\s*%)?"
)
# a part of the total, or what was handed over; a tax summary's row names its kind of supplies
# ("Total Zero Rated") or its rate ("Total 0% supplies": :func:`names_a_part`); in the languages
# above too: a subtotal (ZWISCHENSUMME, SOUS-TOTAL, ARA TOPLAM), the amount before tax (NETTO,
# TOTAL HT), a tax (MWST, TVA, IVA, BTW, KDV, PPN), a discount, and cash and change (BAR,
# RÜCKGELD, ESPÈCES, RENDU, EFECTIVO, CAMBIO, CONTANTI, RESTO, TROCO, TUNAI, KEMBALI, TIỀN
# KHÁCH ĐƯA, TIỀN THỪA, 小計, お預り, お釣り)
NOT_TOTAL = re.compile(
    r"(?i)\b(?:sub|subtotal|sub-total|excl\w*|before|qty|quantity|items?|pcs|tax|gst|vat|sst|"
    r"discounts?|disc|savings?|saved|cash|change|tender\w*|points?|weight|units?|supplies|"
    r"zero[\s-]*rated|exempt\w*|standard[\s-]*rated|"
    r"zwischensumme|sous|subtotale|subtotaal|ara|netto|ht|mwst|ust|steuer\w*|tva|iva|btw|kdv|"
    r"ppn|pajak|rabatt|remise|descuento|sconto|korting|bar|esp[eè]ces|efectivo|contanti|contant|"
    r"dinheiro|nakit|got[oó]wka|tunai|r(?:ü|ue|u|ii)ckgeld|wechselgeld|rendu|monnaie|cambio|"
    r"vuelto|resto|wisselgeld|troco|reszta|kembali\w*|baki|anzahl|artikel|st[uü]ck|"
    r"ti[ềe]n\s+h[àa]ng|kh[áa]ch\s+[đd][ưu]a|ti[ềe]n\s+th[ừu]a|ti[ềe]n\s+th[ốo]i|"
    r"小計|小计|소계|お預り|お預かり|お釣り?|おつり|釣銭|找零|거스름돈|받은\s*금액|"
    r"k[ée]szp[ée]nz|visszaj[áa]r[óo])\b"
)
_RATE = re.compile(r"\d\s*%")


def _loose(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` with its words "total" and "rounded" also matched as an OCR engine splits
    them ("TO TAL", "Tota l", "ROUNDE D"), and "total" run into the capital of the next word
    ("TotalAmount", "TotalRM": PP-OCR drops spaces between words)."""
    source = pattern.pattern.replace(r"total\b", r"total(?:\b|(?=(?-i:[A-Z])))")
    for word in ("total", "rounded"):
        source = source.replace(word, r"\s?".join(word))
    return re.compile(source)


_LOOSE_TOTAL_WORDS = _loose(_TOTAL_WORDS)
_LOOSE_FINAL = _loose(_FINAL)


def total_words(line: Line) -> re.Pattern[str]:
    """The words that name a total, as loose as the way ``line`` was read calls for."""
    return _LOOSE_TOTAL_WORDS if line.read_by_ocr else _TOTAL_WORDS


def final_words(line: Line) -> re.Pattern[str]:
    return _LOOSE_FINAL if line.read_by_ocr else _FINAL


def names_total(text: str) -> bool:
    """Whether ``text`` names a total, in any language above, as printed (not in the looser
    forms an OCR engine's reading is matched in: :func:`total_words`)."""
    return bool(_TOTAL_WORDS.search(text))


def names_a_part(text: str) -> bool:
    """Whether a line that names a total names a part of it instead ("SUB TOTAL", "TOTAL
    QTY", a tax summary's "Total 0% supplies"): its label (what comes before a colon) says so;
    a total that says it includes its tax ("Total Incl. 6% GST") is still the total."""
    label = _INCLUDED.sub(" ", text)
    label = label.split(":")[0] if ":" in label else label
    return bool(NOT_TOTAL.search(label) or _RATE.search(label))


# abbreviations after TOTAL that still name the money: its amount, what is due, a tax included
# ("TOTAL AMT", "TOTAL DUE", French "TOTAL TTC"); a currency's mark or code is one too
_MONEY_WORDS = frozenset({"AMT", "DUE", "INC", "NET", "TTC", "ALL", "FOR", "SUM", "OF", "IN"})
# read in any case ("EV" as "eV"), and the label's last word: "Total Amt Rounded" misread as
# "Total Ami Rounded" qualifies TOTAL with words, not with a code
_ABBREVIATION = re.compile(r"(?i)\s*([A-Z]{2,3})\b(?=\s*(?:[:=]|\d|$))")


def other_measure(line: Line) -> str:
    """The abbreviation ``line``'s total label qualifies TOTAL with where it names no money
    ("GV" of "Total GV :10.56", a sum of a loyalty scheme's points), else ``""``: a total of
    something other than the money paid prints its figure as a total does."""
    said = total_words(line).search(line.text)
    if said is None:
        return ""
    code = _ABBREVIATION.match(line.text, said.end())
    marks = symbol_table()
    if code is None or code[1].upper() in _MONEY_WORDS or {code[1], code[1].upper()} & marks.keys():
        return ""
    return code[1]


# the codes before TOTAL that name a part of it, and the word right before a total's label
_PART_CODES = ("sub", "tax", "gst", "vat", "sst", "qty")
_CODE_BEFORE = re.compile(r"(?<![^\W_])([^\W_]{2,3})[\s.]*$")


def part_misread(line: Line) -> str:
    """The code before ``line``'s TOTAL where it is one letter from a code that names a part
    of the total and no such code itself ("TAS" of "TAS TOTAL :", a tax summary's "TAX TOTAL"
    as OCR read it; "5UB"), else ``""``. Only a line read by OCR: a text layer's words are the
    document's."""
    said = total_words(line).search(line.text) if line.read_by_ocr else None
    code = _CODE_BEFORE.search(line.text, 0, said.start()) if said else None
    if code is None:
        return ""
    word = code[1].lower()
    if word in _PART_CODES or word.upper() in _MONEY_WORDS:
        return ""
    near = [c for c in _PART_CODES if Levenshtein.distance(word, c) == 1]
    return f"{code[1]!r} is one letter from {near[0].upper()!r}" if near else ""
