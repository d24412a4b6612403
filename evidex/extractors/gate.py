"""The pre-call gate: does this document hold anything the schema asks for?

Pure: the line table and the schema in, a :class:`GateReport` out (no I/O, no model).

A model asked to fill a schema from a document that cannot answer it still answers, and is paid
for it: a blank scan with the ``invoice`` schema costs a call and comes back as 25 fields "not
found", a CV sent as an invoice as a result that looks like any other. The line table and the
schema are enough to see most of these before the call:

* **No text** (``document_empty``): no visible line holds a word of two letters or digits, after
  parsing and OCR. Blank pages, a photo of nothing, OCR that read only specks.
* **No support** (``document_mismatch``): each top-level field of the schema is looked for by
  what the schema says about it, with what the rest of evidex already uses: the words of its
  name and description, compared by stem as the page ranking compares them (:mod:`.pages`:
  ``bm25s`` tokens, Snowball English), and the values its leaves' kinds identify by themselves,
  found by the rules backend's own finders (an amount with its currency or cents, a date, an
  email, an IBAN whose check digits hold, a phone number, a percentage, a duration). A field is
  *named* when a specific word of its name occurs (1); *hinted* when a word of its description
  or of its parts' names occurs, or a value of its kind sits on a line (or under a line) whose
  words label that kind, in any of the languages :mod:`evidex.schemas.kinds` reads ("Total:
  9.00", "BTW 21%" over "€ 851,27") (0.5); *valued* when values of its kind occur, unlabelled
  (0.25: every document has a date); *absent* otherwise (0). The score is the mean over the
  fields the gate can judge; under :data:`THRESHOLD` the document is refused.

Conservative by construction, because a false refusal costs more than a call: a field is judged
only when the schema says enough about it (a kind that identifies values, or a name word evidex
knows from its kinds and built-in schemas): ``{"a": {"type": "string"}}`` or names the gate has
never seen leave it nothing to judge, and it passes. Fewer than :data:`MIN_JUDGED` judged fields,
or a document of fewer than :data:`MIN_STEMS` distinct words (a short receipt): pass. The
threshold was chosen on ``shared/eval`` (every document with its own schema passes,
``bench/gate.py``) and checked on documents it was not tuned on.

A refusal says what was looked for and what the document looks like instead: the same score for
every built-in schema, the best one named when it passes ("none of invoice number, total, due
date, seller is mentioned; the document reads like a CV").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import bm25s
import pandas as pd
import Stemmer

from evidex.extractors.document import ParsedDocument
from evidex.extractors.errors import DocumentMismatch, EmptyDocument
from evidex.extractors.llm.rules.contact import find_phones
from evidex.extractors.llm.rules.money import currency_marks
from evidex.extractors.llm.rules.values import SEARCHED
from evidex.extractors.plan.groups import Unit, units
from evidex.extractors.plan.pages import KIND_WORDS
from evidex.schemas import BUILTIN, GateTrace, LeafSpec, SchemaDef
from evidex.schemas.kinds import label_kind, name_tokens

__all__ = [
    "MIN_JUDGED",
    "MIN_STEMS",
    "THRESHOLD",
    "DocumentProfile",
    "FieldSupport",
    "GateReport",
    "assess",
    "profile",
    "screen",
    "trace_of",
]

THRESHOLD = 0.13  # a document scoring under this mean support is refused (bench/gate.py)
MIN_JUDGED = 4  # fewer judged fields than this: the schema says too little to judge, pass
MIN_STEMS = 40  # fewer distinct words than this: the document says too little to judge, pass
NAMED, HINTED, VALUES = 1.0, 0.5, 0.25

Decision = Literal["pass", "document_empty", "document_mismatch"]

# Words that name no field by themselves: a document that says "date" or "number" is not yet
# an invoice's due date or its invoice number.
_GENERIC = frozenset(
    re.split(
        r"\s+",
        "name names number numbers no nr num id ids code codes value values type types data info "
        "details detail text list item items line lines other date dates amount amounts field "
        "fields document documents description descriptions note notes title full current "
        "main first last start end new old",
    )
)
# What a document calls each built-in schema in a refusal ("reads like a CV").
_LIKE = {
    "candidate_profile": "a CV",
    "invoice": "an invoice",
    "contract": "a contract",
    "receipt": "a receipt",
}

_STEMMER = Stemmer.Stemmer("english")
_AMOUNT = re.compile(r"(?<![\d.,])\d{1,3}(?:[,.' ]?\d{3})*[.,]\d{2}(?![\d%]|[.,/-]\d)")
_WORD = re.compile(r"[^\W_]{2,}")
_PHONE_LABEL = re.compile(r"(?i)\b(?:tel|phone|telephone|mobile|cell|fax)\b")


def _stems(text: str) -> list[str]:
    tokens = bm25s.tokenize(
        [text], stopwords="en", stemmer=_STEMMER, show_progress=False, return_ids=False
    )[0]
    return [str(t) for t in tokens]


def _amounts(text: str) -> bool:
    return bool(_AMOUNT.search(text) or currency_marks(text))


def _phones(text: str) -> bool:
    return bool(find_phones(text, labelled=bool(_PHONE_LABEL.search(text))))


# A kind's values, found in one line: the rules backend's finders, stopping at the first hit.
_FINDERS: dict[str, Callable[[str], object]] = {
    "amount": _amounts,
    "date": SEARCHED["date"],
    "email": SEARCHED["email"],
    "url": SEARCHED["url"],
    "iban": SEARCHED["iban"],
    "vat_id": SEARCHED["vat_id"],
    "phone": _phones,
    "percentage": SEARCHED["percentage"],
    "duration": SEARCHED["duration"],
    "years": SEARCHED["duration"],
    "currency": currency_marks,
}


@dataclass(frozen=True, slots=True)
class DocumentProfile:
    """What the gate knows of a document: its word stems and the kinds of value it holds."""

    stems: frozenset[str]
    kinds: frozenset[str]  # kinds of value found (an amount, a date, an email ...)
    labelled: frozenset[str]  # kinds found on a line with a word naming them ("Total: 9.00")
    words: int  # visible tokens of two letters or digits

    @property
    def empty(self) -> bool:
        return self.words == 0


def profile(lines: pd.DataFrame) -> DocumentProfile:
    """The profile of a line table.

    Whether it is empty is read from its visible lines (what a reader, and the model, see);
    what it mentions from all of them: text a reader cannot see is withheld from the model, but
    a scan's tiny OCR layer is still the document's text, and the gate errs towards passing.
    """
    none: frozenset[str] = frozenset()
    if not len(lines):
        return DocumentProfile(none, none, none, 0)
    texts = [str(t) for t in lines["text"].tolist()]
    shown = lines["visible"].astype(bool).tolist() if "visible" in lines else [True] * len(texts)
    words = sum(len(_WORD.findall(t)) for t, seen in zip(texts, shown, strict=True) if seen)
    if not words:
        return DocumentProfile(none, none, none, 0)
    kinds: set[str] = set()
    labelled: set[str] = set()
    above: set[str] = set()  # a label alone on its line names the value on the next one
    for text in texts:
        if not any(c.isdigit() or c == "@" or c == "." for c in text):
            above = _labels(text)
            continue
        here = _labels(text)
        named, above = here | above, here
        for kind, find in _FINDERS.items():
            if kind in labelled or (kind in kinds and kind not in named):
                continue
            if find(text):
                kinds.add(kind)
                if kind in named:
                    labelled.add(kind)
    return DocumentProfile(
        frozenset(_stems("\n".join(texts))), frozenset(kinds), frozenset(labelled), words
    )


def _labels(text: str) -> set[str]:
    """The kinds the words of one line label ("Gesamtbetrag": amount, "Datum": date)."""
    return {k for token in set(name_tokens(text)) if (k := _token_kind(token))}


@functools.lru_cache(maxsize=65536)
def _token_kind(token: str) -> str | None:
    if token.isdigit() or len(token) < 2:
        return None
    return label_kind([token], "number") or label_kind([token], "string")


@dataclass(frozen=True, slots=True)
class FieldSupport:
    """One top-level field: what named it, what hinted at it, and its support (0, 0.5 or 1)."""

    field: str
    label: str
    named_by: tuple[str, ...]  # stems of its name the document uses
    hinted_by: tuple[str, ...]  # kinds of its values, or stems of its description, found
    support: float
    judged: bool


@dataclass(frozen=True, slots=True)
class GateReport:
    """The gate's decision on a document and a schema, with its evidence."""

    decision: Decision
    score: float | None  # None: nothing to judge (or no text)
    threshold: float
    judged: int
    fields: tuple[FieldSupport, ...]
    reads_like: str = ""  # the built-in schema the document answers best, when not this one
    reason: str = ""

    @property
    def refused(self) -> bool:
        return self.decision != "pass"


def _label(name: str) -> str:
    return " ".join(name_tokens(name)) or name


def _name_stems(name: str) -> list[str]:
    return [s for s in _stems(" ".join(name_tokens(name))) if s not in _GENERIC_STEMS]


_GENERIC_STEMS = frozenset(s for w in _GENERIC for s in _stems(w)) | _GENERIC


def _leaf_words(leaf: LeafSpec) -> list[str]:
    parts = [p for p in re.split(r"[.\[\]]+", leaf.path) if p]
    return [s for p in parts[1:] for s in _name_stems(p)]


@functools.lru_cache(maxsize=8)
def _vocabulary(schemas: tuple[SchemaDef, ...]) -> frozenset[str]:
    """The stems of every word evidex knows as naming a field: its kinds' words and the names
    of the built-in schemas' fields."""
    words: set[str] = set()
    for text in KIND_WORDS.values():
        words.update(_stems(text))
    for schema in schemas:
        for leaf in schema.leaves:
            for part in re.split(r"[.\[\]]+", leaf.path):
                words.update(_name_stems(part))
    return frozenset(words - _GENERIC_STEMS)


def _field(unit: Unit, doc: DocumentProfile, known: frozenset[str]) -> FieldSupport:
    own = _name_stems(unit.name) or _stems(" ".join(name_tokens(unit.name)))
    kinds = {leaf.kind for leaf in unit.leaves if leaf.kind in _FINDERS}
    words = {s for leaf in unit.leaves for s in _stems(leaf.description) if s in known}
    words.update(s for leaf in unit.leaves for s in _leaf_words(leaf) if s in known)
    judged = bool(kinds) or any(s in known for s in own)
    named = tuple(dict.fromkeys(s for s in own if s in doc.stems))
    labelled = sorted(k for k in kinds if k in doc.labelled)
    said = sorted(s for s in words - set(own) - _GENERIC_STEMS if s in doc.stems)
    valued = sorted(k for k in kinds if k in doc.kinds)
    if named:
        support = NAMED
    elif labelled or said:
        support = HINTED
    else:
        support = VALUES if valued else 0.0
    hints = tuple(dict.fromkeys([*valued, *said]))
    return FieldSupport(unit.name, _label(unit.name), named, hints, support, judged)


def _score(
    doc: DocumentProfile, schema: SchemaDef, known: frozenset[str]
) -> tuple[float | None, tuple[FieldSupport, ...]]:
    """The mean support of the judged fields; None when there are too few to judge."""
    fields = tuple(_field(u, doc, known) for u in units(schema))
    judged = [f for f in fields if f.judged]
    if len(judged) < MIN_JUDGED or len(doc.stems) < MIN_STEMS:
        return None, fields
    return round(sum(f.support for f in judged) / len(judged), 4), fields


def _like(name: str) -> str:
    return _LIKE.get(name, f"a document for the {name!r} schema")


def _absent(fields: Sequence[FieldSupport], limit: int = 4) -> str:
    """The judged fields nothing names, at most ``limit`` of them, in schema order."""
    absent = [f.label for f in fields if f.judged and f.support < HINTED]
    return ", ".join(absent[:limit]) + (
        f" (and {len(absent) - limit} more)" if len(absent) > limit else ""
    )


def assess(
    lines: pd.DataFrame,
    schema: SchemaDef,
    builtins: Mapping[str, SchemaDef],
    threshold: float = THRESHOLD,
    document: DocumentProfile | None = None,
) -> GateReport:
    """The gate's decision for ``schema`` on the line table ``lines``.

    ``builtins`` are the schemas a refused document is compared with ("reads like a CV"); the
    names of their fields are also the words the gate knows as naming fields. ``document`` is
    the line table's :func:`profile` when the caller already has it.
    """
    doc = document or profile(lines)
    if doc.empty:
        return GateReport(
            "document_empty",
            None,
            threshold,
            0,
            (),
            reason="the document has no text after parsing and OCR (blank pages, or a scan "
            "with nothing legible): no model is called for it; send the pages that hold the "
            "content, or a sharper scan",
        )
    known = _vocabulary(tuple(builtins.values()))
    score, fields = _score(doc, schema, known)
    judged = sum(f.judged for f in fields)
    if score is None or score >= threshold:
        return GateReport("pass", score, threshold, judged, fields)
    others = {
        name: s
        for name, other in builtins.items()
        if name != schema.name
        and (s := _score(doc, other, known)[0]) is not None
        and s >= threshold
        and s > score
    }
    like = max(others, key=lambda n: others[n]) if others else ""
    instead = (
        f"the document reads like {_like(like)} (schema {like!r})"
        if like
        else "it reads like none of the built-in schemas either"
    )
    reason = (
        f"none of {_absent(fields)} is mentioned (support {score:.2f} of the {judged} fields "
        f"judged, under {threshold:.2f}); {instead}. No model was called: send the document "
        "this schema is for, or skip this check with --no-gate (options.gate = false)"
    )
    return GateReport("document_mismatch", score, threshold, judged, fields, like, reason)


def trace_of(report: GateReport, enforced: bool) -> GateTrace:
    """The report as the result's ``trace.gate``."""
    return GateTrace(
        decision=report.decision,
        enforced=enforced,
        score=report.score,
        threshold=report.threshold,
        judged=report.judged,
        supported=[f.field for f in report.fields if f.judged and f.support >= HINTED],
        missing=[f.field for f in report.fields if f.judged and f.support < HINTED],
        reads_like=report.reads_like,
    )


def screen(
    document: ParsedDocument,
    schema: SchemaDef,
    enforce: bool = True,
    builtins: Mapping[str, SchemaDef] = BUILTIN,
) -> GateTrace:
    """The gate before any model call: its verdict for ``trace.gate``; when ``enforce``,
    :class:`EmptyDocument` (``document_empty``) or :class:`DocumentMismatch`
    (``document_mismatch``) instead of a refused verdict."""
    report = assess(document.lines, schema, builtins)
    if enforce and report.decision == "document_empty":
        raise EmptyDocument(f"{document.filename}: {report.reason}")
    if enforce and report.decision == "document_mismatch":
        raise DocumentMismatch(
            f"{document.filename} as {schema.name!r}: {report.reason}",
            score=report.score,
            reads_like=report.reads_like,
        )
    return trace_of(report, enforce)
