"""Planning a long document with the shipped scripted backend: schema split, merge, list bound.

The scripted model reads only the lines of the pages it was sent (``request.document``), so a
field is found only when the pipeline sent its page.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from evidex.extractors.context import ContextBudget
from evidex.extractors.groups import merge_answers, sub_schema, units
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.scripted import ScriptedLLM
from evidex.extractors.parsers.text import TextParser
from evidex.extractors.pipeline import MAX_CONTINUATIONS, extract_parsed, planned_calls
from evidex.schemas import NOT_FOUND, Status, build_answer, get_schema, schema_from_json

WORDS = [
    "the",
    "parties",
    "hereto",
    "agree",
    "that",
    "each",
    "notice",
    "shall",
    "be",
    "delivered",
    "in",
    "writing",
]
FACTS = {
    "supplier": (3, "Supplier: Orbit Metals GmbH", "Orbit Metals GmbH"),
    "customer": (9, "Customer: Lumen Foods Ltd", "Lumen Foods Ltd"),
    "warranty": (15, "Warranty: twelve months from delivery", "twelve months from delivery"),
    "venue": (21, "Venue: the courts of Zurich", "the courts of Zurich"),
    "currency_clause": (27, "Currency: all prices are in Swiss francs", "Swiss francs"),
}
SCHEMA = schema_from_json(
    {
        "title": "supply",
        "type": "object",
        "properties": {
            "supplier": {"type": "string", "description": "The supplier."},
            "customer": {"type": "string", "description": "The customer."},
            "warranty": {"type": "string", "description": "The warranty."},
            "venue": {"type": "string", "description": "The venue for disputes."},
            "currency_clause": {"type": "string", "description": "The currency of prices."},
            "milestones": {
                "type": "array",
                "description": "Milestones of the delivery schedule.",
                "items": {
                    "type": "object",
                    "properties": {"step": {"type": "string", "description": "The milestone."}},
                },
            },
        },
    }
)


def filler(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."


def document(milestone_pages: range = range(0)):
    rng = random.Random(7)
    pages = []
    for page in range(1, 31):
        lines = [filler(rng) for _ in range(25)]
        if page == 1:
            lines[0] = "SUPPLY AGREEMENT"
        for _name, (where, text, _value) in FACTS.items():
            if page == where:
                lines[10] = text
        if page in milestone_pages:
            first = page == milestone_pages.start
            numbers = range(1, 25) if first else range(25 * (page - milestone_pages.start), 0)
            numbers = range(numbers.start, numbers.start + (24 if first else 25))
            items = [f"{n}. crate {n} inspected at the port of loading;" for n in numbers]
            lines = (["Milestones of the delivery schedule:"] if first else []) + items
        pages.append("\n".join(lines))
    return TextParser().parse("\f".join(pages).encode(), "supply.txt")


def reader(request: LLMRequest) -> dict[str, Any]:
    """Answers the asked fields from the sent lines only."""
    rows = list(
        zip(
            request.document.lines["line"],
            request.document.lines["page"],
            request.document.lines["text"],
            strict=True,
        )
    )
    asked = list(request.schema.model.model_fields)
    fields: dict[str, dict[str, Any]] = {}
    for name, (_page, text, value) in FACTS.items():
        for line, page, row in rows:
            if name in asked and row == text:
                fields[name] = {
                    "quote": value,
                    "value": value,
                    "page": int(page),
                    "line_start": int(line),
                    "line_end": int(line),
                }
    items = [(line, page, row) for line, page, row in rows if re.match(r"^\d+\. ", row)]
    if "milestones" in asked:
        for i, (line, page, row) in enumerate(items):
            fields[f"milestones[{i}].step"] = {
                "quote": row,
                "value": row,
                "page": int(page),
                "line_start": int(line),
                "line_end": int(line),
            }
    return build_answer(request.schema, fields)


def test_related_fields_stay_together_and_the_split_is_merged():
    schema = get_schema("contract")
    groups = units(schema)
    parties = next(u for u in groups if u.name == "parties")
    assert parties.is_list and {leaf.path for leaf in parties.leaves} == {
        "parties[].name",
        "parties[].role",
    }
    part = sub_schema(schema, ["title", "parties"])
    assert list(part.model.model_fields) == ["title", "parties"]
    assert [
        type(r).__name__ for r in sub_schema(schema, ["effective_date", "expiration_date"]).rules
    ] == ["OrderRule"]
    a = build_answer(part, {"title": {"quote": "MSA", "value": "MSA"}})
    b = build_answer(sub_schema(schema, ["governing_law"]), {"governing_law": dict(NOT_FOUND)})
    b["document_notes"]["caveats"] = ["page 3 is blurred"]
    rest = [u.name for u in groups if u.name not in ("title", "parties", "governing_law")]
    c = build_answer(sub_schema(schema, rest), {})
    merged = merge_answers(schema, [a, b, c])
    assert merged.title.value == "MSA"  # type: ignore[attr-defined]
    assert merged.document_notes.caveats == ["page 3 is blurred"]  # type: ignore[attr-defined]


def test_a_schema_too_big_for_one_call_is_split_into_groups():
    doc = document()
    llm = ScriptedLLM(reader)
    budget = ContextBudget(4_000, 16_384)
    result = extract_parsed(doc, SCHEMA, llm=llm, context=budget)

    calls = result.trace.calls
    assert len(calls) >= 2 and all(c.purpose.startswith("group ") for c in calls)
    asked = [list(r.schema.model.model_fields) for r in llm.requests]
    assert sorted(n for names in asked for n in names) == sorted(SCHEMA.model.model_fields)
    for name, (page, _text, value) in FACTS.items():
        field = result.fields[name]
        assert (field.status, field.value, field.page) == (Status.VERIFIED, value, page), name
        call = next(c for c in calls if name in c.fields)
        assert page in call.pages and call.why[page] == f"rank 1 for {name}"
    assert all(
        r.document.lines["page"].isin(c.pages).all()
        for r, c in zip(llm.requests, calls, strict=True)
    )
    assert max(c.estimated_tokens for c in calls) <= budget.prompt_tokens


def test_the_budget_reservation_covers_every_planned_call():
    calls, extra = planned_calls(document(), SCHEMA, ContextBudget(4_000, 16_384))
    assert len(calls) >= 2
    assert extra == MAX_CONTINUATIONS  # one list, re-asked at most that often
    one, no_extra = planned_calls(document(), SCHEMA, None)
    assert len(one) == 1 and len(one[0].pages) == 30 and no_extra == 0


def test_a_list_past_the_bound_goes_to_review_with_the_page_it_may_continue_on():
    doc = document(milestone_pages=range(12, 24))  # items 1-24 on page 12, 25-49 on 13 ...
    llm = ScriptedLLM(reader)
    result = extract_parsed(doc, SCHEMA, llm=llm, context=ContextBudget(6_000, 16_384))

    continued = [c for c in result.trace.calls if c.purpose == "continuation of milestones"]
    assert len(continued) == MAX_CONTINUATIONS
    assert [c.pages for c in continued] == [[1, 12, 13], [1, 12, 13, 14], [1, 12, 13, 14, 15]]
    assert continued[0].why[13] == "continues milestones: numbering carries on: 25. after 24."
    info = result.lists["milestones"]
    assert (info.complete, info.items, info.last_page) == (False, 99, 15)
    assert info.reason == "the list may continue on page 16 (numbering carries on: 100. after 99.)"
    steps = [result.fields[f"milestones[{i}].step"] for i in range(99)]
    assert all(s.status is Status.NEEDS_REVIEW for s in steps)
    assert all(s.reasons[0] == info.reason for s in steps)
    assert result.fields["supplier"].status is Status.VERIFIED


@pytest.mark.parametrize(("pages", "items"), [(range(12, 14), 49), (range(12, 13), 24)])
def test_a_list_within_reach_is_completed(pages, items):
    doc = document(milestone_pages=pages)
    result = extract_parsed(doc, SCHEMA, llm=ScriptedLLM(reader), context=ContextBudget(6_000))

    info = result.lists["milestones"]
    assert info.complete and info.items == items and info.reason == ""
    assert info.last_page == pages[-1]
    steps = [result.fields[f"milestones[{i}].step"] for i in range(items)]
    assert all(s.status is Status.VERIFIED for s in steps)
