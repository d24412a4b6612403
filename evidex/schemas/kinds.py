"""Which kind a leaf of a client's JSON Schema is, when the schema does not say.

A kind (amount, date, IBAN …) decides how a value is checked against its quote; a check that is
not chosen is no check. Clients mostly send names and types only (``{"discount": {"type":
"number"}}``), so every unannotated leaf gets its kind from, in this order:

1. ``x-evidex-kind`` (``declared``; ``text`` opts out of inference);
2. ``enum`` (choices; a list of ISO 4217 codes is a currency) and ``format`` (``date``,
   ``date-time``, ``email``, ``uri`` …) (``inferred``);
3. the property's name, then its parent's name with it (``phone.number``, ``total.value``), then
   a short description (``inferred``), matched against :data:`RULES`: English plus the common
   German, French and Spanish labels (``rechnungsdatum``, ``montant_ttc``, ``fecha``);
4. otherwise the JSON type alone (``default``): ``string``, ``number``, ``integer``, ``boolean``.

A rule applies only to the JSON types it names: money and rates are numbers (a ``string`` named
``price_restrictions`` is a clause, not an amount), dates, codes and contacts are strings. An
identifier (``invoice_number``, ``order_id``, ``postal_code``) is never a number or a date. A
name that says nothing (``value``, ``number``) stays plain.

Pure: a name and a schema dict in, a kind and where it came from out. The rules backend reuses
:func:`infer_kind` to map any schema's fields to its finders.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from .errors import SchemaInvalid
from .field import Kind

__all__ = [
    "COMPATIBLE",
    "FORMATS",
    "RULES",
    "KindRule",
    "KindSource",
    "infer_kind",
    "label_kind",
    "name_tokens",
]

KindSource = Literal["declared", "inferred", "default"]

_ALL_KINDS: frozenset[str] = frozenset(get_args(Kind))
_NUMERIC = frozenset({"number", "integer"})

# The kinds a leaf of each JSON type may have (declared or inferred).
COMPATIBLE: dict[str, frozenset[str]] = {
    "string": _ALL_KINDS - {"boolean", "enum"},
    "number": frozenset({"number", "integer", "amount", "percentage", "years", "text"}),
    "integer": frozenset({"number", "integer", "amount", "percentage", "years", "text"}),
    "boolean": frozenset({"boolean", "text"}),
    "enum": frozenset({"enum", "currency", "text", "string"}),
}

# JSON Schema ``format`` -> kind (string leaves only).
FORMATS: dict[str, Kind] = {
    "date": "date",
    "date-time": "date",
    "email": "email",
    "idn-email": "email",
    "uri": "url",
    "url": "url",
    "iri": "url",
    "uri-reference": "url",
    "iban": "iban",
    "bic": "bic",
    "phone": "phone",
}


@dataclass(frozen=True, slots=True)
class KindRule:
    """A name pattern (over ``_``-joined lower-case words) that gives ``kind`` to leaves of
    ``types``, unless ``unless`` matches too."""

    kind: Kind | None  # None: an identifier, never a number or a date (stays default)
    types: frozenset[str]
    pattern: re.Pattern[str]
    unless: re.Pattern[str] | None = None


def _rule(kind: Kind | None, types: str, words: str, unless: str = "") -> KindRule:
    pattern = re.compile(rf"(?:^|_)(?:{words})(?:_|$)")
    return KindRule(
        kind,
        frozenset(types.split()),
        pattern,
        re.compile(rf"(?:^|_)(?:{unless})(?:_|$)") if unless else None,
    )


_STR, _NUM = "string", "number integer"
_COUNTS = (
    "count|counts|qty|quantity|quantities|number|num|nb|pages?|items|hours?|days?|weeks?|months?|"
    "years?|experience|weight|units|employees|people|persons|score|rating|age|size|length|"
    "width|height|distance|shares|percent|pct|ratio"
)

# Ordered: the first rule that matches a leaf of its types decides.
RULES: tuple[KindRule, ...] = (
    # a clause or a passage about something is text, not that thing ("currency_clause")
    _rule(
        None,
        _STR,
        r"clause|clauses|provision|provisions|wording|excerpt|passage|summary|description|"
        r"notes?|comments?|remarks?|klausel|bestimmung|clausula|disposition",
    ),
    _rule("email", _STR, r"e_?mail[a-z]*|mail|courriel|correo(?:_electronico)?"),
    _rule(
        "phone",
        _STR,
        r"tele?phone?|tel|phone|phones|mobile?|cell|cellphone|fax|telefon[a-z]*|handy|movil|"
        r"celular|portable|mobil(?:nummer|telefon)",
    ),
    _rule(
        "url",
        _STR,
        r"url|uri|urls|website|websites|homepage|home_page|link|links|linkedin|github|web|"
        r"webpage|webseite|sitio_web|site_web|site_internet",
    ),
    _rule("iban", _STR, r"iban[a-z]*"),
    _rule("bic", _STR, r"bic|swift|bic_swift|swift_bic"),
    _rule(
        "vat_id",
        _STR,
        r"(?:vat|tva|iva|ust|mwst|btw|gst|tax|steuer|umsatzsteuer)_?(?:id|ids|no|nr|num|number|"
        r"nummer|numero|reg|registration|identification|ident|idnr)|ustid[a-z]*|steuernummer|"
        r"taxpayer_id|tin|ein|nif|cif|vatin|gstin|static_vat|vat|tva|btw|"
        r"(?:numero|n|num|no|nr)_(?:de_)?(?:tva|iva|vat|tax|siret_tva)",
    ),
    # the code, not the symbol: "€" is no ISO 4217 code
    _rule(
        "currency",
        _STR,
        r"currency|currency_code|ccy|wa[e]?hrung|devise|moneda|divisa",
        unless="symbol|symbols|sign|zeichen|symbole|simbolo",
    ),
    # identifiers: "invoice_number", "order_id", "postal_code", "rechnungsnummer"
    _rule(
        None,
        _STR + " " + _NUM,
        r"[a-z_]*_(?:id|no|nr|num|number|numbers|nummer|numero|code|ref|reference|key|sku|uuid)|"
        r"[a-z]+(?:nummer|nr)|id|ids|sku|uuid|zip|postcode|reference|ref",
    ),
    _rule(
        "date",
        _STR,
        r"[a-z]*datum|dates?|fecha|dob|birthday|birthdate|deadline|expiry|expiration|expires|"
        r"echeance|vencimiento|f(?:a|ae)lligkeit[a-z]*|geburtstag|valid_(?:from|until|through|to|"
        r"thru)|due|due_(?:on|by)|[a-z]+(?:ed|en|id|ive)_on",
        unless="amount|total|balance|sum",
    ),
    _rule(
        "duration",
        _STR,
        r"duration|term|notice|laufzeit|dauer|[a-z]*frist|duree|preavis|duracion|plazo|vigencia|"
        r"tenure|(?:notice|warranty|renewal|trial|probation|probationary|cancellation|initial|"
        r"contract|rental|lease|grace|cure|non_compete|restricted|confidentiality|validity)_period",
        unless="payment|address|addresses|email|name|party|parties|recipient|terms",
    ),
    _rule(
        "years",
        _NUM,
        r"years?_(?:of_)?(?:experience|exp|service|work|employment)|experience(?:_years?)?|"
        r"exp_years|berufserfahrung|erfahrung|experiencia|seniority|years|jahre|anos|annees",
    ),
    _rule(None, _NUM, r"exchange_rate|fx_rate|conversion_rate|rate_of_exchange|wechselkurs"),
    _rule(
        "amount",
        _NUM,
        r"(?:hourly|daily|day|weekly|monthly|annual|yearly|unit|flat|base|night|nightly)_rate|"
        r"rate_per_(?:hour|day|night|month|unit)",
    ),
    _rule(
        "percentage",
        _NUM,
        r"[a-z]*percent|percentage|pct|rate|rates|[a-z]*prozent|prozentsatz|[a-z]*satz|taux|tasa|"
        r"porcentaje|pourcentage|tipo",
    ),
    _rule(
        "amount",
        _NUM,
        r"total|totals|grand_total|amount|amounts|amt|sum|subtotal|sub_total|net|gross|balance|"
        r"due|price|prices|cost|costs|fee|fees|charge|charges|tax|taxes|vat|tva|iva|mwst|ust|gst|"
        r"btw|shipping|freight|postage|handling|discount|discounts|deposit|paid|payment|payments|"
        r"payable|salary|wage|wages|compensation|pay|income|revenue|rent|premium|penalty|"
        r"surcharge|refund|budget|worth|cap|tip|bonus|allowance|"
        r"[a-z]*betrag|[a-z]*summe|gesamt|netto|brutto|[a-z]*preis|kosten|rabatt|skonto|"
        r"geb(?:u|ue)hr[a-z]*|lohn|gehalt|montant|prix|ttc|ht|remise|frais|cout|importe|precio|"
        r"monto|coste|costo|descuento|impuesto|impuestos|base_imponible|salario|sueldo",
        unless=_COUNTS,
    ),
)

# Names that say nothing: the parent's name decides (``phone.number``, ``total.value``).
_UNINFORMATIVE = frozenset(
    [
        "value",
        "val",
        "number",
        "num",
        "code",
        "address",
        "text",
        "content",
        "data",
        "info",
        "details",
        "amount",
        "rate",
    ]
)
_DESCRIPTION_WORDS = 12  # longer descriptions say too much to pick one kind from


def name_tokens(name: str) -> list[str]:
    """``"invoiceDate"`` -> ``["invoice", "date"]``; accents and case folded, ``ß`` -> ``ss``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    folded = unicodedata.normalize("NFKD", spaced.replace("ß", "ss").replace("ẞ", "ss"))
    plain = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    return re.findall(r"[a-z]+|\d+", plain)


def _by_rules(tokens: list[str], json_type: str) -> tuple[bool, Kind | None]:
    """(matched, kind) for the first rule of ``json_type`` that matches ``tokens``."""
    joined = "_".join(tokens)
    for rule in RULES:
        if json_type not in rule.types or not rule.pattern.search(joined):
            continue
        if rule.unless is not None and rule.unless.search(joined):
            continue
        return True, rule.kind
    return False, None


def label_kind(words: list[str], json_type: str = "number") -> Kind | None:
    """The kind a label's words name for a leaf of ``json_type`` (``["grand", "total"]`` ->
    amount), or None."""
    return _by_rules(words, json_type)[1]


def _all_by_rules(tokens: list[str], json_type: str) -> set[Kind | None]:
    joined = "_".join(tokens)
    return {
        rule.kind
        for rule in RULES
        if json_type in rule.types
        and rule.pattern.search(joined)
        and not (rule.unless is not None and rule.unless.search(joined))
    }


def _json_type(node: Mapping[str, Any]) -> str:
    tp = node.get("type")
    if isinstance(tp, list):
        rest = [t for t in tp if t != "null"]
        tp = rest[0] if len(rest) == 1 else None
    if tp is None and "enum" in node:
        tp = "string"
    return str(tp) if isinstance(tp, str) else "string"


def _default(json_type: str, node: Mapping[str, Any]) -> Kind:
    if "enum" in node:
        return "enum"
    return cast(Kind, json_type if json_type in ("number", "integer", "boolean") else "string")


def _currency_codes(values: Any) -> bool:
    from babel.numbers import list_currencies

    codes = list_currencies()
    return (
        isinstance(values, list)
        and bool(values)
        and all(isinstance(v, str) and v.upper() in codes for v in values)
    )


def infer_kind(name: str, node: Mapping[str, Any], parent: str = "") -> tuple[Kind, KindSource]:
    """The kind of the leaf ``name`` (its JSON Schema ``node``, under the path ``parent``) and
    whether the schema declared it, it was inferred, or it follows from the JSON type alone.

    Raises :class:`SchemaInvalid` naming the field when a declared kind or a ``format``
    contradicts the type (``format: email`` on a number, ``x-evidex-kind: iban`` on a boolean).
    """
    where = f"{parent}.{name}" if parent else name
    json_type = _json_type(node)
    slot = "enum" if "enum" in node else json_type
    declared = node.get("x-evidex-kind")
    if declared is not None:
        if not isinstance(declared, str) or declared not in _ALL_KINDS:
            raise SchemaInvalid(
                f"{where}: unknown x-evidex-kind {declared!r}; use one of {sorted(_ALL_KINDS)}"
            )
        if declared not in COMPATIBLE.get(slot, _ALL_KINDS):
            raise SchemaInvalid(
                f"{where}: x-evidex-kind {declared!r} contradicts its type {slot!r}; a "
                f"{slot} field may be {', '.join(sorted(COMPATIBLE[slot]))}"
            )
        if declared == "text":  # the opt-out: the plain check of the type
            return ("text" if slot == "string" else _default(json_type, node)), "declared"
        return cast(Kind, declared), "declared"
    fmt = node.get("format")
    if isinstance(fmt, str) and fmt in FORMATS:
        if slot != "string":
            raise SchemaInvalid(
                f"{where}: format {fmt!r} contradicts its type {slot!r}; give it type string "
                "or drop the format"
            )
        return FORMATS[fmt], "inferred"
    if slot == "enum":
        if _currency_codes(node.get("enum")):
            return "currency", "inferred"
        return "enum", "default"
    if json_type == "boolean":
        return "boolean", "default"
    tokens = name_tokens(name)
    matched, kind = _by_rules(tokens, json_type)
    parent_name = re.sub(r"\[\]$", "", parent.rsplit(".", 1)[-1]) if parent else ""
    if not matched and parent_name and tokens and tokens[-1] in _UNINFORMATIVE:
        matched, kind = _by_rules(name_tokens(parent_name) + tokens, json_type)
    description = node.get("description")
    if not matched and isinstance(description, str) and description.strip():
        words = name_tokens(description)
        if len(words) <= _DESCRIPTION_WORDS:
            found = _all_by_rules(words, json_type)
            if len(found) == 1:
                matched, kind = True, next(iter(found))
    if matched and kind is not None and kind != _default(json_type, node):
        return kind, "inferred"
    return _default(json_type, node), "default"
