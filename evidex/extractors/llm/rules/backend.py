"""``RulesBackend``: the offline default, filling any schema from labels, sentences, patterns and
layout alone.

It answers in exactly the shape a model does (the schema's wire model), so the verifier checks
it the same way: every quote is a verbatim slice of visible lines and cites their global
numbers. It never looks a field up by its name: each leaf is mapped to what it means
(:mod:`.meaning`: name, description, synonyms, kind) and read by the finders for that meaning,
best first:

1. a label that names the parent too ("Customer VAT ID: …" for ``buyer.vat_id``), or a plain
   label inside a block headed by the parent ("Bill to" … "Email: …") (:mod:`.labels`);
2. a sentence that states the value, read across line breaks (:mod:`.clauses`: "governed by
   and construed in accordance with the laws of …", "made and entered into as of …"), or a
   plain label from the field's name, its concept's labels or a short description;
3. a pattern that identifies itself without a label (:mod:`.contact`, :mod:`.money`);
4. layout (:mod:`.layout`): the name at the top of a CV and the line under it, the block under
   "Bill to" / "Rechnungsadresse", an address's lines, the first entry under "Experience".

A list of parties comes from the opening "between X and Y" sentence (:mod:`.parties`). Values
come back in the shape the schema asks: a plain string ``term`` gets "3 years", a ``Duration``
its amount and unit, a plain number ``total`` the number. Anything else is ``found: false``: an
honest gap beats a guess the verifier cannot catch. A span one leaf used is not reused by
another.

Where equally strong candidates disagree, or a finder read the value by a weak rule (a
``doubt``, :mod:`.receipts`), the first candidate is answered and the doubt is reported as
``document_notes.conflicting_evidence`` for the field, which verification sends to review.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.verify.locales import Order, local_currency, settle_order
from evidex.schemas import NOT_FOUND, LeafSpec, SchemaDef
from evidex.schemas.spec import value_type

from .clauses import CLAUSES, KIND_CLAUSES, Clause, Flow, whole_words
from .contact import find_emails, find_ibans, find_phones, find_urls, find_vat_ids
from .dates import in_order
from .labels import LabelFinder, label_regex, lead
from .layout import LayoutFinder
from .letters import letter_date, letter_parties, salutation, signed_date
from .lines import Hit, Leaf, Line, Lines, join_caveats, leaf
from .match import Match, Span, word_start
from .meaning import GENERIC, Concept, concept_of, description_label, field_words
from .money import currency_marks
from .parties import defined_pair, named_roles, opening, parties, sentence_end
from .receipts import ReceiptFinder
from .shape import shaped
from .values import ANCHORED

__all__ = ["NOTE", "RulesBackend"]

NOTE = "filled by the offline rules backend: fields without a label or pattern are not found"

_UNLABELLED = {
    "email": find_emails,
    "url": find_urls,
    "iban": lambda t: find_ibans(t)[0],
    "vat_id": find_vat_ids,
    "phone": find_phones,
}
_HEADING_LINES = 12  # a date alone on a line this near the top dates the document
_OPENING_CHARS = 20_000  # how far past the opening lines an agreement's first sentence is sought
_SITES = ("linkedin", "github", "gitlab", "twitter", "xing")


_READ_AS_USD = "'$' read as USD"  # the caveat of a "$" read without a place (.money)


class RulesBackend:
    """Deterministic, offline, honest: fills what labels, sentences, patterns and layout find."""

    name = "rules"

    def complete(self, request: LLMRequest) -> LLMResponse:
        filler = _Filler(Lines(request.document), request.schema)
        answer = filler.fill(request.schema.model, "")
        answer["document_notes"] = {
            "caveats": filler.notes,
            "conflicting_evidence": filler.conflicts,
            "context_structured": True,
            "suggested_clarification": "",
        }
        output = request.schema.wire_model.model_validate(answer)
        return LLMResponse(output=output, backend=self.name, model="rules-v1", mode="rules")


def _split_path(path: str) -> tuple[str, str]:
    """``("seller", "email")`` for ``seller.email``; ``("", "skills")`` for ``skills[]``."""
    parent, _, name = path.replace("[]", "").rpartition(".")
    return parent, name


class _Filler(LabelFinder, LayoutFinder, ReceiptFinder):
    def __init__(self, lines: Lines, schema: SchemaDef) -> None:
        self.lines = lines
        self.specs = {s.path: s for s in schema.leaves}
        self.parents: dict[str, set[str]] = {}
        for path in self.specs:
            parent, name = _split_path(path)
            self.parents.setdefault(name, set()).add(parent)
        self.claimed: set[tuple[int, int, int]] = set()
        self.notes = [NOTE]
        self.conflicts: list[dict[str, Any]] = []  # document_notes.conflicting_evidence
        self._cache: dict[str, list[tuple[Line, Match]]] = {}
        self._clauses: dict[int, list[re.Match[str]]] = {}
        self._flow: Flow | None = None
        self._order: Order | None = None

    @property
    def order(self) -> Order:
        """The day/month order the document settles for its numeric dates (built on first use)."""
        if self._order is None:
            self._order = settle_order(self._texts)
        return self._order

    def _in_local_dollars(self, match: Match) -> Match:
        """``match`` with a ``$`` it read as USD re-read as the dollar of the place the
        document's own cues agree it is from (:func:`.locales.local_currency`: AUD on a slip
        from ``Bondi Junction NSW 2022``), the caveat saying which cues; as it was where
        nothing places the document or the cues disagree."""
        if _READ_AS_USD not in match.caveat:
            return match
        if not hasattr(self, "_dollar"):
            self._dollar = local_currency("$", self._texts)
        if self._dollar is None:
            return match
        code, why = self._dollar
        value = match.value
        if isinstance(value, dict) and value.get("currency") == "USD":
            value = {**value, "currency": code}
        elif value == "USD":
            value = code
        return replace(match, value=value, caveat=match.caveat.replace(_READ_AS_USD, why))

    @property
    def flow(self) -> Flow:
        """The visible lines as one text, for sentences that wrap (built on first use)."""
        if self._flow is None:
            self._flow = Flow([line.text for line in self.lines.rows])
        return self._flow

    # -- walking the schema ------------------------------------------------------------------

    def fill(self, model: type[BaseModel], prefix: str, blank: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            path, ann = prefix + name, info.annotation
            item = get_args(ann)[0] if get_origin(ann) is list else None
            if item is not None:
                out[name] = [] if blank else self._list(path + "[]", item)
            elif (tp := value_type(ann)) is not None:
                out[name] = dict(NOT_FOUND) if blank else self._field(self.specs[path], tp)
            else:
                assert isinstance(ann, type) and issubclass(ann, BaseModel)
                out[name] = self.fill(ann, path + ".", blank)
        return out

    def _list(self, path: str, item: Any) -> list[Any]:
        name = _split_path(path)[1]
        concept = concept_of(name, self.specs[path].description if path in self.specs else "")
        if concept is not None and concept.key == "parties":
            return self._parties(item, path)
        if value_type(item) is not None:
            return self._leaf_list(self.specs[path])
        return []  # a list of objects has no reliable pattern: honest and empty

    # -- one leaf ----------------------------------------------------------------------------

    def _concept(self, spec: LeafSpec) -> Concept | None:
        return concept_of(_split_path(spec.path)[1], spec.description)

    def _kind(self, spec: LeafSpec, concept: Concept | None) -> str:
        """The kind to read: the schema's, unless it says only string/number and the field's
        meaning has a richer one (a plain string ``effective_date`` is read as a date)."""
        if spec.kind in GENERIC and concept is not None and concept.kind:
            if spec.kind == "text" or concept.kind == "address":
                return spec.kind
            return concept.kind
        return spec.kind

    def _field(self, spec: LeafSpec, tp: Any) -> Leaf:
        concept = self._concept(spec)
        kind = self._kind(spec, concept)
        parent = _split_path(spec.path)[0]
        matches = self.label_matches(
            self._labels(spec, concept), kind in ("string", "text"), kind in ("string", "text")
        )
        hits = [
            h
            for h in (
                *self.label_hits(kind, spec.enum, matches),
                *self._phrase_hits(spec, concept, kind),
                *self._letter_hits(concept, kind),
                *self._pattern_hits(kind),
                *self.layout_hits(
                    concept, kind, parent, self._parent_concept(parent), spec.description
                ),
                *self.receipt_hits(concept, kind, parent),
            )
            if h.key not in self.claimed and self._site_ok(spec, kind, concept, h)
        ]
        hits = self._by_block(spec, hits)
        if not hits:
            return dict(NOT_FOUND)
        best = min(hits, key=lambda h: (h.rank, h.line.no, h.match.start))
        rivals = [h for h in hits if h.rank == best.rank]
        caveats, doubts = [best.match.caveat], []
        values = {json.dumps(h.match.value, sort_keys=True) for h in rivals}
        if len(values) > 1:
            lines = ", ".join(str(n) for n in sorted({h.line.no for h in rivals}))
            caveats.append(f"picked the first of {len(values)} candidates (lines {lines})")
            doubts.append(
                f"{len(values)} different values (lines {lines}) are read by equally strong "
                "rules, and nothing settles which is meant"
            )
        name = _split_path(spec.path)[1]
        if parent and len(self.parents[name]) > 1 and not best.qualified:
            caveats.append(f"no label ties it to {parent}; taken in reading order")
        self.claimed.add(best.key)
        first, end = word_start(best.text, best.quote[0]), best.quote[1]
        quote = best.text[first:end]
        written = best.match.written or best.text[best.match.start : best.match.end]
        match = self._in_local_dollars(in_order(best.match, self.order.order, self.order.reason))
        caveats[0] = match.caveat
        if concept is not None and concept.key == "total" and not parent:
            doubts.append(self.total_doubt(best.line, match.value))
        if said := list(dict.fromkeys(d for d in (match.doubt, *doubts) if d)):  # to review
            self.conflicts.append({"fields": [spec.path], "description": "; ".join(said)})
        value = shaped(match.value, tp, spec.kind, written, quote)
        out = leaf(best.line, first, end, value, join_caveats(*caveats))
        if best.last >= 0:
            out.update(quote=quote, line_end=self.lines.rows[best.last].no)
        return out

    def _labels(self, spec: LeafSpec, concept: Concept | None) -> list[tuple[str, bool]]:
        parent, name = _split_path(spec.path)
        own = field_words(name)
        plain = list(
            dict.fromkeys(
                [
                    *(concept.labels if concept else ()),
                    own,
                    *description_label(spec.description),
                ]
            )
        )
        qualified: list[str] = []
        if parent:
            words = self._parent_words(parent.rsplit(".", 1)[-1])
            qualified = [f"{p} {b}" for p in words for b in plain]
            qualified += words if concept is not None and concept.layout == "person" else []
        return [(q, True) for q in qualified] + [(p, False) for p in plain if p]

    def _parent_concept(self, parent: str) -> Concept | None:
        return concept_of(parent.rsplit(".", 1)[-1], "", parent=True) if parent else None

    def _parent_words(self, parent: str) -> list[str]:
        concept = concept_of(parent, "", parent=True)
        return [*(concept.labels if concept else ()), field_words(parent)]

    def _phrase_hits(self, spec: LeafSpec, concept: Concept | None, kind: str) -> list[Hit]:
        """Sentences that state the value (:mod:`.clauses`), read across line breaks; a
        clause listed earlier keeps its words from a later one ("shall not renew")."""
        clauses = (CLAUSES.get(concept.key, ()) if concept else ()) + KIND_CLAUSES.get(kind, ())
        own = field_words(_split_path(spec.path)[1]).split()
        hits: list[Hit] = []
        taken: list[Span] = []
        for clause in clauses:
            stop = self.flow.preamble if clause.preamble else len(self.flow.text)
            for m in self._clause_matches(clause, stop):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                before = self.flow.text[max(0, m.start() - 120) : m.start()]
                if clause.not_after is not None and clause.not_after.search(before):
                    continue
                taken.append(m.span())  # even unquotable: "shall not / automatically renew"
                hit = self._clause_hit(kind, spec.enum, clause, m)
                if hit is not None and clause.wins_for and clause.wins_for in own:
                    hit = replace(hit, rank=(1, -101))  # above every tier: the field's own words
                if hit is not None:
                    hits.append(hit)
        return hits

    @property
    def _texts(self) -> list[str]:
        return [line.text for line in self.lines.rows]

    def _letter_hits(self, concept: Concept | None, kind: str) -> list[Hit]:
        """For the agreement's date, ranked below a sentence that dates it: the date above a
        letter's salutation, else a date alone on a line near the top, else the latest date by
        a signature."""
        if concept is None or concept.key != "agreement date" or kind != "date":
            return []
        texts = self._texts
        greeting = salutation(texts)
        found = letter_date(texts, greeting) if greeting is not None else None
        caveat, rank = "the date of the letter, above its salutation", (1, -50)
        if found is None:  # "Outsourcing Contract" / "Planning Unit: …" / "October 29, 2015"
            found = letter_date(texts, min(len(texts), _HEADING_LINES))
            caveat, rank = "a date on a line of its own at the top of the document", (2, -10)
        if found is None:
            found = signed_date(texts)
            caveat = "the latest date by a signature; the agreement states no date of its own"
            rank = (2, 0)
        if found is None:
            return []
        row, match = found
        match = replace(match, caveat=join_caveats(caveat, match.caveat))
        return [Hit(rank, self.lines.rows[row], match, (match.start, match.end))]

    def _clause_matches(self, clause: Clause, stop: int) -> list[re.Match[str]]:
        key = id(clause)
        if key not in self._clauses:
            self._clauses[key] = clause.finditer(self.flow.text, self.flow.lower, stop)
        return self._clauses[key]

    def _clause_hit(
        self, kind: str, enum: tuple[str, ...], clause: Clause, m: re.Match[str]
    ) -> Hit | None:
        """The value on one line, quoted with the words of the sentence on that line."""
        flow = self.flow
        at = flow.locate(*m.span()) if clause.fixed is not None else flow.locate(*m.span("v"))
        if at is None:
            return None if clause.fixed is not None else self._wrapped_hit(kind, enum, clause, m)
        row, start, end = at
        line = self.lines.rows[row]
        if clause.fixed is not None:
            value: Match | None = Match(start, end, clause.fixed)
        elif kind in ("string", "text"):
            value = Match(start, end, line.text[start:end])
        else:
            value = ANCHORED[kind](line.text, start, enum) if kind in ANCHORED else None
        if value is None:
            return self._wrapped_hit(kind, enum, clause, m)
        a, b = flow.clip(*m.span(), row)
        if m.start() < flow.start(row):
            first = self.lines.rows[flow.row(m.start())].no
            value = replace(
                value, caveat=join_caveats(f"the sentence starts on line {first}", value.caveat)
            )
        quote = whole_words(line.text, min(a, value.start), max(b, value.end))
        return Hit((1, clause.tier - 100), line, value, quote)

    def _wrapped_hit(
        self, kind: str, enum: tuple[str, ...], clause: Clause, m: re.Match[str]
    ) -> Hit | None:
        """A value that wraps onto the next line ("… as of June 22," / "2016, by and …"),
        quoted over the lines it runs over."""
        flow = self.flow
        start = m.start("v")
        if kind in ("string", "text"):
            value: Match | None = Match(start, m.end("v"), flow.text[start : m.end("v")])
        else:
            value = ANCHORED[kind](flow.text, start, enum) if kind in ANCHORED else None
        rows = flow.lines_of(value.start, value.end) if value is not None else None
        if value is None or rows is None or rows[0] == rows[1]:
            return None
        a = max(m.start(), flow.start(rows[0]))
        b = min(m.end(), flow.line_end(rows[1]))
        quote = whole_words(flow.text, min(a, value.start), max(b, value.end))
        line = self.lines.rows[rows[0]]
        return Hit((1, clause.tier - 100), line, value, quote, last=rows[1], source=flow.text)

    def _pattern_hits(self, kind: str) -> list[Hit]:
        if kind == "currency":
            derived = "derived from the amount on line {}"
            return [
                Hit(
                    (2, 0),
                    line,
                    replace(m, caveat=join_caveats(derived.format(line.no), m.caveat)),
                    (m.start, m.end),
                )
                for line, m in self._scan("currency")
            ]
        if kind not in _UNLABELLED:
            return []
        return [Hit((2, 0), line, m, (m.start, m.end)) for line, m in self._scan(kind)]

    def _scan(self, kind: str) -> list[tuple[Line, Match]]:
        if kind not in self._cache:
            find = currency_marks if kind == "currency" else _UNLABELLED[kind]
            self._cache[kind] = [(line, m) for line in self.lines.rows for m in find(line.text)]
            if kind == "iban":
                self.notes += [
                    f"line {line.no}: {bad!r} looks like an IBAN but its check digits "
                    "fail; not returned"
                    for line in self.lines.rows
                    for bad in find_ibans(line.text)[1]
                ]
        return self._cache[kind]

    def _by_block(self, spec: LeafSpec, hits: list[Hit]) -> list[Hit]:
        """Where parents compete (seller/buyer), a plain hit inside a block headed by one
        ("Customer VAT ID", "Bill to") belongs to that parent: kept and qualified for it,
        dropped for the others. A field of no parent is the document's own
        (:meth:`_not_the_buyers`)."""
        parent, name = _split_path(spec.path)
        parents = {p.rsplit(".", 1)[-1] for p in self.parents[name] if p}
        if not parent:
            return self._not_the_buyers(name, hits)
        if len(parents) < 2:
            return hits
        heads = {p: label_regex(tuple(self._parent_words(p))) for p in sorted(parents)}
        own, kept = parent.rsplit(".", 1)[-1], []
        for hit in hits:
            owner = None if hit.qualified else self._owner(hit.line, heads)
            if owner is None:
                kept.append(hit)
            elif owner == own:
                kept.append(replace(hit, rank=(0, hit.rank[1]), qualified=True))
        return kept

    def _not_the_buyers(self, name: str, hits: list[Hit]) -> list[Hit]:
        """A field of no parent ("address", "company") means the document's own: a hit inside
        a block headed by the buyer ("Bill to", "Customer") is left out where another hit
        remains, unless the field's own name says the buyer's ("customer_address")."""
        buyer = label_regex(tuple(self._parent_words("buyer")))
        if buyer.search(field_words(name)):
            return hits
        own = [h for h in hits if h.qualified or self._owner(h.line, {"buyer": buyer}) is None]
        return own or hits

    def _owner(self, line: Line, heads: dict[str, re.Pattern[str]]) -> str | None:
        """The parent whose heading starts this line or a line above it in the same block."""
        current: Line | None = line
        for _ in range(12):
            assert current is not None
            for parent, head in heads.items():
                if head.match(current.text, lead(current.text)):
                    return parent
            above = self.lines.before(current)
            if above is None or not above.continued_by(current):
                return None
            current = above
        return None

    def _site_ok(self, spec: LeafSpec, kind: str, concept: Concept | None, hit: Hit) -> bool:
        """A LinkedIn URL field takes a LinkedIn link; a plain URL field none that another
        field names; an address more than one letter or digit (a speck OCR read as "B" under
        an empty "Address" label is none)."""
        if kind != "url":
            short = sum(c.isalnum() for c in str(hit.match.value)) < 2
            return not (short and concept is not None and concept.kind == "address")
        url, name = str(hit.match.value).lower(), field_words(_split_path(spec.path)[1])
        own = [s for s in _SITES if s in name]
        if own:
            return any(s in url for s in own)
        named = {s for p in self.specs for s in _SITES if s in p.lower()}
        return not any(s in url for s in named)

    # -- lists -------------------------------------------------------------------------------

    def _leaf_list(self, spec: LeafSpec) -> list[Leaf]:
        concept = self._concept(spec)
        kind = self._kind(spec, concept)
        matches = self.label_matches(self._labels(spec, concept), True, True)
        return self.label_list(kind, spec.enum, matches)

    def _parties(self, item: Any, path: str) -> list[Any]:
        """The first of these that names a party, one item per party whose name can be quoted
        (a list of strings gets the names, a list of objects a name and a role where it has
        one): "between X (the "Supplier") and Y" / "among X, Y and Z" in the opening
        paragraphs; "X (“Role”) and Y (“Role”) agree"; a letter's addressee and writer; legal
        names the opening paragraphs give a role; the first "This Agreement … between"
        sentence after a cover page or a table of contents."""
        for found in self._party_spans():
            items = [self._party_item(item, path, name, role) for name, role in found]
            if items := [x for x in items if x is not None]:
                return items
        return []

    def _party_spans(self) -> Iterator[list[tuple[Span, Span | None]]]:
        text, preamble = self.flow.text, self.flow.preamble
        yield from parties(text, preamble)
        yield defined_pair(text, preamble, self._line_start)
        greeting = salutation(self._texts)
        if greeting is not None:
            yield [(span, None) for span in letter_parties(self._texts, self.flow, greeting)]
        yield named_roles(text, 0, preamble)
        start = opening(text, preamble, min(len(text), preamble + _OPENING_CHARS))
        if start is not None:
            yield from parties(text, sentence_end(text, start), start)

    def _line_start(self, pos: int) -> int:
        return self.flow.start(self.flow.row(pos))

    def _flow_leaf(self, span: Span, name: bool) -> Leaf | None:
        """A leaf quoting ``span`` of the flow: from its line, or over the lines it wraps onto;
        a name that runs on past a line holding nothing else is quoted as that line."""
        flow = self.flow
        at = flow.locate(*span) or (flow.whole_line(*span) if name else None)
        if at is not None:
            line = self.lines.rows[at[0]]
            return leaf(line, at[1], at[2], line.text[at[1] : at[2]])
        rows = flow.lines_of(*span)
        if rows is None:
            return None
        text = flow.text[span[0] : span[1]]
        out = leaf(self.lines.rows[rows[0]], 0, 0, text)
        out.update(quote=text, line_end=self.lines.rows[rows[1]].no)
        return out

    def _party_item(self, item: Any, path: str, name: Span, role: Span | None) -> Any:
        if value_type(item) is not None:
            return self._flow_leaf(name, True)
        out = self.fill(item, "", blank=True)
        keys: dict[str, str] = {}
        for key in item.model_fields:
            c = concept_of(key, "")
            if c is not None and c.layout in ("person", "job title") and key not in keys.values():
                keys["name" if c.layout == "person" else "role"] = key
        for what, span in (("name", name), ("role", role)):
            key = keys.get(what)
            found = self._flow_leaf(span, what == "name") if span is not None and key else None
            if found is not None and key:
                out[key] = found
        return out if keys.get("name") and out[keys["name"]]["found"] else None
