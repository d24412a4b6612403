"""``RulesBackend``: the offline default, filling a schema from labels and patterns alone.

It answers in exactly the shape a model does (the schema's wire model), so the verifier checks
it the same way: every quote is a verbatim slice of one visible line and cites that line's
global number. It is driven by each leaf's kind, path and description, never by the schema's
name, so it works for custom schemas too. Where to look, best first:

1. a label that names the parent too ("Customer VAT ID: …" for ``buyer.vat_id``), or a plain
   label inside a block headed by the parent ("Bill to" … "Email: …");
2. a sentence that states the value, read across line breaks (:mod:`.clauses`: "governed by
   and construed in accordance with the laws of …", "made and entered into as of …", "the term
   of this Agreement shall be …"), or a plain label from the field's name, its synonyms
   (:data:`~.patterns.LABELS`) or a short description ("Invoice No: …", "Due date
   14.04.2026", a label alone with its value on the next line);
3. a pattern that identifies itself without a label: an email, a URL, an international phone
   number, an IBAN or EU VAT ID whose check digits hold, the currency of a written amount;
4. for a top-level ``full_name``/``name``/``title``, the most prominent line of page 1.

A list of parties comes from the opening "between X (the "Supplier") and Y" / "among X, Y and
Z" sentence, leaving out terms the agreement defines ("the Company", "Employee").

Anything else is ``found: false`` with a null span: an honest gap beats a guess the verifier
cannot catch (an address, a line item, a headline have no reliable pattern). A span one leaf
used is not reused by another, and a value inside another parent's block is not taken, so the
buyer never gets the seller's email; when several candidates compete and nothing decides, the
first wins and the caveat says so.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.llm.clauses import (
    CLAUSES,
    KIND_CLAUSES,
    Clause,
    Flow,
    parties,
    whole_words,
)
from evidex.extractors.llm.patterns import (
    ANCHORED,
    LABELS,
    PARENT_LABELS,
    PERCENT_PREFIX,
    SEARCHED,
    Match,
    Span,
    currency_marks,
    description_label,
    find_emails,
    find_ibans,
    find_phones,
    find_urls,
    find_vat_ids,
    label_regex,
    near_value,
    norm_label,
    parse_string,
    plausible_heading,
    split_items,
)
from evidex.schemas import NOT_FOUND, LeafSpec, SchemaDef
from evidex.schemas.spec import value_type

__all__ = ["NOTE", "RulesBackend"]

NOTE = "filled by the offline rules backend: fields without a label or pattern are not found"
Leaf = dict[str, Any]

_SEP = re.compile(r"\.?\s*(?:\([^()]{0,24}\)\s*)?(?:[:#=]|[-–](?=\s))?\s*")
_LEAD = re.compile(r"\s*(?:[-•*·▪]\s*|\(?[0-9a-z]{1,3}[.)]\s*)?(?:\d+(?:\.\d+)*\.?\s+)?")
_ID_TOKEN = re.compile(r"[^\s:]*\d\S*?(?=[.,;]?(?:\s|$))")
_COLON = re.compile(r"[:#=–-]\s*$")  # the separator ends in "Label: " (or "#", "=", " - ")
_BULLET = re.compile(r"\s*[-•*·▪]\s+")
_UNLABELLED = {
    "email": find_emails,
    "url": find_urls,
    "iban": lambda t: find_ibans(t)[0],
    "vat_id": find_vat_ids,
    "phone": find_phones,
}
_NEXT_LINE_KINDS = {"date", "amount", "currency", "percentage", "duration", "bic", *_UNLABELLED}
_SITES = ("linkedin", "github", "gitlab", "twitter", "xing")
_PROSE = re.compile(r"\s+(?:and|or|of|shall|will|is|are|to|in|for|with|by|as)\s")
_PARTY_LISTS = {"parties", "contract_parties", "contracting_parties"}


class RulesBackend:
    """Deterministic, offline, honest: fills what labels and patterns find, nothing else."""

    name = "rules"

    def complete(self, request: LLMRequest) -> LLMResponse:
        filler = _Filler(request.document, request.schema)
        answer = filler.fill(request.schema.model, "")
        answer["document_notes"] = {
            "caveats": filler.notes,
            "conflicting_evidence": [],
            "context_structured": True,
            "suggested_clarification": "",
        }
        output = request.schema.wire_model.model_validate(answer)
        return LLMResponse(output=output, backend=self.name, model="rules-v1", mode="rules")


@dataclass(frozen=True, slots=True)
class _Line:
    index: int  # position among the visible lines
    no: int  # global line number, what a quote cites
    page: int
    text: str
    size: float
    y0: float
    y1: float

    def continued_by(self, below: _Line) -> bool:
        """``below`` is the next line of the same block: same row, or just under, no gap."""
        if below.page != self.page or math.isnan(self.y1 + below.y0):
            return below.page == self.page
        return below.y0 >= self.y0 - 1 and below.y0 - self.y1 <= 0.8 * max(self.y1 - self.y0, 1)


@dataclass(frozen=True, slots=True)
class _Hit:
    rank: tuple[int, int]  # (tier, label rank): lower wins
    line: _Line
    match: Match  # the value's span in line.text
    quote: tuple[int, int]
    qualified: bool = False  # tied to the leaf's parent by a label or a block heading

    @property
    def key(self) -> tuple[int, int, int]:
        return self.line.no, self.match.start, self.match.end


def _leaf(line: _Line, start: int, end: int, value: Any, caveat: str = "") -> Leaf:
    return {
        "quote": line.text[start:end],
        "page": line.page,
        "line_start": line.no,
        "line_end": line.no,
        "found": True,
        "value": value,
        "caveat": caveat,
    }


def _join(*caveats: str) -> str:
    return "; ".join(c for c in caveats if c)


def _split_path(path: str) -> tuple[str, str]:
    """``("seller", "email")`` for ``seller.email``; ``("", "skills")`` for ``skills[]``."""
    parent, _, name = path.replace("[]", "").rpartition(".")
    return parent, name


def _words(name: str) -> str:
    return name.replace("_", " ").strip()


def _num(value: Any) -> float:
    return float(value) if value is not None and value == value else math.nan


def _sep(text: str, pos: int) -> re.Match[str]:
    sep = _SEP.match(text, pos)
    assert sep is not None  # every part of _SEP is optional
    return sep


def _lead(text: str) -> int:
    lead = _LEAD.match(text)
    return lead.end() if lead else 0


class _Filler:
    def __init__(self, document: ParsedDocument, schema: SchemaDef) -> None:
        df = document.lines[document.lines["visible"].astype(bool)]
        columns = ("line", "page", "text", "font_size", "y0", "y1")
        rows = zip(*(df[c].tolist() for c in columns), strict=True)
        self.lines = [
            _Line(i, int(no), int(page), str(text), _num(size), _num(y0), _num(y1))
            for i, (no, page, text, size, y0, y1) in enumerate(rows)
        ]
        self.specs = {s.path: s for s in schema.leaves}
        self.parents: dict[str, set[str]] = {}
        for path in self.specs:
            parent, name = _split_path(path)
            self.parents.setdefault(name, set()).add(parent)
        self.claimed: set[tuple[int, int, int]] = set()
        self.notes = [NOTE]
        self._cache: dict[str, list[tuple[_Line, Match]]] = {}
        self._flow: Flow | None = None

    @property
    def flow(self) -> Flow:
        """The visible lines as one text, for sentences that wrap (built on first use)."""
        if self._flow is None:
            self._flow = Flow([line.text for line in self.lines])
        return self._flow

    # -- walking the schema ------------------------------------------------------------------

    def fill(self, model: type[BaseModel], prefix: str, blank: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            path, ann = prefix + name, info.annotation
            item = get_args(ann)[0] if get_origin(ann) is list else None
            if item is not None:
                out[name] = [] if blank else self._list(path + "[]", item)
            elif value_type(ann) is not None:
                out[name] = dict(NOT_FOUND) if blank else self._field(self.specs[path])
            else:
                assert isinstance(ann, type) and issubclass(ann, BaseModel)
                out[name] = self.fill(ann, path + ".", blank)
        return out

    def _list(self, path: str, item: Any) -> list[Any]:
        if value_type(item) is not None:
            return self._leaf_list(self.specs[path])
        if _split_path(path)[1] in _PARTY_LISTS and "name" in item.model_fields:
            return self._parties(item)
        return []  # a list of objects has no reliable pattern: honest and empty

    # -- one leaf ----------------------------------------------------------------------------

    def _field(self, spec: LeafSpec) -> Leaf:
        hits = [
            h
            for h in (
                *self._label_hits(spec),
                *self._phrase_hits(spec),
                *self._pattern_hits(spec),
                *self._prominent(spec),
            )
            if h.key not in self.claimed and self._site_ok(spec, h)
        ]
        hits = self._by_block(spec, hits)
        if not hits:
            return dict(NOT_FOUND)
        best = min(hits, key=lambda h: (h.rank, h.line.no, h.match.start))
        rivals = [h for h in hits if h.rank == best.rank]
        caveats = [best.match.caveat]
        values = {json.dumps(h.match.value, sort_keys=True) for h in rivals}
        if len(values) > 1:
            lines = ", ".join(str(n) for n in sorted({h.line.no for h in rivals}))
            caveats.append(f"picked the first of {len(values)} candidates (lines {lines})")
        parent, name = _split_path(spec.path)
        if parent and len(self.parents[name]) > 1 and not best.qualified:
            caveats.append(f"no label ties it to {parent}; taken in reading order")
        self.claimed.add(best.key)
        return _leaf(best.line, *best.quote, best.match.value, _join(*caveats))

    def _labels(self, spec: LeafSpec) -> list[tuple[str, bool]]:
        parent, name = _split_path(spec.path)
        plain = list(
            dict.fromkeys(
                [*LABELS.get(name, ()), _words(name), *description_label(spec.description)]
            )
        )
        qualified: list[str] = []
        if parent:
            own = self._parent_words(parent.rsplit(".", 1)[-1])
            qualified = [f"{p} {b}" for p in own for b in plain] + (own if name == "name" else [])
        return [(q, True) for q in qualified] + [(p, False) for p in plain]

    @staticmethod
    def _parent_words(parent: str) -> list[str]:
        return [*PARENT_LABELS.get(parent, ()), _words(parent)]

    def _label_matches(self, spec: LeafSpec) -> list[tuple[_Line, re.Match[str], int, bool]]:
        """(line, label match, rank, qualified) for each well-placed label."""
        labels = self._labels(spec)
        lookup: dict[str, tuple[int, bool]] = {}
        for rank, (label, qualified) in enumerate(labels):
            lookup.setdefault(norm_label(label), (rank, qualified))
        strict = spec.kind in ("string", "text") or spec.path.endswith("[]")
        regex, out = label_regex([label for label, _ in labels]), []
        for line in self.lines:
            for m in regex.finditer(line.text):
                rank, qualified = lookup.get(norm_label(m.group()), (-1, False))
                before = line.text[: m.start()]
                prev = before.split()[-1] if before.split() else ""
                colon = ":" in _sep(line.text, m.end()).group()
                # A one-word label ("Total", "Date") starts its line or ends in a colon after a
                # value ("INV-1 Date:"), so "Due date" is never read as "date".
                placed = len(before) <= _lead(line.text) or (
                    not strict
                    and (bool(re.search(r"\W", m.group())) or (colon and not prev.isalpha()))
                )
                if rank >= 0 and placed and not self._in_prose(line, m):
                    out.append((line, m, rank, qualified))
        return out

    def _in_prose(self, line: _Line, m: re.Match[str]) -> bool:
        """A label word that carries on the sentence of the line above is prose, not a label
        ("… during the" / "Term and for a period of two years thereafter")."""
        if not line.index or not _PROSE.match(line.text, m.end()):
            return False
        above = self.lines[line.index - 1]
        return above.continued_by(line) and bool(re.search(r"[a-z,]$", above.text.rstrip()))

    def _label_hits(self, spec: LeafSpec) -> list[_Hit]:
        hits = []
        for line, m, rank, qualified in self._label_matches(spec):
            found = self._value_after(spec, line, m)
            if found:
                at, match, quote = found
                hits.append(_Hit((0 if qualified else 1, rank), at, match, quote, qualified))
        return hits

    def _value_after(
        self, spec: LeafSpec, line: _Line, m: re.Match[str]
    ) -> tuple[_Line, Match, tuple[int, int]] | None:
        kind, text, sep = spec.kind, line.text, _sep(line.text, m.end())
        pos, rest, value = sep.end(), line.text[sep.end() :].strip(), None
        if not rest or (kind == "amount" and PERCENT_PREFIX.fullmatch(rest)):
            alone = not rest and len(text[: m.start()]) <= _lead(text)
            if below := self._next_line(spec, line, alone):
                return below
        if rest and kind in ("string", "text"):
            # a string needs "Label:" unless it is one ID-like token ("Invoice No INV-1")
            if _COLON.search(sep.group()):
                value = parse_string(text, pos)
            elif token := _ID_TOKEN.match(text, pos):
                value = Match(pos, token.end(), token.group())
        elif rest and kind in ANCHORED:
            value = ANCHORED[kind](text, pos, spec.enum)
        if value is None and kind in SEARCHED:
            value = near_value(SEARCHED[kind](text), text, m, pos, before=kind == "duration")
        if value is None:
            return None
        start, end = min(m.start(), value.start), max(m.end(), value.end)
        if text[start:end].count("(") > text[start:end].count(")") and text[end : end + 1] == ")":
            end += 1  # "VAT (19%" reads better closed
        return line, value, (start, end) if end - start <= 120 else (value.start, value.end)

    def _next_line(
        self, spec: LeafSpec, line: _Line, alone: bool
    ) -> tuple[_Line, Match, tuple[int, int]] | None:
        """A label ending its line, the value starting the next one ("IBAN" / "DE45 …")."""
        below = self.lines[line.index + 1] if line.index + 1 < len(self.lines) else None
        if below is None or not line.continued_by(below):
            return None
        text, value = below.text, None
        pos = len(text) - len(text.lstrip())
        if spec.kind in ("string", "text"):
            # only a short value under a label alone on its line: a heading over a paragraph
            # ("Governing law" / "This Agreement shall…") is not a value
            short = len(text.split()) <= 8 and len(text) <= 60 and not text.rstrip().endswith(":")
            token = _ID_TOKEN.match(text, pos)
            if alone and short:
                value = parse_string(text, pos)
            elif token and not text[token.end() :].strip(" .,;"):
                value = Match(pos, token.end(), token.group())
        elif spec.kind in _NEXT_LINE_KINDS and spec.kind in ANCHORED:
            value = ANCHORED[spec.kind](text, pos, spec.enum)
        elif spec.kind in _NEXT_LINE_KINDS and spec.kind in SEARCHED:
            value = next((v for v in SEARCHED[spec.kind](text) if v.start == pos), None)
        return (below, value, (value.start, value.end)) if value else None

    def _phrase_hits(self, spec: LeafSpec) -> list[_Hit]:
        """Sentences that state the value (:mod:`.clauses`), read across line breaks; a
        clause listed earlier keeps its words from a later one ("shall not renew")."""
        clauses = CLAUSES.get(_split_path(spec.path)[1], ()) + KIND_CLAUSES.get(spec.kind, ())
        hits: list[_Hit] = []
        taken: list[tuple[int, int]] = []
        for clause in clauses:
            stop = self.flow.preamble if clause.preamble else len(self.flow.text)
            for m in clause.pattern.finditer(self.flow.text):
                if m.start() >= stop:
                    break
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                before = self.flow.text[max(0, m.start() - 120) : m.start()]
                if clause.not_after is not None and clause.not_after.search(before):
                    continue
                taken.append(m.span())  # even unquotable: "shall not / automatically renew"
                hit = self._clause_hit(spec, clause, m)
                if hit is not None:
                    hits.append(hit)
        return hits

    def _clause_hit(self, spec: LeafSpec, clause: Clause, m: re.Match[str]) -> _Hit | None:
        """The value on one line, quoted with the words of the sentence on that line."""
        flow = self.flow
        at = flow.locate(*m.span()) if clause.fixed is not None else flow.locate(*m.span("v"))
        if at is None:
            return None  # the value (or a fixed answer's sentence) is split over lines
        row, start, end = at
        line = self.lines[row]
        if clause.fixed is not None:
            value: Match | None = Match(start, end, clause.fixed)
        elif spec.kind in ("string", "text"):
            value = Match(start, end, line.text[start:end])
        else:
            value = ANCHORED[spec.kind](line.text, start, spec.enum)
        if value is None:
            return None
        a, b = flow.clip(*m.span(), row)
        if m.start() < flow.start(row):
            first = self.lines[flow.row(m.start())].no
            value = replace(
                value, caveat=_join(f"the sentence starts on line {first}", value.caveat)
            )
        quote = whole_words(line.text, min(a, value.start), max(b, value.end))
        return _Hit((1, clause.tier - 100), line, value, quote)

    def _pattern_hits(self, spec: LeafSpec) -> list[_Hit]:
        if spec.kind == "currency":
            derived = "derived from the amount on line {}"
            return [
                _Hit(
                    (2, 0),
                    line,
                    replace(m, caveat=_join(derived.format(line.no), m.caveat)),
                    (m.start, m.end),
                )
                for line, m in self._scan("currency")
            ]
        if spec.kind not in _UNLABELLED:
            return []
        return [_Hit((2, 0), line, m, (m.start, m.end)) for line, m in self._scan(spec.kind)]

    def _scan(self, kind: str) -> list[tuple[_Line, Match]]:
        if kind not in self._cache:
            find = currency_marks if kind == "currency" else _UNLABELLED[kind]
            self._cache[kind] = [(line, m) for line in self.lines for m in find(line.text)]
            if kind == "iban":
                self.notes += [
                    f"line {line.no}: {bad!r} looks like an IBAN but its check digits "
                    "fail; not returned"
                    for line in self.lines
                    for bad in find_ibans(line.text)[1]
                ]
        return self._cache[kind]

    def _by_block(self, spec: LeafSpec, hits: list[_Hit]) -> list[_Hit]:
        """Where parents compete (seller/buyer), a plain hit inside a block headed by one
        ("Customer VAT ID", "Bill to") belongs to that parent: kept and qualified for it,
        dropped for the others."""
        parent, name = _split_path(spec.path)
        parents = {p.rsplit(".", 1)[-1] for p in self.parents[name] if p}
        if not parent or len(parents) < 2:
            return hits
        heads = {p: label_regex(self._parent_words(p)) for p in sorted(parents)}
        own, kept = parent.rsplit(".", 1)[-1], []
        for hit in hits:
            owner = None if hit.qualified else self._owner(hit.line, heads)
            if owner is None:
                kept.append(hit)
            elif owner == own:
                kept.append(replace(hit, rank=(0, hit.rank[1]), qualified=True))
        return kept

    def _owner(self, line: _Line, heads: dict[str, re.Pattern[str]]) -> str | None:
        """The parent whose heading starts this line or a line above it in the same block."""
        for _ in range(12):
            for parent, head in heads.items():
                if head.match(line.text, _lead(line.text)):
                    return parent
            above = self.lines[line.index - 1] if line.index else None
            if above is None or not above.continued_by(line):
                return None
            line = above
        return None

    def _site_ok(self, spec: LeafSpec, hit: _Hit) -> bool:
        """``linkedin_url`` takes a LinkedIn link; a plain URL field none that another claims."""
        if spec.kind != "url":
            return True
        url, name = str(hit.match.value).lower(), _split_path(spec.path)[1]
        own = [s for s in _SITES if s in name]
        if own:
            return any(s in url for s in own)
        named = {s for p in self.specs for s in _SITES if s in p and self.specs[p].kind == "url"}
        return not any(s in url for s in named)

    def _prominent(self, spec: LeafSpec) -> list[_Hit]:
        """The largest line of page 1 for a top-level ``full_name``, ``name`` or ``title``."""
        if spec.path not in ("full_name", "name", "title") or not self.lines:
            return []
        page = [line for line in self.lines if line.page == self.lines[0].page]
        top = max(line.size for line in page)
        tied = [line for line in page if line.size == top]
        keys = [w for w in re.findall(r"[a-z]{5,}", spec.description.lower()) if w != "title"]
        flat = len(tied) == len(page) > 1  # every line the same size: no prominence to read
        fits = [
            line
            for line in (tied[:5] if flat else tied)
            if plausible_heading(spec.path, line.text)
            and (not flat or spec.path != "title" or any(k in line.text.lower() for k in keys))
        ]
        fits.sort(key=lambda line: not any(k in line.text.lower() for k in keys))
        if not fits:
            return []
        line = fits[0]
        start, end = len(line.text) - len(line.text.lstrip()), len(line.text.rstrip())
        caveat = (
            "taken from the first lines: every line on page 1 has the same size"
            if flat
            else "taken from the most prominent line of page 1; no label names it"
        )
        # a visibly largest line outranks a plain "Title:" label (a signature block has several)
        rank = (3, 0) if flat else (1, -2)
        return [_Hit(rank, line, Match(start, end, line.text[start:end], caveat), (start, end))]

    # -- lists -------------------------------------------------------------------------------

    def _leaf_list(self, spec: LeafSpec) -> list[Leaf]:
        """A "Skills: a, b (c, d)" line, or a heading over such a line or over bullets."""
        matches = sorted(self._label_matches(spec), key=lambda x: (not x[3], x[2], x[0].no))
        for line, m, _, _ in matches:
            sep = _sep(line.text, m.end())
            pos = sep.end()
            if line.text[pos:].strip():
                if not _COLON.search(sep.group()):
                    continue  # "Skills and interests" is a heading, not a list
                return self._items(spec, line, split_items(line.text, pos))
            rest = [x for x in self.lines[line.index + 1 :] if x.page == line.page]
            out: list[Leaf] = []
            for below in rest:
                bullet = _BULLET.match(below.text)
                if bullet:
                    out += self._items(spec, below, [(bullet.end(), len(below.text))])
                elif out and not re.search(r"[A-Za-z]", below.text):
                    continue  # a year or date beside a bullet
                else:
                    break
            if out:
                return out
            if rest and len(split_items(rest[0].text, 0)) > 1:
                return self._items(spec, rest[0], split_items(rest[0].text, 0))
        return []

    def _items(self, spec: LeafSpec, line: _Line, spans: list[tuple[int, int]]) -> list[Leaf]:
        out = []
        for start, end in spans:
            start += len(line.text[start:end]) - len(line.text[start:end].lstrip())
            while end > start and line.text[end - 1] in " .":
                end -= 1
            if spec.kind in ("string", "text"):
                value: Match | None = Match(start, end, line.text[start:end])
            elif spec.kind in ANCHORED:
                value = ANCHORED[spec.kind](line.text, start, spec.enum)
            elif spec.kind in SEARCHED:
                value = next((v for v in SEARCHED[spec.kind](line.text) if v.start == start), None)
            else:
                value = None
            if value and value.end == end and re.search(r"\w", line.text[start:end]):
                out.append(_leaf(line, start, end, value.value, value.caveat))
        return out

    def _parties(self, item: type[BaseModel]) -> list[dict[str, Any]]:
        """ "between X (the "Supplier") and Y", "among X, Y and Z" in the opening paragraphs:
        one item per party whose name (and role) can be quoted from one line."""
        for found in parties(self.flow.text, self.flow.preamble):
            items = [self._party_item(item, name, role) for name, role in found]
            items = [x for x in items if x["name"]["found"]]
            if items:
                return items
        return []

    def _party_item(self, item: type[BaseModel], name: Span, role: Span | None) -> dict[str, Any]:
        out = self.fill(item, "", blank=True)
        for key, span in (("name", name), ("role", role)):
            at = self.flow.locate(*span) if span is not None and key in out else None
            if at is None and span is not None and key == "name":
                at = self.flow.whole_line(*span)
            if at is not None:
                line = self.lines[at[0]]
                out[key] = _leaf(line, at[1], at[2], line.text[at[1] : at[2]])
        return out
