"""Which calls a long document needs: what fields each fills and which pages it is sent.

Pure: the line table, the schema and the context budget in, calls (with their prompts) out.

The rule: **one structured call whenever the document and schema fit** the prompt budget. When
they do not, pages are chosen first: every top-level field (:mod:`.groups`) has its pages ranked
by relevance (:mod:`.pages`), and its *evidence pages* are its best page and the next one when
it scores at least half as well. If one call can hold the first page plus every field's evidence
pages, and its answer fits the output cap, it is one call, the rest of the budget filled with
pages by rank (those scoring at least a tenth of the field's best page). Only otherwise is the
schema split, in schema order, into groups whose evidence pages fit one call each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from evidex.extractors.context import MESSAGE_OVERHEAD_TOKENS, ContextBudget, schema_chars
from evidex.extractors.document import ParsedDocument, make_lines
from evidex.extractors.groups import Unit, sub_schema, units
from evidex.extractors.pages import PageIndex, choose_pages, field_query, page_texts
from evidex.extractors.prompt import Prompt, build_prompt
from evidex.schemas import SchemaDef

__all__ = [
    "LEAF_OUTPUT_TOKENS",
    "LIST_ITEMS_GUESS",
    "Call",
    "Planner",
    "check_window",
]

LEAF_OUTPUT_TOKENS = 60  # one FieldExtraction answered: quote, span, value, flags
LIST_ITEMS_GUESS = 8  # items a list is budgeted for when planning the answer's size
NOTES_OUTPUT_TOKENS = 150
SECOND_PAGE_SHARE = 0.5  # a field's second page is evidence when it scores this share of the best
RELEVANCE_FLOOR = 0.1  # pages scoring under this share of a field's best are not sent for it
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

    @property
    def chars(self) -> int:
        return len(self.prompt.system) + len(self.prompt.user) + schema_chars(self.schema)


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
        self._ranks: dict[str, list[tuple[int, float]]] = {}
        self._fixed: dict[tuple[str, ...], int] = {}

    def ranked(self, unit: Unit) -> list[tuple[int, float]]:
        """``unit``'s pages by relevance, best first (computed when first needed)."""
        if unit.name not in self._ranks:
            if self._index is None:
                self._index = PageIndex(page_texts(self.lines))
            self._ranks[unit.name] = self._index.rank(field_query(unit.leaves))
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
        ranked = [(p, s) for p, s in self.ranked(unit) if s > 0]
        if not ranked:
            return []
        best = ranked[0][1]
        return [p for p, s in ranked[:2] if s >= best * SECOND_PAGE_SHARE]

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
        if limit is None or fixed + sum(costs.values()) <= limit:
            pages, why = all_pages, {p: "the whole document fits" for p in all_pages}
        else:
            keep = {self.first_page: "first page", **(must or {})}
            ranked, reasons = self._merged_ranking(names) if rank else ([], {})
            choice = choose_pages(costs, ranked, limit - fixed, must=keep, reasons=reasons)
            pages, why = choice.pages, dict(choice.why)
        partial = len(pages) < len(all_pages)
        lines = self.lines[self.lines["page"].isin(pages)] if partial else self.lines
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
        )

    def _merged_ranking(self, names: Sequence[str]) -> tuple[list[int], dict[int, str]]:
        """The fields' rankings interleaved (each field's best page, then each one's second...),
        pages scoring under :data:`RELEVANCE_FLOOR` of the field's best left out: they cost
        tokens on every job and dilute the model's attention."""
        rankings: list[tuple[str, list[int]]] = []
        for unit in self.units:
            if unit.name in names:
                scored = self.ranked(unit)
                floor = scored[0][1] * RELEVANCE_FLOOR if scored else 0.0
                rankings.append((unit.name, [p for p, s in scored if s > 0 and s >= floor]))
        order: list[int] = []
        reasons: dict[int, str] = {}
        depth = max((len(r) for _, r in rankings), default=0)
        for i in range(depth):
            for name, pages in rankings:
                if i < len(pages) and pages[i] not in reasons:
                    reasons[pages[i]] = f"rank {i + 1} for {name}"
                    order.append(pages[i])
        return order, reasons


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
            size = len(str(line)) + len(str(page)) + len(str(number)) + len(str(text)) + 4
            out[int(page)] += size
    return dict(sorted(out.items()))
