"""The issuer block at the top of a till receipt (or any sales slip): the merchant's name, its
registration number, its address, then the first line that is something else (a phone, a tax
id, a date, a title such as "TAX INVOICE", a ``Label: value`` line).

A cashier's or customer's name printed above the merchant is passed over: the name is the one
right above the registration number, else the one that carries a company form (cleanco's legal
terms: ``SDN BHD``, ``GmbH``, ``Ltd``), else the first name of the block. A line written all in
lower case ("tan woon yann") is how a hand or a stamp adds a person's name, not how a till prints
a merchant's: it is taken only where the block holds no other name, and then in doubt. The
address is the block's lines under the name up to the first registration, phone or date line
(never a line that ends in a company form, ``7-ELEVEN MALAYSIA SDN BHD``).

Where OCR lost a line of the block, what is left must not pass for it. A line shaped as an
address's ("NO: 28, JALAN ASTANA 1C,": a house number closed by a comma, or a comma that runs the
line on; a street's, an estate's or a plot's word, "TAMAN BERKELEY", "BAKER STREET") is never a
name, nor is an id or its label alone ("COMPANY NO"), so an address whose name was lost is no
merchant. The block ends at the first phone, ``Label: value`` line or policy under a name, so a
line printed after it ("RM RM" over the items) is no name either; an address read after such a
line, or after a title, is in doubt, since the merchant's own address lines may be the ones lost. A
till centres its header: a name read by OCR whose centre stands off the one the rows under it share
has lost a word on one side (one the engine did not read, or a photo cut off), and is in doubt, as
is a name that starts right of the left edge a flush-left header shares without being centred over
it, and a name a piece of whose row OCR read apart from it. A line right over the name in the same
size of type, with no company form, may be a brand or a branch ("AMPANG 210") or the name's first
line ("WESTERN EASTERN" / "STATIONERY SDN BHD"): the name is then in doubt too. So is a name under
what a lost name stands over: an address's line, or a company number with no name over it
("(1074617K)" / "IKEA Cheras"), unless the name carries a company form of its own. A label ("PREPAY
CHIT NUMBER") and pieces of a logo with no word of three letters ("GS T") are no name, and a name
beside such pieces ("t 1e" over "Roti") may be one word of the logo: in doubt. A slip that says who
owns the shop ("OWNED BY" / "DOMMAL FOOD SERVICES SDN BHD") names two merchants, the brand and the
company: the one the rules take is in doubt (:func:`owner_named`), as is a name over a branch in
brackets ("(JALAN KLANG LAMA)"), which may be part of it, a name that opens with a word in lower
case before capitals ("egi Cash & Carry", "a ng Alaf"): its first letters lost, and one that opens
with "&" ("& BEST RESTAURANT"): the word it joined lost.

A name too long for the paper runs over two lines, its company form on the lower one
("POPULAR BOOK" / "CO. (M) SDN BHD"): a line that is only a company form (with where the
company is, in brackets) carries on the name above it, and is never a name alone. A lower line
that gives one word before its form ("LIAN CHI PU TIAN VEGETARIAN" / "RESTAURANT SDN BHD") may
be the name's tail or a short name of its own: both are taken, in doubt. A shop's policy or
thanks ("STRICTLY NO CASH REFUND", "GOODS SOLD ARE NOT RETURNABLE") is printed in the same
capitals as a name but is never one, and it ends an address as a phone or a title does.

A company form is a closed list, and an engine's one-letter misreading of one ("SON BHD" for
"SDN BHD", "LIMlTED") is no form and no word: :func:`form_misread` names it, so a name read that
way goes to a person (the backend does not guess the letters), as :func:`.ocr_text.misread`'s
signs do. Only forms of :data:`_NEAR_FORM` letters or more count: one letter from a short form
("CO", "LTD") is too often a word.

A registration number printed on the name's line ("GARDENIA BAKERIES (KL) SDN BHD (139386 X)",
"KING'S CONFECTIONERY S/B 273500-U (KSB)", or its closing bracket lost: "HAI-O RAYA BHD (169199-V")
is no part of the name, nor is a slip's number before it ("#000002") or a stamp read on its line
("POSTED"); an order number ("7290") is no registration number. A numbered line over a company's
name and its id (a mall's "COLORS @ 1 UTAMA") is not the address, nor is a line in brackets or a
branch's name beside the company's number ("(TONYMOLY SHOP (95874))", "(SUBANG JASA) 666770-U"). The
address ends at a tax id anywhere on a line, and takes a postcode printed alone under it where its
lines give none ("47301"); lines read into it after the one that ends in its region or country (a
branch's "1132-PK SS6") leave it in doubt, as does a word and a number alone ("Bentong-2") or any
one line with no postcode and no street ("#0020 The Summit USJ": a branch's name), as does an
address with no postcode where a line read just after it opens with one (a phone printed beside its
last line, read in between).

An OCR engine reads the cells of one printed row apart ("SAM SAM" | "TRADING" | "CO") and puts
spaces inside ids ("( M051 7 726)"): the block is read over printed rows
(:func:`printed_rows`), and ids are told with those spaces taken out. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import Levenshtein

from evidex.extractors.verify.literals import literals
from evidex.extractors.verify.locales import SHORTHAND_FORMS, ends_in_place, postcode_and_region
from evidex.extractors.verify.names import STAMP_WORDS

from .dates import find_dates
from .lines import Line

__all__ = [
    "Issuer",
    "aside",
    "form_misread",
    "name_end",
    "name_start",
    "nos",
    "owner_named",
    "printed_rows",
    "read_issuer",
]

_TOP_LINES = 14  # the issuer block is in the first lines
_TITLE = re.compile(
    r"(?i)^\W*(?:(?:simplified\s+|full\s+)?tax\s*invoice|invoice|receipt|official\s+receipt|"
    r"cash\s*(?:bill|sales?|receipt)|bill|sales\s+receipt|tax\s+receipt|welcome\b.*|"
    r"thank\s+you\b.*|guest\s*check|check|order)\W*(?:(?:no|number|#)\W*[\w/-]*\W*)?$"
)
# a till's own numbers, each a label and a number alone on the line: the store, the register,
# the check, the server ("Store 8842", "CHK 8841", "Order #4471  Register 2", "POS 03 Lane 2")
_TILL_WORD = (
    r"(?:store|str|reg(?:ister)?|chk|check|trans(?:action)?|trx|term(?:inal)?|till|pos|lane|"
    r"cashier|server|table|meja|kasir|order|station|ws)\s*(?:no\.?|#|:)?\s*\d+"
)
_TILL_WORDS = rf"(?:{_TILL_WORD}|(?:st|op|te|tr|tc|tx)\s*#\s*\d+)"  # "ST# 05483 OP# 009044"
# a bare "No" and its number counts beside a till's word ("No: 0023451  Meja: 12"), never
# alone: "NO 12" may begin an address
_TILL_PAIR = rf"(?:{_TILL_WORDS}|n[or]\.?\s*[:#]?\s*\d+)"
_TILL = re.compile(rf"(?i)^\W*(?=.*{_TILL_WORDS}){_TILL_PAIR}(?:\W+{_TILL_PAIR})*\W*$")
# a line that names a member of the staff ("MANAGER JOHN SMITH", "STORE MGR TOM MILAZZO",
# "Cashier Rina")
_STAFF = re.compile(
    r"(?i)^\W*(?:(?:store|general|asst\.?|assistant|shift)\s+)?"
    r"(?:manager|mgr|director|cashier|server|operator)\s"
)
# an item's or a total's line: words, then an amount with cents or in groups of thousands at
# the end, its currency before it, a tax code after it ("BANANAS LOOSE £0.87", "COKE 1.5L ₱
# 75.00", "Total CHF 5.80", "1 KOPI 24,000", "Maslo 6,49 C"): never a line of the address
_PRICED = re.compile(
    r"[^\W\d_]{3}.*\s(?:(?:[€$£¥₩₫₹₱]|\b(?:RM|Rs\.?|Rp\.?|R\$|[A-Z]{3}))\s?)?"
    r"(?:\d{1,3}(?:[,.]\d{3})*[.,]\d{2}|\d{1,3}(?:[.,]\d{3})+)(?:\s+[A-Z])?\W*$"
)
# a tax or company number as other countries label it ("NIP 779-10-11-327", "NIF: B12345678",
# "MWST-Nr CHE-116.320.145", "RFC: CCO8605231N4", "CNPJ 12.345.678/0001-90", "GSTIN: 07AAA…")
_FOREIGN_ID = re.compile(
    r"(?i)\b(?:nip|nif|cif|rfc|cnpj|cpf|uid|p\.?\s?iva|siret|siren|kvk|npwp|gstin|"
    r"ust-?id(?:-?nr)?|mwst-?nr|btw-?nr|ad[oó]sz[aá]m)\b\.?[\s.:#-]*"
    r"[A-Z]{0,3}[\s.-]?\d[\dA-Z.\s/-]{5,}"
)
# a shop's policy, thanks or greeting, or a sentence that runs on to what follows ("YOUR
# ORDER NUMBER IS"): printed like a name, never one
_POLICY = re.compile(
    r"(?i)\b(?:refund\w*|(?:not\s+)?returnable|(?:no|not)\s+exchange\w*|goods\s+sold|"
    r"thank\s*(?:you|s)|come\s+again|please|welcome)\b|\b(?:is|are)\W*$"
)
# a slogan under the name: sentences of words, each ended ("Save money. Live better.")
_SLOGAN = re.compile(r"^\W*(?:[^\W\d_]{3,}(?:\s+[^\W\d_]+)+[.!]\s*){2,}$")
_CONTACT = re.compile(
    r"(?i)\b(?:tel|telephone|phone|ph|fax|h/?p|hotline|mobile|whatsapp|email|e-mail|website|"
    r"www|t[ée]l|t[ée]l[ée]phone|telefon|tel[ée]fono)\b|\w@[\w-]+\.[a-z]|https?://|"
    r"(?<!\d)0\d{1,2}[-\s]?\d{3,4}[\s-]?\d{3,4}(?!\d)|\+\d{1,3}[-\s]?\(?\d{1,3}\)?[-\s]?\d{3,4}|"
    r"\(\s?\d{3}\s?\)\s?\d{3}\s?[-\s]\s?\d{4}\b"  # "(415) 555-0123", "( 479 ) 273 - 4000"
)
# an id's label; "no", "co" and "id" as OCR often reads them ("N0", "C0", "10"), the parts
# joined by a space, a dot or a hyphen ("CO-REG")
_ID_LABEL = (
    r"(?:c[o0](?:mpany)?[.\s-]*(?:reg(?:istration)?|rfg|n[o0])\.?|roc|br|reg(?:istration)?|gst|"
    r"vat|sst|tax|tin|abn|uen|crn|business|id)"
)
# an id, labelled or not ("(CO.NO.639240 H)", "(LLP0007299-LGN)", "NO. 193573-M"): a letter
# code may follow its digits, after a hyphen, a slash or (one letter) a space; a second id on
# the line carries a label of its own ("(CO NO. 315481-T) GST NO. 001287233536")
_ID_BODY = r"\(?\s*[A-Z]{0,3}\d[\dA-Z]*\d(?:[-/]?[A-Z]{1,3}|\s[A-Z])?\s*\)?"
_ID_KIND = r"[\s.:#-]*(?:[i1l][d0]|n[o0]|number|reg)?[\s.:#-]*"
_REGISTRATION = re.compile(
    rf"(?i)^\W*(?:(?:{_ID_LABEL}|n[o0]\.?){_ID_KIND})*{_ID_BODY}"
    rf"(?:\W+(?:{_ID_LABEL}{_ID_KIND})+{_ID_BODY})*\W*$"
)
_TAX_WORDS = r"gst|vat|sst|tax|tin"
_TAX_ID = re.compile(rf"(?i)\b(?:{_TAX_WORDS})\b")
# a tax or business id anywhere on a line ("BRN GST No. 000417619968 President: Kang"), or its
# label alone, the number on the next line ("GST No.")
_TAX_ID_NUMBER = re.compile(
    rf"(?i)\b(?:{_TAX_WORDS}|brn|roc)\b[\s.:#-]*"
    r"(?:(?:reg(?:istration)?|id|n[o0])\b\.?[\s.:#-]*)*(?:\d{6,}|$)"
)
_LABEL_ALONE = re.compile(rf"(?i)^\W*(?:{_ID_LABEL}{_ID_KIND})+\W*$")
# a line that ends in the word for a number: a label, its number on the next line
_LABEL_END = re.compile(r"(?i)\b(?:number|num|no)\b\W*$")
_LABELLED_ID = re.compile(rf"(?i)(?<![a-z]){_ID_LABEL}(?![a-z])")
_ID_DIGITS = 5  # an id with no label ("002570632-X") gives this many digits or more
# a number of four to six digits alone on its line ("47301"): the postcode of an address that
# gives none above it
_POSTCODE_ALONE = re.compile(r"^\s*\d{4,6}\s*[.,]?\s*$")
_POSTCODE = re.compile(r"(?<![\d/#-])\d{4,6}(?![\d/-])")  # not a number: "#0020"
_LABELLED = re.compile(r"(?i)^\W*(?!no\b)[a-z][^:\d]{2,29}:\s*\S")
_TRAILING_ID = re.compile(r"\s*\(\s*[A-Z]{0,3}\d{4,}[\dA-Z-]*(?:\s[A-Z])?\)?\s*$")
# an office's stamp over the print, read on the name's line
_STAMP = re.compile(rf"(?i)(?<=\w)\s+{STAMP_WORDS}\W*$")
_STAMP_ALONE = re.compile(rf"(?i)^\W*{STAMP_WORDS}\W*$")  # "POSTED" over the name: no name
# a branch's code after an id: "(KJ1)", read by OCR with spaces inside "(KJ1 )"
_CODE = re.compile(r"\s*\(\s*[A-Z][A-Z\d]{0,3}\s*\)\s*$")
# a trade mark's sign set after the name, as printed or as OCR reads it ("SAFEWAY TM")
_TM_SIGN = r"[™®]|\((?:TM|R)\)"
_TRADE_MARK = re.compile(rf"(?<=\w)\s*(?:{_TM_SIGN}|\sTM)\W*$")
_TRADE_MARK_ALONE = re.compile(rf"^\s*(?:{_TM_SIGN}|TM)\s*$")  # "TM" over the logo's end


_NEAR_FORM = 6  # letters: the shortest company form a one-letter misreading is looked for in


@lru_cache(maxsize=1)
def _form_terms() -> dict[str, str]:
    """cleanco's legal terms by their letters and slashes, lower case ("sdnbhd": "sdn bhd")."""
    from cleanco.termdata import terms_by_type

    out: dict[str, str] = {}
    terms = [t for ts in terms_by_type.values() for t in ts] + list(SHORTHAND_FORMS)
    for term in sorted(terms, key=len):
        out.setdefault(re.sub(r"[^a-z/]", "", term.lower()), term)
    return out


@lru_cache(maxsize=1)
def _legal_form() -> re.Pattern[str]:
    terms = _form_terms()
    keys = literals((t for t in terms if len(t.replace("/", "")) >= 2), between=r"[.\s]*")
    return re.compile(rf"(?i)(?<![A-Za-z])(?:{keys.pattern})\.?(?![A-Za-z])")


def form_misread(text: str) -> str:
    """What in ``text`` reads as a misread company form (its last one or two words, the
    trailing id aside, one letter from a form of :data:`_NEAR_FORM` letters or more), or ``""``:
    ``"'SON BHD' is one letter from the company form SDN BHD"``."""
    words = re.findall(r"[A-Za-z/]+", _without_id(text))
    terms = _form_terms()
    for n in (2, 1):
        tail = words[-n:]
        joined = "".join(tail).lower()
        if len(tail) < n:
            continue
        if joined in terms:
            return ""
        near = sorted(
            t for t in terms if len(t) >= _NEAR_FORM and Levenshtein.distance(joined, t) == 1
        )
        if near:
            form = terms[near[0]].upper()
            return f"{' '.join(tail)!r} is one letter from the company form {form!r}"
    return ""


def name_end(text: str) -> int:
    """Where a name printed on ``text`` ends: before a registration number set after it, in
    brackets ("GARDENIA BAKERIES (KL) SDN BHD (139386 X)") or after its company form ("KING'S
    CONFECTIONERY S/B 273500-U (KSB)", "… S/B. (CO.NO. 1208604-T)"); else at the text's end,
    its trailing spaces aside. A stamp's word set on the line ("YONG CEN ENTERPRISE POSTED")
    is no part of the name either, nor a trade mark's sign after it ("SAFEWAY™", "SAFEWAY
    TM")."""
    if stamp := _STAMP.search(text):
        text = text[: stamp.start()]
    if mark := _TRADE_MARK.search(text):
        text = text[: mark.start()]
    if trailing := _TRAILING_ID.search(text):
        return trailing.start()
    for form in _legal_form().finditer(text):
        if _registration(text[form.start() :]):  # "COMPANY NO: 002643278-A": the id's label
            break
        if _registration(_CODE.sub("", text[form.end() :])):
            return form.end()
    return len(text.rstrip())


_LEADING_NO = re.compile(r"\s*#\s*\d+\s*")  # a slip's number printed before the name: "#000002"


def name_start(text: str) -> int:
    """Where a name printed on ``text`` starts: after a slip's number set before it ("#000002
    BAIFU (M) SDN BHD"), else at its first letter or digit."""
    lead = _LEADING_NO.match(text)
    return lead.end() if lead and lead.end() < len(text) else len(text) - len(text.lstrip())


_BRACKETED = re.compile(r"\([^()]*\)")  # "(M)", "(MALAYSIA)": where the company is
# a company number's digits and the letter code after them: "481500-M", "1074617K"
_COMPANY_NO = re.compile(r"\d{5,}\s?-?\s?[A-Z]{1,3}\b")
_ID_TOKEN = re.compile(r"\b\d{5,}(?:\s?-\s?[A-Z]{1,3}|\s[A-Z])\b")  # a company number: "666770-U"


def _bare(text: str) -> str:
    """``text`` with what it sets in brackets (nested brackets too) and any company number
    taken out: what is left to judge a line by ("(SUBANG JASA) 666770-U" leaves nothing)."""
    while (bare := _BRACKETED.sub(" ", text)) != text:
        text = bare
    return _ID_TOKEN.sub(" ", text)


def _without_id(text: str) -> str:
    return text[: name_end(text)]


def _name_like(text: str) -> bool:
    clean = _without_id(text).strip()
    bare = _bare(clean).replace(" ", "")
    letters = sum(c.isalpha() for c in bare)
    return (
        letters >= 3
        and letters >= 0.5 * len(bare)
        and bool(_NAME_WORD.search(clean))  # "GS T", pieces OCR read of a logo, is no name
        # an id ("CO. NO. 373665-A"), a tax id ("BRN GST No. 000417619968 President: Kang"), a
        # date, a title, a contact, a policy or a label line
        and not aside(clean)
        and not _SLOGAN.match(clean)
        and not _form_only(clean)
        and not _street(clean)
        and not _STAMP_ALONE.match(clean)
        and not _LABEL_ALONE.match(clean)  # "COMPANY NO", its number on the next line
        and not _LABEL_END.search(clean)  # "PREPAY CHIT NUMBER", the number on the next line
    )


# a word of three letters or more, or initials ("D.I.Y."): what a name gives somewhere
_NAME_WORD = re.compile(r"[^\W\d_]{3}|(?:[^\W\d_]\.){2}")
# a house number closed by a comma ("28, JALAN", "115G,", "9-G,", "K3-113,JL") or a comma at
# the end
_STREET = re.compile(r"\d(?:-?[A-Za-z])?\s*,|,\s*$")
# the word a street, an estate, a town or a plot is named by: first in Malay ("JALAN KAPAR",
# "TAMAN BERKELEY", "BANDAR BARU PERMAS", "LOT PTD 101051", or after the house number:
# "NO.2-1-1 JALAN SETIA"), in Italian, Spanish, Portuguese and French ("VIA ROMA 15", "CALLE
# MAYOR", "12 RUE DE LA PAIX"), last in English ("HIGH STREET", "1234 MARKET ST");
# a floor, a level or a unit ("3RD FLR, AEON TAMAN MALURI SC", "LEVEL 6, BANGUNAN TH"); a house
# number of three figures or more before the street's name ("2025 El Camino Real"; a branch's
# number is not one: "#0020 The Summit"): a name seldom opens so
_STREET_FIRST = re.compile(
    r"(?i)^\W*(?:(?:no\b\.?\s*)?\d[\w/-]*,?\s+(?:jalan|jln|lorong|lrg|persiaran|rue|avenue|"
    r"boulevard|bd|chemin|calle|rua)\b|"
    r"(?:jalan|jln|lorong|lrg|taman|tmn|bandar|persiaran|lebuhraya|mukim|kampung|kg|"
    r"lot|via|viale|piazza|calle|avenida|avda|rua|rue)\b\.?\s+\w|"
    r"(?:\d+(?:st|nd|rd|th)|ground|g|lg|ug)\s*(?:flr|floor|fl)\b|"
    r"(?:level|lvl|unit|suite|blk|block)\s*[\w-]*\d|(?<![#\d])\d{3,5}[a-z]?\s+(?-i:[A-Z])[^\W\d_]+)"
)
# in English the street's word ends the line; in German and Dutch the street's name ends in
# it and the house number follows ("Friedrichstraße 123", "Hauptstr. 5", "Dorpsstraat 12")
_EN_STREET = (
    r"street|st|road|rd|avenue|ave|lane|ln|boulevard|blvd|highway|hwy|drive|dr|parkway|pkwy"
)
_STREET_LAST = re.compile(
    rf"(?i)\s(?:{_EN_STREET})\.?,?\s*$|"
    r"(?:stra(?:ß|ss)e|str\.|weg|allee|platz|gasse|straat|laan|plein|gracht)\s*\d+\s*[a-z]?\W*$"
)


def _street(text: str) -> bool:
    """A line shaped as an address's: a number closed by a comma ("NO: 28, JALAN ASTANA 1C",
    "K3-113,JL IBRAHIM SULTAN") or a comma that runs it on to the next line ("DAMANSARA
    UTAMA,"), or that ends in a region or a country after a comma ("KLANG SELANGOR D.E,
    MALAYSIA"), or that a street's, an estate's, a floor's or a unit's word names
    (:data:`_STREET_FIRST`, :data:`_STREET_LAST`: "TAMAN BERKELEY", "3RD FLR, AEON TAMAN
    MALURI SC"). A name carries none of these (one that ends in its company form aside), and
    where OCR lost the merchant's line, the address's lines are what stand at the top."""
    clean = _without_id(text)
    placed = "," in clean and ends_in_place(clean)  # "KLANG SELANGOR D.E, MALAYSIA"
    named = _STREET_FIRST.match(clean) or _STREET_LAST.search(clean)
    return bool(_STREET.search(clean) or placed or named) and not _company(text)


def _lower_case(text: str) -> bool:
    """A line whose letters are all lower case ("tan woon yann"): a till prints a merchant's
    name in capitals or title case; a name written so is a customer's, a cashier's, or added
    by hand or by stamp."""
    return any(c.islower() for c in text) and not any(c.isupper() for c in text)


def _company(text: str) -> bool:
    """A line that ends in a company form (``… SDN BHD``, ``… S/B (519537-X)``): a name, never
    an address line, even when it holds a digit (``7-ELEVEN MALAYSIA SDN BHD``)."""
    clean = _without_id(text).rstrip(" .,")
    forms = list(_legal_form().finditer(clean))
    return bool(forms) and not re.search(r"\w", clean[forms[-1].end() :])


def _form_words(text: str) -> tuple[list[re.Match[str]], str]:
    """The company forms in ``text`` (its trailing id aside) and what is left once they and
    what is in brackets ("(M)") are taken out."""
    clean = _without_id(text).strip(" .,")
    forms = list(_legal_form().finditer(clean))
    rest = _BRACKETED.sub(" ", _legal_form().sub(" ", clean))
    return forms, re.sub(r"[\W_]+", " ", rest).strip()


def _form_only(text: str) -> bool:
    """A line that is nothing but a company form, with where the company is in brackets
    ("SDN BHD", "CO. (M) SDN BHD"): it carries on the name above it, and is no name alone."""
    forms, rest = _form_words(text)
    return bool(forms) and not rest


def _one_word_before_form(text: str) -> bool:
    """A company line that gives a single word before its form, where the company is (in
    brackets) aside ("RESTAURANT SDN BHD", "ENTERPRISE (SETIA ALAM) SDN BHD")."""
    forms, _ = _form_words(text)
    clean = _without_id(text).strip(" .,")
    before = _BRACKETED.sub(" ", clean[: forms[0].start()]) if forms else ""
    return bool(forms) and _company(text) and len(before.split()) == 1


def _runs_on(text: str) -> bool:
    """A name line that carries on below: it ends in "&" or leaves a parenthesis open, other
    than around a registration number whose closing bracket OCR lost ("HAI-O RAYA BHD
    (169199-V": :data:`_TRAILING_ID` cuts it from the name)."""
    if text.rstrip().endswith("&"):
        return True
    return text.count("(") > text.count(")") and not _TRAILING_ID.search(text)


# a line that opens with a postcode ("41150 KLANG"): the end of an address, seldom its start
_POSTCODE_FIRST = re.compile(r"^\W*\d{4,6}\s+[A-Za-z]")
# a street's word after its name: the figure that opens such a line is a house number ("2621
# ORANGETHORPE AVE, FULLERTON"), not a postcode
_STREET_WORD = re.compile(
    rf"(?i)[^\W\d_]{{2,}}\s+(?:{_EN_STREET}|place|pl|court|ct|way)\b\.?(?:\s*,|\s*$)"
)
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
class _Row:
    """A printed row of the issuer block: one line, or the cells an OCR engine read apart on
    one row ("SAM SAM" | "TRADING" | "CO"), which follow each other in the line table;
    ``first`` and ``last`` index ``lines.rows``."""

    text: str
    no: int
    first: int
    last: int


def printed_rows(lines: list[Line], cells: dict[int, list[Line]]) -> list[_Row]:
    """``lines`` as printed rows: a line read by OCR and the lines right after it that share its
    row, to its right, joined left to right, unless one of them is a line of its own kind (a
    registration number, a date, a phone: :func:`_aside`). Lines not read by OCR (a text
    layer's) stay one row each: their parser already joined what a row prints."""
    out: list[_Row] = []
    i = 0
    while i < len(lines):
        line, j = lines[i], i
        while (
            line.read_by_ocr
            and j + 1 < len(lines)
            and lines[j + 1] in cells.get(lines[j].index, [])
            and lines[j + 1].x0 > lines[j].x0
            and not aside(lines[j + 1].text)
            and not aside(lines[j].text)
        ):
            j += 1
        text = " ".join(r.text for r in lines[i : j + 1])
        out.append(_Row(text, line.no, line.index, lines[j].index))
        i = j + 1
    return out


@dataclass(frozen=True, slots=True)
class Issuer:
    """The issuer block, indexes of ``lines.rows``: the name's first and last line, the
    address's first and last line (last < first: no address), how the name was chosen and what
    leaves each in doubt."""

    first: int
    last: int
    start: int
    end: int
    how: str
    name_doubt: str = ""
    address_doubt: str = ""


_SPACED_DIGITS = re.compile(r"(?<=\d) (?=\d)|(?<=[\dA-Z]) (?=-)|(?<=-) (?=[\dA-Z])")


def aside(text: str) -> bool:
    """A line of the issuer block that is not its address, so one that ends the address: an id
    (an OCR engine's spaces in it aside: ``( M051 7 726)``, ``96585 7- A``), a date, a
    contact, a title, a label, a till's own numbers ("Store 8842", "CHK 8841"), a member of the
    staff ("MANAGER JOHN SMITH"), an item's or a total's price ("BANANAS LOOSE £0.87", "Total
    CHF 5.80", "1 KOPI 24,000"), a tax number another country labels ("NIP 779-10-11-327")."""
    return bool(
        _registration(text)
        or _TAX_ID_NUMBER.search(text)
        or find_dates(text)
        or _TITLE.match(text)
        or _TILL.match(text)
        or _STAFF.match(text)
        or _PRICED.search(text)
        or _FOREIGN_ID.search(text)
        or _closing(text)
    )


def _closing(text: str) -> bool:
    """A line that ends the issuer block wherever it stands: a contact, a ``Label: value`` line
    or a shop's policy. Not a registration number, which sits between a name and its address,
    nor a title ("TAX INVOICE" may head the slip above the name), nor a date (a till may print
    it beside the name, read into the block's lines)."""
    if _registration(text):  # "(001451637-M)" is shaped like a phone number too
        return False
    return bool(_CONTACT.search(text) or _POLICY.search(text) or _LABELLED.match(text))


def _registration(text: str) -> bool:
    """A line that is an id or ids, labelled ("CO NO. 315481-T", "GST ID: 000381399040") or
    with :data:`_ID_DIGITS` digits or more: an order number ("7290") is no registration."""
    clean = _SPACED_DIGITS.sub("", text)
    return bool(_REGISTRATION.match(clean)) and (
        sum(c.isdigit() for c in clean) >= _ID_DIGITS or bool(_LABELLED_ID.search(clean))
    )


def nos(rows: Sequence[_Row | Line], indexes: list[int]) -> str:
    """``line 3`` / ``lines 1, 2 and 4``: some rows by their global numbers, for a reason."""
    nos = [str(rows[i].no) for i in indexes]
    return f"lines {', '.join(nos[:-1])} and {nos[-1]}" if len(nos) > 1 else f"line {nos[0]}"


def _address_doubt(rows: list[_Row], name_end: int, start: int, stop: int) -> str:
    """Why the address block ``rows[start:stop]`` may not be the whole address, or ``""``."""
    closed = [
        i
        for i in range(name_end + 1, start)
        if _closing(rows[i].text) or _TITLE.match(rows[i].text)
    ]
    if closed:
        return (
            f"{nos(rows, closed[:1])}, a phone, label or title line, stands between the "
            f"merchant's name and line {rows[start].no}, where the issuer block ends: the lines "
            "after it may not be the merchant's address"
        )
    between = [i for i in range(name_end + 1, start) if not aside(rows[i].text)]
    if between:
        return (
            f"{nos(rows, between)} between the merchant's name and its address may belong "
            "to either, so where the address starts is unclear"
        )
    if stop >= len(rows) or not aside(rows[stop].text):
        return (
            f"no phone, registration or date line closes the address after line "
            f"{rows[stop - 1].no}, so where it ends is unclear"
        )
    last = rows[stop - 1]
    if stop - start == 1 and len(re.findall(r"[A-Za-z]{2,}", last.text)) < 2:
        return (
            f"line {last.no} is all the address there is, a word and a number "
            f"({last.text.strip()!r}): a branch's name, where the address itself may be lost"
        )
    if stop - start == 1 and not _POSTCODE.search(last.text) and not _street(last.text):
        return (
            f"line {last.no} is all the address there is, and it gives no postcode and no "
            f"street ({last.text.strip()!r}): a branch's name, where the address itself may "
            "be lost"
        )
    if _OPEN_END.search(last.text):
        return (
            f"the address's last line (line {last.no}) ends in "
            f"{last.text.rstrip()[-1]!r}, so it may run on beyond what was read"
        )
    return _past_place(rows, start, stop) or _postcode_after(rows, start, stop)


_POSTCODE_REACH = 3  # rows after the address where its postcode line may have been read


def _postcode_after(rows: list[_Row], start: int, stop: int) -> str:
    """Why the address ``rows[start:stop]`` may stop short of its postcode, or ``""``: it gives
    none, and a line read within :data:`_POSTCODE_REACH` rows after it opens with one ("44
    JALAN SS21/58 DAMANSARA UTAMA" / "TEL : 03-77271129" / "47400 PETALING JAYA"): a phone
    printed beside the address is read in between, and the address goes on there."""
    if any(_POSTCODE.search(_bare(r.text)) for r in rows[start:stop]):
        return ""
    found = next(
        (r for r in rows[stop : stop + _POSTCODE_REACH] if _POSTCODE_FIRST.match(r.text)), None
    )
    if found is None:
        return ""
    return (
        f"the address gives no postcode, and line {found.no} after it opens with one "
        f"({found.text.strip()!r}): the address may go on there"
    )


def _past_place(rows: list[_Row], start: int, stop: int) -> str:
    """Why lines read into the address after the line that ends in its region or country
    ("41150 KLANG, SELANGOR"), or gives a postcode and a region ("56000 KUALA LUMPUR, MALAYSI ."
    / "IOI MALL"), may not belong to it (a branch's or a mall's name: "1132-PK SS6",
    "AEON SHAH ALAM"), or ``""``. A region or a country on a line of its own after it
    ("SELANGOR", "MALAYSIA") carries the address on."""
    placed = next(
        (
            i
            for i in range(start, stop - 1)
            if ends_in_place(rows[i].text, closed_up=True) or postcode_and_region(rows[i].text)
        ),
        None,
    )
    if placed is None:
        return ""
    after = [
        i
        for i in range(placed + 1, stop)
        if not ends_in_place(rows[i].text) or re.search(r"\d", rows[i].text)
    ]
    if not after:
        return ""
    return (
        f"line {rows[placed].no} ends the address with its region or country, and "
        f"{nos(rows, after)} after it may be a branch's or a mall's name, not the address"
    )


def _name_lines(texts: list[str], name: int) -> tuple[int, int, str]:
    """The first and last line of the name found on line ``name``, and why where it starts is
    in doubt (or ``""``): a line that runs on ("&", an open bracket) takes the next; a company
    form on a line of its own ("CO. (M) SDN BHD") belongs to the name above it, as a line that
    opens with "&" does ("THE COFFEE BEAN" / "& TEA LEAF (M) SDN. BHD."); a line that gives one
    word before its form, or one word alone ("TSH POWER HARDWARE" / "TRADING"), may be the tail
    of the name above it or a name alone."""
    first = last = name
    carried = first and (_runs_on(texts[first - 1]) or texts[first].lstrip().startswith("&"))
    if carried and _name_like(texts[first - 1]):
        first -= 1
    if last + 1 < len(texts) and _runs_on(texts[last]) and _name_like(texts[last + 1]):
        last += 1
    if last + 1 < len(texts) and _form_only(texts[last + 1]) and not _company(texts[last]):
        last += 1
    if not first or not _name_like(texts[first - 1]) or _company(texts[first - 1]):
        return first, last, ""
    # a bracket wrapped over lines ("ENTERPRISE (SETIA" / "ALAM) SDN BHD") is one piece
    head = " ".join(texts[first : last + 1]) if _runs_on(texts[first]) else texts[first]
    if _form_only(head):
        return first - 1, last, ""
    if _legal_form().search(texts[first - 1]):
        return first, last, ""
    above = (
        f"so the line above it may begin the name ({texts[first - 1].strip()!r}) or be "
        "something else"
    )
    if _one_word_before_form(head):
        return first - 1, last, f"the name's line gives one word before its company form, {above}"
    if len(head.split()) == 1:
        return first - 1, last, f"the name's line is one word ({head.strip()!r}), {above}"
    return first, last, ""


_CENTRED = 0.3  # line heights: how far the centres of a centred block's lines stray
_OFF_AXIS = 0.5  # line heights (about a character): a centred name further off has lost some


def _off_axis(rows: list[_Row], lines: list[Line], first: int, last: int) -> str:
    """Why the name on ``rows[first..last]`` may have lost a word, or ``""``: a till centres its
    header, and where the rows under the name share one centre (within :data:`_CENTRED` line
    heights) a name row read by OCR whose centre lies more than :data:`_OFF_AXIS` of its line
    height off it is missing print on one side (a word the engine did not read, a photo that
    cut it off). A header set flush left is read the same way by its left edge: a name row
    that starts right of the edge the rows under it share, and is not centred over them,
    lost its first word ("SOON FATT S/B" of "Y… SOON FATT S/B", a blot over the rest). A text
    layer's line is whole."""
    below = rows[last + 1 : last + 7]
    if len(below) < 3:
        return ""
    extents = [_extent(lines, r) for r in below]
    axis, stray = _shared([(x0 + x1) / 2 for x0, x1, _ in extents])
    edge, ragged = _shared([x0 for x0, _, _ in extents])
    middle = (min(x0 for x0, _, _ in extents) + max(x1 for _, x1, _ in extents)) / 2
    for row in rows[first : last + 1]:
        x0, x1, height = _extent(lines, row)
        if not lines[row.first].read_by_ocr or not height:
            continue
        off = (x0 + x1) / 2 - axis
        if stray <= _CENTRED * height and abs(off) > _OFF_AXIS * height:
            side = "left" if off > 0 else "right"
            return (
                f"the lines under the name share one centre, and the name on line {row.no} "
                f"stands off it: a word at its {side} may not have been read"
            )
        flush = ragged <= _CENTRED * height
        if flush and x0 - edge > _OFF_AXIS * height and abs((x0 + x1) / 2 - middle) > height:
            return (
                f"the lines under the name start at one left edge, and the name on line {row.no} "
                "starts right of it: a word at its left may not have been read"
            )
    return ""


def _shared(values: list[float]) -> tuple[float, float]:
    """The value ``values`` share (their middle one) and how far they typically stray from it
    (the middle of their distances to it)."""
    middle = sorted(values)[len(values) // 2]
    return middle, sorted(abs(v - middle) for v in values)[len(values) // 2]


def _apart(rows: list[_Row], cells: dict[int, list[Line]], first: int, last: int) -> str:
    """Why the name on ``rows[first..last]`` may be missing a piece, or ``""``: OCR read a
    word or a mark printed on the name's row ("B &" of "B & BEST RESTAURANT") apart from it,
    out of the line table's order, so it is not in the name. An id, a phone or a date beside
    the name is no piece of it."""
    inside = range(rows[first].first, rows[last].last + 1)
    apart = {
        cell.no: cell.text.strip()
        for i in inside
        for cell in cells.get(i, [])
        if cell.index not in inside
        and re.search(r"[^\W\d_]|&", cell.text)
        and not aside(cell.text)  # a contact or a label line too
    }
    if not apart:
        return ""
    shown = ", ".join(f"{t!r} (line {no})" for no, t in sorted(apart.items()))
    return (
        f"OCR read {shown} on the name's row apart from it: the name may run on into it, so "
        "check it against the image"
    )


# a row of letters OCR read in pieces, no word of three ("t 1e", "a n"): a logo's; one mark
# alone is no piece ("R" of "®", "TM")
_PIECES = re.compile(r"\s*(?:[^\W_]{1,2}\s+)+[^\W_]{1,2}\s*")


def _among_pieces(rows: list[_Row], first: int, last: int) -> str:
    """Why the name on ``rows[first..last]`` may be one word of a logo, or ``""``: the row
    right above or right below it holds only pieces of letters ("t 1e" over "Roti", of "the
    Roti man bakery"). An engine reads a logo's large or drawn letters apart, and the one word
    it read whole passes for the name."""
    beside = [rows[i] for i in (first - 1, last + 1) if 0 <= i < len(rows)]
    pieces = [
        row for row in beside if _PIECES.fullmatch(row.text) and re.search(r"[^\W\d_]", row.text)
    ]
    if not pieces:
        return ""
    return (
        f"line {pieces[0].no} beside the name holds only pieces of letters "
        f"({pieces[0].text.strip()!r}), as OCR reads a logo: the name may be one word of a "
        "longer one, so check it against the image"
    )


def _bracket_below(rows: list[_Row], last: int) -> str:
    """Why the name ending on ``rows[last]`` may run on, or ``""``: the row under it is words
    in brackets, no id ("CHECKERS HYPERMARKET SDN BHD" / "(JALAN KLANG LAMA)"): a branch the
    name is printed with, which may be part of it or not."""
    if last + 1 >= len(rows):
        return ""
    below = rows[last + 1].text.strip()
    if not (below.startswith("(") and below.endswith(")")) or not _NAME_WORD.search(below):
        return ""
    if re.search(r"\d", below) or _registration(below) or aside(below):
        return ""
    return (
        f"line {rows[last + 1].no} under the name is in brackets ({below!r}): a branch printed "
        "with the name, which may be part of it; check which the merchant's name is"
    )


# the slip names the company behind the shop: "OWNED BY", "OWN BY:", "Owner by", "OPERATED BY",
# Malay "DIMILIKI OLEH"
_OWNER = re.compile(r"(?i)\b(?:own(?:ed|er)?|operated|managed)\s+by\b|\bdimiliki\s+oleh\b")


def owner_named(lines: list[Line], first: int, last: int) -> str:
    """Why the name on ``lines[first..last]`` may not be the merchant meant, or ``""``: the
    slip says who owns the shop ("DOMINO'S PIZZA" … "OWNED BY" / "DOMMAL FOOD SERVICES SDN
    BHD", "OLD ASIA" / "OWN BY: CHEF LEE SDN BHD"), so it names two, the brand it trades as
    and the company behind it, and which is "the merchant" is the reader's call. A name that
    quotes both ("32 PUB & BISTRO OWN BY CNU TRADING") is not in doubt."""
    for line in lines:
        said = _OWNER.search(line.text)
        if said is None or first <= line.index <= last:
            continue
        owner = line.text[said.end() :].strip(" :.-")
        nxt = line.index + 1
        if not owner and nxt < len(lines):
            owner = lines[nxt].text.strip()
        if not owner:
            continue
        return (
            f"line {line.no} says who owns the shop ({said.group(0)} {owner!r}): the merchant "
            "may be that company or the name the slip is headed with; check which is meant"
        )
    return ""


_LOWER_WORD = re.compile(r"[a-z]+(?=\s)")
_CAPITALISED = re.compile(r"(?<!\S)[A-Z][a-z]")


def _lost_start(rows: list[_Row], first: int, last: int) -> str:
    """Why the name on ``rows[first..last]`` may have lost its start, or ``""``: it opens with
    "&", which joins a word to one before it ("& BEST RESTAURANT" of "B & BEST"), or with a
    word in lower case where its other words start with capitals ("egi Cash & Carry Sdn.
    Bhd.", a photo's warp or edge taking the "S"). A merchant's name is printed with its first
    word set as the rest are."""
    text = " ".join(r.text for r in rows[first : last + 1]).strip()
    if text.startswith("&"):
        return (
            f"the name on {nos(rows, [first])} opens with '&', which joins a word to one before "
            "it: its first word may be lost; check the name against the image"
        )
    opening = _LOWER_WORD.match(text)
    if opening is None or not _CAPITALISED.search(text, opening.end()):
        return ""
    return (
        f"the name on {nos(rows, [first])} opens with a word in lower case "
        f"({opening.group()!r}) where its other words start with capitals: its first letter "
        "may be lost; check the name against the image"
    )


def _lost_above(rows: list[_Row], first: int) -> str:
    """Why the merchant's own name may be lost above the name starting on ``rows[first]``, or
    ``""``: an address's line printed above it (a name stands over its address), or a company's
    registration number with no name above it over a name with no company form (a company's
    name stands over its number, or under it: "(481500-M)" / "C W KHOO HARDWARE SDN BHD"). A
    line OCR did not read leaves what follows it to pass for the name ("(1074617K)" / "IKEA
    Cheras")."""
    formed = _legal_form().search(rows[first].text)
    for i, row in enumerate(rows[:first]):
        text = row.text
        if _street(text) and _numbered(text):
            return (
                f"line {row.no}, above the name, is an address's line, and a merchant's name "
                "stands over its address: its own line may be lost; check the name against "
                "the image"
            )
        if (
            not formed  # a company number over a name with a company form is its own
            and _company_id(text)
            and not _company(text)
            and _COMPANY_NO.search(text)  # "(1074617K)", not a till's code ("A04014")
            and not any(_name_like(r.text) for r in rows[:i])
        ):
            return (
                f"line {row.no}, above the name, gives a company's registration number with no "
                "name over it: the company's own name may be lost; check the name against the "
                "image"
            )
    return ""


_SAME_TYPE = (0.8, 1.25)  # line heights of one size of type, the name's to the one above


def _set_above(rows: list[_Row], lines: list[Line], first: int) -> str:
    """Why the name starting on ``rows[first]`` may start on the row above, or ``""``: a name-
    like line printed right over it (less than half a line between) in the same size of type,
    with no company form of its own, is a brand or a branch set over the company ("AMPANG
    210" / "FIRST CITY PARKING SDN BHD") or the name's own first line ("WESTERN EASTERN" /
    "STATIONERY SDN BHD"), and the print does not say which."""
    if not first or not _name_like(rows[first - 1].text) or _company(rows[first - 1].text):
        return ""
    if _lower_case(rows[first - 1].text):
        return ""
    height, above = _extent(lines, rows[first])[2], _extent(lines, rows[first - 1])[2]
    top = min(c.y0 for c in lines[rows[first].first : rows[first].last + 1])
    foot = max(c.y1 for c in lines[rows[first - 1].first : rows[first - 1].last + 1])
    if not (height and above) or not _SAME_TYPE[0] <= above / height <= _SAME_TYPE[1]:
        return ""
    if not top - foot < 0.5 * height:
        return ""
    return (
        f"line {rows[first - 1].no} right above the name ({rows[first - 1].text.strip()!r}) is "
        "set in the same type: a brand or a branch printed over the company, or the first line "
        "of its name; check which the merchant's name is"
    )


def _extent(lines: list[Line], row: _Row) -> tuple[float, float, float]:
    """A printed row's left and right edge and its (tallest) line height, a slip's number
    printed before a name ("#000002") aside."""
    cells = [c for c in lines[row.first : row.last + 1] if not _LEADING_NO.fullmatch(c.text)]
    cells = cells or lines[row.first : row.last + 1]
    height = max(c.y1 - c.y0 for c in cells)
    return min(c.x0 for c in cells), max(c.x1 for c in cells), height if height == height else 0.0


def _numbered(text: str) -> bool:
    """A line an address may start on: a number with words ("NO.3, JALAN SS21/39"), not a
    number alone (an order's "264" over the merchant's name), nor one in brackets or a
    company number beside a branch's name ("(TONYMOLY SHOP (95874))", "(SUBANG JASA)
    666770-U"), which stand between a name and its address."""
    bare = _bare(text)
    return bool(re.search(r"\d", bare) and re.search(r"[A-Za-z]{2}", bare))


def _company_id(text: str) -> bool:
    """A line that names the company by its registration number ("(0005583085-K)", "COMPANY
    NO(814198-X)", "LITTLE CRAVINGS SDN BHD (562007-D)"), not by a tax id: it stands between
    the name and the address."""
    if _company(text):
        return name_end(text) < len(text.rstrip())
    return _registration(text) and not _TAX_ID.search(text) and not find_dates(text)


def _name_only(text: str) -> bool:
    """A name with no digit in it and no place at its end: no address line."""
    return _name_like(text) and not re.search(r"\d", text) and not ends_in_place(text)


# a branch's line under the brand: "Shibuya Dogenzaka Store", "Store #512", "Branch: Bangsar",
# "Cawangan Klang", a mall's "Mall Taman Anggrek"
_BRANCH = re.compile(
    r"(?i)\b(?:store|branch|outlet)(?:\s*(?:#|no\.?)?\s*\d+)?\s*$|"
    r"^\W*(?:branch|cawangan|outlet|mall|plaza)\b"
)


def _in_address(text: str, texts: list[str], address: int | None) -> bool:
    """Whether ``text`` is a place the address's first lines name ("Bondi Junction" over "500
    Oxford St, Bondi Junction NSW 2022"): a branch's name under the brand, not the merchant."""
    if address is None:
        return False
    words = re.findall(r"\w+", text.lower())
    place = re.findall(r"\w+", " ".join(texts[address : address + 3]).lower())
    n = len(words)
    return n > 0 and any(place[i : i + n] == words for i in range(len(place) - n + 1))


def _address_start(texts: list[str]) -> int | None:
    """The row the address starts on: the first one after the top that gives a number with
    words and is not a line of its own kind or a company's name, unless a company's name and
    its registration number follow it (a mall's "COLORS @ 1 UTAMA" or a bank's "MBB 264100"
    printed over the name is not its address)."""
    start = 1
    while True:
        address = next(
            (
                i
                for i in range(start, len(texts))
                if _numbered(texts[i]) and not aside(texts[i]) and not _company(texts[i])
            ),
            None,
        )
        if address is None:
            return None
        # an address's own line ("16200 Palekbang, Kelantan") is no mall's over a name and id
        below = texts[address + 1 : address + 3] if not _street(texts[address]) else []
        if below and _company(below[0]) and _company_id(below[0]):  # name and id on one line
            start = address + 2
        elif len(below) == 2 and _name_only(below[0]) and _company_id(below[1]):
            start = address + 3
        else:
            return address


def read_issuer(
    lines: list[Line], cells: dict[int, list[Line]], typeset: bool = True
) -> Issuer | None:
    """The issuer block at the top of the first page of ``lines`` (``cells``: each line's row,
    :func:`.payment.row_cells`), or None when the top holds no name. ``typeset``: whether the
    lines' boxes are the print's (a plain text file's are made up, so no size of type is
    compared)."""
    page = [r for r in lines[: 4 * _TOP_LINES] if r.page == lines[0].page]
    rows = printed_rows(page, cells)[:_TOP_LINES]
    texts = [r.text for r in rows]
    address = _address_start(texts)
    top = texts[: address if address is not None else len(texts)]
    # the block ends at the first phone or label line under a printed name (a person's name in
    # lower case may stand above the merchant's with a cashier's line between)
    named = [i for i, t in enumerate(top) if _name_like(t)]
    printed = [i for i in named if not _lower_case(top[i])]
    head = min(printed or named or [len(top)])
    top = top[: next((i for i in range(head, len(top)) if _closing(top[i])), len(top))]
    named = [i for i in printed if i < len(top)] or [i for i in named if i < len(top)]
    formed = [i for i in named if _legal_form().search(top[i])]
    registration = next(
        (
            i
            for i, t in enumerate(top)
            if _registration(t)
            and not find_dates(t)  # "1MAR2018" is shaped like an id, but it is a date
            and named
            and named[0] < i
        ),
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
    if name is None and named:  # the name right above the address, not a branch's under it
        name = named[-1] if address is not None else named[0]
        brands = [i for i in named if i < name]
        if brands and (_BRANCH.search(top[name]) or _in_address(top[name], texts, address)):
            name = brands[-1]
        how, rivals, why = "the name at the top of the receipt", named, _NAMES
    if name is None:
        return None
    first, last, split = _name_lines(texts, name)
    rivals = [i for i in rivals if not first <= i <= last]  # other names the rule could take
    name_doubt = why.format(nos(rows, sorted([first, *rivals]))) if rivals else split
    if _lower_case(" ".join(texts[first : last + 1])):
        name_doubt = name_doubt or (
            f"the name on {nos(rows, [first])} is written all in lower case, as a hand or a "
            "stamp writes a person's name on a slip, not as a till prints a merchant's: check "
            "that it is the merchant"
        )
    name_doubt = (
        name_doubt
        or _lost_above(rows, first)
        or _apart(rows, cells, first, last)
        or _off_axis(rows, page, first, last)
        or _among_pieces(rows, first, last)
        or _bracket_below(rows, last)
        or _lost_start(rows, first, last)
        or (_set_above(rows, page, first) if typeset else "")
    )
    start = address if address is not None and address > last else len(texts)
    end = start
    while end < len(texts) and not aside(texts[end]) and end - start < 6:
        end += 1
    if (
        start < end < len(texts)
        and _POSTCODE_ALONE.match(texts[end])
        and not any(_POSTCODE.search(t) for t in texts[start:end])
    ):
        end += 1  # "NO 1, JLN PJU 1A/4" / "47301"
    doubt = _address_doubt(rows, last, start, end) if start < end else ""
    if (
        start < end
        and not doubt
        and why is _NAMES
        and rivals
        and _POSTCODE_FIRST.match(texts[start])
        and not _STREET_WORD.search(texts[start])
    ):
        doubt = (
            f"the address starts with a postcode (line {rows[start].no}), so its street may be "
            "printed above it, on a line taken for a name; where the address starts is unclear"
        )
    head = rows[first].first  # a cell of the name's row that is the slip's number: "#000002"
    while head < rows[last].last and _LEADING_NO.fullmatch(page[head].text):
        head += 1
    tail = rows[last].last  # a cell of its row that is a trade mark's sign: "SAFEWAY" / "TM"
    while tail > head and _TRADE_MARK_ALONE.match(page[tail].text):
        tail -= 1
    if start >= end:
        return Issuer(head, tail, 0, -1, how, name_doubt, doubt)
    return Issuer(
        head,
        tail,
        rows[start].first,
        rows[end - 1].last,
        how,
        name_doubt,
        doubt,
    )
