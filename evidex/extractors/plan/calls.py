"""Which calls a long document needs: what fields each fills and which pages it is sent.

Pure: the line table, the schema and the context budget in, calls (with their prompts) out.

The rule: **one structured call whenever the document and schema fit** the prompt budget. When
they do not, pages are chosen first: every top-level field (:mod:`.groups`) has its pages ranked
by relevance (:mod:`.pages`: words, headings, definitions) and its evidence pages drawn from
them (:mod:`.fill`). If one call can hold the first page plus every field's evidence pages, and
its answer fits the output cap, it is one call. Only otherwise is the schema split into groups
whose evidence pages fit one call each, and **fields that read the same pages share a call**:
a field joins the group it shares most evidence pages with, so a page two fields need is sent
once, to the call that asks for both.

A job's calls are **planned together, once** (:meth:`Planner.calls`, :class:`JobPlan`): what a
worker reserves tokens for is what the pipeline sends. Their pages are shared out
(:func:`.fill.share`): the first page to every call, an evidence page to every call whose fields
cite it, any other page to one call only, the one whose fields it serves best, while it fits;
the room left, smaller than any page, takes the first lines of a page no call was sent. The
model reads them in page order. A page the model is sent costs tokens but can only help it, and
every page no call is sent is one no field can be answered from: a document the calls cannot
hold fills at least nine tenths of each call's budget, and one they can hold is sent once over
them. Each page's reason is kept (``Call.why``, ``trace.calls[].why``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from evidex.extractors.document import ParsedDocument, make_lines
from evidex.extractors.plan.context import MESSAGE_OVERHEAD_TOKENS, ContextBudget, schema_chars
from evidex.extractors.plan.fill import Fill, Rankings, evidence, fill_order, share
from evidex.extractors.plan.groups import Unit, sub_schema, units
from evidex.extractors.plan.pages import PageIndex, Ranked, choose_pages, page_texts
from evidex.extractors.plan.prompt import Prompt, build_prompt
from evidex.schemas import SchemaDef

__all__ = [
    "LEAF_OUTPUT_TOKENS",
    "LIST_ITEMS_GUESS",
    "Call",
    "JobPlan",
    "Planner",
    "check_window",
]

LEAF_OUTPUT_TOKENS = 60  # one FieldExtraction answered: quote, span, value, flags
LIST_ITEMS_GUESS = 8  # items a list is budgeted for when planning the answer's size
NOTES_OUTPUT_TOKENS = 150
PART_MARGIN_TOKENS = 32  # kept free when the top of a page fills the rest of the budget
_SLACK_CHARS = 120  # the document line of the prompt names the pages sent


@dataclass(frozen=True)
class Call:
    """One model call: the fields it fills, the pages it is sent and why, and its prompt."""

    names: tuple[str, ...]
    schema: SchemaDef
    pages: tuple[int, ...]
    why: Mapping[int, str]
    purpose: str  # whole document | selected pages | group i of n | continuation of X | ...
    prompt: Prompt
    lines: pd.DataFrame = field(repr=False)
    estimated_tokens: int = 0
    output_tokens: int = 0
    part: tuple[int, int] | None = None  # (page, lines): the top of one more page, when it fits

    @property
    def sent_pages(self) -> tuple[int, ...]:
        """The pages the model reads from: ``pages`` and the page of ``part``."""
        return tuple(sorted({*self.pages, *([self.part[0]] if self.part else [])}))

    @property
    def chars(self) -> int:
        return len(self.prompt.system) + len(self.prompt.user) + schema_chars(self.schema)


@dataclass(frozen=True)
class JobPlan:
    """A job's calls, planned once: what a token budget reserves for and what the pipeline
    sends are the same objects, so pages are ranked and prompts built once per job.

    ``continuations`` is how many more calls the job may make at most (list re-asks)."""

    planner: Planner
    budget: ContextBudget
    groups: tuple[tuple[str, ...], ...]
    calls: tuple[Call, ...]
    continuations: int

    @property
    def document(self) -> ParsedDocument:
        return self.planner.document


def check_window(schema: SchemaDef, budget: ContextBudget) -> None:
    """Raise :class:`ContextTooSmall` when the window cannot hold even the instructions and the
    schema of the smallest group of fields (checked before a document is read)."""
    limit = budget.prompt_tokens
    groups = units(schema)
    if limit is None or not groups:
        return
    empty = make_lines([])
    smallest = min(
        budget.tokens(_fixed_chars(sub_schema(schema, [g.name]), empty, "document"))
        + MESSAGE_OVERHEAD_TOKENS
        for g in groups
    )
    if smallest > limit:
        raise budget.too_small(smallest)


def _fixed_chars(schema: SchemaDef, empty: pd.DataFrame, filename: str) -> int:
    prompt = build_prompt(schema, empty, filename)
    return len(prompt.system) + len(prompt.user) + schema_chars(schema) + _SLACK_CHARS


class Planner:
    """Plans the calls of one document and schema (see the module docstring)."""

    def __init__(self, document: ParsedDocument, schema: SchemaDef) -> None:
        self.document, self.schema = document, schema
        self.lines = document.lines
        self.units = units(schema)
        self.page_chars = _page_chars(self.lines)
        self.first_page = min(self.page_chars) if self.page_chars else 1
        self._index: PageIndex | None = None
        self._ranks: dict[str, list[Ranked]] = {}
        self._fixed: dict[tuple[str, ...], int] = {}

    def ranked(self, unit: Unit) -> list[Ranked]:
        """``unit``'s pages by relevance, best first (computed when first needed)."""
        if unit.name not in self._ranks:
            if self._index is None:
                self._index = PageIndex(page_texts(self.lines))
            self._ranks[unit.name] = self._index.rank_fields(unit.leaves)
        return self._ranks[unit.name]

    # -- sizes ---------------------------------------------------------------------------------

    def fixed_chars(self, names: Sequence[str]) -> int:
        """Characters of a call's prompt and schema without any line of the document (built once
        per group of names: planning asks for the same groups again and again)."""
        key = tuple(names)
        if key not in self._fixed:
            schema = sub_schema(self.schema, names)
            self._fixed[key] = _fixed_chars(schema, self.lines.iloc[0:0], self.document.filename)
        return self._fixed[key]

    def page_tokens(self, budget: ContextBudget) -> dict[int, int]:
        return {p: budget.tokens(c) for p, c in self.page_chars.items()}

    def fixed_tokens(self, names: Sequence[str], budget: ContextBudget) -> int:
        return budget.tokens(self.fixed_chars(names)) + MESSAGE_OVERHEAD_TOKENS

    def answer_tokens(self, names: Sequence[str]) -> int:
        total = NOTES_OUTPUT_TOKENS
        for unit in self.units:
            if unit.name in names:
                per = len(unit.leaves) * LEAF_OUTPUT_TOKENS
                total += per * (LIST_ITEMS_GUESS if unit.is_list else 1)
        return total

    def evidence_pages(self, unit: Unit) -> list[int]:
        """``unit``'s evidence pages (:func:`.fill.evidence`): its best page and its second when
        it scores at least half as well; for a list, the page after each of them too."""
        return list(evidence(self._rankings([unit.name]), self.page_chars))

    # -- calls ---------------------------------------------------------------------------------

    def check(self, budget: ContextBudget) -> None:
        """Raise :class:`ContextTooSmall` when the first page and the smallest group's
        instructions cannot share one prompt."""
        limit = budget.prompt_tokens
        if limit is None or not self.units:
            return
        smallest = min(self.fixed_tokens([u.name], budget) for u in self.units)
        first = self.page_tokens(budget).get(self.first_page, 0)
        if smallest + first > limit:
            raise budget.too_small(smallest, first, self.first_page)

    def plan(self, budget: ContextBudget, only: Sequence[str] | None = None) -> list[list[str]]:
        """The groups of top-level field names (of ``only`` when given), one call each; one
        group when they fit. Fields that read the same pages share a call (see
        :meth:`_group`); each group's names are in schema order, the groups in the order of
        their first field."""
        chosen = [u for u in self.units if only is None or u.name in only]
        names = [u.name for u in chosen]
        limit = budget.prompt_tokens
        if limit is None:
            return [names]
        self.check(budget)
        costs = self.page_tokens(budget)
        whole = self.fixed_tokens(names, budget) + sum(costs.values())
        if whole <= limit and self.answer_tokens(names) <= budget.output_tokens(whole):
            return [names]
        return self._group(chosen, budget, costs, limit)

    def _group(
        self, chosen: Sequence[Unit], budget: ContextBudget, costs: Mapping[int, int], limit: int
    ) -> list[list[str]]:
        """Each field, those that share pages next to each other (:meth:`_by_shared_pages`),
        joins the group it shares most evidence pages with among those it fits in (the first
        page, sent to every call, counts for none); sharing none, the last group; fitting none,
        a group of its own. A page two fields both read is then sent once, to the call that
        asks for both, and a call is not opened for a field another call has room for."""
        output_cap = budget.output_tokens(limit)
        groups: list[list[str]] = []
        pages: list[set[int]] = []
        for unit, own in self._by_shared_pages(chosen):
            fits = [
                i
                for i, names in enumerate(groups)
                if self._fits([*names, unit.name], budget, costs, limit, output_cap)
            ]
            if not fits:
                groups.append([unit.name])
                pages.append(own)
                continue
            best = max(fits, key=lambda i: (len(own & pages[i]), i))
            groups[best].append(unit.name)
            pages[best] |= own
        order = {u.name: i for i, u in enumerate(self.units)}
        for names in groups:
            names.sort(key=order.__getitem__)
        return sorted(groups, key=lambda g: order[g[0]])

    def _by_shared_pages(self, chosen: Sequence[Unit]) -> list[tuple[Unit, set[int]]]:
        """``chosen`` with their evidence pages (less the first page), those that share pages
        (directly or through another field) next to each other: each field in schema order,
        then the fields it shares pages with, before the next."""
        evidence = {u.name: set(self.evidence_pages(u)) - {self.first_page} for u in chosen}
        order: list[Unit] = []
        for unit in chosen:
            if unit in order:
                continue
            cluster, pages = [unit], set(evidence[unit.name])
            grown = True
            while grown:
                joining = [u for u in chosen if u not in cluster and evidence[u.name] & pages]
                grown = bool(joining)
                for u in joining:
                    cluster.append(u)
                    pages |= evidence[u.name]
            order += sorted(cluster, key=chosen.index)
        return [(u, evidence[u.name]) for u in order]

    def _fits(
        self,
        names: list[str],
        budget: ContextBudget,
        costs: Mapping[int, int],
        limit: int,
        output_cap: int,
    ) -> bool:
        """Whether one call can hold the first page and the evidence pages of ``names``, and
        its answer the output cap."""
        if self.answer_tokens(names) > output_cap:
            return False
        pages = {self.first_page}
        for unit in self.units:
            if unit.name in names:
                pages.update(self.evidence_pages(unit))
        return self.fixed_tokens(names, budget) + sum(costs[p] for p in pages) <= limit

    def calls(self, budget: ContextBudget, only: Sequence[str] | None = None) -> list[Call]:
        """Every call of the job (of the fields ``only`` when given), planned together: the
        groups of :meth:`plan`, then the pages of all of them at once (:func:`.fill.share`): a
        page goes to every call whose fields have it as evidence, any other page to one call
        only, the one whose fields it serves best among those it fits in. A group that can hold
        the whole document (split off only for the size of its answer) is sent all of it."""
        groups = self.plan(budget, only)
        limit = budget.prompt_tokens
        costs = self.page_tokens(budget)
        whole = sum(costs.values())
        fills = [
            Fill(names, limit - self.fixed_tokens(names, budget))
            for names in groups
            if limit is not None and self.fixed_tokens(names, budget) + whole > limit
        ]
        left = share(fills, [self._rankings(f.names) for f in fills], costs, self.first_page)
        used: set[int] = set()
        for fill, order in zip(fills, left, strict=True):  # the room left: a page's top lines
            top = next(((p, w) for p, w in order.items() if p not in used), None)
            fill.part = self._top_lines(top[0], budget, fill.room) if top else None
            if top and fill.part:
                fill.why[top[0]] = f"its first {fill.part[1]} lines, to fill the budget: {top[1]}"
                used.add(top[0])
        filled = {tuple(f.names): f for f in fills}
        out: list[Call] = []
        for i, names in enumerate(groups):
            purpose = _purpose(i, len(groups))
            planned = filled.get(tuple(names))
            if planned is None:  # a group split off for the size of its answer reads everything
                out.append(self.call(names, budget, purpose))
            else:
                out.append(self.build(names, budget, planned.pages(), planned.why, purpose,
                                      planned.part))  # fmt: skip
        return out

    def call(
        self,
        names: Sequence[str],
        budget: ContextBudget,
        purpose: str,
        must: Mapping[int, str] | None = None,
        rank: bool = True,
    ) -> Call:
        """One call filling ``names`` on its own (a list's continuation, a retry): every page
        when they fit, else the first page, ``must`` pages, then pages by relevance until the
        prompt budget is full."""
        limit = budget.prompt_tokens
        costs = self.page_tokens(budget)
        fixed = 0 if limit is None else self.fixed_tokens(names, budget)
        if limit is None or fixed + sum(costs.values()) <= limit:
            every = {p: "the whole document fits" for p in costs}
            return self.build(names, budget, tuple(costs), every, purpose)
        keep = {self.first_page: "first page", **(must or {})}
        reasons = fill_order(self._rankings(names), costs) if rank else {}
        ranked = list(reasons)
        choice = choose_pages(costs, ranked, limit - fixed, must=keep, reasons=reasons)
        why = dict(choice.why)
        left = [p for p in ranked if p not in why]
        part = None
        if left:  # the room no whole page fits: the top of the next page in the order
            part = self._top_lines(left[0], budget, limit - fixed - choice.tokens)
        if part is not None:
            why[part[0]] = f"its first {part[1]} lines, to fill the budget: {reasons[part[0]]}"
        return self.build(names, budget, choice.pages, why, purpose, part)

    def build(
        self,
        names: Sequence[str],
        budget: ContextBudget,
        pages: Sequence[int],
        why: Mapping[int, str],
        purpose: str,
        part: tuple[int, int] | None = None,
    ) -> Call:
        """The call for ``names`` over ``pages`` (and the top lines of ``part``): the one place
        a prompt is built, once per call planned."""
        schema = sub_schema(self.schema, names)
        pages = tuple(sorted(pages))
        partial = len(pages) < len(self.page_chars)
        lines = self.lines[self.lines["page"].isin(pages)] if partial else self.lines
        if part is not None:
            top = self.lines[self.lines["page"] == part[0]].iloc[: part[1]]
            lines = pd.concat([lines, top]).sort_values("line", kind="stable")
        prompt = build_prompt(
            schema,
            lines,
            self.document.filename,
            page_count=self.document.page_count if partial else None,
        )
        chars = len(prompt.system) + len(prompt.user) + schema_chars(schema)
        estimated = budget.tokens(chars) + MESSAGE_OVERHEAD_TOKENS
        return Call(
            tuple(names),
            schema,
            pages,
            dict(why),
            purpose,
            prompt,
            lines,
            estimated,
            budget.output_tokens(estimated),
            part,
        )

    def _top_lines(self, page: int, budget: ContextBudget, room: int) -> tuple[int, int] | None:
        """How many lines from the top of ``page`` fit in ``room`` tokens (with a margin for the
        estimate), as ``(page, lines)``; None when not one does."""
        rows = self.lines[self.lines["page"] == page]
        room -= PART_MARGIN_TOKENS
        chars, count = 0, 0
        for visible, row in zip(rows["visible"].tolist(), rows.itertuples(), strict=True):
            if visible:
                chars += _line_chars(row.line, row.page, row.line_in_page, row.text)
            if budget.tokens(chars) > room:
                break
            count += 1
        return (page, count) if count and room > 0 else None

    def _rankings(self, names: Sequence[str]) -> Rankings:
        """Each of the fields ``names``: the pages it ranks above zero, best first."""
        return [
            (unit.name, [r for r in self.ranked(unit) if r.score > 0], unit.is_list)
            for unit in self.units
            if unit.name in names
        ]


def _purpose(index: int, count: int) -> str:
    return "all fields" if count == 1 else f"group {index + 1} of {count}"


def _page_chars(lines: pd.DataFrame) -> dict[int, int]:
    """Characters each page adds to a prompt: its visible lines as ``prompt.render_lines`` writes
    them (three numbers, three tabs, the text), one newline each. Summed in plain Python, as
    ``render_lines`` joins them (pandas' string operations cost more on any size)."""
    out = {int(p): 0 for p in lines["page"].unique().tolist()}
    rows = zip(
        lines["visible"].tolist(),
        lines["line"].tolist(),
        lines["page"].tolist(),
        lines["line_in_page"].tolist(),
        lines["text"].tolist(),
        strict=True,
    )
    for visible, line, page, number, text in rows:
        if visible:
            out[int(page)] += _line_chars(line, page, number, text)
    return dict(sorted(out.items()))


def _line_chars(line: object, page: object, number: object, text: object) -> int:
    """Characters one visible line adds to a prompt (three numbers, three tabs, a newline)."""
    return len(str(line)) + len(str(page)) + len(str(number)) + len(str(text)) + 4
