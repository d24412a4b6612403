"""Locating quotes: normalisation, word boundaries, multi-line and ambiguous matches."""

from __future__ import annotations

import pytest

from evidex.extractors.parse.text import TextParser
from evidex.extractors.verify.align import DocText

TEXT = (
    "Order 4821 placed\n"
    "Qty 1 at 1.234,56 EUR\n"
    "The \ufb01nance depart-\n"
    "ment said \u201cyes\u201d \u2014 twice\n"
    "Ref:\u00a0AB\u00adCD\n"
)
DOC = DocText(TextParser().parse(TEXT.encode(), "t.txt").lines)


@pytest.mark.parametrize(
    ("quote", "cited", "rows", "level"),
    [
        ("4821", (1, 1), [0], "exact"),
        ("1", (2, 2), [1], "exact"),
        ('finance department said "yes" - twice', (3, 4), [2, 3], "normalized"),
        ("The ﬁnance", (3, 3), [2], "exact"),
        ("Ref: ABCD", (5, 5), [4], "normalized"),
        ("ORDER 4821 PLACED", (1, 1), [0], "normalized"),
    ],
)
def test_quote_is_found(quote: str, cited: tuple[int, int], rows: list[int], level: str) -> None:
    match = DOC.locate(quote, *cited)
    assert match is not None
    assert [r for r, _, _ in match.ranges] == rows
    assert match.level == level


@pytest.mark.parametrize("quote", ["482", "821", "4", "234", "Order 4822 placed", "departed"])
def test_partial_words_and_numbers_never_match(quote: str) -> None:
    assert DOC.locate(quote, 1, 2) is None


def test_character_ranges_point_into_the_original_line() -> None:
    match = DOC.locate("1.234,56 EUR", 2, 2)
    assert match is not None
    ((row, a, b),) = match.ranges
    assert TEXT.splitlines()[row][a:b] == "1.234,56 EUR"


def test_cited_lines_that_do_not_exist_fall_back_to_the_nearest() -> None:
    match = DOC.locate("Ref: ABCD", 99, 99)
    assert match is not None and match.ranges[0][0] == 4 and not match.in_cited
