"""A caller's plain JSON Schema of values, wrapped leaf by leaf in ``FieldExtraction``.

Accepted: an object of properties whose leaves are ``string`` (``format: date`` or ``date-time``
becomes a date; ``email``/``uri`` are checked as such; ``enum`` lists choices), ``number``,
``integer`` or ``boolean``; nested ``object``s; ``array``s of any of these; local ``$ref``s into
``$defs``/``definitions``; nullable types (``["string", "null"]``). ``x-evidex-kind`` on a property
asks for a richer kind (``amount``, ``iban``, ``vat_id``, ``phone``, ``percentage``...). Rules go
under the root's ``x-evidex-rules`` (see :mod:`evidex.schemas.rules`).
"""

from __future__ import annotations

import re
from typing import Any, Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from .errors import SchemaInvalid
from .field import FieldExtraction, Kind
from .registry import SchemaDef, schema_from_model
from .rules import parse_rules
from .values import Address, Amount, DateValue, Duration

__all__ = ["schema_from_json"]

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_RESERVED = frozenset(dir(BaseModel)) | {"document_notes"}
_SCALARS: dict[str, type] = {"string": str, "number": float, "integer": int, "boolean": bool}
_FORMATS: dict[str, Kind] = {
    "date": "date",
    "date-time": "date",
    "email": "email",
    "uri": "url",
    "url": "url",
}
_KIND_TYPES: dict[str, Any] = {
    "date": DateValue,
    "amount": Amount,
    "address": Address,
    "duration": Duration,
}
_KINDS = set(get_args(Kind))
_MAX_DEPTH = 6


class _Object(BaseModel):
    model_config = ConfigDict(extra="forbid")


def schema_from_json(schema: Any, name: str = "custom") -> SchemaDef:
    """Build an extraction schema from a JSON Schema of plain values.

    Raises :class:`SchemaInvalid` naming the offending property.
    """
    if not isinstance(schema, dict):
        raise SchemaInvalid("a custom schema must be a JSON object with 'properties'")
    defs: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        table = schema.get(key, {})
        if not isinstance(table, dict):
            raise SchemaInvalid(f"{key} must be an object of named schemas")
        defs.update(table)
    title = schema.get("title")
    if isinstance(title, str) and title.strip():
        name = title
    model = _object(schema, "", defs, 0, name)
    try:
        rules = parse_rules(schema.get("x-evidex-rules", []))
    except ValidationError as exc:
        raise SchemaInvalid(f"x-evidex-rules: {exc.errors()[0]['msg']}") from None
    result = schema_from_model(model, name, rules)
    known = {s.path for s in result.leaves}
    for rule in rules:
        for path in _rule_paths(rule):
            if path not in known:
                raise SchemaInvalid(
                    f"x-evidex-rules: {rule.describe()!r} names unknown field {path!r}"
                )
    return SchemaDef(result.name, model, rules, str(schema.get("description", "")), schema)


def _rule_paths(rule: Any) -> list[str]:
    names = ("parts", "total", "earlier", "later", "fields", "field", "condition")
    out: list[str] = []
    for key in names:
        value = getattr(rule, key, None)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend(value)
    return out


def _resolve(node: Any, defs: dict[str, Any], where: str) -> dict[str, Any]:
    seen = 0
    while isinstance(node, dict) and "$ref" in node:
        ref = str(node["$ref"])
        key = ref.rsplit("/", 1)[-1]
        if not ref.startswith("#/") or key not in defs:
            raise SchemaInvalid(f"{where or 'root'}: $ref {ref!r} must point into $defs")
        node, seen = defs[key], seen + 1
        if seen > 20:
            raise SchemaInvalid(f"{where}: $ref cycle")
    if not isinstance(node, dict):
        raise SchemaInvalid(f"{where or 'root'}: expected a schema object")
    return node


def _type_of(node: dict[str, Any], where: str) -> str:
    if not isinstance(node.get("description", ""), str):
        raise SchemaInvalid(f"{where or 'root'}: description must be a string")
    tp = node.get("type")
    if isinstance(tp, list):
        rest = [t for t in tp if t != "null"]
        if len(rest) != 1:
            raise SchemaInvalid(f"{where}: a field must have one type besides null, got {tp}")
        tp = rest[0]
    if tp is None and "enum" in node:
        tp = "string"
    if tp is None and "properties" in node:
        tp = "object"
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in node:
            raise SchemaInvalid(f"{where}: {combinator} is not supported; give the field one type")
    if tp not in (*_SCALARS, "object", "array"):
        raise SchemaInvalid(f"{where}: unsupported type {tp!r}")
    return str(tp)


def _object(
    node: dict[str, Any], where: str, defs: dict[str, Any], depth: int, name: str
) -> type[BaseModel]:
    node = _resolve(node, defs, where)
    if depth > _MAX_DEPTH:
        raise SchemaInvalid(f"{where}: nested deeper than {_MAX_DEPTH} objects")
    props = node.get("properties")
    if _type_of(node, where or "root") != "object" or not isinstance(props, dict) or not props:
        raise SchemaInvalid(f"{where or 'root'}: must be an object with at least one property")
    fields: dict[str, Any] = {}
    for key, sub in props.items():
        path = f"{where}.{key}" if where else key
        if key in _RESERVED or key.startswith("model_"):
            raise SchemaInvalid(f"{path}: {key!r} is a reserved name; rename the property")
        if not _IDENT.match(key):
            raise SchemaInvalid(
                f"{path}: property names must be identifiers (letters, digits, _), e.g. "
                f"{re.sub(r'[^A-Za-z0-9_]+', '_', key).strip('_').lower() or 'field'!r}"
            )
        if where == "" and key == "document_notes":
            raise SchemaInvalid("document_notes: this property name is reserved")
        sub = _resolve(sub, defs, path)
        fields[key] = _member(sub, path, defs, depth, key)
    model = create_model(
        _model_name(name or where),
        __base__=_Object,
        __doc__=str(node.get("description") or "") or None,
        **fields,
    )
    return cast(type[BaseModel], model)


def _model_name(where: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", where)
    return "".join(p[:1].upper() + p[1:] for p in parts if p) or "Custom"


def _member(
    node: dict[str, Any], path: str, defs: dict[str, Any], depth: int, key: str
) -> tuple[Any, Any]:
    tp = _type_of(node, path)
    description = str(node.get("description", ""))
    if depth > _MAX_DEPTH:
        raise SchemaInvalid(f"{path}: nested deeper than {_MAX_DEPTH} levels")
    if tp == "object":
        return _object(node, path, defs, depth + 1, path), Field(description=description)
    if tp == "array":
        items = _resolve(node.get("items", {}), defs, path + "[]")
        inner, info = _member(items, path + "[]", defs, depth + 1, key)
        desc = description or str(items.get("description", ""))
        return cast(Any, list)[inner], Field(
            description=desc, json_schema_extra=info.json_schema_extra
        )
    value_type, kind = _leaf(node, tp, path)
    extra: Any = {"kind": kind} if kind else None
    leaf_type = cast(Any, FieldExtraction)[value_type]
    return leaf_type, Field(description=description, json_schema_extra=extra)


def _leaf(node: dict[str, Any], tp: str, path: str) -> tuple[Any, Kind | None]:
    kind = node.get("x-evidex-kind")
    if kind is not None and kind not in _KINDS:
        raise SchemaInvalid(f"{path}: unknown x-evidex-kind {kind!r}; use one of {sorted(_KINDS)}")
    if kind is None and tp == "string":
        kind = _FORMATS.get(str(node.get("format", "")))
    if "enum" in node:
        values = node["enum"]
        if not values or not all(isinstance(v, str) for v in values):
            raise SchemaInvalid(f"{path}: enum must be a non-empty list of strings")
        return Literal[tuple(values)], "enum"
    if kind in _KIND_TYPES:
        return _KIND_TYPES[kind], kind
    return _SCALARS[tp], kind
