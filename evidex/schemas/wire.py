"""The strict JSON schema sent to the model, kept apart from the domain models.

OpenAI's strict structured outputs accept a subset of JSON Schema: every object closed
(``additionalProperties: false``) with every property required, optional values as a union with
null, ``$defs`` names matching ``^[a-zA-Z0-9_-]{1,64}$`` (Pydantic names a generic model
``FieldExtraction[int]``), no ``default``/``allOf``/``prefixItems``, a ``$ref`` with no siblings,
and caps on property count and nesting (100 properties / 5 levels on older snapshots and Azure
OpenAI; 5000 / 10 today). :func:`strict_schema` builds such a schema; :func:`preflight` checks any
schema against those rules so a bad one fails here, with the path, not as a 400 from a provider.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel

__all__ = ["LEGACY_LIMITS", "LIMITS", "Limits", "preflight", "strict_schema", "valid_name"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_KEEP = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "$ref",
    "$defs",
}
_FORBIDDEN = {
    "default",
    "allOf",
    "oneOf",
    "not",
    "prefixItems",
    "patternProperties",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
}


class Limits:
    def __init__(self, properties: int, depth: int, enum_values: int) -> None:
        self.properties, self.depth, self.enum_values = properties, depth, enum_values


LIMITS = Limits(properties=5000, depth=10, enum_values=1000)
LEGACY_LIMITS = Limits(properties=100, depth=5, enum_values=500)


def valid_name(name: str) -> str:
    """A schema or ``$defs`` name the API accepts, derived deterministically from ``name``."""
    clean = re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_") or "schema"
    if len(clean) > 64:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        clean = f"{clean[:55]}_{digest}"
    return clean


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The strict wire schema of ``model``."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    renames: dict[str, str] = {}
    for old in defs:
        new = valid_name(old)
        while new in renames.values():
            new = valid_name(new + "_x")
        renames[old] = new

    def clean(node: Any) -> Any:
        if isinstance(node, list):
            return [clean(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return {"$ref": "#/$defs/" + renames[node["$ref"].rsplit("/", 1)[-1]]}
        out = {k: clean(v) for k, v in node.items() if k in _KEEP}
        if "properties" in node:
            out["properties"] = {k: clean(v) for k, v in node["properties"].items()}
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
            out["type"] = "object"
        return out

    schema: dict[str, Any] = clean(raw)
    if defs:
        schema["$defs"] = {renames[k]: clean(v) for k, v in defs.items()}
    return schema


def preflight(schema: dict[str, Any], name: str, limits: Limits = LIMITS) -> list[str]:
    """Every way ``schema`` breaks the strict-mode rules; empty when the API will accept it."""
    problems: list[str] = []
    if not _NAME.match(name):
        problems.append(f"schema name {name!r} does not match {_NAME.pattern}")
    defs = schema.get("$defs", {})
    for key in defs:
        if not _NAME.match(key):
            problems.append(f"$defs name {key!r} does not match {_NAME.pattern}")
    if schema.get("type") != "object":
        problems.append("root: must be an object")
    counts = {"properties": 0, "enum_values": 0}

    def visit(node: Any, where: str, depth: int, seen: tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            return
        bad = _FORBIDDEN & node.keys()
        if bad:
            problems.append(f"{where}: unsupported keyword(s) {sorted(bad)}")
        if "$ref" in node:
            if len(node) > 1:
                problems.append(f"{where}: $ref must have no sibling keys")
            ref = node["$ref"].rsplit("/", 1)[-1]
            if ref not in defs:
                problems.append(f"{where}: $ref {node['$ref']!r} does not resolve")
            elif ref not in seen:
                visit(defs[ref], f"$defs.{ref}", depth, (*seen, ref))
            return
        if "properties" in node or node.get("type") == "object":
            depth += 1
            if depth > limits.depth:
                problems.append(f"{where}: nesting deeper than {limits.depth} levels")
            props = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties must be false")
            if sorted(node.get("required", [])) != sorted(props):
                problems.append(f"{where}: required must list every property")
            for key, sub in props.items():
                visit(sub, f"{where}.{key}", depth, seen)
        if "enum" in node:
            counts["enum_values"] += len(node["enum"])
        for key in ("items",):
            if key in node:
                visit(node[key], f"{where}[]", depth, seen)
        for i, sub in enumerate(node.get("anyOf", [])):
            visit(sub, f"{where}|{i}", depth, seen)

    visit(schema, "root", 0, ())
    counts["properties"] = (
        sum(len(d.get("properties", {})) for d in defs.values())
        + len(schema.get("properties", {}))
        + _inline_properties(schema)
    )
    if counts["properties"] > limits.properties:
        problems.append(f"{counts['properties']} properties exceed the cap of {limits.properties}")
    if counts["enum_values"] > limits.enum_values:
        problems.append(
            f"{counts['enum_values']} enum values exceed the cap of {limits.enum_values}"
        )
    return problems


def _inline_properties(schema: dict[str, Any]) -> int:
    """Properties of objects written inline below the root (not in ``$defs``)."""

    def count(node: Any, top: bool) -> int:
        if isinstance(node, list):
            return sum(count(n, False) for n in node)
        if not isinstance(node, dict):
            return 0
        n = 0 if top else len(node.get("properties", {}))
        for key, sub in node.items():
            if key in ("$defs",):
                continue
            if key == "properties":
                n += sum(count(v, False) for v in sub.values())
            elif isinstance(sub, dict | list):
                n += count(sub, False)
        return n

    return count(schema, True)
