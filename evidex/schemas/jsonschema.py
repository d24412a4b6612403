"""A caller's plain JSON Schema of values, wrapped leaf by leaf in ``FieldExtraction``.

Accepted: an object of properties whose leaves are ``string`` (``format: date`` or ``date-time``
becomes a date; ``email``/``uri`` are checked as such; ``enum`` lists choices), ``number``,
``integer`` or ``boolean``; nested ``object``s; ``array``s of any of these; local ``$ref``s into
``$defs``/``definitions``; nullable types (``["string", "null"]``). Rules go under the root's
``x-evidex-rules`` (see :mod:`evidex.schemas.rules`).

Every leaf gets a kind (:mod:`evidex.schemas.kinds`): ``x-evidex-kind`` when the schema declares
one, else inferred from format, enum, name and description. The model is asked for the kind's
richer value where one exists (a date's ISO form *and* the text as written, an amount's
currency), so the verifier can check it; ``data`` is then brought back to the type the client
declared (:mod:`evidex.schemas.plain`). The schema itself must be valid JSON Schema (checked with
``jsonschema`` against its meta-schema).

Nothing is built before the raw JSON passes :func:`~evidex.schemas.limits.check_limits` (sizes,
depth, ``$ref`` expansion) and every pattern compiles in RE2
(:func:`~evidex.schemas.patterns.check_patterns`): a schema over a limit, or with a pattern that
could stall a worker, is refused at once.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Literal, cast

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from .errors import SchemaInvalid
from .field import FieldExtraction, Kind
from .kinds import infer_kind
from .limits import MAX_DEPTH, MAX_REF_CHAIN, check_limits
from .patterns import FORMAT_CHECKER, check_patterns
from .registry import SchemaDef, schema_from_model
from .rules import parse_rules
from .values import Address, Amount, DateValue, Duration

__all__ = ["schema_from_json"]

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_RESERVED = frozenset(dir(BaseModel)) | {"document_notes"}
_SCALARS: dict[str, type] = {"string": str, "number": float, "integer": int, "boolean": bool}
_KIND_TYPES: dict[str, Any] = {
    "date": DateValue,
    "amount": Amount,
    "address": Address,
    "duration": Duration,
}
_NUMBER_KINDS: dict[str, type] = {"number": float, "percentage": float, "years": float}
# what a leaf's own schema says about its value, less what is ours or only annotation
_NOT_CHECKED = {"description", "title", "examples", "default", "$comment"}


class _Object(BaseModel):
    model_config = ConfigDict(extra="forbid")


def schema_from_json(schema: Any, name: str = "custom") -> SchemaDef:
    """Build an extraction schema from a JSON Schema of plain values.

    Raises :class:`SchemaInvalid` naming the offending property.
    """
    if not isinstance(schema, dict):
        raise SchemaInvalid("a custom schema must be a JSON object with 'properties'")
    check_limits(schema)
    check_patterns(schema)
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
    _check_meta(schema)
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
    recipe = (_from_json, (json.dumps(schema, ensure_ascii=False), name))
    description = str(schema.get("description", ""))
    return SchemaDef(result.name, model, rules, description, schema, recipe=recipe)


@lru_cache(maxsize=128)
def _from_json(text: str, name: str) -> SchemaDef:
    """A client's schema rebuilt from its JSON text (another process's copy), once per process."""
    return schema_from_json(json.loads(text), name=name)


def _check_meta(schema: dict[str, Any]) -> None:
    """The schema must be valid JSON Schema itself (its ``$schema`` draft, else 2020-12).

    ``format: regex`` (every ``pattern``) is checked with RE2, as the patterns will run, not
    with Python's ``re``."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    meta = jsonschema.validators.validator_for(cls.META_SCHEMA, default=cls)
    checker = meta(cls.META_SCHEMA, format_checker=FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(checker.iter_errors(schema))  # as check_schema
    if error is not None:
        where = "/".join(str(p) for p in error.path) or "root"
        raise SchemaInvalid(f"{where}: not valid JSON Schema: {error.message}")


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
        if seen > MAX_REF_CHAIN:
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
    if depth > MAX_DEPTH:
        raise SchemaInvalid(f"{where}: nested deeper than {MAX_DEPTH} objects")
    props = node.get("properties")
    if _type_of(node, where or "root") != "object" or not isinstance(props, dict) or not props:
        raise SchemaInvalid(f"{where or 'root'}: must be an object with at least one property")
    fields: dict[str, Any] = {}
    required = node.get("required", [])
    required = set(required) if isinstance(required, list) else set()
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
        fields[key] = _member(sub, path, defs, depth, key, key in required)
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
    node: dict[str, Any],
    path: str,
    defs: dict[str, Any],
    depth: int,
    key: str,
    required: bool = False,
) -> tuple[Any, Any]:
    tp = _type_of(node, path)
    description = str(node.get("description", ""))
    if depth > MAX_DEPTH:
        raise SchemaInvalid(f"{path}: nested deeper than {MAX_DEPTH} levels")
    if tp == "object":
        return _object(node, path, defs, depth + 1, path), Field(description=description)
    if tp == "array":
        items = _resolve(node.get("items", {}), defs, path + "[]")
        inner, info = _member(items, path + "[]", defs, depth + 1, key)
        desc = description or str(items.get("description", ""))
        return cast(Any, list)[inner], Field(
            description=desc, json_schema_extra=info.json_schema_extra
        )
    parent = path.removesuffix("[]").rpartition(".")[0]
    kind, source = infer_kind(key, node, parent)
    fmt = node.get("format")
    extra: Any = {
        "kind": kind,
        "kind_source": source,
        "json_type": tp,
        "format": fmt if isinstance(fmt, str) else None,
        "nullable": isinstance(node.get("type"), list) and "null" in node["type"],
        "required": required,
        "schema": {k: v for k, v in node.items() if k not in _NOT_CHECKED},
    }
    leaf_type = cast(Any, FieldExtraction)[_leaf(node, tp, path, kind)]
    return leaf_type, Field(description=description, json_schema_extra=extra)


def _leaf(node: dict[str, Any], tp: str, path: str, kind: Kind) -> Any:
    """The value type the model fills: the kind's richer value where it has one (the client's
    ``data`` gets the declared type back), else the JSON type."""
    if "enum" in node:
        values = node["enum"]
        if not values or not all(isinstance(v, str) for v in values):
            raise SchemaInvalid(f"{path}: enum must be a non-empty list of strings")
        return Literal[tuple(values)]
    if kind in _KIND_TYPES:
        return _KIND_TYPES[kind]
    if tp == "string" and kind in _NUMBER_KINDS:
        return _NUMBER_KINDS[kind]
    if tp == "string" and kind == "integer":
        return int
    return _SCALARS[tp]
