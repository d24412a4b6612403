"""The document's own locale settles numeric dates; currencies glued to amounts read as amounts.

Each cue kind on its own, no cue, cues that disagree; then the verifier's reasons and outcomes
for true and wrong values with true quotes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.compare import check_value
from evidex.extractors.verify.locales import (
    postcode_and_region,
    settle_order,
    territory_order,
    weekday_clash,
)
from evidex.extractors.verify.readings import currencies_in, numbers_in
from evidex.schemas import FieldResult, SchemaDef, Status, schema_from_json


def verify_one(
    text: str, schema: SchemaDef, leaves: dict[str, dict[str, Any]]
) -> dict[str, FieldResult]:
    document = TextParser().parse(text.encode(), "receipt.txt")
    llm = ScriptedLLM(build_answer(schema, leaves))
    return extract_parsed(document, schema, llm=llm).fields


def test_territories_take_the_order_their_main_language_writes() -> None:
    assert territory_order("MY") == "dmy"
    assert territory_order("GB") == "dmy"
    assert territory_order("US") == "mdy"
    assert territory_order("CN") is None  # year first: says nothing about 02/12


CUES = [
    # (lines, order, words the reason names)
    (["Total 12/01/2019", "Paid 25/01/2019"], "dmy", "also writes 25/01/2019"),
    (["Total 02/12/2017", "Due 03/25/2017"], "mdy", "also writes 03/25/2017"),
    (["Nett Total: RM7.70"], "dmy", "prints RM (MYR)"),
    (["Amount (RM)", "7.70"], "dmy", "prints RM"),
    (["Summe 12,00 €"], "dmy", "prints €"),
    (["Total R$ 10,00"], "dmy", "prints R$ (BRL)"),
    (["Charged USD12.00"], "mdy", "prints USD"),
    (["Kedai Runcit Maju", "12 Jalan Mawar", "81100 Johor Bahru, Johor"], "dmy", "Malaysia"),
    (["Hauptstr. 5", "10115 Berlin, Germany"], "dmy", "names the country Germany"),
    (["ACME TRADING SDN BHD"], "dmy", "company form 'SDN BHD'"),
    (["Tel +60 7-352 2888"], "dmy", "phone number of Malaysia"),
    (["Tel +1 415 555 2671"], "mdy", "phone number of United States"),
    (["VAT reg: GB 980 7806 84"], "dmy", "tax number valid in United Kingdom"),
    (["Kedai Maju (123456-X)"], "dmy", "Malaysian company number"),
    (["GST ID : 001661886464"], "dmy", "Malaysian GST id"),
    (["GST : 002008047616"], "dmy", "Malaysian GST id"),
    (["GST REF NO : 001694261248"], "dmy", "Malaysian GST id"),
    (["SUNFISH", "<484297-M>"], "dmy", "Malaysian company number"),
    (["300 Castro St", "Mountain View, CA 94041"], "mdy", "region and postcode of United States"),
    (["1 George St", "Sydney NSW 2000"], "dmy", "region and postcode of Australia (NSW 2000)"),
    (["BTW 9% 0,70"], "dmy", "names its tax 'BTW' (Belgium and Netherlands)"),
    (["MwSt 19% 0,38"], "dmy", "names its tax 'MwSt'"),
    (["di cui IVA 0,24"], "dmy", "names its tax 'IVA' (Argentina, Chile, Colombia and 7 more)"),
    (["KDV 8,00"], "dmy", "names its tax 'KDV' (Türkiye)"),
]


@pytest.mark.parametrize(("lines", "order", "named"), CUES)
def test_each_cue_settles_the_order_and_the_reason_names_it(
    lines: list[str], order: str, named: str
) -> None:
    settled = settle_order(lines)
    assert settled.order == order
    assert named in settled.reason
    assert settled.reason.startswith({"dmy": "day-first", "mdy": "month-first"}[order])


NO_CUE = [
    ["Total 02/12/2017", "Thank you"],
    ["Total $12.00", "02/12/2017"],  # "$" is many countries' sign
    ["9.00 SR", "SR 1001-PORK"],  # a tax code after an amount, a code before an item
    ["TURKEY SANDWICH 4.50"],  # a country's name inside an item, not on an address line
    ["5 KG RICE 12.00"],  # kilograms, not a German company form
    ["DINE IN 12345"],  # a state's code and a ZIP code only after a city and its comma
    ["San Francisco CA 94110 ext"],  # the ZIP code ends a US address's line
    ["THANK YOU BTWXYZ"],  # a tax's name as a word of its own
    ["TOTAL DUE (GST INC):"],  # "inclusive" after a tax word, not "Incorporated"
    ["PRICE (VAT INC.)"],
]


@pytest.mark.parametrize("lines", NO_CUE)
def test_without_a_cue_nothing_is_settled(lines: list[str]) -> None:
    settled = settle_order(lines)
    assert settled.order is None
    assert settled.reason == ""


def test_a_tax_inclusive_total_is_no_company_form_against_the_address() -> None:
    lines = ["THE TOAST F&B SDN BHD", "81750 JOHOR BAHRU JOHOR", "TOTAL DUE (GST INC): 12.00"]
    settled = settle_order(lines)
    assert settled.order == "dmy"
    assert "INC" not in settled.reason


def test_cues_that_disagree_settle_nothing_and_say_which() -> None:
    settled = settle_order(["Total RM7.70", "Card charged USD1.80", "02/12/2017"])
    assert settled.order is None
    assert "disagree" in settled.reason
    assert "RM" in settled.reason and "USD" in settled.reason


def test_a_date_of_the_document_outweighs_the_places_it_names() -> None:
    settled = settle_order(["Total RM7.70", "03/25/2017", "02/12/2017"])
    assert settled.order == "mdy"


@pytest.mark.parametrize(
    ("lines", "order", "words"),
    [
        (["RABU, 10-05-2017 TIME : 21:51"], "dmy", "10 May 2017 is a Wednesday"),
        (["Sat 03/10/2018 14:02"], "mdy", "10 March 2018 is a Saturday"),
        (["Date 03/10/2018 Wed"], "dmy", "3 October 2018 is a Wednesday"),
        (["Mittwoch, 03.10.18"], "dmy", "3 October 2018 is a Wednesday"),
    ],
)
def test_a_weekday_printed_beside_a_date_settles_its_order(
    lines: list[str], order: str, words: str
) -> None:
    settled = settle_order(lines)
    assert settled.order == order
    assert words in settled.reason and "beside its weekday" in settled.reason


@pytest.mark.parametrize(
    "lines",
    [["Mon 03/10/2018"], ["Date 03/10/2018"], ["Wed 05/05/2018"]],
)
def test_a_weekday_neither_reading_or_both_fall_on_settles_nothing(lines: list[str]) -> None:
    assert settle_order(lines).order is None


def test_a_weekday_sends_a_model_value_of_the_other_reading_to_review() -> None:
    schema = schema_from_json({"type": "object", "properties": {"date": {"type": "string"}}})
    quote = "RABU, 10-05-2017 TIME : 21:51"
    for iso, status in (("2017-05-10", Status.VERIFIED), ("2017-10-05", Status.NEEDS_REVIEW)):
        value = {"iso": iso, "original": "10-05-2017"}
        leaf = {"value": value, "quote": quote, "line_start": 1, "line_end": 1, "page": 1}
        field = verify_one(quote, schema, {"date": leaf})["date"]
        assert field.status is status, field.reasons


@pytest.mark.parametrize(
    ("quote", "iso", "clash"),
    [
        ("14/01/2013 (SUN) 12:06", "2013-01-14", "14 January 2013 is a Monday"),
        ("14/01/2018 (SUN) 12:06", "2018-01-14", ""),
        ("DATE: SAT 21/10/2017 01:31:54 PM", "2017-10-21", ""),
        ("DATE: SAT 21/10/2011 01:31:54 PM", "2011-10-21", "21 October 2011 is a Friday"),
        (": 11 OCT 2017 TUE", "2017-10-11", "11 October 2017 is a Wednesday"),
        ("RABU, 10-05-2017", "2017-05-10", ""),
        ("Sunday, 3 April 2018", "2018-04-03", "3 April 2018 is a Tuesday"),
        # opening hours name two days; "MAR" is a month beside a date, not Spanish Tuesday
        ("MON-FRI 9:00 12/03/2019", "2019-03-12", ""),
        ("10 MAR 2018", "2018-03-10", ""),
        ("SUN VICTORY 12/03/2018", "2018-03-12", ""),
        # "Bil" (a bill in Malay) is Zulu's opaque short name for Tuesday, not its start
        ("Bil1 Date : 20/11/2017", "2017-11-20", ""),
        ("Bil: 20/11/2017", "2017-11-20", ""),
        ("Isn, 20/11/2017", "2017-11-21", "21 November 2017 is a Tuesday"),
        ("April 3, 2018 (Mon)", "2018-04-03", "3 April 2018 is a Tuesday"),
    ],
)
def test_a_weekday_beside_a_date_is_a_second_reading_of_it(
    quote: str, iso: str, clash: str
) -> None:
    reason = weekday_clash(dt.date.fromisoformat(iso), quote)
    assert clash in reason and bool(reason) is bool(clash)
    if clash:
        assert "a figure of the date may be misread" in reason


def test_a_date_misread_beside_its_weekday_goes_to_review_with_the_rules_backend() -> None:
    schema = schema_from_json(
        {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}}
    )
    for year, status in (("2018", Status.VERIFIED), ("2013", Status.NEEDS_REVIEW)):
        text = f"KEDAI MAKAN SDN BHD\n14/01/{year} (SUN) 12:06\nTOTAL RM 9.00\n"
        document = TextParser().parse(text.encode(), "r.txt")
        field = extract_parsed(document, schema, llm=RulesBackend()).fields["date"]
        assert field.status is status, field.reasons
        assert ("is a Monday" in " ".join(field.reasons)) is (year == "2013")


def test_a_models_date_its_weekday_line_contradicts_goes_to_review() -> None:
    schema = schema_from_json({"type": "object", "properties": {"date": {"type": "string"}}})
    for year, status in (("2018", Status.VERIFIED), ("2013", Status.NEEDS_REVIEW)):
        quote = f"14/01/{year} (SUN) 12:06"
        value = {"iso": f"{year}-01-14", "original": f"14/01/{year}"}
        leaf = {"value": value, "quote": quote, "line_start": 1, "line_end": 1, "page": 1}
        field = verify_one(quote, schema, {"date": leaf})["date"]
        assert field.status is status, field.reasons
        assert ("beside SUN" in " ".join(field.reasons)) is (year == "2013")


GLUED = [
    ("Nett Total: RM7.70", 7.70, "MYR"),
    ("7.70RM", 7.70, "MYR"),
    ("USD12.00", 12.00, "USD"),
    ("12,00 €", 12.00, "EUR"),
    ("Rs.500", 500.0, "INR"),
    ("R$ 10,00", 10.00, "BRL"),
    ("RM 3.90", 3.90, "MYR"),
]


@pytest.mark.parametrize(("quote", "number", "currency"), GLUED)
def test_currency_marks_on_either_side_read_as_amounts(
    quote: str, number: float, currency: str
) -> None:
    assert any(abs(float(n) - number) < 1e-9 for n in numbers_in(quote))
    assert currency in currencies_in(quote)
    check = check_value("amount", {"value": number, "currency": currency}, quote, name="total")
    assert check.ok, check.reason


@pytest.mark.parametrize(("quote", "number", "currency"), GLUED)
def test_another_amount_with_the_same_quote_is_caught(
    quote: str, number: float, currency: str
) -> None:
    for wrong in (number + 0.1, number * 10, number + 1):
        check = check_value("amount", {"value": wrong, "currency": currency}, quote)
        assert not check.ok
        assert check.reason.startswith("value ")


def test_a_letter_pair_inside_a_word_is_no_currency() -> None:
    assert currencies_in("FORM 12.00") == set()
    assert numbers_in("INV12345") == set()


def test_the_reason_for_a_quote_without_numbers_or_dates_is_a_sentence() -> None:
    check = check_value("amount", {"value": 7.7, "currency": None}, "Nett Total")
    assert check.reason == "value 7.7 is not in the quote, which states no number"
    check = check_value("date", {"iso": "2018-03-09", "original": "09/03/2018"}, "Nett Total")
    assert check.reason == "date 2018-03-09 is not in the quote, which states no date"


@pytest.mark.parametrize(
    ("value", "quote", "ok"),
    [
        ("9.00", "ROUNDED TOTAL (RM): 9.00", True),
        ("RM 3.90", "TOTAL RM3.90", True),
        ("$8.20", "Total $8.20", True),
        ("0.00", "4132 1 20.00 20.00", False),  # its digits are there, the amount is not
        ("9.01", "TOTAL: 9.00", False),
        ("8.00", "TOTAL: 9.00", False),
        ("10115", "Hauptstr. 5, 10115 Berlin", True),  # a postcode stays text
        # a changed number whose digits the quote holds elsewhere
        ("NO 21 & 23 JALAN MAWAR 5/5", "NO 21 & 23 JALAN MAWAR 5/2", False),
        ("NO 21 & 23 JALAN MAWAR 5/2", "NO 21& 23 JALAN MAWAR 5/2", True),
    ],
)
def test_a_string_that_is_one_amount_is_compared_as_an_amount(
    value: str, quote: str, ok: bool
) -> None:
    assert check_value("string", value, quote, name="total").ok is ok


RECEIPT = """\
KEDAI RUNCIT MAJU SDN BHD
NO 12, JALAN MAWAR 3,
81100 JOHOR BAHRU, JOHOR
DATE: 02/12/2017
NETT TOTAL: RM7.70
"""
UNPLACED = """\
Corner Shop
DATE: 02/12/2017
TOTAL: 7.70
"""
DATE_SCHEMA = schema_from_json({"type": "object", "properties": {"date": {"type": "string"}}})


def _date(text: str, iso: str) -> FieldResult:
    leaf = {
        "value": {"iso": iso, "original": "02/12/2017"},
        "quote": "DATE: 02/12/2017",
        "line_start": 4 if text is RECEIPT else 2,
        "line_end": 4 if text is RECEIPT else 2,
        "page": 1,
    }
    return verify_one(text, DATE_SCHEMA, {"date": leaf})["date"]


def test_a_receipt_settles_its_date_and_the_reason_names_the_cue() -> None:
    field = _date(RECEIPT, "2017-12-02")
    assert field.status is Status.VERIFIED
    assert any(r.startswith("read day-first: the document prints RM (MYR)") for r in field.reasons)
    assert any("Malaysia" in r for r in field.reasons)


def test_the_other_reading_of_a_settled_date_is_caught() -> None:
    field = _date(RECEIPT, "2017-02-12")
    assert field.status is Status.NEEDS_REVIEW
    assert "date 2017-02-12 does not match 2017-12-02 in the quote" in field.reasons[0]


def test_without_a_cue_the_date_goes_to_review_as_before() -> None:
    field = _date(UNPLACED, "2017-12-02")
    assert field.status is Status.NEEDS_REVIEW
    assert "is not settled by the document; 2017-12-02 is one of two readings" in field.reasons[0]


@pytest.mark.parametrize(
    ("line", "placed"),
    [
        ("56000 KUALA LUMPUR, MALAYSI.", True),
        ("43200 CHERAS, SELANGOR DARUL EHSAN", True),
        ("81200 JOHOR BAHRU,", True),
        ("NO 5, JALAN PERAK,", False),  # a street named for a region: no postcode before it
        ("SELANGOR 43200", False),  # the postcode after the region
    ],
)
def test_a_postcode_and_a_region_after_it_make_an_addresss_last_line(
    line: str, placed: bool
) -> None:
    assert postcode_and_region(line) is placed
