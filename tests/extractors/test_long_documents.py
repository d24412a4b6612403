"""A 300-page agreement through the real ``openai`` backend against a server with a window.

The server (``tests/fake_window.py``) refuses any prompt over its window with OpenAI's
``context_length_exceeded`` error and otherwise answers only from the lines it was sent, so a
fact is found only if its page was selected, and a list is complete only if the pipeline sent
the page it continues on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fake_openai import local_backend
from fake_window import WindowedOpenAI
from long_agreement import (
    BORROWER,
    COMMITMENT,
    EVENTS,
    LAW,
    LIST_PAGE,
    READER,
    SCHEMA,
    agreement_pdf,
)
from long_contract import agreement_pdf as agreement_pdf_of
from long_contract import expected
from long_contract import reader as contract_reader
from long_contract import schema as contract_schema
from long_contract_facility import FACILITY

from evidex.extractors.document import ParsedDocument, select_pages
from evidex.extractors.errors import LLMContextExceeded
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.plan.context import ContextBudget, ContextTooSmall
from evidex.schemas import ListCompleteness, Result, SchemaDef, Status, schema_from_json

WINDOW = 16_000


@pytest.fixture(scope="module")
def agreement() -> ParsedDocument:
    return PyMuPDFParser(tables=False).parse(agreement_pdf(), "credit_agreement.pdf")


@pytest.fixture(scope="module")
def schema() -> SchemaDef:
    return schema_from_json(SCHEMA)


@pytest.fixture
def server() -> Iterator[WindowedOpenAI]:
    with WindowedOpenAI(WINDOW, READER) as fake:
        yield fake


def backend(server: WindowedOpenAI, api: str = "responses") -> OpenAIBackend:
    return local_backend(server.base_url, "local-16k", api, max_retries=0, timeout_s=30)


def run(
    doc: ParsedDocument,
    schema: SchemaDef,
    server: WindowedOpenAI,
    window: int | None,
    api: str = "responses",
) -> Result:
    with backend(server, api) as llm:
        return extract_parsed(doc, schema, llm=llm, context=ContextBudget(window, 16_384))


def test_a_300_page_agreement_extracts_within_a_16k_window(agreement, schema, server):
    result = run(agreement, schema, server, WINDOW)

    assert server.refused == 0 and max(server.counted) <= WINDOW
    facts = {
        "borrower": (BORROWER, 1),
        "effective_date": ({"iso": "2024-03-15", "original": "March 15, 2024"}, 1),
        "governing_law": (LAW, 147),
        "aggregate_commitment": ({"value": 250_000_000.0, "currency": "USD"}, 288),
    }
    for path, (value, page) in facts.items():
        field = result.fields[path]
        assert (field.status, field.value, field.page) == (Status.VERIFIED, value, page), path
    assert COMMITMENT in result.fields["aggregate_commitment"].quote
    events = [result.fields[f"events_of_default[{i}].event"] for i in range(len(EVENTS))]
    assert [e.value for e in events] == [text for _, text in EVENTS]
    assert all(e.status is Status.VERIFIED for e in events)
    assert [e.page for e in events] == [LIST_PAGE] * 10 + [LIST_PAGE + 1] * 4
    assert "events_of_default[14].event" not in result.fields
    assert result.lists["events_of_default"].complete is True
    assert result.lists["events_of_default"].items == 14

    # One call: the page the list runs over onto is sent with the page it follows.
    [first] = result.trace.calls
    assert {1, 147, LIST_PAGE, LIST_PAGE + 1, 288} <= set(first.pages)
    assert first.why[1] == "first page"
    assert first.why[147] == 'rank 1 for governing_law (heading "Governing Law")'
    assert first.why[LIST_PAGE + 1] == (
        f"follows page {LIST_PAGE} (rank 1 for events_of_default): a list runs on"
    )
    context = result.trace.context
    assert context is not None and context.window_tokens == WINDOW
    assert context.prompt_budget_tokens is not None
    assert first.estimated_tokens >= 0.9 * context.prompt_budget_tokens  # the budget is filled
    assert context.tokens_sent == sum(server.counted)
    assert context.tokens_sent * 10 < context.document_tokens
    # The server counts 3 characters a token: the estimate's 3.5 is calibrated to it.
    assert context.calibrated_chars_per_token is not None
    assert 2.8 < context.calibrated_chars_per_token < 3.2


def test_the_whole_document_goes_in_one_call_when_it_fits(agreement, schema, server):
    small = select_pages(agreement, "1-3")
    result = run(small, schema, server, WINDOW)

    assert len(result.trace.calls) == 1
    call = result.trace.calls[0]
    assert (call.pages, call.why, call.purpose) == ([1, 2, 3], {}, "all fields")
    assert result.fields["borrower"].status is Status.VERIFIED
    assert result.fields["governing_law"].status is Status.NOT_FOUND


def test_without_a_window_one_call_holds_every_page(agreement, schema, server):
    server.window_tokens = 10**7
    result = run(agreement, schema, server, None)

    assert len(server.counted) == 1 and result.trace.context is None
    assert len(result.trace.calls[0].pages) == 300
    assert result.summary.verified == 4 + 28


def test_a_window_smaller_than_declared_shrinks_and_retries_once(agreement, schema, server):
    # Chat Completions names the window and the count: the retry believes both.
    server.window_tokens = 8_000
    result = run(agreement, schema, server, 64_000, api="chat")

    assert server.refused == 1
    assert server.counted[0] > 8_000 and max(server.counted[1:]) <= 8_000
    retried = [c for c in result.trace.calls if c.purpose == "retry, smaller: all fields"]
    assert len(retried) >= 2  # the fields no longer fit one call: the schema was split
    assert sorted(f for c in retried for f in c.fields) == sorted(SCHEMA["properties"])
    for path in ("borrower", "governing_law", "aggregate_commitment"):
        assert result.fields[path].status is Status.VERIFIED, path
    assert result.lists["events_of_default"] == ListCompleteness(
        complete=True, items=14, last_page=LIST_PAGE + 1
    )


def test_refused_twice_is_llm_context_exceeded(agreement, schema, server):
    server.window_tokens = 3_000  # the Responses message gives no numbers: halve, then fail
    with pytest.raises(LLMContextExceeded) as caught:
        run(agreement, schema, server, 64_000)

    assert caught.value.code == "llm_context_exceeded"
    assert server.refused == 2
    assert "EVIDEX_CONTEXT_TOKENS" in str(caught.value)


def test_a_window_too_small_for_one_page_is_a_configuration_error(agreement, schema, server):
    with pytest.raises(ContextTooSmall) as caught:
        run(agreement, schema, server, 2_000)

    message = str(caught.value)
    assert caught.value.exit_code == 2 and caught.value.code == "context_window_too_small"
    assert "2,000 tokens" in message and "1,500" in message
    assert re.search(r"need [\d,]+ and page 1 alone [\d,]+", message)
    assert server.counted == []


def test_an_agreement_written_as_real_ones_are_within_a_16k_window():
    # A cover page, a table of contents, the parties on page 4, definitions, defined terms on
    # every page, the governing law near the end (tests/long_contract.py).
    doc = PyMuPDFParser(tables=False).parse(agreement_pdf_of(FACILITY), "facility.pdf")
    with WindowedOpenAI(WINDOW, contract_reader(FACILITY)) as fake:
        result = run(doc, schema_from_json(contract_schema(FACILITY)), fake, WINDOW)

    for name, value in expected(FACILITY).items():
        field = result.fields[name]
        assert (field.status, field.value) == (Status.VERIFIED, value), name
    assert result.fields["borrower"].page == FACILITY.parties_page  # where it is defined
    events = [result.fields[f"events_of_default[{i}].event"] for i in range(12)]
    assert [e.value for e in events] == [text for _, text in FACILITY.events]
    assert all(e.status is Status.VERIFIED for e in events)
    assert result.lists["events_of_default"].complete
    first = result.trace.calls[0]
    assert first.why[FACILITY.parties_page] == 'rank 1 for borrower (defines "Borrower")'
    assert first.why[FACILITY.law_page].endswith('(heading "GOVERNING LAW")')
    context = result.trace.context
    assert context is not None and context.prompt_budget_tokens is not None
    assert first.estimated_tokens >= 0.9 * context.prompt_budget_tokens
