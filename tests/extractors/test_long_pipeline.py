"""Planning a long document with the shipped scripted backend: schema split, merge, list bound.

The scripted model reads only the lines of the pages it was sent (``request.document``), so a
field is found only when the pipeline sent its page.
"""

from __future__ import annotations

from typing import Any

import pytest
from long_supply import FACTS, SCHEMA, document, reader

from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.scripted import ScriptedLLM
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import MAX_CONTINUATIONS, extract_parsed, planned_calls
from evidex.extractors.plan.calls import Planner
from evidex.extractors.plan.context import ContextBudget
from evidex.extractors.plan.groups import merge_answers, sub_schema, units
from evidex.extractors.verify.reverify import reverify
from evidex.schemas import NOT_FOUND, Status, build_answer, get_schema


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
        assert page in call.pages and call.why[page].startswith(f"rank 1 for {name}")
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

    first = next(c for c in result.trace.calls if "milestones" in c.fields)
    assert {12, 13} <= set(first.pages)  # a list runs on: the page after its best is evidence
    assert first.why[14] == "fills the budget"  # no other call took it: 25 more items read
    continued = [c for c in result.trace.calls if c.purpose == "continuation of milestones"]
    assert len(continued) == MAX_CONTINUATIONS
    assert [c.pages for c in continued] == [
        [1, 12, 13, 14, 15],
        [1, 12, 13, 14, 15, 16],
        [1, 12, 13, 14, 15, 16, 17],
    ]
    assert continued[0].why[15] == "continues milestones: numbering carries on: 75. after 74."
    info = result.lists["milestones"]
    assert (info.complete, info.items, info.last_page) == (False, 149, 17)
    assert info.reason == "the list may continue on page 18 (numbering carries on: 150. after 149.)"
    steps = [result.fields[f"milestones[{i}].step"] for i in range(149)]
    assert all(s.status is Status.NEEDS_REVIEW for s in steps)
    assert all(s.reasons[0] == info.reason for s in steps)
    assert result.fields["supplier"].status is Status.VERIFIED
    again, changes = reverify(result, doc, SCHEMA)  # re-verification keeps the list's doubt
    assert changes == [] and again.fields["milestones[0].step"].reasons[0] == info.reason


@pytest.mark.parametrize(("pages", "items"), [(range(12, 14), 49), (range(12, 13), 24)])
def test_a_list_within_reach_is_completed(pages, items):
    doc = document(milestone_pages=pages)
    result = extract_parsed(doc, SCHEMA, llm=ScriptedLLM(reader), context=ContextBudget(6_000))

    info = result.lists["milestones"]
    assert info.complete and info.items == items and info.reason == ""
    assert info.last_page == pages[-1]
    steps = [result.fields[f"milestones[{i}].step"] for i in range(items)]
    assert all(s.status is Status.VERIFIED for s in steps)


def test_a_re_ask_that_comes_back_shorter_is_not_taken():
    doc = document(milestone_pages=range(12, 16))  # the first call holds 12 to 14, not 15
    asked: list[LLMRequest] = []

    def forgetful(request: LLMRequest) -> dict[str, Any]:
        answer = reader(request)
        if "milestones" in request.schema.model.model_fields:
            asked.append(request)
            if len(asked) > 1:  # the re-ask, with the continuing page
                answer["milestones"] = answer["milestones"][:3]
        return answer

    result = extract_parsed(doc, SCHEMA, llm=ScriptedLLM(forgetful), context=ContextBudget(6_000))

    info = result.lists["milestones"]
    assert len(asked) == 2 and 15 in set(asked[1].document.lines["page"])
    assert (info.complete, info.items, info.last_page) == (False, 74, 14)
    assert info.reason == "the list may continue on page 15 (numbering carries on: 75. after 74.)"
    assert result.fields["milestones[73].step"].status is Status.NEEDS_REVIEW


def test_an_answer_longer_than_the_output_cap_splits_even_a_short_document():
    doc = TextParser().parse(b"MASTER SERVICES AGREEMENT\nbetween Acme and Beta\n", "a.txt")
    schema = get_schema("contract")
    planner = Planner(doc, schema)
    assert planner.plan(ContextBudget(64_000, 16_384)) == [[u.name for u in units(schema)]]

    capped = ContextBudget(64_000, 2_000)
    groups = planner.plan(capped)
    assert planner.answer_tokens([u.name for u in units(schema)]) > 2_000
    assert len(groups) > 1 and all(planner.answer_tokens(g) <= 2_000 for g in groups)
    assert [n for g in groups for n in g] == [u.name for u in units(schema)]  # schema order


def test_the_scripted_model_with_a_window_refuses_then_answers_the_smaller_prompt():
    llm = ScriptedLLM(reader, window_tokens=5_000)
    result = extract_parsed(document(), SCHEMA, llm=llm, context=ContextBudget(64_000))

    first, *rest = llm.requests
    assert len(first.document.pages) > len(rest[0].document.pages)  # refused, then smaller
    assert all(c.purpose.startswith("retry, smaller") for c in result.trace.calls)
    assert all(c.usage["input_tokens"] <= 5_000 for c in result.trace.calls)
    context = result.trace.context
    assert context is not None and context.calibrated_chars_per_token is not None
    assert result.fields["venue"].status is Status.VERIFIED


def test_a_document_that_does_not_fit_fills_the_budget_in_page_order_with_reasons():
    llm = ScriptedLLM(reader)
    budget = ContextBudget(6_000, 16_384)
    result = extract_parsed(document(range(12, 14)), SCHEMA, llm=llm, context=budget)

    assert budget.prompt_tokens is not None
    for call, request in zip(result.trace.calls, llm.requests, strict=True):
        assert 0.9 * budget.prompt_tokens <= call.estimated_tokens <= budget.prompt_tokens
        assert call.pages == sorted(call.pages) and set(call.why) == set(call.pages)
        sent = request.document.lines["line"].tolist()
        assert sent == sorted(sent)  # the model reads the pages in page order
        assert set(request.document.lines["page"]) == set(call.pages)
    milestones = next(c for c in result.trace.calls if "milestones" in c.fields)
    assert milestones.why[1] == "first page"
    assert milestones.why[12] == "rank 1 for milestones"
    assert milestones.why[13] == "follows page 12 (rank 1 for milestones): a list runs on"
    filled = [w for c in result.trace.calls for w in c.why.values() if "to fill the budget" in w]
    assert filled and all(w.startswith("its first ") for w in filled)
    assert result.lists["milestones"].complete and result.lists["milestones"].items == 49
