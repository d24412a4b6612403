"""Kinds of a client's JSON Schema leaves: inferred from names (a table of real-world field names
from public schemas), format, enum and description; declared ones win; contradictions are errors."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from plain_schemas import plain

from evidex.schemas import SchemaInvalid, schema_from_json
from evidex.schemas.kinds import infer_kind

TABLE = Path(__file__).with_name("kind_names.csv")
ROWS = [
    row
    for row in csv.reader(
        line for line in TABLE.read_text().splitlines() if not line.startswith("#")
    )
    if row
]


def _schema(path: str, leaf: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema holding ``leaf`` at ``path`` (dotted, ``[]`` for list items)."""
    node: dict[str, Any] = leaf
    for part in reversed(path.split(".")):
        name = part.removesuffix("[]")
        if part.endswith("[]"):
            node = {"type": "array", "items": node}
        node = {"type": "object", "properties": {name: node}}
    return node


def test_the_table_holds_over_a_hundred_names_from_public_schemas() -> None:
    assert len(ROWS) >= 100
    sources = {source for source, *_ in ROWS}
    assert {"invoice2data", "cuad", "kleister", "json_resume", "schema_org"} <= sources


@pytest.mark.parametrize(
    ("source", "path", "json_type", "kind"), ROWS, ids=[f"{r[0]}:{r[1]}:{r[2]}" for r in ROWS]
)
def test_each_name_gets_its_kind(source: str, path: str, json_type: str, kind: str) -> None:
    schema = schema_from_json(_schema(path, {"type": json_type}))
    (leaf,) = schema.leaves
    assert leaf.path == path
    assert leaf.kind == kind
    default = json_type if json_type != "string" else "string"
    assert leaf.kind_source == ("default" if kind == default else "inferred")


@pytest.mark.parametrize(
    ("node", "kind", "source"),
    [
        ({"type": "string", "format": "date"}, "date", "inferred"),
        ({"type": "string", "format": "date-time"}, "date", "inferred"),
        ({"type": "string", "format": "email"}, "email", "inferred"),
        ({"type": "string", "format": "uri"}, "url", "inferred"),
        ({"enum": ["EUR", "USD", "GBP"]}, "currency", "inferred"),
        ({"enum": ["open", "closed"]}, "enum", "default"),
        ({"type": "boolean"}, "boolean", "default"),
        ({"type": "string", "description": "Date the goods were shipped"}, "date", "inferred"),
        ({"type": "number", "description": "Invoice total in EUR"}, "amount", "inferred"),
        # a long description says too much to choose from
        (
            {
                "type": "string",
                "description": "Whatever the supplier wrote in the free text box at the bottom "
                "of the page, next to the date",
            },
            "string",
            "default",
        ),
        ({"type": "string", "x-evidex-kind": "iban"}, "iban", "declared"),
        ({"type": ["number", "null"], "x-evidex-kind": "percentage"}, "percentage", "declared"),
    ],
)
def test_format_enum_description_and_declared_kinds(
    node: dict[str, Any], kind: str, source: str
) -> None:
    assert infer_kind("x", node) == (kind, source)


def test_a_declared_kind_wins_over_the_name() -> None:
    assert infer_kind("total", {"type": "number", "x-evidex-kind": "percentage"}) == (
        "percentage",
        "declared",
    )
    assert infer_kind("created", {"type": "string", "format": "date", "x-evidex-kind": "text"}) == (
        "text",
        "declared",
    )


@pytest.mark.parametrize(
    ("name", "node", "kind"),
    [
        ("shipped_on", {"type": "string", "x-evidex-kind": "text"}, "text"),
        ("total", {"type": "number", "x-evidex-kind": "text"}, "number"),
        ("iban", {"type": "string", "x-evidex-kind": "text"}, "text"),
    ],
)
def test_text_opts_out_of_inference(name: str, node: dict[str, Any], kind: str) -> None:
    schema = schema_from_json({"type": "object", "properties": {name: node}})
    (leaf,) = schema.leaves
    assert (leaf.kind, leaf.kind_source) == (kind, "declared")


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"type": "number", "format": "email"}, "order.contact: format 'email' contradicts"),
        ({"type": "boolean", "x-evidex-kind": "iban"}, "order.contact: x-evidex-kind 'iban'"),
        ({"type": "integer", "format": "date"}, "order.contact: format 'date' contradicts"),
        ({"type": "number", "x-evidex-kind": "duration"}, "x-evidex-kind 'duration' contradicts"),
        ({"type": "string", "x-evidex-kind": "boolean"}, "contradicts its type 'string'"),
        ({"enum": ["a", "b"], "x-evidex-kind": "date"}, "contradicts its type 'enum'"),
        ({"type": "string", "x-evidex-kind": "money"}, "unknown x-evidex-kind 'money'"),
    ],
)
def test_a_kind_or_format_that_contradicts_the_type_is_schema_invalid(
    node: dict[str, Any], message: str
) -> None:
    schema = {
        "type": "object",
        "properties": {"order": {"type": "object", "properties": {"contact": node}}},
    }
    with pytest.raises(SchemaInvalid, match=message) as info:
        schema_from_json(schema)
    assert info.value.code == "schema_invalid"


def test_a_schema_that_is_not_valid_json_schema_names_the_place() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "minLength": "two"}}}
    with pytest.raises(SchemaInvalid, match="properties/a/minLength: not valid JSON Schema"):
        schema_from_json(schema)


def test_the_model_fills_the_kinds_rich_value_where_it_has_one() -> None:
    schema = schema_from_json(
        plain(total="number", shipped_on="string", notice="string", tax_rate="number")
    )
    defs = schema.wire_schema["$defs"]
    props = schema.wire_schema["properties"]

    def value_schema(name: str) -> Any:
        ref = props[name]["$ref"].rsplit("/", 1)[-1]
        return defs[ref]["properties"]["value"]["anyOf"][0]

    assert value_schema("total")["$ref"].endswith("/Amount")
    assert value_schema("shipped_on")["$ref"].endswith("/DateValue")
    assert value_schema("notice")["$ref"].endswith("/Duration")
    assert value_schema("tax_rate") == {"type": "number"}
