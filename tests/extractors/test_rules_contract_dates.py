"""``RulesBackend`` on the dates and terms of agreements that state them loosely or not at all:
the last signature's date, a date alone at the top, a looser written form, the date defined as
the effective date, and a term read from a lasting sentence, each verified."""

from __future__ import annotations

from typing import Any

import pytest
from rules_backend_cases import fields, parse, run

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import FieldExtraction, Status, get_schema, schema_from_json


def _effective_date(text: str) -> FieldExtraction[Any]:
    """The ``contract`` schema's effective date as the rules read it in ``text``."""
    return fields(run(text, "contract"), "contract")["effective_date"]


def _stated(date: FieldExtraction[Any]) -> tuple[Any, str, int | None]:
    """The date's value as JSON, its quote and the line the quote starts on."""
    return date.model_dump(mode="json")["value"], date.quote, date.line_start


def test_without_a_date_of_its_own_the_agreement_is_dated_by_its_last_signature() -> None:
    text = (
        "This Agreement is made as of the date last signed below between Alpha Corp and Beta "
        "LLC.\nALPHA CORP\nBy: A. Smith\nDate: January 19, 2016\nBETA LLC\nBy: B. Jones\n"
        "Dated: January 27, 2016\n"
    )
    date = _effective_date(text)
    assert _stated(date) == (
        {"iso": "2016-01-27", "original": "January 27, 2016"},
        "January 27, 2016",
        7,
    )
    assert date.caveat == (
        "the latest date by a signature; the agreement states no date of its own"
    )


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("This Agreement shall terminate on the second anniversary of the Effective Date.\n", 2),
        ("This Agreement shall be binding for a period of five (5) years.\n", 5),
    ],
    ids=["anniversary", "binding-for"],
)
def test_a_term_read_from_a_lasting_sentence_verifies(text: str, amount: int) -> None:
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    term = result.fields["term"]
    assert term.value == {"amount": amount, "unit": "years"}
    assert term.status == Status.VERIFIED


def test_a_signature_date_under_its_label_in_the_short_us_form() -> None:
    text = (
        "This Agreement is made as of the date last signed below between Alpha Corp and Beta "
        "LLC.\nALPHA CORP\nBy: A. Smith\nDate: 3/9/15\nBETA LLC\nBy: B. Jones\nDate:\n"
        "3/21/15\n"
    )
    assert _stated(_effective_date(text)) == (
        {"iso": "2015-03-21", "original": "3/21/15"},
        "3/21/15",
        8,
    )
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    assert result.fields["effective_date"].status == Status.VERIFIED  # 21 is no month


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        (
            "This Agreement is made on the 5th of May, 2010, between Alpha Corp and Beta LLC.\n",
            "2010-05-05",
        ),
        (
            "This Agreement is made as of June 1 , 2011 between Alpha Corp and Beta LLC.\n",
            "2011-06-01",
        ),
    ],
    ids=["of-month", "spaced-comma"],
)
def test_an_agreement_date_in_a_looser_written_form_verifies(text: str, iso: str) -> None:
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    date = result.fields["effective_date"]
    assert date.value["iso"] == iso
    assert date.status == Status.VERIFIED


def test_an_effective_date_field_takes_the_date_defined_as_the_effective_date() -> None:
    text = (
        "CONSULTING AGREEMENT\nAlpha Inc. (“Alpha”) and Beta LLC (“Consultant”) agree to this "
        "Consulting Agreement dated June 1, 2020,\neffective as of July 1, 2020 (“Effective "
        "Date”).\n"
    )
    dated = {"type": "object", "properties": {"agreement_date": {"type": "string"}}}
    effective = {"type": "object", "properties": {"effective_date": {"type": "string"}}}
    got = {}
    for name, schema in (("agreement_date", dated), ("effective_date", effective)):
        field = fields(run(text, schema_from_json(schema, name)), schema_from_json(schema, name))
        got[name] = (field[name].model_dump(mode="json")["value"]["iso"], field[name].line_start)
    assert got == {"agreement_date": ("2020-06-01", 2), "effective_date": ("2020-07-01", 3)}


def test_a_date_alone_near_the_top_dates_a_document_that_states_no_date_of_its_own() -> None:
    head = "Outsourcing Contract\nPlanning Unit: Alpha Architects Office\nOctober 29, 2015\n"
    body = "The Covenanter: Beta Club Inc. and Alpha Architects Office agree as follows.\n"
    signed = "Date: November 3, 2015\n"
    got = _effective_date(head + body + signed)
    assert (got.model_dump(mode="json")["value"]["iso"], got.line_start) == ("2015-10-29", 3)
    assert got.caveat == "a date on a line of its own at the top of the document"
    dated = head + "This Agreement is made as of November 1, 2015 by Beta Club Inc.\n" + signed
    got = _effective_date(dated)
    assert (got.model_dump(mode="json")["value"]["iso"], got.line_start) == ("2015-11-01", 4)
