"""The case table for ``bench.verifier_compare``: true fields and planted errors, as data.

Documents: the three samples (``samples/*.pdf``), five crafted text documents (European and US
invoices, an invoice whose own figures do not add up, a US contract, a short CV) and one PDF made
here with pymupdf whose evidence partly sits in white or near-zero-size text.

A case is one field of one document: the value and quote a model would answer with, the lines it
cites, and the other fields the answer must hold for a cross-field rule to apply (``context``).
``planted`` cases must not verify; the others must. The sample cases are every field of
``samples/*.expected.json``; the rest are written out below, each with the trap it sets. On a
sample the answer always holds the whole expected answer, with the case's field replaced.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

import pymupdf

from bench.common import SAMPLES
from evidex.schemas import get_schema

__all__ = ["AUTO", "CASES", "DOCS", "TEXT_DOCS", "Case", "hidden_pdf"]

AUTO = "auto"  # cite the first line(s) holding the quote, found by plain text search
Leaf = tuple[str, Any, str]  # (path, value, quote) of a context field, cited AUTO


@dataclass(frozen=True)
class Case:
    name: str
    doc: str
    category: str
    planted: bool
    path: str
    value: Any
    quote: str
    cite: str | tuple[int, int] | None = AUTO  # AUTO, text to search, (start, end) or no lines
    context: tuple[Leaf, ...] = ()


EU_INVOICE = """\
Müller & Söhne Werkzeuge GmbH
Hauptstr. 5, 10115 Berlin, Germany
USt-IdNr.: DE 136 695 976
Rechnung Nr.: RE-2026-0815
Rechnungsdatum: 15. März 2026
Fällig am: 04.05.2026
Pos. Artikel                 Menge   Einzelpreis       Betrag
1    Akkuschrauber XR-18         3      412,50 €   1.237,50 €
2    Bitsatz 32-teilig          12       18,90 €     226,80 €
Zwischensumme: 1.464,30 €
MwSt. 19 %: 278,22 €
Gesamtbetrag: 1.742,52 €
Bankverbindung: Commerzbank Berlin
IBAN: DE89 3704 0044 0532 0130 00
BIC: COBADEFFXXX
"""

BROKEN_INVOICE = """\
Nordlicht Office Supplies Ltd
VAT Reg No: DE136695977
Invoice No: NL-4471
Invoice date: 20 March 2026
Due date: 10 March 2026
Paper A4, 80 g            10 x 4.20 EUR      42.00 EUR
Toner cartridge            2 x 61.50 EUR     123.00 EUR
Subtotal: 175.00 EUR
VAT 20%: 35.00 EUR
Total: 220.00 EUR
IBAN: GB82 WEST 1234 5698 7654 33
"""

US_INVOICE = """\
Harbor Point Marine Supply, Inc.
Invoice #: HP-31207
Invoice Date: 03/02/2026
Ship Date: 02/17/2026
Due Date: 04/03/2026
Outboard motor service kit    1 x $1,249.00    $1,249.00
Subtotal: $1,249.00
Sales tax (8.875%): $110.85
Total Due: $1,359.85
Terms: Net 30
"""

US_CONTRACT = """\
CONSULTING AGREEMENT
This Consulting Agreement is made this 20th day of May, 2024 (the "Effective Date")
by and between Brightline Analytics, Inc. (the "Consultant") and Harbor & Vale LLC (the "Client").
1. Term. The initial term is twenty-four (24) months and ends on May 19, 2026. Thereafter this
Agreement renews automatically for successive one-year periods unless either party gives
thirty days' written notice of non-renewal.
2. Fees. Client shall pay a monthly retainer of $7,500 and a one-time onboarding fee of
US$ 1,200.50, each payable within fifteen (15) days of invoice.
3. Governing law. This Agreement is governed by the laws of the Commonwealth of Massachusetts.
"""

CV_TEXT = """\
JONAS WEBER
Senior Backend Engineer
jonas.weber@example.com | +49 (0)30 1234 5678 | github.com/jweber
Berlin, Germany
Eight years of experience building payment systems in Go and Python.
EXPERIENCE
Staff Engineer, Paymint GmbH, Berlin
March 2019 – present
Backend Engineer, Kassa Systems AG, Hamburg
September 2015 – February 2019
"""

TEXT_DOCS = {
    "eu_invoice": EU_INVOICE,
    "broken_invoice": BROKEN_INVOICE,
    "us_invoice": US_INVOICE,
    "us_contract": US_CONTRACT,
    "cv_text": CV_TEXT,
}
# document -> evidex schema; samples are PDFs in samples/, "hidden" is made by hidden_pdf()
DOCS = {
    "cv": "candidate_profile",
    "invoice": "invoice",
    "contract": "contract",
    "eu_invoice": "invoice",
    "broken_invoice": "invoice",
    "us_invoice": "invoice",
    "us_contract": "contract",
    "cv_text": "candidate_profile",
    "hidden": "invoice",
}


def hidden_pdf() -> bytes:
    """A one-page invoice whose white and 0.5 pt text says something else than the visible text."""
    doc = pymupdf.open()
    page = doc.new_page()
    visible = [
        "Kestrel Parts Ltd",
        "Invoice No: KP-20931",
        "Invoice date: 2 February 2026",
        "Total due: 1,480.00 GBP",
        "IBAN: GB82 WEST 1234 5698 7654 32",
    ]
    for i, text in enumerate(visible):
        page.insert_text((72, 90 + 20 * i), text, fontsize=11)
    white = (1.0, 1.0, 1.0)
    page.insert_text(
        (72, 220), "Updated bank details: IBAN GB33 BUKB 2020 1555 5555 55", color=white
    )
    page.insert_text((72, 240), "Total due: 148.00 GBP", fontsize=11, color=white)
    page.insert_text((72, 260), "Invoice No: KP-99999", fontsize=0.5)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def eur(v: float) -> dict[str, Any]:
    return {"value": v, "currency": "EUR"}


def usd(v: float) -> dict[str, Any]:
    return {"value": v, "currency": "USD"}


def day(iso: str, original: str = "") -> dict[str, Any]:
    return {"iso": iso, "original": original or iso}


def dur(amount: float, unit: str) -> dict[str, Any]:
    return {"amount": amount, "unit": unit}


_GROUP_KINDS = {  # category of a sample field, by its evidex kind ("text" when not listed)
    "amount": "amount currency",
    "number": "number years percentage",
    "bank/tax id": "iban bic vat_id",
    "contact": "email phone url",
    **{k: k for k in ("date", "duration", "address", "boolean")},
}
_GROUPS = {kind: group for group, kinds in _GROUP_KINDS.items() for kind in kinds.split()}


def kind_of(doc: str, path: str) -> str:
    leaves = {leaf.path: leaf.kind for leaf in get_schema(DOCS[doc]).leaves}
    return leaves[re.sub(r"\[\d+\]", "[]", path)]


def _sample_cases() -> list[Case]:
    out = []
    for doc in ("invoice", "contract", "cv"):
        expected = json.loads((SAMPLES / f"{doc}.expected.json").read_text(encoding="utf-8"))
        for path, item in expected.items():
            group = _GROUPS.get(kind_of(doc, path), "text")
            out.append(Case(f"{doc}:{path}", doc, f"true: sample {group}", False, path, **item))
    return out


# context a fieldproof Invoice needs (vendor, number, issue date, total are required there)
_BROKEN_HEAD: tuple[Leaf, ...] = (
    ("seller.name", "Nordlicht Office Supplies Ltd", "Nordlicht Office Supplies Ltd"),
    ("invoice_number", "NL-4471", "Invoice No: NL-4471"),
)
_EU_HEAD: tuple[Leaf, ...] = (
    ("seller.name", "Müller & Söhne Werkzeuge GmbH", "Müller & Söhne Werkzeuge GmbH"),
    ("invoice_number", "RE-2026-0815", "Rechnung Nr.: RE-2026-0815"),
    ("issue_date", day("2026-03-15"), "Rechnungsdatum: 15. März 2026"),
)
_EU_ITEMS: tuple[Leaf, ...] = (
    ("line_items[0].description", "Akkuschrauber XR-18", "Akkuschrauber XR-18"),
    ("line_items[0].amount", eur(1237.5), "1.237,50 €"),
    ("line_items[1].description", "Bitsatz 32-teilig", "Bitsatz 32-teilig"),
    ("line_items[1].amount", eur(226.8), "226,80 €"),
)

T, P = False, True  # true field, planted error
TRUE_FORMS, WRONG_LINES = "true: unusual but correct form", "true: wrong cited lines"
FABRICATED, PARAPHRASED = "planted: fabricated quote", "planted: paraphrased quote"
SWAPPED, DIFFERS = "planted: swapped digits", "planted: value differs from quote"
DATES = "planted: wrong date order / impossible date"
CHECKSUM = "planted: bad IBAN/VAT check digits"
SUMS, HIDDEN = "planted: total does not add up (rule)", "planted: quote in invisible text"
TRUE_RULES = "true: rules hold"

# fmt: off
CRAFTED: list[Case] = [
    # --- unusual but correct forms ----------------------------------------------------------
    Case("eu total 1.742,52 €", "eu_invoice", TRUE_FORMS, T, "total", eur(1742.52),
         "Gesamtbetrag: 1.742,52 €"),
    Case("eu unit price 412,50 €", "eu_invoice", TRUE_FORMS, T, "line_items[0].unit_price",
         eur(412.5), "412,50 €"),
    Case("eu tax rate 19 %", "eu_invoice", TRUE_FORMS, T, "tax_rate", 19.0, "MwSt. 19 %"),
    Case("date 15. März 2026", "eu_invoice", TRUE_FORMS, T, "issue_date", day("2026-03-15"),
         "Rechnungsdatum: 15. März 2026"),
    Case("date 04.05.2026 (day first)", "eu_invoice", TRUE_FORMS, T, "due_date",
         day("2026-05-04"), "Fällig am: 04.05.2026"),
    Case("IBAN compact vs spaced quote", "eu_invoice", TRUE_FORMS, T, "payment.iban",
         "DE89370400440532013000", "IBAN: DE89 3704 0044 0532 0130 00"),
    Case("VAT id vs 'DE 136 695 976'", "eu_invoice", TRUE_FORMS, T, "seller.vat_id",
         "DE136695976", "USt-IdNr.: DE 136 695 976"),
    Case("$1,359.85 as USD", "us_invoice", TRUE_FORMS, T, "total", usd(1359.85),
         "Total Due: $1,359.85"),
    Case("date 04/03/2026 (month first)", "us_invoice", TRUE_FORMS, T, "due_date",
         day("2026-04-03"), "Due Date: 04/03/2026"),
    Case("tax rate 8.875%", "us_invoice", TRUE_FORMS, T, "tax_rate", 8.875,
         "Sales tax (8.875%)"),
    Case("date '20th day of May, 2024'", "us_contract", TRUE_FORMS, T, "effective_date",
         day("2024-05-20"), "made this 20th day of May, 2024"),
    Case("date 'May 19, 2026'", "us_contract", TRUE_FORMS, T, "expiration_date",
         day("2026-05-19"), "ends on May 19, 2026"),
    Case("twenty-four (24) months", "us_contract", TRUE_FORMS, T, "term", dur(24, "months"),
         "twenty-four (24) months"),
    Case("'thirty days' notice'", "us_contract", TRUE_FORMS, T, "termination_notice",
         dur(30, "days"), "thirty days' written notice"),
    Case("'one-year periods'", "us_contract", TRUE_FORMS, T, "renewal_term", dur(1, "years"),
         "successive one-year periods"),
    Case("$7,500 as USD", "us_contract", TRUE_FORMS, T, "fees[0].amount", usd(7500),
         "monthly retainer of $7,500"),
    Case("US$ 1,200.50", "us_contract", TRUE_FORMS, T, "fees[1].amount", usd(1200.5),
         "US$ 1,200.50"),
    Case("'Eight years' for 8", "cv_text", TRUE_FORMS, T, "years_of_experience", 8.0,
         "Eight years of experience"),
    Case("email in other case", "cv_text", TRUE_FORMS, T, "email", "Jonas.Weber@Example.com",
         "jonas.weber@example.com"),
    Case("phone +49 (0)30 written", "cv_text", TRUE_FORMS, T, "phone", "+49 30 12345678",
         "+49 (0)30 1234 5678"),
    Case("URL without scheme", "cv_text", TRUE_FORMS, T, "github_url",
         "https://github.com/jweber", "github.com/jweber"),
    Case("date 'March 2019'", "cv_text", TRUE_FORMS, T, "work_history[0].start_date",
         day("2019-03-01"), "March 2019 – present"),
    Case("visible total beside hidden one", "hidden", TRUE_FORMS, T, "total",
         {"value": 1480.0, "currency": "GBP"}, "Total due: 1,480.00 GBP"),
    Case("visible IBAN beside hidden one", "hidden", TRUE_FORMS, T, "payment.iban",
         "GB82 WEST 1234 5698 7654 32", "GB82 WEST 1234 5698 7654 32"),
    # --- true quotes, wrong or missing line numbers --------------------------------------------
    Case("invoice total cited on line 3", "invoice", WRONG_LINES, T, "total", eur(19953.8),
         "19.953,80 €", (3, 3)),
    Case("governing law cited by per-page line", "contract", WRONG_LINES, T, "governing_law",
         "New York", "laws of the State of New York", (4, 4)),
    Case("signatory cited by per-page line", "contract", WRONG_LINES, T, "signatories[0].name",
         "Daniel K. Osei", "Daniel K. Osei", (23, 23)),
    Case("cv email cited on line 40", "cv", WRONG_LINES, T, "email",
         "hello@imogencastellane.dev", "hello@imogencastellane.dev", (40, 40)),
    Case("IBAN cited on line 1", "eu_invoice", WRONG_LINES, T, "payment.iban",
         "DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00", (1, 1)),
    Case("term with no lines cited", "us_contract", WRONG_LINES, T, "term", dur(24, "months"),
         "twenty-four (24) months", None),
    # --- rules that hold --------------------------------------------------------------------
    Case("eu line items sum to subtotal", "eu_invoice", TRUE_RULES, T, "subtotal",
         eur(1464.3), "Zwischensumme: 1.464,30 €",
         context=(*_EU_HEAD, *_EU_ITEMS, ("total", eur(1742.52), "Gesamtbetrag: 1.742,52 €"))),
    Case("eu subtotal + tax = total", "eu_invoice", TRUE_RULES, T, "total", eur(1742.52),
         "Gesamtbetrag: 1.742,52 €",
         context=(*_EU_HEAD, ("subtotal", eur(1464.3), "Zwischensumme: 1.464,30 €"),
                  ("tax", eur(278.22), "MwSt. 19 %: 278,22 €"))),
    # --- fabricated quotes ------------------------------------------------------------------
    Case("seller name quote made up", "invoice", FABRICATED, P, "seller.name",
         "Spree Conference House GmbH", "Spree Conference House GmbH", "Spreeufer Tagungshaus"),
    Case("governing law Delaware", "contract", FABRICATED, P, "governing_law", "Delaware",
         "governed by the laws of the State of Delaware", "governed by the laws"),
    Case("certification made up", "cv", FABRICATED, P, "certifications[0]",
         "AWS Certified Machine Learning – Specialty", "AWS Certified Machine Learning – Specialty",
         "AWS Certified"),
    Case("retainer quote with extra words", "us_contract", FABRICATED, P, "fees[0].amount",
         usd(9500), "monthly retainer of $9,500 plus expenses", "monthly retainer"),
    Case("total quote made up", "us_invoice", FABRICATED, P, "total", usd(1395.85),
         "Amount due: $1,395.85", "Total Due"),
    # --- paraphrased quotes -----------------------------------------------------------------
    Case("term paraphrased", "contract", PARAPHRASED, P, "term", dur(3, "years"),
         "the initial term is three years", "initial term"),
    Case("total paraphrased", "invoice", PARAPHRASED, P, "total", eur(19953.8),
         "the total amount due is 19.953,80 €", "Total due"),
    Case("experience paraphrased", "cv", PARAPHRASED, P, "years_of_experience", 11.0,
         "has eleven years of experience", "11 years of experience"),
    Case("effective date paraphrased", "us_contract", PARAPHRASED, P, "effective_date",
         day("2024-05-20"), "effective as of May 20, 2024", "20th day of May"),
    # --- swapped digits between quote and value -----------------------------------------------
    Case("total 19935.80", "invoice", SWAPPED, P, "total", eur(19935.8), "19.953,80 €"),
    Case("invoice number 00481", "invoice", SWAPPED, P, "invoice_number", "INV-2026-00481",
         "INV-2026-00418"),
    Case("quantity 68 for 86", "invoice", SWAPPED, P, "line_items[2].quantity", 68.0, "86"),
    Case("phone ...0985", "cv", SWAPPED, P, "phone", "+44 20 7946 0985", "+44 20 7946 0958"),
    Case("fee 15,200 for 12,500", "contract", SWAPPED, P, "fees[0].amount", usd(15200),
         "USD 12,500.00"),
    Case("term 42 months", "us_contract", SWAPPED, P, "term", dur(42, "months"),
         "twenty-four (24) months"),
    Case("VAT id digits swapped", "eu_invoice", SWAPPED, P, "seller.vat_id", "DE136695967",
         "USt-IdNr.: DE 136 695 976"),
    Case("cv phone 12345687", "cv_text", SWAPPED, P, "phone", "+49 30 12345687",
         "+49 (0)30 1234 5678"),
    # --- value differs from its quote otherwise ----------------------------------------------
    Case("EUR for $", "us_invoice", DIFFERS, P, "total", eur(1359.85), "Total Due: $1,359.85"),
    Case("1.742,52 read as 174252", "eu_invoice", DIFFERS, P, "total", eur(174252.0),
         "Gesamtbetrag: 1.742,52 €"),
    Case("'Eight years' as 18", "cv_text", DIFFERS, P, "years_of_experience", 18.0,
         "Eight years of experience"),
    Case("notice 60 days for 'thirty'", "us_contract", DIFFERS, P, "termination_notice",
         dur(60, "days"), "thirty days' written notice"),
    Case("email other domain", "cv", DIFFERS, P, "email", "hello@imogencastellane.com",
         "hello@imogencastellane.dev"),
    Case("name with one letter changed", "cv", DIFFERS, P, "full_name", "Imogen Castellano",
         "Imogen Castellane"),
    Case("auto-renewal false for 'shall automatically renew'", "contract", DIFFERS, P,
         "auto_renewal", False, "shall automatically renew"),
    # --- dates --------------------------------------------------------------------------------
    Case("effective date day/month swapped", "contract", DATES, P, "effective_date",
         day("2026-01-04"), "April 1, 2026"),
    Case("issue date 2026-02-30", "invoice", DATES, P, "issue_date", day("2026-02-30"),
         "16 March 2026"),
    Case("due date 2026-15-04", "invoice", DATES, P, "due_date", day("2026-15-04"),
         "15.04.2026"),
    Case("04.05.2026 read month first", "eu_invoice", DATES, P, "due_date", day("2026-04-05"),
         "Fällig am: 04.05.2026"),
    Case("04/03/2026 read day first (doc is m/d)", "us_invoice", DATES, P, "due_date",
         day("2026-03-04"), "Due Date: 04/03/2026"),
    Case("15.04.2026 read as 1 April", "invoice", DATES, P, "due_date", day("2026-04-01"),
         "15.04.2026"),
    Case("04/03/2026 read as 1 March", "us_invoice", DATES, P, "due_date", day("2026-03-01"),
         "Due Date: 04/03/2026"),
    Case("start month wrong", "cv_text", DATES, P, "work_history[0].start_date",
         day("2019-05-01"), "March 2019 – present"),
    Case("due before issue (rule)", "broken_invoice", DATES, P, "due_date",
         day("2026-03-10"), "Due date: 10 March 2026",
         context=(*_BROKEN_HEAD, ("issue_date", day("2026-03-20"), "Invoice date: 20 March 2026"),
                  ("total", eur(220), "Total: 220.00 EUR"))),
    # --- check digits -------------------------------------------------------------------------
    Case("IBAN check digits 45->54", "invoice", CHECKSUM, P, "payment.iban",
         "DE54 1004 0000 0482 7002 03", "DE45 1004 0000 0482 7002 03"),
    Case("IBAN last digit changed", "eu_invoice", CHECKSUM, P, "payment.iban",
         "DE89 3704 0044 0532 0130 01", "IBAN: DE89 3704 0044 0532 0130 00"),
    Case("IBAN printed with bad check digits", "broken_invoice", CHECKSUM, P, "payment.iban",
         "GB82 WEST 1234 5698 7654 33", "IBAN: GB82 WEST 1234 5698 7654 33"),
    Case("VAT id printed with bad check digit", "broken_invoice", CHECKSUM, P, "seller.vat_id",
         "DE136695977", "VAT Reg No: DE136695977"),
    Case("buyer VAT id changed", "invoice", CHECKSUM, P, "buyer.vat_id", "NL862637208B01",
         "NL862637207B01"),
    # --- totals that do not add up (the document's own figures) ------------------------------
    Case("subtotal + tax != total", "broken_invoice", SUMS, P, "total", eur(220),
         "Total: 220.00 EUR",
         context=(*_BROKEN_HEAD, ("issue_date", day("2026-03-20"), "Invoice date: 20 March 2026"),
                  ("subtotal", eur(175), "Subtotal: 175.00 EUR"),
                  ("tax", eur(35), "VAT 20%: 35.00 EUR"))),
    Case("line items != subtotal", "broken_invoice", SUMS, P, "subtotal", eur(175),
         "Subtotal: 175.00 EUR",
         context=(*_BROKEN_HEAD, ("issue_date", day("2026-03-20"), "Invoice date: 20 March 2026"),
                  ("total", eur(220), "Total: 220.00 EUR"),
                  ("line_items[0].description", "Paper A4, 80 g", "Paper A4, 80 g"),
                  ("line_items[0].amount", eur(42), "42.00 EUR"),
                  ("line_items[1].description", "Toner cartridge", "Toner cartridge"),
                  ("line_items[1].amount", eur(123), "123.00 EUR"))),
    # --- invisible text -----------------------------------------------------------------------
    Case("IBAN in white text", "hidden", HIDDEN, P, "payment.iban", "GB33BUKB20201555555555",
         "IBAN GB33 BUKB 2020 1555 5555 55"),
    Case("total in white text", "hidden", HIDDEN, P, "total", {"value": 148.0, "currency": "GBP"},
         "Total due: 148.00 GBP"),
    Case("invoice number in 0.5 pt text", "hidden", HIDDEN, P, "invoice_number", "KP-99999",
         "Invoice No: KP-99999"),
]
# fmt: on


def _whole_answer(case: Case) -> Case:
    """On a sample, the answer is the whole expected answer with the case's field in it: a real
    answer holds every field, and rules (renewal term required when auto-renewal is set) need
    them."""
    if case.doc not in ("invoice", "contract", "cv") or case.context:
        return case
    expected = json.loads((SAMPLES / f"{case.doc}.expected.json").read_text(encoding="utf-8"))
    rest = [(p, i["value"], i["quote"]) for p, i in expected.items() if p != case.path]
    return replace(case, context=tuple(rest))


CASES: list[Case] = [_whole_answer(c) for c in _sample_cases() + CRAFTED]
