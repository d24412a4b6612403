"""Written dates: the English ones read without dateparser give exactly dateparser's answer."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import dateparser
import pytest

from evidex.extractors.verify.compare import check_value
from evidex.extractors.verify.readings import _english_date, dates_in, numbers_in

SETTINGS = {"PREFER_DAY_OF_MONTH": "first", "REQUIRE_PARTS": ["month", "year"]}

ENGLISH = [
    ("14 March 2025", dt.date(2025, 3, 14)),
    ("March 14, 2025", dt.date(2025, 3, 14)),
    ("Mar 14 , 2025", dt.date(2025, 3, 14)),
    ("5 may 2010", dt.date(2010, 5, 5)),
    ("11   January, 2012", dt.date(2012, 1, 11)),
    ("Dec. 2024", dt.date(2024, 12, 1)),
    ("29 February 2024", dt.date(2024, 2, 29)),
]


@pytest.mark.parametrize(("phrase", "expected"), ENGLISH)
def test_english_dates_match_dateparser(phrase: str, expected: dt.date) -> None:
    parsed = dateparser.parse(phrase, settings=SETTINGS)
    assert parsed is not None and parsed.date() == expected
    assert _english_date(phrase) == expected


@pytest.mark.parametrize(
    "phrase",
    ["31 April 2021", "29 February 2023", "14 mars 2025", "5 Mai 2010", "Sept 3 2025", "14.3.2025"],
)
def test_other_phrasings_are_left_to_dateparser(phrase: str) -> None:
    assert _english_date(phrase) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a day's month and year is no date of its own: "March 2025" of "14 March 2025" is
        # not the 1st of March (a model's wrong day would verify by it)
        ("Please pay by 14 March 2025.", {dt.date(2025, 3, 14)}),
        ("fällig am 14. März 2025", {dt.date(2025, 3, 14)}),
        ("02 Apr 2018 18:31", {dt.date(2018, 4, 2)}),
        ("due 31 April 2021", set()),  # no 31 April, and not the 1st either
        ("due April 2021", {dt.date(2021, 4, 1)}),  # a month and year alone: its 1st
        # a till's day, month and two-digit year, and ISO's basic form beside the time
        ("30 DEC 17 18:40:57", {dt.date(2017, 12, 30)}),
        ("12-Mar-18", {dt.date(2018, 3, 12)}),
        ("DATE/TIME : 20180428/191204", {dt.date(2018, 4, 28)}),
        # a month's name between slashes or hyphens, a year first with slashes
        ("05-AUG-2017", {dt.date(2017, 8, 5)}),
        ("02/JAN/2017 10:49:25", {dt.date(2017, 1, 2)}),
        ("DATE : 2018/02/22 13 : 34 : 14", {dt.date(2018, 2, 22)}),
        ("05-AUG/2017", set()),
        # a label or a time OCR ran into a date; a date inside a longer figure is none
        ("Date14/03/2018", {dt.date(2018, 3, 14)}),
        ("14/03/2018Time 10:02", {dt.date(2018, 3, 14)}),
        ("due 14/03/2018.", {dt.date(2018, 3, 14)}),
        ("1234/05/2018", set()),
        ("1.12.03.2018", set()),
        # a quantity and a price, a number too long for a date: no date
        ("3 PCS 12", set()),
        ("1 MAY 17.50", set()),
        ("INV 20181345", set()),
    ],
)
def test_dates_in_reads_english_and_other_languages(text: str, expected: set[dt.date]) -> None:
    assert dates_in(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a row of figures one space apart is several numbers, not one unreadable one
        ("TOTAL 9.81 0.59 10.40", {"9.81", "0.59", "10.40"}),
        ("ZRL = 0% 8.20 0.00", {"0", "8.20", "0.00"}),
        # a number grouped with spaces is still one number
        ("1 234,56 EUR", {"1234.56"}),
        ("12 345 678", {"12345678"}),
        # a card's approval code and the amount charged side by side
        ("MASTER 5148 APP: 83650 41.50", {"5148", "83650", "41.50", "8365041.50"}),
        # an amount an OCR engine spaced is read whole, and only whole
        ("RM 33 .92", {"33.92"}),
        ("TOTAL 1 8.50", {"18.50"}),
    ],
)
def test_numbers_in_reads_a_row_of_figures_apart(text: str, expected: set[str]) -> None:
    assert numbers_in(text) == {Decimal(n) for n in expected}


def test_a_card_charge_beside_its_approval_code_verifies() -> None:
    assert check_value("string", "41.50", "MASTER 5148 APP: 83650 41.50", name="total").ok
    assert not check_value("string", "41.05", "MASTER 5148 APP: 83650 41.50", name="total").ok


def test_a_total_on_a_row_of_figures_verifies_and_a_figure_not_on_it_does_not() -> None:
    assert check_value("string", "10.40", "TOTAL 9.81 0.59 10.40", name="total").ok
    assert not check_value("string", "10.44", "TOTAL 9.81 0.59 10.40", name="total").ok


def test_a_name_verifies_only_as_whole_words_of_its_quote() -> None:
    url = "timesbookstoresetpg. com. my"
    assert not check_value("string", "TIMES", url, name="company").ok
    assert check_value("string", "TIMES BOOKSTORES", "TIMES BOOKSTORES SETAPAK", name="x").ok
