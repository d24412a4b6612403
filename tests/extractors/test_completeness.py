"""The next-page check: numbering, table rows and cut sentences that run onto the next page."""

from __future__ import annotations

import pytest

from evidex.extractors.parse.text import TextParser
from evidex.extractors.plan.completeness import continuation, marker, next_markers


def doc(*pages: str):
    return TextParser().parse("\f".join(pages).encode(), "d.txt").lines


def last_line_of(lines, page: int, text: str) -> int:
    rows = lines[(lines["page"] == page) & (lines["text"].str.contains(text, regex=False))]
    return int(rows["line"].iloc[-1])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(e) failure to pay;", ("()", "e")),
        ("6. Notices", (".", "6")),
        ("c) the Agent", (")", "c")),
        ("(iv) any lien", ("()", "iv")),
        ("1.5 million dollars", None),
        ("Section 8.01 Events", None),
        ("23.8 Creditors' process", ("§", "23.8")),  # clause numbering
    ],
)
def test_markers_are_read_from_the_start_of_a_line(text, expected):
    assert marker(text) == expected


@pytest.mark.parametrize(
    ("style", "token", "follows"),
    [
        ("()", "e", {("()", "f")}),
        (".", "6", {(".", "7")}),
        ("()", "i", {("()", "j"), ("()", "ii")}),  # a letter or a roman numeral
        ("()", "iv", {("()", "v")}),
        ("()", "z", {("()", "aa")}),
        ("§", "23.9", {("§", "23.10")}),
    ],
)
def test_the_next_marker(style, token, follows):
    assert next_markers(style, token) == follows


CASES = {
    "numbering (f) after (e)": (
        "Events:\n(d) failure to pay;\n(e) breach of covenant;\nPage 3 of 9",
        "Page 4\n(f) insolvency;\n(g) judgments.",
        "(e)",
        "numbering carries on: (f) after (e)",
    ),
    "numbering 23.9 after 23.8": (
        "23. EVENTS OF DEFAULT\n23.7 Insolvency proceedings\n23.8 Creditors' process\n- 201 -",
        "23.9 Unlawfulness and invalidity\n23.10 Cessation of business",
        "23.8",
        "numbering carries on: 23.9 after 23.8",
    ),
    "numbering 7. after 6.": (
        "Conditions\n5. Notices shall be in writing.\n6. Costs are borne by the Borrower.",
        "7. Counterparts may be signed separately.",
        "6.",
        "numbering carries on: 7. after 6.",
    ),
    "a table row of the same columns": (
        "Item | Qty | Amount\nWidget | 2 | 10.00\nGadget | 1 | 5.00",
        "Sprocket | 4 | 8.00\nTotal | | 23.00",
        "Gadget",
        "a table row of 3 columns carries on",
    ),
    "a sentence cut mid-way": (
        "(a) the Borrower shall deliver to the Agent, within ninety days after the end of",
        "each fiscal year, its audited financial statements;",
        "(a)",
        "a sentence is cut at the end of the page",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_list_that_runs_onto_the_next_page_is_seen(case):
    first, second, last, signal = CASES[case]
    lines = doc(first, second)
    found = continuation(lines, last_line_of(lines, 1, last))
    assert found is not None and (found.page, found.signal) == (2, signal)


@pytest.mark.parametrize(
    ("first", "second", "last"),
    [
        ("(d) failure to pay;\n(e) breach of covenant.", "ARTICLE IX\nMiscellaneous", "(e)"),
        ("(d) failure to pay;\n(e) breach of covenant.", "(a) a new list starts here;", "(e)"),
        ("Item | Qty | Amount\nGadget | 1 | 5.00", "Notes | 2", "Gadget"),
        ("The parties agree as follows.", "the next page starts in lower case", "parties"),
        ("6. Costs are borne by the Borrower.", "8. Waivers.", "6."),
        ("23.8 Creditors' process", "24. CHANGES TO THE LENDERS", "23.8"),
    ],
)
def test_a_list_that_ends_on_its_page_is_not_continued(first, second, last):
    lines = doc(first, second)
    assert continuation(lines, last_line_of(lines, 1, last)) is None


def test_the_last_page_has_nothing_after_it():
    lines = doc("(a) one;\n(b) two;")
    assert continuation(lines, last_line_of(lines, 1, "(b)")) is None


def test_the_check_reads_past_a_running_footer_and_header():
    lines = doc(
        "(i) the first;\n(j) the second;\nCredit Agreement - Page 150 of 300",
        "150\n(k) the third;",
    )
    found = continuation(lines, last_line_of(lines, 1, "(j)"))
    assert found is not None and found.signal == "numbering carries on: (k) after (j)"
