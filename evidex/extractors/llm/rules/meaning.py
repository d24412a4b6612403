"""What a schema field means, read from its name, its description and its kind.

A client's schema names its fields as it likes (``effective_date``, ``commencement``,
``contract_start``; ``party``, ``counterparties``; ``jurisdiction``, ``governing_law``), so the
backend never looks a field up by name. Each :class:`Concept` below is a fact documents state,
with the words a schema may use for it (``names``), the labels a document writes before it
(``labels``, most specific first: the rank of the label that matched decides between
candidates), the kind its value has when the schema says only ``string`` or ``number``, and the
finders that read it without a label (a contract sentence, a layout block). A field takes the
concept whose name its own name states most exactly (equal, then contained as whole words,
then named in its description); its own name and a short description are labels too.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from evidex.schemas import LeafSpec

__all__ = ["GENERIC", "PARENTS", "Concept", "concept_of", "description_label", "field_words"]

GENERIC = frozenset({"string", "text", "number", "integer"})


@dataclass(frozen=True, slots=True)
class Concept:
    """A fact a document states: how schemas name it, how documents label it."""

    key: str  # the concept's own name, also the key of its sentences in ``clauses.py``
    names: tuple[str, ...]
    labels: tuple[str, ...]
    kind: str = ""  # the value's kind when the schema gives only string/number
    layout: str = ""  # a layout finder in ``layout.py``: person, headline, location, ...


def _c(key: str, names: str, labels: str = "", kind: str = "", layout: str = "") -> Concept:
    return Concept(key, _split(names), _split(labels) or _split(names), kind, layout)


def _split(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split("|") if x.strip())


CONCEPTS = (
    # -- invoices
    _c("invoice number", "invoice number | invoice no | invoice id | invoice nr | bill number"
       " | rechnungsnummer | numero de facture | numero factura",
       "invoice no | invoice number | invoice # | invoice nr | invoice id | rechnungsnummer"),
    _c("purchase order", "purchase order | po number | po no | order number | po | order no",
       "purchase order | po number | po no | po # | order no | order number | po"),
    _c("issue date", "issue date | invoice date | date of issue | issued on | billing date"
       " | rechnungsdatum | fecha factura",
       "invoice date | issue date | date of issue | issued on | rechnungsdatum | date", "date"),
    _c("due date", "due date | payment due | payment due date | due on | pay by | date due"
       " | fälligkeitsdatum", "due date | payment due | due on | pay by | fällig am"
       " | fälligkeitsdatum", "date"),
    _c("total", "total | total due | amount due | grand total | total amount | invoice total"
       " | balance due | amount | gesamtbetrag | montant | importe total | amount total",
       "total due | amount due | grand total | total amount | invoice total | balance due"
       " | gesamtbetrag | total", "amount"),
    _c("subtotal", "subtotal | sub total | net amount | total net | net total | untaxed amount"
       " | amount untaxed | total before tax | nettobetrag",
       "subtotal | sub total | net amount | total net | net total | nettobetrag", "amount"),
    _c("tax", "tax | tax amount | vat amount | sales tax | total tax | amount tax | mwst | ust",
       "vat amount | tax amount | total vat | total tax | sales tax | vat | tax | mwst | ust",
       "amount"),
    _c("tax rate", "tax rate | vat rate | tax percent | vat percent | tax percentage",
       "vat rate | tax rate | vat | tax | mwst | ust", "percentage"),
    _c("currency", "currency | currency code | währung | devise | moneda", "currency | währung",
       "currency"),
    _c("payment terms", "payment terms | terms of payment | payment conditions",
       "payment terms | terms of payment | zahlungsbedingungen | terms"),
    _c("iban", "iban | account number iban", "iban", "iban"),
    _c("bic", "bic | swift | bic swift | swift code | swift bic",
       "bic/swift | swift/bic | swift code | bic | swift", "bic"),
    _c("vat id", "vat id | vat number | vat no | tax id | tax number | vat reg no | ust id"
       " | tax identification number | vat registration number",
       "vat id | vat no | vat number | vat reg no | vat registration number | ust-idnr"
       " | ust-id | tax id | vat", "vat_id"),
    _c("bank name", "bank name | bank", "bank name | bank"),
    _c("account holder", "account holder | account name | beneficiary | kontoinhaber",
       "account holder | account name | beneficiary | kontoinhaber"),
    _c("payment reference", "payment reference | reference | remittance reference"
       " | verwendungszweck", "payment reference | verwendungszweck | reference | ref"),
    # -- contacts
    _c("email", "email | e mail | email address | mail", "e-mail | email | mail", "email"),
    _c("phone", "phone | telephone | phone number | mobile | tel | cell",
       "telephone | phone | mobile | tel | cell | telefon", "phone"),
    _c("website", "website | url | homepage | web | portfolio | site | linkedin | github",
       "website | portfolio | homepage", "url"),
    _c("address", "address | postal address | street address | billing address"
       " | mailing address | anschrift | merchant address | store address | shop address"
       " | business address | company address", "address | anschrift", "address", "address"),
    # -- receipts: the issuer named at the top
    _c("merchant", "merchant | merchant name | store | store name | shop | shop name | retailer"
       " | business name | vendor name | seller name | issuer | trading name", "merchant",
       layout="merchant"),
    # -- contracts
    _c("agreement date", "effective date | commencement date | agreement date | contract date"
       " | date of agreement | execution date | effective | start of agreement | contract start"
       " | agreement start | vertragsbeginn | inkrafttreten | vertragsdatum | date d effet"
       " | date du contrat | date d entrée en vigueur | fecha de entrada en vigor"
       " | fecha efectiva | fecha del contrato",
       "effective date | effective as of | effective | commencement date", "date"),
    _c("end date", "expiration date | expiry date | end date | termination date | expires"
       " | expiry | vertragsende | ablaufdatum | date d expiration | date de fin"
       " | fecha de vencimiento | fecha de terminación",
       "expiration date | expiry date | expires on | end date | valid until"
       " | terminates on | ending on | ends on", "date"),
    _c("agreement term", "term | duration | initial term | contract term | agreement term"
       " | period | length of agreement | laufzeit | vertragslaufzeit | vertragsdauer | durée"
       " | durée du contrat | duración | plazo | vigencia",
       "initial term | term of this agreement | term | duration", "duration"),
    _c("renewal term", "renewal term | renewal period | renewal",
       "renewal term | renewal period | renew for | renews for | successive", "duration"),
    _c("notice", "termination notice | notice period | notice | notice to terminate"
       " | kündigungsfrist | préavis | délai de préavis | plazo de preaviso | preaviso",
       "notice period | written notice | prior notice | notice", "duration"),
    _c("auto renewal", "auto renewal | automatic renewal | renews automatically | auto renew"
       " | evergreen", "auto renewal | automatic renewal"),
    _c("governing law", "governing law | jurisdiction | applicable law | choice of law | law"
       " | governed by | anwendbares recht | rechtswahl | gerichtsstand | droit applicable"
       " | loi applicable | ley aplicable | legislación aplicable | jurisdicción",
       "governing law | applicable law"),
    _c("parties", "parties | party | counterparty | counterparties | contracting parties"
       " | contract parties | parteien | vertragsparteien | vertragspartner"
       " | parties contractantes | partes | partes contratantes", "parties"),
    _c("document title", "title | document title | agreement title | document name"
       " | name of agreement", "title", layout="title"),
    # -- CVs
    _c("person", "full name | name | candidate name | person name | applicant name"
       " | candidate | applicant", "name | full name", layout="person"),
    _c("headline", "headline | tagline | professional headline | target role"
       " | professional title", "headline", layout="headline"),
    _c("location", "location | city | based in | residence | home town | place of residence",
       "location | based in", layout="location"),
    _c("job title", "job title | current title | current position | position | role"
       " | current role", "job title | position", layout="job title"),
    _c("employer", "employer | current employer | company | current company | organisation"
       " | organization", "employer | company", layout="employer"),
    _c("skills", "skills | skill | competencies | technologies | tech stack",
       "technical skills | key skills | core skills | skills | competencies | technologies"),
    _c("certifications", "certifications | certification | certificates | licenses | licences",
       "certifications | certificates | licenses | licences"),
    _c("work authorization", "work authorization | work authorisation | work permit"
       " | visa status | right to work | visa",
       "work authorization | work authorisation | work permit | visa status | right to work"),
    _c("availability", "availability | available from | start availability",
       "availability | available from | notice period"),
    _c("experience", "years of experience | experience years | total experience | experience",
       "years of experience | total experience", "years"),
)  # fmt: skip

# Objects a schema nests values under, and the headings that start their block in a document.
PARENTS = (
    _c("seller", "seller | supplier | vendor | issuer | merchant | biller | sold by | from"
       " | issued by | lieferant | verkäufer",
       "seller | supplier | vendor | issued by | from | remit to | lieferant"),
    _c("buyer", "buyer | customer | client | bill to | billed to | invoice to | sold to"
       " | ship to | purchaser | recipient | kunde | bill | billing",
       "bill to | billed to | invoice to | sold to | ship to | deliver to | buyer | customer"
       " | client | rechnungsadresse | lieferadresse | kunde | factuuradres | afleveradres"
       " | adresse de facturation | facturé à | dirección de facturación | facturar a"),
    _c("payment", "payment | bank details | payment details | bank account | bank",
       "payment | bank details | bankverbindung"),
)  # fmt: skip

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def field_words(name: str) -> str:
    """``effectiveDate``, ``effective_date`` and ``effective-date`` as ``effective date``."""
    return " ".join(re.split(r"[\W_]+", _CAMEL.sub(" ", name).lower())).strip()


def _contains(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", text) is not None


def _fold(text: str) -> str:
    """Without accents: a schema may write "durée" or "duree", "préavis" or "preavis"."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _best(words: str, description: str, table: tuple[Concept, ...]) -> Concept | None:
    scored: list[tuple[float, Concept]] = []
    words, description = _fold(words), _fold(description)
    for concept in table:
        for name in map(_fold, concept.names):
            if words == name:
                scored.append((3.0, concept))
            elif _contains(words, name):
                scored.append((2.0 + len(name) / 100, concept))
            elif description and _contains(description, name):
                scored.append((1.0 + len(name) / 100, concept))
    return max(scored, key=lambda x: x[0])[1] if scored else None


@lru_cache(maxsize=1024)
def concept_of(name: str, description: str = "", parent: bool = False) -> Concept | None:
    """The concept a field (or, with ``parent``, an object) of this name and description
    stands for; ``None`` when nothing names one."""
    first = description.split(".")[0].split(";")[0].lower()
    return _best(field_words(name), first, PARENTS if parent else CONCEPTS)


def description_label(description: str) -> list[str]:
    """A short description ("Purchase order number") doubles as a label."""
    text = re.sub(r"\([^)]*\)", "", description.split(";")[0]).strip().rstrip(".").lower()
    return [text] if text and len(text.split()) <= 4 else []


def spec_concept(spec: LeafSpec) -> Concept | None:
    name = spec.path.replace("[]", "").rsplit(".", 1)[-1]
    return concept_of(name, spec.description)
