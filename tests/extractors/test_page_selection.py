"""Page ranking (BM25), the choice of pages under a budget, and the context budget's arithmetic."""

from __future__ import annotations

import pytest

from evidex.extractors.parse.text import TextParser
from evidex.extractors.plan.context import ContextBudget
from evidex.extractors.plan.pages import choose_pages, field_query, page_texts, rank_pages
from evidex.schemas import LeafSpec, get_schema

PAGES = [
    "MASTER SERVICES AGREEMENT\nbetween Acme Corp and Beta LLC",
    "The services are described in the statement of work.",
    "This Agreement is governed by the laws of the State of Delaware.",
    "Fees. The Customer pays a monthly fee of USD 4,000.",
    "Termination. Either party may terminate on 30 days notice.",
]


def lines():
    return TextParser().parse("\f".join(PAGES).encode(), "msa.txt").lines


def test_pages_rank_by_the_words_they_share_with_the_fields():
    texts = page_texts(lines())
    leaves = [leaf for leaf in get_schema("contract").leaves if leaf.path == "governing_law"]
    ranked = rank_pages(texts, field_query(leaves))
    assert ranked[0][0] == 3 and ranked[0][1] > 0
    fees = [leaf for leaf in get_schema("contract").leaves if leaf.path.startswith("fees")]
    assert rank_pages(texts, field_query(fees))[0][0] == 4


def test_the_query_holds_names_descriptions_and_kind_words_but_not_a_value_s_form():
    leaves = [leaf for leaf in get_schema("contract").leaves if leaf.path == "effective_date"]
    query = field_query(leaves)
    assert "effective" in query and "takes effect" in query and "day" in query
    assert "date" not in query.split() and "dated" not in query.split()
    title = [leaf for leaf in get_schema("contract").leaves if leaf.path == "title"]
    assert field_query(title) == "agreement"  # "Title of the agreement.": what it is the title of
    dated = LeafSpec(path="date", kind="text", description="The date.")  # type: ignore[arg-type]
    assert field_query([dated]) == "date The date"  # a field named by its form only keeps it


def test_a_query_sharing_no_word_ranks_in_page_order_with_zero_scores():
    assert rank_pages(page_texts(lines()), "zebra") == [(p, 0.0) for p in range(1, 6)]


def test_choose_keeps_the_must_pages_then_fills_by_rank_in_page_order():
    costs = {1: 100, 2: 100, 3: 300, 4: 100, 5: 100}
    choice = choose_pages(costs, [3, 5, 2, 4], 450, must={1: "first page"})
    # 1 (must) + 3 (rank 1) = 400; 5 does not fit (500), nor 2 or 4.
    assert choice.pages == (1, 3) and choice.tokens == 400 and choice.left_out == 3
    assert choice.why == {1: "first page", 3: "rank 1 by relevance"}
    smaller = choose_pages(costs, [3, 5, 2], 350, must={1: "first page"})
    assert smaller.pages == (1, 2, 5)  # 3 is too big; the next ones still fit, in page order
    assert smaller.why[5] == "rank 2 by relevance"


@pytest.mark.parametrize(
    ("window", "prompt", "output"),
    [(16_000, 12_000, 4_000), (128_000, 96_000, 16_384), (None, None, 16_384)],
)
def test_a_prompt_gets_three_quarters_of_the_window(window, prompt, output):
    budget = ContextBudget(window, 16_384)
    assert budget.prompt_tokens == prompt
    assert budget.output_tokens(prompt or 0) == output


def test_calibration_takes_the_ratio_the_provider_counted():
    budget = ContextBudget(16_000, chars_per_token=3.5)
    assert budget.tokens(7_000) == 2_000
    measured = budget.calibrate(6_000, 2_016)  # 2,000 tokens of text plus 16 of framing
    assert measured.chars_per_token == 3.0 and measured.calibrated
    assert budget.calibrate(6_000, None) is budget
    assert budget.calibrate(6_000, 1).chars_per_token == 3.5  # nonsense counts are ignored


def test_a_refused_prompt_shrinks_the_window():
    budget = ContextBudget(64_000, chars_per_token=3.5)
    named = budget.shrunk(20_000, window=16_000, counted=24_016)
    assert named.window_tokens == 16_000 and named.chars_per_token == pytest.approx(2.917, 0.01)
    blind = budget.shrunk(20_000)
    assert blind.prompt_tokens == 10_000
