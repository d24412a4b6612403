"""A client's schema over a limit is refused from its raw JSON, before any model is built, with
the limit, the figure and what to do; the walk survives any nesting and stops expanding ``$ref`` s
the moment its budget is spent."""

from __future__ import annotations

from typing import Any

import pytest

import evidex.schemas.jsonschema as builder
from evidex.schemas import SchemaInvalid, schema_from_json
from evidex.schemas.limits import (
    MAX_DEPTH,
    MAX_ENUM_VALUES,
    MAX_FIELDS,
    MAX_PATTERN_CHARS,
    MAX_RULES,
    MAX_SCHEMA_BYTES,
    MAX_TEXT_CHARS,
    check_limits,
)

STRING = {"type": "string"}


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _flat(count: int, leaf: dict[str, Any] = STRING) -> dict[str, Any]:
    return _object(**{f"field_{i}": leaf for i in range(count)})


def _nested(levels: int) -> dict[str, Any]:
    """Objects ``levels`` deep below the root, a string at the bottom."""
    node: dict[str, Any] = STRING
    for i in reversed(range(levels)):
        node = _object(**{f"level_{i}": node})
    return _object(top=node)


def _doubling(levels: int) -> dict[str, Any]:
    """``$defs`` D0 … D{levels}, each referring to the next twice: 2 ** levels leaves."""
    defs: dict[str, Any] = {
        f"D{i}": _object(left={"$ref": f"#/$defs/D{i + 1}"}, right={"$ref": f"#/$defs/D{i + 1}"})
        for i in range(levels)
    }
    defs[f"D{levels}"] = STRING
    return {**_object(root={"$ref": "#/$defs/D0"}), "$defs": defs}


def _reused(copies: int, fields: int) -> dict[str, Any]:
    """One definition of ``fields`` strings, referred to from ``copies`` properties."""
    refs = {f"party_{i}": {"$ref": "#/$defs/Party"} for i in range(copies)}
    return {**_object(**refs), "$defs": {"Party": _flat(fields)}}


def _rules(count: int) -> dict[str, Any]:
    rule = {"kind": "sum", "parts": ["net", "tax"], "total": "total"}
    number = {"type": "number"}
    return {**_object(net=number, tax=number, total=number), "x-evidex-rules": [rule] * count}


def _deep_json(levels: int) -> dict[str, Any]:
    nest: list[Any] = []
    for _ in range(levels):
        nest = [nest]
    return _object(a={**STRING, "examples": nest})


def _shared(levels: int) -> dict[str, Any]:
    """A Python dict that reuses one node at every level: small in memory, 2 ** levels values."""
    node: dict[str, Any] = {"const": 1}
    for _ in range(levels):
        node = {"allOf": [node, node]}
    return _object(a={**STRING, "not": node})


@pytest.fixture
def nothing_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a model fails the test: every refusal here must come first."""

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model was built for a schema over a limit")

    monkeypatch.setattr(builder, "_object", never)
    monkeypatch.setattr(builder, "create_model", never)


def test_a_5000_property_schema_is_refused_before_anything_is_built(nothing_built: None) -> None:
    with pytest.raises(SchemaInvalid) as info:
        schema_from_json(_flat(5000))
    assert info.value.message == (
        "the schema declares 5,000 properties ($defs included); the limit is 2,000: split it "
        "into schemas of at most 1,000 fields each"
    )
    assert info.value.code == "schema_invalid"


def test_an_exponential_ref_expansion_stops_at_its_budget(nothing_built: None) -> None:
    with pytest.raises(SchemaInvalid) as info:
        schema_from_json(_doubling(20))
    assert info.value.message.startswith(
        "the schema expands to more than 5,000 nodes once its $refs are followed"
    )


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (
            _flat(MAX_FIELDS + 1),
            "the schema has 1,001 fields once its $refs are expanded; the limit",
        ),
        (_reused(11, 100), "the schema has 1,100 fields once its $refs are expanded; the limit"),
        (
            _nested(MAX_DEPTH + 1),
            "top.level_0.level_1.level_2.level_3.level_4.level_5: nested deeper than 6 levels of "
            "objects and arrays (7 here)",
        ),
        (
            _object(codes={"type": "string", "enum": [f"c{i}" for i in range(1001)]}),
            "codes: enum lists 1,001 values; the limit is 1,000",
        ),
        (
            _flat(3, {"type": "string", "enum": [f"c{i}" for i in range(400)]}),
            "the schema's enums list 1,200 values in all; the limit is 1,000",
        ),
        (_rules(MAX_RULES + 1), "x-evidex-rules has 201 rules; the limit is 200"),
        (
            _object(note={**STRING, "description": "x" * 4001}),
            "note: description has 4,001 characters; the limit is 4,000",
        ),
        ({**_flat(1), "title": "x" * 4001}, "root: title has 4,001 characters; the limit is 4,000"),
        (
            {
                **_object(seller={"$ref": "#/$defs/Party"}),
                "$defs": {"Party": _object(name=STRING, parent={"$ref": "#/$defs/Party"})},
            },
            "seller.parent: $ref 'Party' refers back to a schema that contains it",
        ),
        (
            {
                **_object(a={"$ref": "#/$defs/A"}),
                "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
            },
            "a: more than 20 $refs in a row",
        ),
        (_deep_json(100_000), "the schema nests JSON objects and arrays more than 64 levels"),
        (_shared(25), "the schema holds more than 262,144 JSON values"),
    ],
    ids=[
        "fields",
        "fields-through-refs",
        "depth",
        "enum-per-field",
        "enum-total",
        "rules",
        "description",
        "title",
        "recursive-definition",
        "ref-cycle",
        "json-depth",
        "shared-python-dicts",
    ],
)
def test_each_limit_is_refused_with_its_figure_before_building(
    schema: dict[str, Any], message: str, nothing_built: None
) -> None:
    with pytest.raises(SchemaInvalid) as info:
        schema_from_json(schema)
    assert info.value.message.startswith(message)


@pytest.mark.parametrize(
    "schema",
    [
        _flat(MAX_FIELDS),
        _nested(MAX_DEPTH),
        _doubling(5),
        _object(codes={"type": "string", "enum": [f"c{i}" for i in range(MAX_ENUM_VALUES)]}),
        _rules(MAX_RULES),
        _object(note={**STRING, "description": "x" * MAX_TEXT_CHARS}),
        _object(code={**STRING, "pattern": "a" * MAX_PATTERN_CHARS}),
    ],
    ids=["fields", "depth", "refs", "enum", "rules", "description", "pattern"],
)
def test_a_schema_at_each_limit_passes(schema: dict[str, Any]) -> None:
    assert check_limits(schema) is None


def test_a_schema_at_the_depth_limit_builds() -> None:
    (leaf,) = schema_from_json(_nested(MAX_DEPTH)).leaves
    assert leaf.path.count(".") == MAX_DEPTH


def test_the_text_limit_is_256_kib() -> None:
    assert MAX_SCHEMA_BYTES == 262_144
