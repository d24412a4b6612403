"""A true value quoted from a line OCR spaced badly verifies; a wrong one still does not, and a
text layer's spacing is taken at its word."""

from __future__ import annotations

from typing import Any

import pytest
from receipt_cells import receipt
from sample_answers import leaf

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.compare import check_value
from evidex.extractors.verify.spacing import closed_up, same_but_spacing
from evidex.schemas import Status, schema_from_json


@pytest.mark.parametrize(
    ("quote", "closed"),
    [
        ("Date : 1 8/01/201 8", "Date : 18/01/2018"),
        ("Date: 1 1/01/2019", "Date: 11/01/2019"),
        ("Date : 5/ 3 /201 8 22 : 52 : 33", "Date : 5/3/2018 22 : 52 : 33"),
        # the year's two digits, then the hour: "19 21:13", not "1921 :13"
        ("1 2-01 - 1 9 2 1 : 1 3 SH01", "12-01-19 2 1 : 1 3 SH01"),
        ("1 8/03/ 18 1 5: 1 7 06051 02", "18/03/18 1 5: 1 7 06051 02"),
        ("05Mar201818:24", "05 Mar 2018 18:24"),
        # a four-digit year run into the time after it
        ("09/01/20198:01:11 PM", "09/01/2019 8:01:11 PM"),
        ("Date: 10.03.201821:28", "Date: 10.03.2018 21:28"),
        ("RM 64. 1 5", "RM 64.15"),
        ("RM 33 .90", "RM 33.90"),
        # nothing to close up: two amounts, an item count, a phone number, a page count
        ("5.00 6.00", "5.00 6.00"),
        ("Qty 2 12.00", "Qty 2 12.00"),
        ("Tel 03-1234 5678", "Tel 03-1234 5678"),
        ("Page 1 of 2", "Page 1 of 2"),
        ("Ref 12/34/5678", "Ref 12/34/5678"),
        ("Ref 12/34/56781", "Ref 12/34/56781"),
        ("Ref 1/12/34/201812:00", "Ref 1/12/34/201812:00"),
        ("05Bob2018", "05Bob2018"),
        # a day read apart before its month's name, and not before any other word
        ("1 7 JAN 2018", "17 JAN 2018"),
        ("Qty 1 7Jan2018", "Qty 17 Jan 2018"),
        ("1 2 PCS", "1 2 PCS"),
    ],
)
def test_closed_up_takes_out_only_spaces_inside_a_number_or_a_date(quote: str, closed: str) -> None:
    assert " ".join(closed_up(quote).split()) == " ".join(closed.split())


def test_an_ocr_quote_whose_date_reads_only_closed_up_gives_that_readings_reason() -> None:
    # no cue settles the order: the date is found once the time is parted from it, in doubt
    check = check_value("date", "2018-03-09", "09/03/201821:280001", ocr=True)
    assert not check.ok
    assert check.reason.startswith("the day/month order of the quoted date is not settled")
    check = check_value("date", "2018-03-09", "09/03/201821:280001", "dmy", ocr=True)
    assert check.ok


@pytest.mark.parametrize(
    ("value", "quote", "same"),
    [
        ("THREE STOOGES", "T HREE ST OOGES", True),
        ("FUYI MINI MARKET", "FUYI MINIMARKET", True),
        ("Taste Of The World Sdn Bhd", "Taste Of T he Wor ld Sdn Bhd", True),
        ("SITE 1066", "KL S i te 1 066", True),
        # a run must start and end where a word of the quote does
        ("THREE STOOGE", "T HREE ST OOGES", False),
        ("HREE", "THREE", False),
        # the marks are the value's: "64.15" is not what "64 15" says
        ("64.15", "64 15", False),
        ("", "anything", False),
    ],
)
def test_same_but_spacing_needs_every_character_in_order_between_word_edges(
    value: str, quote: str, same: bool
) -> None:
    assert same_but_spacing(value, quote) is same


@pytest.mark.parametrize(
    ("kind", "value", "quote"),
    [
        ("string", "UNIHAKKA INTERNATIONAL SDN BHD", "UNIHAKKAINTERNATIONALSDN BHD"),
        ("date", "2018-01-18", "Date : 1 8/01/201 8"),
        ("date", "2018-03-05", "05Mar201818:24"),
        ("date", "2019-01-09", "09/01/20198:01:11 PM"),
        ("string", "64.15", "RM 64. 1 5"),
        ("address", {"street": "NO.59 JALAN PERMAS 9/5"}, "NO.59JALAN PERMAS 9/5"),
    ],
)
def test_a_true_value_from_an_ocr_line_verifies_and_from_a_text_layer_does_not(
    kind: str, value: Any, quote: str
) -> None:
    read = check_value(kind, value, quote, "dmy", ocr=True)
    assert read.ok and "stray spaces are set aside" in read.reason
    assert not check_value(kind, value, quote, "dmy").ok


@pytest.mark.parametrize(
    ("kind", "value", "quote"),
    [
        ("string", "THREE STOOGE", "T HREE ST OOGES"),
        ("string", "UNIHAKKA INTERNATIONAL", "UNIHAKKAINTERNATIONALSDN BHD X"),
        ("date", "2018-01-19", "Date : 1 8/01/201 8"),
        ("date", "2018-03-06", "05Mar201818:24"),
        ("date", "2019-01-08", "09/01/20198:01:11 PM"),
        ("amount", {"value": 64.51, "currency": "MYR"}, "RM 64. 1 5"),
        ("amount", {"value": 6415, "currency": "MYR"}, "RM 64. 1 5"),
    ],
)
def test_a_wrong_value_from_an_ocr_line_is_still_caught(kind: str, value: Any, quote: str) -> None:
    assert not check_value(kind, value, quote, "dmy", ocr=True).ok


def test_a_receipt_read_by_ocr_verifies_the_true_date_and_name_with_the_reason() -> None:
    schema = schema_from_json(
        {
            "title": "R",
            "type": "object",
            "properties": {
                "company": {"type": "string"},
                "date": {"type": "string", "format": "date"},
            },
        }
    )
    doc = receipt([["UNIHAKKAINTERNATIONALSDN BHD"], ["Date : 1 8/01/201 8 RM 5.00"]], 0.93)
    answer = build_answer(
        schema,
        {
            "company": _leaf("UNIHAKKA INTERNATIONAL SDN BHD", doc, 1),
            "date": _leaf({"iso": "2018-01-18", "original": "18/01/2018"}, doc, 2),
        },
    )
    result = extract_parsed(doc, schema, llm=ScriptedLLM(answer), gate=False)
    company, date = result.fields["company"], result.fields["date"]
    assert company.status is Status.VERIFIED, company.reasons
    assert "the quote says it once OCR's stray spaces are set aside" in company.reasons
    assert date.status is Status.VERIFIED, date.reasons
    wrong = build_answer(
        schema, {"date": _leaf({"iso": "2018-01-19", "original": "19/01/2018"}, doc, 2)}
    )
    caught = extract_parsed(doc, schema, llm=ScriptedLLM(wrong), gate=False).fields["date"]
    assert caught.status is Status.NEEDS_REVIEW


def _leaf(value: Any, doc: ParsedDocument, line: int) -> dict[str, Any]:
    return leaf(value, str(doc.lines.text[line - 1]), line)
