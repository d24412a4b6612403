"""The schema sent to the model must pass OpenAI's strict structured-output rules."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ConfigDict

from evidex.schemas import (
    BUILTIN,
    LEGACY_LIMITS,
    FieldExtraction,
    SchemaInvalid,
    get_schema,
    preflight,
    schema_from_json,
    schema_from_model,
)
from evidex.schemas.wire import valid_name

CUSTOM = {
    "title": "purchase order",
    "type": "object",
    "properties": {
        "po_number": {"type": "string", "description": "Purchase order number"},
        "status": {"enum": ["open", "closed", "on hold"]},
        "order_date": {"type": "string", "format": "date"},
        "total": {"type": "number", "x-evidex-kind": "amount"},
        "urgent": {"type": "boolean"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": ["integer", "null"]}},
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "vendor": {"$ref": "#/$defs/vendor"},
    },
    "$defs": {"vendor": {"type": "object", "properties": {"name": {"type": "string"}}}},
}


def _objects(schema: dict) -> list[dict]:
    found: list[dict] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_builtin_schema_is_strict_under_legacy_limits(name: str) -> None:
    schema = get_schema(name)
    assert preflight(schema.wire_schema, valid_name(name), LEGACY_LIMITS) == []
    for obj in _objects(schema.wire_schema):
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    text = json.dumps(schema.wire_schema)
    assert (
        '"default"' not in text
        and "allOf" not in text
        and "[" not in "".join(schema.wire_schema["$defs"])
    )


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_leaf_key_order_puts_evidence_before_value(name: str) -> None:
    defs = get_schema(name).wire_schema["$defs"]
    leaf = next(v for k, v in defs.items() if k.startswith("FieldExtraction_"))
    assert list(leaf["properties"]) == [
        "quote",
        "page",
        "line_start",
        "line_end",
        "found",
        "value",
        "caveat",
    ]
    assert leaf["properties"]["value"]["anyOf"][-1] == {"type": "null"}


def test_candidate_profile_has_at_least_twenty_fields() -> None:
    paths = [leaf.path for leaf in get_schema("candidate_profile").leaves]
    assert len(paths) >= 20
    assert {"full_name", "email", "linkedin_url", "work_history[].start_date", "skills[]"} <= set(
        paths
    )


def test_custom_json_schema_is_wrapped_leaf_by_leaf() -> None:
    schema = schema_from_json(CUSTOM)
    kinds = {leaf.path: leaf.kind for leaf in schema.leaves}
    assert kinds == {
        "po_number": "string",
        "status": "enum",
        "order_date": "date",
        "total": "amount",
        "urgent": "boolean",
        "lines[].sku": "string",
        "lines[].qty": "integer",
        "tags[]": "string",
        "vendor.name": "string",
    }
    assert preflight(schema.wire_schema, valid_name(schema.name)) == []
    assert all(valid_name(k) == k for k in schema.wire_schema["$defs"])
    status = next(v for k, v in schema.wire_schema["$defs"].items() if "Literal" in k)
    assert status["properties"]["value"]["anyOf"][0]["enum"] == ["open", "closed", "on hold"]


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "array"}, "must be an object"),
        ({"type": "object", "properties": {}}, "at least one property"),
        ({"type": "object", "properties": {"PO Number": {"type": "string"}}}, "po_number"),
        ({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}}, "anyOf"),
        ({"type": "object", "properties": {"a": {"type": "file"}}}, "unsupported type"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "$ref"),
        ({"type": "object", "properties": {"document_notes": {"type": "string"}}}, "reserved"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "x-evidex-kind": "money"}}},
            "x-evidex-kind",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "number"}},
                "x-evidex-rules": [{"kind": "sum", "parts": ["b"], "total": "a"}],
            },
            "unknown field",
        ),
        ("not an object", "JSON object"),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "$defs": [1]},
            "must be an object",
        ),
        ({"type": "object", "properties": {"model_config": {"type": "string"}}}, "reserved"),
        ({"type": "object", "properties": {"schema": {"type": "string"}}}, "reserved"),
        ({"type": "object", "properties": {"_a": {"type": "string"}}}, "identifiers"),
        (
            {
                "type": "object",
                "properties": {
                    "a": {
                        "type": "array",
                        "items": {
                            "type": "array",
                            "items": {
                                "type": "array",
                                "items": {
                                    "type": "array",
                                    "items": {
                                        "type": "array",
                                        "items": {
                                            "type": "array",
                                            "items": {"type": "array", "items": {"type": "string"}},
                                        },
                                    },
                                },
                            },
                        },
                    }
                },
            },
            "nested deeper",
        ),
    ],
)
def test_invalid_custom_schema_names_the_problem(schema: object, message: str) -> None:
    with pytest.raises(SchemaInvalid, match=message.replace("$", r"\$")) as info:
        schema_from_json(schema)
    assert info.value.code == "schema_invalid"


def test_preflight_reports_each_strict_mode_violation() -> None:
    bad = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "default": "x"},
            "b": {"$ref": "#/$defs/B", "description": "sibling"},
            "c": {"type": "object", "properties": {"d": {"type": "string"}}},
        },
        "required": ["a"],
        "$defs": {"B[int]": {"type": "string"}},
    }
    problems = preflight(bad, "bad name!")
    text = " | ".join(problems)
    for expected in (
        "schema name",
        "$defs name",
        "default",
        "no sibling",
        "additionalProperties",
        "required must list every property",
    ):
        assert expected in text


def test_pydantic_model_from_python_caller() -> None:
    class Receipt(BaseModel):
        model_config = ConfigDict(extra="forbid")
        merchant: FieldExtraction[str]
        paid: FieldExtraction[float]

    schema = schema_from_model(Receipt)
    assert [leaf.path for leaf in schema.leaves] == ["merchant", "paid"]
    assert schema.wire_schema["properties"]["document_notes"] == {"$ref": "#/$defs/DocumentNotes"}


def test_pydantic_model_with_plain_leaf_is_rejected() -> None:
    class Bad(BaseModel):
        merchant: str

    with pytest.raises(SchemaInvalid, match="merchant"):
        schema_from_model(Bad)


def test_unknown_builtin_lists_the_choices() -> None:
    with pytest.raises(SchemaInvalid, match="candidate_profile, contract, invoice, receipt"):
        get_schema("payslip")
