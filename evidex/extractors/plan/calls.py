"""Which calls a long document needs: what fields each fills and which pages it is sent.

Pure: the line table, the schema and the context budget in, calls (with their prompts) out.

The rule: **one structured call whenever the document and schema fit** the prompt budget. When
they do not, pages are chosen first: every top-level field (:mod:`.groups`) has its pages ranked
by relevance (:mod:`.pages`: words, headings, definitions), and its *evidence pages* are its best
page and the next one when it scores at least half as well (for a list, the page after each of
them too: a list runs on). If one call can hold the first page
plus every field's evidence pages, and its answer fits the output cap, it is one call. Only
otherwise is the schema split, in schema order, into groups whose evidence pages fit one call
each.

Then **the budget is filled**: a call's prompt takes, in this order, the first page, the fields'
evidence pages, every other page by its relevance to the field it serves best (its score as a
share of that field's best page's; the page after a ranked page, where a clause runs over, at
half that page's share, the page before at a quarter), and the rest of the document in page
order, each while it fits; the room left, smaller than any page, takes the first lines of the
next page in that order. The model reads them in page order. A page the model is sent
costs tokens but can only help it, and every page it is not sent is one it cannot answer from:
a document that does not fit fills at least nine tenths of the budget. Each page's reason is
kept (``Call.why``, ``trace.calls[].why``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from evidex.extractors.document import ParsedDocument, make_lines
from evidex.extractors.plan.context import MESSAGE_OVERHEAD_TOKENS, ContextBudget, schema_chars
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
SECOND_PAGE_SHARE = 0.5  # a field's second page is evidence when it scores this share of the best
PART_MARGIN_TOKENS = 32  # kept free when the top of a page fills the rest of the budget
NEXT_PAGE_SHARE = 0.5  # the page after a ranked page: a clause may run over onto it
PREVIOUS_PAGE_SHARE = 0.25  # the page before: a clause may start at its foot
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
        """``unit``'s best page and its second when it scores at least half as well; for a
        list, the page after each of them too (a list runs on)."""
        ranked = [r for r in self.ranked(unit) if r.score > 0]
        if not ranked:
            return []
        best = ranked[0].score
        pages = [r.page for r in ranked[:2] if r.score >= best * SECOND_PAGE_SHARE]
        if unit.is_list:
            pages += [p + 1 for p in pages if p + 1 in self.page_chars and p + 1 not in pages]
        return pages

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
        group when they fit."""
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
        output_cap = budget.output_tokens(limit)
        groups: list[list[str]] = []
        current: list[str] = []
        for unit in chosen:
            trial = [*current, unit.name]
            if current and not self._fits(trial, budget, costs, limit, output_cap):
                groups.append(current)
                trial = [unit.name]
            current = trial
        if current:
            groups.append(current)
        return groups

    def _fits(
        self,
        names: list[str],
        budget: ContextBudget,
        costs: Mapping[int, int],
        limit: int,
        output_cap: int,
    ) -> bool:
        if self.answer_tokens(names) > output_cap:
            return False
        pages = {self.first_page}
        for unit in self.units:
            if unit.name in names:
                pages.update(self.evidence_pages(unit))
        return self.fixed_tokens(names, budget) + sum(costs[p] for p in pages) <= limit

    def call(
        self,
        names: Sequence[str],
        budget: ContextBudget,
        purpose: str,
        must: Mapping[int, str] | None = None,
        rank: bool = True,
    ) -> Call:
        """The call filling ``names``: every page when they fit, else the first page, ``must``
        pages, then pages by relevance until the prompt budget is full."""
        schema = sub_schema(self.schema, names)
        limit = budget.prompt_tokens
        costs = self.page_tokens(budget)
        all_pages = tuple(sorted(costs))
        fixed = 0 if limit is None else self.fixed_tokens(names, budget)
        part: tuple[int, int] | None = None
        if limit is None or fixed + sum(costs.values()) <= limit:
            pages, why = all_pages, {p: "the whole document fits" for p in all_pages}
        else:
            keep = {self.first_page: "first page", **(must or {})}
            ranked, reasons = self._fill_order(names, costs) if rank else ([], {})
            choice = choose_pages(costs, ranked, limit - fixed, must=keep, reasons=reasons)
            pages, why = choice.pages, dict(choice.why)
            left = [p for p in ranked if p not in why]
            if left:  # the room no whole page fits: the top of the next page in the order
                part = self._top_lines(left[0], budget, limit - fixed - choice.tokens)
            if part is not None:
                why[part[0]] = f"its first {part[1]} lines, to fill the budget: {reasons[part[0]]}"
        partial = len(pages) < len(all_pages)
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
            why,
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

    def _fill_order(
        self, names: Sequence[str], costs: Mapping[int, int]
    ) -> tuple[list[int], dict[int, str]]:
        """The pages a call for ``names`` takes while they fit, in order, and why each: the
        evidence pages, then every other page by its relevance to the field it serves best (its
        score over that field's best; a neighbour of a ranked page at :data:`NEXT_PAGE_SHARE` or
        :data:`PREVIOUS_PAGE_SHARE` of that page's), then the rest in page order."""
        rankings = [
            (unit.name, [r for r in self.ranked(unit) if r.score > 0])
            for unit in self.units
            if unit.name in names
        ]
        order: dict[int, str] = {}
        lists = {unit.name for unit in self.units if unit.is_list}
        for depth in range(2):  # evidence pages: each field's best, then its second
            for name, ranked in rankings:
                share = SECOND_PAGE_SHARE if depth else 1.0
                if depth < len(ranked) and ranked[depth].score >= ranked[0].score * share:
                    page = ranked[depth].page
                    order.setdefault(page, _reason(depth + 1, name, ranked[depth]))
                    if name in lists and page + 1 in costs:  # a list runs on
                        where = f"page {page} (rank {depth + 1} for {name})"
                        order.setdefault(page + 1, f"follows {where}: a list runs on")
        offers: dict[int, tuple[float, str]] = {}

        def offer(page: int, relevance: float, reason: str) -> None:
            if page in costs and page not in order and relevance > offers.get(page, (0.0, ""))[0]:
                offers[page] = (relevance, reason)

        for name, ranked in rankings:
            for i, r in enumerate(ranked):
                relevance = r.score / ranked[0].score
                where = f"page {r.page} (rank {i + 1} for {name})"
                offer(r.page, relevance, _reason(i + 1, name, r))
                offer(r.page + 1, NEXT_PAGE_SHARE * relevance, f"follows {where}")
                offer(r.page - 1, PREVIOUS_PAGE_SHARE * relevance, f"precedes {where}")
        for page, (_, reason) in sorted(offers.items(), key=lambda o: (-o[1][0], o[0])):
            order[page] = reason
        for page in costs:
            order.setdefault(page, "fills the budget")
        return list(order), order


def _reason(rank: int, name: str, ranked: Ranked) -> str:
    """``rank 1 for borrower``, with what raised the page: ``(defines "Borrower")``."""
    return f"rank {rank} for {name}" + (f" ({ranked.why})" if ranked.why else "")


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
