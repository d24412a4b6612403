"""``extract``: parse -> prompt -> one structured LLM call -> verify -> ``Result``.

The composition: every stage comes in as an argument (a ``Parser``, an ``LLMBackend``), so the
same function runs with real backends, offline rules, or shipped fakes.

With a context budget (:class:`~evidex.extractors.plan.context.ContextBudget`) a document too long
for the model's window is planned into calls (:mod:`.plan`), all of a job's calls together and
once: pages chosen by relevance, the schema split only when one call cannot hold every field's
pages, fields that read the same pages in one call, a page not cited as evidence sent to one call
only. After the calls, every list whose evidence reaches a page the model was not sent the next
page of is checked (:mod:`.completeness`) and re-asked with that page, up to
:data:`MAX_CONTINUATIONS` times. A model that refuses a prompt as too long gets one smaller one,
then ``llm_context_exceeded``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from evidex import __version__
from evidex.extractors.document import ParsedDocument, Parser, with_edges
from evidex.extractors.errors import LLMContextExceeded
from evidex.extractors.gate import screen
from evidex.extractors.llm.base import LLMBackend, LLMRequest, LLMResponse
from evidex.extractors.plan.calls import Call, JobPlan, Planner
from evidex.extractors.plan.completeness import continuation, mark_incomplete
from evidex.extractors.plan.context import ContextBudget, ContextTooSmall
from evidex.extractors.plan.groups import merge_answers
from evidex.extractors.verify.fields import Verification, verify
from evidex.schemas import (
    CallTrace,
    ContextTrace,
    DocumentInfo,
    DocumentNotes,
    GateTrace,
    ListCompleteness,
    Result,
    SchemaDef,
    Summary,
    Trace,
)
from evidex.schemas.result import PageInfo

__all__ = [
    "MAX_CONTINUATIONS",
    "Verifier",
    "extract",
    "extract_parsed",
    "plan_job",
    "planned_calls",
]

Verifier = Callable[[SchemaDef, Any, pd.DataFrame], Verification]
"""``verify`` or what runs it elsewhere (a worker runs it in a child process, under a bound)."""

MAX_CONTINUATIONS = 3  # times one list is re-asked with the next page


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def _page_info(document: ParsedDocument) -> list[PageInfo]:
    """Per page: size, unit (pixels for an image file, else points) and the parser that read it."""
    unit = "px" if document.media_type.startswith("image/") else "pt"
    pages = document.pages
    return [
        PageInfo(page=int(page), width=float(width), height=float(height), unit=unit, parser=name)
        for page, width, height, name in zip(
            pages["page"].tolist(),
            pages["width"].tolist(),
            pages["height"].tolist(),
            pages["parser"].astype(str).tolist(),
            strict=True,
        )
    ]


def extract(
    data: bytes | Path,
    schema: SchemaDef,
    *,
    parser: Parser,
    llm: LLMBackend,
    filename: str | None = None,
    context: ContextBudget | None = None,
    gate: bool = True,
) -> Result:
    """Extract ``schema`` from a document given as bytes or a path; ``gate=False`` skips the
    pre-call gate's refusals (:mod:`.gate`), its verdict is recorded either way."""
    start = time.perf_counter()
    if isinstance(data, Path):
        filename = filename or data.name
        data = data.read_bytes()
    document = parser.parse(data, filename or "document")
    return extract_parsed(
        document, schema, llm=llm, parse_ms=_ms(start), started=start, context=context, gate=gate
    )


def plan_job(
    document: ParsedDocument, schema: SchemaDef, context: ContextBudget | None = None
) -> JobPlan:
    """The calls a job will make up front, and how many more it may make at most (list
    continuations): what a token budget must reserve for, and what :func:`extract_parsed`
    sends when given the plan. A prompt the model refuses as too long costs nothing; its
    smaller retry is within the refused call's bound."""
    budget = context or ContextBudget()
    planner = Planner(document, schema)
    calls = planner.calls(budget)
    lists = sum(1 for unit in planner.units if unit.is_list) if budget.limited else 0
    groups = tuple(call.names for call in calls)
    return JobPlan(planner, budget, groups, tuple(calls), lists * MAX_CONTINUATIONS)


def planned_calls(
    document: ParsedDocument, schema: SchemaDef, context: ContextBudget | None = None
) -> tuple[list[Call], int]:
    """:func:`plan_job`'s calls and continuations."""
    plan = plan_job(document, schema, context)
    return list(plan.calls), plan.continuations


class _Session:
    """The calls of one extraction: it asks, retries once on a refused length, calibrates."""

    def __init__(
        self, document: ParsedDocument, planner: Planner, llm: LLMBackend, budget: ContextBudget
    ) -> None:
        self.document, self.planner, self.llm = document, planner, llm
        self.start_budget = self.budget = budget
        self.traces: list[CallTrace] = []
        self.calls: list[Call] = []
        self.responses: list[LLMResponse] = []
        self.sent_pages: set[int] = set()

    def ask(
        self,
        names: list[str],
        purpose: str,
        must: dict[int, str] | None = None,
        rank: bool = True,
        planned: Call | None = None,
    ) -> list[tuple[Call, dict[str, Any]]]:
        """Answers for ``names`` (one call, ``planned`` when it is built already; several when
        a refused prompt had to be split)."""
        call = planned or self.planner.call(names, self.budget, purpose, must, rank)
        try:
            return [(call, self._send(call))]
        except LLMContextExceeded as refused:
            self.budget = self.budget.shrunk(
                call.estimated_tokens, refused.window_tokens, refused.prompt_tokens
            )
            return self._retry(names, purpose, must, rank, refused)

    def _retry(
        self,
        names: list[str],
        purpose: str,
        must: dict[int, str] | None,
        rank: bool,
        refused: LLMContextExceeded,
    ) -> list[tuple[Call, dict[str, Any]]]:
        smaller = f"retry, smaller: {purpose}"
        try:
            if must is None and rank:  # a planned call: its fields planned again, together
                calls = [
                    dataclasses.replace(c, purpose=smaller)
                    for c in self.planner.calls(self.budget, names)
                ]
            else:
                groups = self.planner.plan(self.budget, names)
                calls = [self.planner.call(g, self.budget, smaller, must, rank) for g in groups]
            return [(c, self._send(c)) for c in calls]
        except (LLMContextExceeded, ContextTooSmall) as again:
            raise LLMContextExceeded(
                f"the model refused the prompt as too long, and again after it was cut to "
                f"{self.budget.prompt_tokens:,} tokens ({again.message}); set "
                "EVIDEX_CONTEXT_TOKENS to the model's real window",
                window_tokens=refused.window_tokens,
                prompt_tokens=refused.prompt_tokens,
            ) from again

    def _sent(self, call: Call) -> ParsedDocument:
        """The document as ``call`` sends it: the document itself when it sends all of it
        (filtering and copying its tables would cost more than the rest of preparing a call)."""
        document = self.document
        if (
            call.lines is document.lines
            and _numbered(document)
            and set(call.pages) >= set(document.pages["page"].tolist())
        ):
            return document
        pages = document.pages
        return ParsedDocument(
            call.lines.reset_index(drop=True),
            pages[pages["page"].isin(call.sent_pages)].reset_index(drop=True),
            document.sha256,
            document.filename,
            document.parser,
            document.media_type,
        )

    def _send(self, call: Call) -> dict[str, Any]:
        sub = self._sent(call)
        cap = call.output_tokens if self.budget.limited else None
        request = LLMRequest(call.prompt.system, call.prompt.user, call.schema, sub, cap)
        response = self.llm.complete(request)
        self.responses.append(response)
        self.calls.append(call)
        self.sent_pages.update(call.pages)
        partial = len(call.pages) < self.document.page_count
        self.traces.append(
            CallTrace(
                purpose=call.purpose,
                fields=list(call.names),
                pages=list(call.sent_pages),
                why=dict(call.why) if partial else {},
                estimated_tokens=call.estimated_tokens,
                max_output_tokens=cap,
                response_id=response.response_id,
                usage=response.usage,
            )
        )
        if response.attempts == 1:  # a repaired answer's usage counts two prompts
            self.budget = self.budget.calibrate(call.chars, response.usage.get("input_tokens"))
        dumped: dict[str, Any] = response.output.model_dump(mode="json")
        return dumped

    def context_trace(self) -> ContextTrace:
        names = [u.name for u in self.planner.units]
        whole = self.planner.fixed_tokens(names, self.budget) + sum(
            self.planner.page_tokens(self.budget).values()
        )
        reported = [t.usage.get("input_tokens") for t in self.traces]
        sent = (
            sum(n for n in reported if n)
            if all(reported)
            else sum(t.estimated_tokens for t in self.traces)
        )
        return ContextTrace(
            window_tokens=self.start_budget.window_tokens,
            prompt_budget_tokens=self.start_budget.prompt_tokens,
            chars_per_token=self.start_budget.chars_per_token,
            calibrated_chars_per_token=(
                self.budget.chars_per_token if self.budget.calibrated else None
            ),
            document_tokens=whole,
            tokens_sent=sent,
            pages=self.document.page_count,
            pages_sent=len(self.sent_pages),
        )


def _numbered(document: ParsedDocument) -> bool:
    """Whether the document's tables are indexed 0..n-1, as a filtered copy would be."""
    return all(
        isinstance(t.index, pd.RangeIndex) and t.index.start == 0 and t.index.step == 1
        for t in (document.lines, document.pages)
    )


def _list_end(answer: dict[str, Any], name: str) -> tuple[int, int | None, int | None]:
    """Items of list ``name`` in a wire answer, and the first and last global line they cite."""
    items = answer.get(name) or []
    found: list[int] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("found") and isinstance(node.get("line_end"), int):
                found.append(int(node["line_end"]))
                if isinstance(node.get("line_start"), int):
                    found.append(int(node["line_start"]))
            else:
                for value in node.values():
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(items)
    return len(items), (min(found) if found else None), (max(found) if found else None)


def _complete_lists(
    session: _Session,
    answers: dict[str, dict[str, Any]],
    seen: dict[str, tuple[int, ...]],
    lines_pages: dict[int, int],
) -> dict[str, ListCompleteness]:
    """The next-page check for every list (see :mod:`.completeness`), re-asking a list with the
    page that continues it. ``answers`` (top-level name -> the answer holding it) and ``seen``
    (name -> the pages that answer's call was sent) are updated. A re-ask that comes back with
    fewer items than it was asked to extend is not taken: the earlier answer stays, in doubt."""
    out: dict[str, ListCompleteness] = {}
    document = session.document
    pages = set(document.pages["page"].astype(int).tolist())
    for unit in session.planner.units:
        if not unit.is_list:
            continue
        name, tries = unit.name, 0
        while True:
            count, first, last = _list_end(answers[name], name)
            last_page = lines_pages.get(last) if last is not None else None
            if last is None or last_page is None:
                out[name] = ListCompleteness(complete=True, items=count)
                break
            if last_page + 1 not in pages or last_page + 1 in seen[name]:
                out[name] = ListCompleteness(complete=True, items=count, last_page=last_page)
                break
            cont = continuation(document.lines, last)
            if cont is None:
                out[name] = ListCompleteness(complete=True, items=count, last_page=last_page)
                break
            reason = f"the list may continue on page {cont.page} ({cont.signal})"
            first_page = lines_pages.get(first, last_page) if first is not None else last_page
            must = {p: f"holds {name}" for p in range(first_page, last_page + 1) if p in pages}
            must[cont.page] = f"continues {name}: {cont.signal}"
            purpose = f"continuation of {name}"
            call = session.planner.call([name], session.budget, purpose, must, False)
            limit = session.budget.prompt_tokens
            if tries >= MAX_CONTINUATIONS or (limit is not None and call.estimated_tokens > limit):
                out[name] = ListCompleteness(
                    complete=False, items=count, last_page=last_page, reason=reason
                )
                break
            tries += 1
            before = answers[name], seen[name]
            for asked, answer in session.ask([name], purpose, must, False, call):
                answers[name], seen[name] = answer, asked.pages
            if _list_end(answers[name], name)[0] < count:
                answers[name], seen[name] = before
                out[name] = ListCompleteness(
                    complete=False, items=count, last_page=last_page, reason=reason
                )
                break
    return out


def extract_parsed(
    document: ParsedDocument,
    schema: SchemaDef,
    *,
    llm: LLMBackend,
    parse_ms: float = 0.0,
    started: float | None = None,
    context: ContextBudget | None = None,
    verifier: Verifier = verify,
    plan: JobPlan | None = None,
    gate: bool | GateTrace = True,
) -> Result:
    """Extract from a document already parsed into its line table.

    First the pre-call gate (:func:`.gate.screen`): a document without text, or one that does
    not answer the schema, is refused before any call (``gate=False``: only recorded; a
    ``GateTrace``: the caller screened it already, as a worker does before reserving tokens).

    ``context`` is the model's window; without it the whole document goes in one call.
    ``plan`` is :func:`plan_job`'s plan of this document, schema and window when the caller
    made it already (a worker does, to reserve tokens for it): its calls are sent as built.
    """
    started = started if started is not None else time.perf_counter()
    verdict = gate if isinstance(gate, GateTrace) else screen(document, schema, gate)
    timings = {"parse": parse_ms}
    t = time.perf_counter()
    if plan is None:
        plan = plan_job(document, schema, context)
    elif plan.document is not document or plan.planner.schema is not schema:
        raise ValueError("the plan was made for another document or schema")
    budget, planner, groups = plan.budget, plan.planner, plan.groups
    timings["prompt"] = _ms(t)
    t = time.perf_counter()
    session = _Session(document, planner, llm, budget)
    answers: dict[str, dict[str, Any]] = {}
    seen: dict[str, tuple[int, ...]] = {}
    parts: list[dict[str, Any]] = []
    first_call: Call | None = None
    for names, planned in zip(groups, plan.calls, strict=True):
        for call, answer in session.ask(list(names), planned.purpose, planned=planned):
            first_call = first_call or call
            parts.append(answer)
            for name in call.names:
                answers[name], seen[name] = answer, call.pages
    lines_pages = dict(
        zip(document.lines["line"].astype(int), document.lines["page"].astype(int), strict=True)
    )
    lists = _complete_lists(session, answers, seen, lines_pages)
    final = {name: answers[name][name] for name in answers}
    output = merge_answers(schema, [*parts, final])
    timings["llm"] = _ms(t)
    t = time.perf_counter()
    checked = verifier(schema, output, with_edges(document))
    mark_incomplete(checked.fields, lists)
    timings["verify"] = _ms(t)
    timings["total"] = _ms(started)

    notes = getattr(output, "document_notes", None) or DocumentNotes.empty()
    withheld = int((~document.lines["visible"].astype(bool)).sum()) if len(document.lines) else 0
    if withheld:
        notes.caveats.append(
            f"{withheld} line(s) of text a reader cannot see were withheld from the model"
        )
    first = session.responses[0]
    usage: dict[str, int] = {}
    for response in session.responses:
        for key, n in response.usage.items():
            usage[key] = usage.get(key, 0) + n
    assert first_call is not None
    return Result(
        schema_name=schema.name,
        document=DocumentInfo(
            sha256=document.sha256,
            filename=document.filename,
            pages=document.page_count,
            parser=document.parser,
            page_info=_page_info(document),
        ),
        fields=checked.fields,
        data=checked.data,
        summary=Summary.of(checked.fields.values()),
        notes=notes,
        trace=Trace(
            llm=first.backend,
            model=first.model,
            response_id=first.response_id,
            system_fingerprint=first.system_fingerprint,
            usage=usage,
            mode=first.mode,
            attempts=sum(r.attempts for r in session.responses),
            fragments=list(dict.fromkeys(f for c in session.calls for f in c.prompt.fragments)),
            prompt_version=first_call.prompt.version,
            timings_ms=timings,
            context=session.context_trace() if budget.limited else None,
            calls=session.traces,
            gate=verdict,
            evidex_version=__version__,
        ),
        lists=lists,
    )
