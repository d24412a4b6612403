"""Receipts: the built-in ``receipt`` schema and its rule, and the rules backend reading a till
receipt by where it prints things, for the built-in schema and a plain one alike."""

from __future__ import annotations

from typing import Any

import pytest
from receipt_cells import PLAIN

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.crossfield import check_rules
from evidex.schemas import (
    Result,
    SchemaInvalid,
    Status,
    SumRule,
    builtin_names,
    get_schema,
    schema_from_json,
)

RECEIPT = """\
PRIYA NAIR
KEDAI RUNCIT SINAR MAJU SDN BHD
(654321-K)
NO 12, JALAN MAWAR 3,
TAMAN BUNGA RAYA,
81100 JOHOR BAHRU, JOHOR
TEL: 07-355 1234
GST ID: 000123456789
TAX INVOICE
DATE: 02/12/2017 TIME: 18:42
CASHIER: AMIN
MILO 1KG 1 18.90
ROTI GARDENIA 2 7.40
SUB TOTAL: 26.30
GST 6%: 1.58
ROUNDING ADJ: 0.02
TOTAL: 27.90
CASH: 50.00
CHANGE: 22.10
GST SUMMARY AMOUNT TAX
TOTAL 26.30 1.58
THANK YOU
"""


def _run(schema: Any, text: str = RECEIPT) -> Result:
    document = TextParser().parse(text.encode(), "receipt.txt")
    return extract_parsed(document, schema, llm=RulesBackend())


def test_receipt_is_a_builtin_and_passes_the_strict_wire_checks() -> None:
    assert "receipt" in builtin_names()
    schema = get_schema("receipt")
    schema.check()
    kinds = {leaf.path: leaf.kind for leaf in schema.leaves}
    assert kinds["total"] == "amount" and kinds["date"] == "date"
    assert kinds["line_items[].amount"] == "amount" and kinds["currency"] == "currency"


def _values(**amounts: float | None) -> tuple[dict[str, tuple[str, Any]], dict[str, bool]]:
    values: dict[str, tuple[str, Any]] = {}
    for path, number in amounts.items():
        key = path.replace("_0", "[0]").replace("_1", "[1]").replace("__", ".")
        values[key] = ("amount", None if number is None else {"value": number, "currency": "MYR"})
    return values, {p: v[1] is not None for p, v in values.items()}


RULES = get_schema("receipt").rules


@pytest.mark.parametrize(
    ("tax", "rounding", "total", "holds"),
    [
        (1.58, 0.02, 27.90, True),  # items + tax + the stated rounding
        (None, None, 26.30, True),  # tax included, nothing rounded: items alone
        (1.58, None, 27.88, True),  # no rounding printed
        (1.58, None, 27.90, False),  # rounded, but the receipt states no rounding
        (1.58, 0.02, 28.90, False),  # a wrong total
    ],
)
def test_items_tax_and_the_stated_rounding_make_the_total(
    tax: float | None, rounding: float | None, total: float, holds: bool
) -> None:
    values, found = _values(
        line_items_0__amount=18.90,
        line_items_1__amount=7.40,
        tax=tax,
        rounding=rounding,
        total=total,
    )
    failures = check_rules(RULES, values, found)
    assert (not failures) is holds
    if not holds:
        assert failures[0].rule == "line_items[].amount + tax + rounding = total"


def test_an_optional_part_must_be_a_part() -> None:
    with pytest.raises(ValueError, match="must be among the parts"):
        SumRule(parts=("a",), total="t", optional=("b",))
    with pytest.raises(SchemaInvalid):
        schema_from_json(
            {
                "type": "object",
                "properties": {"a": {"type": "number"}, "t": {"type": "number"}},
                "x-evidex-rules": [
                    {"kind": "sum", "parts": ["a"], "total": "t", "optional": ["x"]}
                ],
            }
        )


def test_a_wrong_total_fails_the_receipt_rule_through_verification() -> None:
    schema = get_schema("receipt")
    leaves = {
        "line_items[0].amount": {
            "value": {"value": 18.9, "currency": None},
            "quote": "MILO 1KG 1 18.90",
            "line_start": 12,
            "line_end": 12,
            "page": 1,
        },
        "line_items[1].amount": {
            "value": {"value": 7.4, "currency": None},
            "quote": "ROTI GARDENIA 2 7.40",
            "line_start": 13,
            "line_end": 13,
            "page": 1,
        },
        "tax": {
            "value": {"value": 1.58, "currency": None},
            "quote": "GST 6%: 1.58",
            "line_start": 15,
            "line_end": 15,
            "page": 1,
        },
        "rounding": {
            "value": {"value": 0.02, "currency": None},
            "quote": "ROUNDING ADJ: 0.02",
            "line_start": 16,
            "line_end": 16,
            "page": 1,
        },
        "total": {
            "value": {"value": 50.0, "currency": None},
            "quote": "CASH: 50.00",
            "line_start": 18,
            "line_end": 18,
            "page": 1,
        },
    }
    document = TextParser().parse(RECEIPT.encode(), "receipt.txt")
    result = extract_parsed(document, schema, llm=ScriptedLLM(build_answer(schema, leaves)))
    assert result.fields["total"].status is Status.NEEDS_REVIEW
    assert any("fails" in r for r in result.fields["total"].reasons)
    leaves["total"] = {
        "value": {"value": 27.9, "currency": None},
        "quote": "TOTAL: 27.90",
        "line_start": 17,
        "line_end": 17,
        "page": 1,
    }
    result = extract_parsed(document, schema, llm=ScriptedLLM(build_answer(schema, leaves)))
    assert result.fields["total"].status is Status.VERIFIED


def test_rules_backend_reads_a_receipt_with_a_plain_schema() -> None:
    fields = _run(PLAIN).fields
    assert fields["company"].value == "KEDAI RUNCIT SINAR MAJU SDN BHD"  # not the name above it
    assert (
        fields["address"].value
        == "NO 12, JALAN MAWAR 3, TAMAN BUNGA RAYA, 81100 JOHOR BAHRU, JOHOR"
    )
    assert (fields["address"].line_start, fields["address"].line_end) == (4, 6)
    assert fields["date"].value == {"iso": "2017-12-02", "original": "02/12/2017"}
    assert fields["total"].value == "27.90"  # not the cash, the change or the tax summary's total
    assert fields["total"].quote == "TOTAL: 27.90"
    for name in ("company", "address", "date", "total"):
        assert fields[name].status is Status.VERIFIED, (name, fields[name].reasons)
    assert any("day-first" in r and "Malaysia" in r for r in fields["date"].reasons)


def test_rules_backend_reads_a_receipt_with_the_builtin_schema() -> None:
    result = _run(get_schema("receipt"))
    fields = result.fields
    assert fields["merchant_name"].value == "KEDAI RUNCIT SINAR MAJU SDN BHD"
    assert (
        fields["merchant_address"].value
        == "NO 12, JALAN MAWAR 3, TAMAN BUNGA RAYA, 81100 JOHOR BAHRU, JOHOR"
    )
    assert fields["total"].value == {"value": 27.9, "currency": None}
    assert fields["date"].value == {"iso": "2017-12-02", "original": "02/12/2017"}
    for name in ("merchant_name", "merchant_address", "date", "total"):
        assert fields[name].status is Status.VERIFIED, (name, fields[name].reasons)


def test_the_last_final_total_wins_over_an_earlier_total() -> None:
    text = (
        "CORNER CAFE SDN BHD\n12 HIGH ST, 81100 JOHOR BAHRU\nTOTAL: 9.03\n"
        "ROUNDED TOTAL (RM): 9.05\nCASH: 10.00\nCHANGE: 0.95\n"
    )
    fields = _run(PLAIN, text).fields
    assert fields["total"].value == "9.05"
    assert fields["total"].line_start == 4


def test_a_document_that_is_no_sale_has_no_merchant_block() -> None:
    text = "Jane Doe\nSenior Engineer\n12 Main Street, 10115 Berlin\nExperience\nACME GmbH\n"
    fields = _run(PLAIN, text).fields
    assert fields["total"].status is not Status.VERIFIED
    assert (
        fields["address"].value != "12 Main Street, 10115 Berlin"
        or fields["address"].caveat != "the lines under the merchant's name"
    )
