"""Page selection keeps global line numbers."""

from __future__ import annotations

import pytest

from evidex.extractors.document import parse_pages, select_pages
from evidex.extractors.parse.text import TextParser


@pytest.mark.parametrize(
    ("spec", "pages"),
    [("1", [1]), ("1-3", [1, 2, 3]), ("3,1-2", [3, 1, 2]), ("2, 2-3", [2, 3]), ("4-4", [4])],
)
def test_page_selection(spec: str, pages: list[int]) -> None:
    assert parse_pages(spec, 4) == pages


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0", "not a valid range"),
        ("3-2", "not a valid range"),
        ("5", "has 4 page"),
        ("a-b", "not a page or a range"),
        (",", "names no page"),
    ],
)
def test_bad_page_selection_says_why(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_pages(spec, 4)


def test_selected_pages_keep_their_global_line_numbers() -> None:
    doc = TextParser().parse(b"a\nb\fc\nd\fe\n", "t.txt")
    only = select_pages(doc, "2-3")
    assert list(only.lines["line"]) == [3, 4, 5]
    assert list(only.lines["page"]) == [2, 2, 3]
    assert list(only.pages["page"]) == [2, 3]
    assert only.sha256 == doc.sha256
