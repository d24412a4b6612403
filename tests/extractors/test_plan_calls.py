"""A job's calls planned together (``Planner.calls``): fields that read the same pages share a
call, a page goes to every call whose fields cite it as evidence and any other page to one call
only, each with its reason, and a document that does not fit fills every call's budget."""

from __future__ import annotations

import random
from collections import Counter

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.scripted import ScriptedLLM
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.plan.calls import Call, Planner
from evidex.extractors.plan.context import ContextBudget
from evidex.schemas import Status, build_answer, schema_from_json

FILLER = "delivery crate harbour invoice pallet vessel cargo customs port quay berth freight"
FIELDS = ("alpha", "beta", "gamma")
SCHEMA = schema_from_json(
    {
        "title": "ledger",
        "type": "object",
        "properties": {
            name: {"type": "string", "description": f"The {name} code."} for name in FIELDS
        },
    }
)
# Two fields a call at most: the answer's cap (150 of notes, 60 a field) holds no third.
TWO_FIELDS = ContextBudget(6_000, max_output_tokens=300)


def ledger(pages: int, facts: dict[int, list[str]]) -> ParsedDocument:
    """A ledger of ``pages`` pages of filler, the lines ``facts`` on their pages."""
    rng = random.Random(11)
    texts = []
    for page in range(1, pages + 1):
        lines = [" ".join(rng.choice(FILLER.split()) for _ in range(14)) for _ in range(20)]
        if page == 1:
            lines[0] = "HARBOUR LEDGER"
        for i, fact in enumerate(facts.get(page, [])):
            lines[5 + i] = fact
        texts.append("\n".join(lines))
    return TextParser().parse("\f".join(texts).encode(), "ledger.txt")


def planned(doc: ParsedDocument, budget: ContextBudget = TWO_FIELDS) -> list[Call]:
    return Planner(doc, SCHEMA).calls(budget)


def test_fields_that_read_the_same_pages_share_a_call():
    doc = ledger(30, {6: ["Alpha: A-17", "Gamma: G-42"], 20: ["Beta: B-99"]})
    calls = planned(doc)
    # in schema order alpha and beta would share the first call; gamma reads alpha's page
    assert [c.names for c in calls] == [("alpha", "gamma"), ("beta",)]
    assert calls[0].why[6] == 'rank 1 for alpha (defines "Alpha")'
    assert calls[1].why[20] == 'rank 1 for beta (defines "Beta")'
    assert 6 not in calls[1].pages and 20 not in calls[0].pages


def test_an_evidence_page_goes_to_every_call_citing_it_any_other_page_to_one():
    doc = ledger(40, {6: ["Alpha: A-17", "Beta: B-99", "Gamma: G-42"]})
    calls = planned(doc)
    assert [c.names for c in calls] == [("alpha", "beta"), ("gamma",)]
    assert all(6 in c.pages for c in calls)  # evidence for both calls
    assert calls[1].why[6] == 'rank 1 for gamma (defines "Gamma")'
    sent = Counter(p for c in calls for p in c.sent_pages)
    assert {p for p, n in sent.items() if n > 1} == {1, 6}  # the first page and the evidence
    for call in calls:
        assert set(call.why) == set(call.sent_pages) and call.why[1] == "first page"


def test_a_document_the_calls_cannot_hold_fills_every_call_s_budget():
    doc = ledger(40, {6: ["Alpha: A-17", "Gamma: G-42"], 20: ["Beta: B-99"]})
    calls = planned(doc)
    assert len({p for c in calls for p in c.sent_pages}) < 40
    limit = TWO_FIELDS.prompt_tokens
    assert limit is not None
    assert all(0.9 * limit <= c.estimated_tokens <= limit for c in calls)
    assert any(r.startswith("fills the budget") for c in calls for r in c.why.values())


def test_a_document_the_calls_can_hold_is_sent_once_over_them():
    doc = ledger(9, {6: ["Alpha: A-17", "Gamma: G-42"], 8: ["Beta: B-99"]})
    planner = Planner(doc, SCHEMA)
    whole = sum(planner.page_tokens(TWO_FIELDS).values())
    assert TWO_FIELDS.prompt_tokens is not None and whole > TWO_FIELDS.prompt_tokens  # no fit
    calls = planner.calls(TWO_FIELDS)
    sent = Counter(p for c in calls for p in c.sent_pages)
    assert len(calls) == 2 and set(sent) == set(range(1, 10))
    assert {p for p, n in sent.items() if n > 1} == {1}  # the first page only, to both


def test_fields_split_for_the_answer_s_size_each_read_a_document_that_fits():
    doc = ledger(3, {2: ["Alpha: A-17", "Beta: B-99", "Gamma: G-42"]})
    calls = planned(doc)
    assert len(calls) == 2 and all(c.pages == (1, 2, 3) for c in calls)
    assert all(set(c.why.values()) == {"the whole document fits"} for c in calls)


def test_the_pipeline_sends_the_planned_calls_and_traces_each_page_s_reason():
    doc = ledger(40, {6: ["Alpha: A-17", "Gamma: G-42"], 20: ["Beta: B-99"]})
    values = {"alpha": ("Alpha: A-17", "A-17"), "beta": ("Beta: B-99", "B-99"),
              "gamma": ("Gamma: G-42", "G-42")}  # fmt: skip

    def reader(request):  # answers what the lines sent state
        rows = request.document.lines
        fields = {}
        for name in request.schema.model.model_fields:
            line, value = values[name]
            hit = rows[rows["text"] == line]
            if len(hit):
                page, number = int(hit["page"].iloc[0]), int(hit["line"].iloc[0])
                fields[name] = {"quote": value, "value": value, "page": page,
                                "line_start": number, "line_end": number}  # fmt: skip
        return build_answer(request.schema, fields)

    llm = ScriptedLLM(reader)
    result = extract_parsed(doc, SCHEMA, llm=llm, context=TWO_FIELDS)
    assert [c.fields for c in result.trace.calls] == [["alpha", "gamma"], ["beta"]]
    assert [c.purpose for c in result.trace.calls] == ["group 1 of 2", "group 2 of 2"]
    for call, request in zip(result.trace.calls, llm.requests, strict=True):
        assert set(call.why) == set(call.pages) == set(request.document.lines["page"])
    assert {n: (f.status, f.value) for n, f in result.fields.items()} == {
        "alpha": (Status.VERIFIED, "A-17"),
        "beta": (Status.VERIFIED, "B-99"),
        "gamma": (Status.VERIFIED, "G-42"),
    }
