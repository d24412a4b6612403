"""``RulesBackend`` on contract clauses read across line breaks (clauses.py): governing law,
the agreement's date and its term, each with its exact value, quote and line; the clauses that
state no value; and values that wrap over lines, quoted over them and verified."""

from __future__ import annotations

from typing import Any

import pytest
from rules_backend_cases import fields, parse, run

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Status, get_schema

# -- contract clauses read across line breaks (clauses.py) ----------------------------------


def _date(iso: str, original: str) -> dict[str, str]:
    return {"iso": iso, "original": original}


def _years(amount: float, unit: str = "years") -> dict[str, Any]:
    return {"amount": amount, "unit": unit}


CLAUSE_CASES = [
    # governing law: the jurisdiction's name only, inside the stating words
    (
        "law-place-before-law",
        "This Agreement shall be governed by and interpreted under New York law.\n",
        "governing_law",
        "New York",
        "governed by and interpreted under New York law",
        1,
    ),
    (
        "law-governed-and-construed",
        "This Agreement shall be governed by and construed in accordance with the laws of the "
        "State of Delaware.\n",
        "governing_law",
        "Delaware",
        "governed by and construed in accordance with the laws of the State of Delaware",
        1,
    ),
    (
        "law-internal-commonwealth",
        "shall be governed by, and construed in accordance with, the internal laws of the "
        "Commonwealth of Massachusetts, without\n",
        "governing_law",
        "Massachusetts",
        "governed by, and construed in accordance with, the internal laws of the Commonwealth "
        "of Massachusetts",
        1,
    ),
    (
        "law-construed-under",
        "This Agreement shall be construed under the laws of New York.\n",
        "governing_law",
        "New York",
        "construed under the laws of New York",
        1,
    ),
    (
        "law-two-words-and",
        "governed by the laws of England and Wales, and the courts of London\n",
        "governing_law",
        "England and Wales",
        "governed by the laws of England and Wales",
        1,
    ),
    (
        "law-in-capitals-ends-at-without",
        "THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE COMMONWEALTH OF PENNSYLVANIA WITHOUT "
        "GIVING EFFECT TO ANY CHOICE OF LAW RULE.\n",
        "governing_law",
        "PENNSYLVANIA",
        "GOVERNED BY THE LAWS OF THE COMMONWEALTH OF PENNSYLVANIA",
        1,
    ),
    (
        "law-shall-govern",
        "The laws of the State of Indiana shall govern this Agreement.\n",
        "governing_law",
        "Indiana",
        "The laws of the State of Indiana shall govern",
        1,
    ),
    (
        "law-wrapped",
        "This Agreement shall be governed by and construed in accordance with the laws of the "
        "State of\nCalifornia, without regard to conflicts of law.\n",
        "governing_law",
        "California",
        "California",
        2,
    ),
    (
        "law-over-a-page-number",
        "This Agreement shall be governed by and construed in\n6\naccordance with the laws of "
        "the State of Delaware applicable to agreements made therein.\n",
        "governing_law",
        "Delaware",
        "accordance with the laws of the State of Delaware",
        3,
    ),
    # the agreement's own date, in its opening paragraphs
    (
        "date-made-and-entered-into-as-of",
        "This Agreement is made and entered into as of January 25, 2012, by and between "
        "Alpha Inc. and Beta LLC.\n",
        "effective_date",
        _date("2012-01-25", "January 25, 2012"),
        "made and entered into as of January 25, 2012",
        1,
    ),
    (
        "date-dated-as-of",
        "THIS AGREEMENT, dated as of March 31, 2012, is between the parties.\n",
        "effective_date",
        _date("2012-03-31", "March 31, 2012"),
        "dated as of March 31, 2012",
        1,
    ),
    (
        "date-day-of",
        "THIS NON-DISCLOSURE AGREEMENT (this “Agreement”), dated this 11th day of January, "
        "2012, is by and among\n",
        "effective_date",
        _date("2012-01-11", "11th day of January, 2012"),
        "dated this 11th day of January, 2012",
        1,
    ),
    (
        "date-day-of-month-without-day",
        "This Agreement is made on the 5th of May, 2010, between Alpha Corp and Beta LLC.\n",
        "effective_date",
        _date("2010-05-05", "5th of May, 2010"),
        "made on the 5th of May, 2010",
        1,
    ),
    (
        "date-spaced-comma",
        "This Agreement is entered into and made effective as of June 1 , 2011 by Alpha Inc. "
        "and Beta LLC.\n",
        "effective_date",
        _date("2011-06-01", "June 1 , 2011"),
        "entered into and made effective as of June 1 , 2011",
        1,
    ),
    (
        "date-made-to-be-effective-on",
        "This Agreement is made to be effective on 30th day of April, 2009, between Alpha Corp "
        "and Beta LLC.\n",
        "effective_date",
        _date("2009-04-30", "30th day of April, 2009"),
        "made to be effective on 30th day of April, 2009",
        1,
    ),
    (
        "date-made",
        "Agreement made December 28, 2018 between Flexsteel Industries, Inc. and Jerald K. "
        "Dittmer.\n",
        "effective_date",
        _date("2018-12-28", "December 28, 2018"),
        "made December 28, 2018",
        1,
    ),
    (
        "date-effective-as-from",
        "This Outsourcing Agreement is effective as from the 1st day of January, 2009, by and "
        "between:\n",
        "effective_date",
        _date("2009-01-01", "1st day of January, 2009"),
        "effective as from the 1st day of January, 2009",
        1,
    ),
    (
        "date-defined-effective-date",
        "1. Terms.\n2. Notices.\n3. Misc.\n4. a\n5. b\n6. c\n7. d\nSigned on this date, which "
        "is July 31, 2008 (the “Effective Date”).\n",
        "effective_date",
        _date("2008-07-31", "July 31, 2008"),
        "July 31, 2008 (the “Effective Date”)",
        8,
    ),
    # the term: what the agreement says of its own length
    (
        "term-of-this-agreement-shall-be",
        "8. Term. The term of this Agreement shall be two (2) years from the Effective Date.\n",
        "term",
        _years(2),
        "term of this Agreement shall be two (2) years",
        1,
    ),
    (
        "term-wrapped",
        "Unless terminated earlier by written notice, the term of this\nAgreement shall be for "
        "three (3) years.\n",
        "term",
        _years(3),
        "Agreement shall be for three (3) years",
        2,
    ),
    (
        "term-remain-in-effect-for",
        "This Agreement shall remain in effect for three years.\n",
        "term",
        _years(3),
        "This Agreement shall remain in effect for three years",
        1,
    ),
    (
        "term-terminate-after",
        "This Agreement shall terminate two years after the date of this Agreement.\n",
        "term",
        _years(2),
        "This Agreement shall terminate two years after",
        1,
    ),
    (
        "term-obligations-hereunder",
        "Except as otherwise provided, the obligations hereunder shall terminate five years "
        "from the date hereof.\n",
        "term",
        _years(5),
        "the obligations hereunder shall terminate five years from",
        1,
    ),
    (
        "term-expire-months",
        "This Agreement shall expire twelve months from the effective date hereof.\n",
        "term",
        _years(12, "months"),
        "This Agreement shall expire twelve months from",
        1,
    ),
    (
        "term-defined-term",
        "It applies to information furnished for a period of one year following the Effective "
        "Date (“the Term”).\n",
        "term",
        _years(1),
        "for a period of one year following the Effective Date (“the Term”)",
        1,
    ),
    (
        "term-heading",
        "6. TERM. The period during which disclosures may be made under this Agreement shall "
        "be one (1) year, and\n",
        "term",
        _years(1),
        "6. TERM. The period during which disclosures may be made under this Agreement shall "
        "be one (1) year",
        1,
    ),
    (
        "term-be-in-effect-for",
        "This Agreement shall be in effect for a period of four (4) years.\n",
        "term",
        _years(4),
        "This Agreement shall be in effect for a period of four (4) years",
        1,
    ),
    (
        "term-have-a-term-of",
        "This Agreement shall have a term of three (3) years.\n",
        "term",
        _years(3),
        "This Agreement shall have a term of three (3) years",
        1,
    ),
    (
        "term-duty-for-the-period-of",
        "The Recipient's duty of confidentiality under this Agreement shall survive for the "
        "period of five years.\n",
        "term",
        _years(5),
        "duty of confidentiality under this Agreement shall survive for the period of five years",
        1,
    ),
    (
        "term-until-an-anniversary",
        "This Agreement shall remain in effect until the third (3rd) anniversary of the "
        "Effective Date.\n",
        "term",
        _years(3),
        "This Agreement shall remain in effect until the third (3rd) anniversary",
        1,
    ),
    (
        "term-in-the-present-tense",
        "Unless terminated earlier, this Agreement expires on the second anniversary of the "
        "Effective Date.\n",
        "term",
        _years(2),
        "this Agreement expires on the second anniversary",
        1,
    ),
    (
        "term-commence-and-continue",
        "The term of this Agreement shall commence on the Effective Date and continue for two "
        "(2) years.\n",
        "term",
        _years(2),
        "term of this Agreement shall commence on the Effective Date and continue for two "
        "(2) years",
        1,
    ),
    (
        "term-quote-on-word-boundaries",
        "6.1This Agreement shall terminate in its entirety one year after the date hereof.\n",
        "term",
        _years(1),
        "6.1This Agreement shall terminate in its entirety one year after",
        1,
    ),
]


@pytest.mark.parametrize(
    ("text", "path", "value", "quote", "line"),
    [c[1:] for c in CLAUSE_CASES],
    ids=[c[0] for c in CLAUSE_CASES],
)
def test_contract_clause_has_exact_value_quote_and_line(
    text: str, path: str, value: Any, quote: str, line: int
) -> None:
    field = fields(run(text, "contract"), "contract")[path]
    assert (field.model_dump(mode="json")["value"], field.quote, field.line_start) == (
        value,
        quote,
        line,
    )
    assert field.line_end == line
    visible = [x for x in text.splitlines() if x.strip()]
    assert quote in visible[line - 1]


def test_a_wrapped_sentence_says_where_it_starts() -> None:
    text = "This Agreement shall be governed by the laws of the State of\nCalifornia.\n"
    law = fields(run(text, "contract"), "contract")["governing_law"]
    assert (law.value, law.quote, law.line_start) == ("California", "California", 2)
    assert law.caveat == "the sentence starts on line 1"


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("The Company is organized under the laws of Delaware.\n", "governing_law"),
        ("This Agreement shall be governed by applicable Federal law.\n", "governing_law"),
        (
            "This Agreement shall be construed in accordance with the laws of any state in which "
            "it is performed.\n",
            "governing_law",
        ),
        ("This Agreement is effective as of the date last signed below.\n", "effective_date"),
        ("This Agreement is dated as of ____________, 20__.\n", "effective_date"),
        (  # another agreement's date
            "This letter supersedes the Mutual Nondisclosure Agreement, dated October 6, 2011, "
            "between you and us.\n",
            "effective_date",
        ),
        (  # after the recitals and numbered sections begin, a date is not the agreement's own
            "MUTUAL NDA\nThe parties agree:\nWHEREAS, A\nB\nC\nD\nE\n1. Definitions.\nThis "
            "Agreement was entered into as of May 1, 2020.\n",
            "effective_date",
        ),
        (  # a restriction's period, not the agreement's term
            "Employee shall not, for a period of one (1) year following termination, compete.\n",
            "term",
        ),
        (  # "Term" carries on the sentence of the line above: prose, not a label
            "Employee shall not, during the\nTerm and for a period of two years thereafter, "
            "solicit any employee.\n",
            "term",
        ),
        (  # an anniversary of something other than the agreement's own start
            "Employee shall not compete until the second anniversary of the termination.\n",
            "term",
        ),
    ],
    ids=[
        "law-incorporation",
        "law-federal",
        "law-any-state",
        "date-when-signed",
        "date-blank",
        "date-other-agreement",
        "date-after-preamble",
        "term-restriction",
        "term-label-in-prose",
        "term-other-anniversary",
    ],
)
def test_contract_clauses_that_state_no_value(text: str, path: str) -> None:
    field = fields(run(text, "contract"), "contract")[path]
    assert (field.found, field.value, field.quote, field.line_start) == (False, None, "", None)


WRAPPED = [
    (
        "This Agreement shall be governed by the laws of the State of New\nJersey.\n",
        "governing_law",
        "New Jersey",
        "governed by the laws of the State of New Jersey",
    ),
    (
        "This Agreement is made as of June 22,\n2016, by and between Alpha Corp and Beta LLC.\n",
        "effective_date",
        {"iso": "2016-06-22", "original": "June 22, 2016"},
        "made as of June 22, 2016",
    ),
]


@pytest.mark.parametrize(("text", "path", "value", "quote"), WRAPPED, ids=["law", "date"])
def test_a_value_that_wraps_is_quoted_over_its_lines_and_verifies(
    text: str, path: str, value: Any, quote: str
) -> None:
    field = fields(run(text, "contract"), "contract")[path]
    got = field.model_dump(mode="json")
    assert (got["value"], got["quote"], got["line_start"], got["line_end"]) == (value, quote, 1, 2)
    result = extract_parsed(parse(text), get_schema("contract"), llm=RulesBackend())
    assert result.fields[path].status == Status.VERIFIED
