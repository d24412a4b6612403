"""How big a client's JSON Schema may be, checked on the raw JSON before anything is built.

Building a schema creates a Pydantic model per object and a ``FieldExtraction`` type per leaf;
a schema far over any sensible size took seconds to be refused after all that work, and a
``$defs`` entry that refers to another twice, which refers to another twice, … doubles at each
step. :func:`check_limits` walks the JSON first, without recursion, in time proportional to its
size (following ``$ref`` s is capped by :data:`MAX_EXPANSION`), and refuses with the limit, the
figure and what to do. The limits, and why each is where it is:

=======================  =========  ================================================================
``MAX_SCHEMA_BYTES``     256 KiB    the JSON text (checked by the service on arrival); a schema of
                                    1,000 described fields fits in a tenth of it
``MAX_JSON_DEPTH``       64         nesting of JSON objects and arrays of any kind; six levels of
                                    objects need about 25, and deeper JSON only feeds recursion
``MAX_DEPTH``            6          levels of objects and arrays below the root; documents are
                                    tables of records, rarely deeper than three
``MAX_FIELDS``           1,000      leaves once ``$ref`` s are expanded (list items count once); one
                                    model call fills every field, and its answer has to fit
``MAX_PROPERTIES``       2,000      properties written anywhere, ``$defs`` included, used or not:
                                    room for the objects that group the fields
``MAX_EXPANSION``        5,000      schema nodes visited while following ``$ref`` s; the walk stops
                                    the moment it is spent, so repeated references cannot multiply
``MAX_REF_CHAIN``        20         ``$ref`` s followed from one place before reaching a schema
``MAX_ENUM_VALUES``      1,000      choices of one ``enum``
``MAX_ENUM_TOTAL``       1,000      choices of every ``enum`` together: the model API's own cap for
                                    one strict schema (:data:`evidex.schemas.wire.LIMITS`)
``MAX_RULES``            200        ``x-evidex-rules``; each is checked on every result
``MAX_TEXT_CHARS``       4,000      one ``description`` or ``title``; descriptions go to the model
                                    with every request, about 1,000 tokens each at most
``MAX_PATTERN_CHARS``    1,000      one ``pattern`` or ``patternProperties`` key (see
                                    :mod:`evidex.schemas.patterns`)
=======================  =========  ================================================================

Pure: a dict in, :class:`SchemaInvalid` out or nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import SchemaInvalid
from .wire import LIMITS

__all__ = [
    "MAX_DEPTH",
    "MAX_ENUM_TOTAL",
    "MAX_ENUM_VALUES",
    "MAX_EXPANSION",
    "MAX_FIELDS",
    "MAX_JSON_DEPTH",
    "MAX_PATTERN_CHARS",
    "MAX_PROPERTIES",
    "MAX_REF_CHAIN",
    "MAX_RULES",
    "MAX_SCHEMA_BYTES",
    "MAX_TEXT_CHARS",
    "check_limits",
    "schema_nodes",
]

MAX_SCHEMA_BYTES = 256 * 1024
MAX_JSON_DEPTH = 64
MAX_DEPTH = 6
MAX_FIELDS = 1000
MAX_PROPERTIES = 2000
MAX_EXPANSION = 5000
MAX_REF_CHAIN = 20
MAX_ENUM_VALUES = 1000
MAX_ENUM_TOTAL = LIMITS.enum_values
MAX_RULES = 200
MAX_TEXT_CHARS = 4000
MAX_PATTERN_CHARS = 1000

# The keywords whose values are schemas (a map of them, one, or a list of them).
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
_SCHEMA_LISTS = ("items", "prefixItems", "allOf", "anyOf", "oneOf")


def check_limits(schema: dict[str, Any]) -> None:
    """Raise :class:`SchemaInvalid` when ``schema`` is over any limit of the module docstring."""
    _check_shape(schema)
    _check_as_written(schema)
    _check_expanded(schema)


def schema_nodes(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in ``schema`` as written (``$ref`` s not followed), with its place:
    ``order.lines[]`` for a property's items, ``$defs.Party`` for a definition."""
    stack: list[tuple[str, Any]] = [("", schema)]
    while stack:
        where, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield where, node
        stack.extend(reversed(list(_subschemas(where, node))))


def _subschemas(where: str, node: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for keyword in _SCHEMA_MAPS:
        table = node.get(keyword)
        if isinstance(table, dict):
            for key, sub in table.items():
                if keyword == "properties":
                    yield _join(where, str(key)), sub
                elif keyword in ("$defs", "definitions"):
                    yield _join(where, f"{keyword}.{key}"), sub
                else:
                    yield _join(where, f"{keyword}[{key!r}]"), sub
    for keyword in _SCHEMA_ONE:
        sub = node.get(keyword)
        if isinstance(sub, dict):
            yield (where + "[]" if keyword == "items" else _join(where, keyword)), sub
    for keyword in _SCHEMA_LISTS:
        subs = node.get(keyword)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                yield _join(where, f"{keyword}[{i}]"), sub


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _check_shape(schema: Any) -> None:
    """JSON nesting and size: the later walks and ``jsonschema`` never meet a pathological
    shape (a Python caller's dict that holds itself, or one shared a million times, included)."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    values = 0
    while stack:
        node, depth = stack.pop()
        values += 1
        if values > MAX_SCHEMA_BYTES:
            raise SchemaInvalid(
                f"the schema holds more than {MAX_SCHEMA_BYTES:,} JSON values, more than its "
                f"text may hold ({MAX_SCHEMA_BYTES // 1024} KiB); split it into smaller schemas"
            )
        if depth > MAX_JSON_DEPTH:
            raise SchemaInvalid(
                f"the schema nests JSON objects and arrays more than {MAX_JSON_DEPTH} levels "
                "deep; a schema of fields needs far fewer: flatten it"
            )
        if isinstance(node, dict):
            stack.extend((sub, depth + 1) for sub in node.values())
        elif isinstance(node, list):
            stack.extend((sub, depth + 1) for sub in node)


def _check_as_written(schema: dict[str, Any]) -> None:
    """Counts and lengths of the schema as written (each schema object visited once)."""
    properties = enum_total = 0
    for where, node in schema_nodes(schema):
        _check_node(where or "root", node)
        table, choices = node.get("properties"), node.get("enum")
        properties += len(table) if isinstance(table, dict) else 0
        enum_total += len(choices) if isinstance(choices, list) else 0
    rules = schema.get("x-evidex-rules")
    if isinstance(rules, list):
        _at_most(
            len(rules), MAX_RULES, "x-evidex-rules has", "rules", "keep those that matter most"
        )
    _at_most(
        properties,
        MAX_PROPERTIES,
        "the schema declares",
        "properties ($defs included)",
        f"split it into schemas of at most {MAX_FIELDS:,} fields each",
    )
    _at_most(
        enum_total,
        MAX_ENUM_TOTAL,
        "the schema's enums list",
        "values in all",
        "shorten the lists or make some fields plain strings",
    )


def _check_node(place: str, node: dict[str, Any]) -> None:
    choices = node.get("enum")
    if isinstance(choices, list):
        advice = "use a plain string field or fewer choices"
        _at_most(len(choices), MAX_ENUM_VALUES, f"{place}: enum lists", "values", advice)
    for key in ("description", "title"):
        text = node.get(key)
        if isinstance(text, str):
            advice = "shorten it (it goes to the model with every request)"
            _at_most(len(text), MAX_TEXT_CHARS, f"{place}: {key} has", "characters", advice)
    for pattern in _patterns(node):
        _at_most(
            len(pattern), MAX_PATTERN_CHARS, f"{place}: pattern has", "characters", "shorten it"
        )


def _patterns(node: dict[str, Any]) -> Iterator[str]:
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        yield pattern
    table = node.get("patternProperties")
    if isinstance(table, dict):
        yield from (str(key) for key in table)


def _at_most(figure: int, limit: int, what: str, unit: str, advice: str) -> None:
    if figure > limit:
        raise SchemaInvalid(f"{what} {figure:,} {unit}; the limit is {limit:,}: {advice}")


@dataclass(slots=True)
class _Frame:
    """An object or array being expanded: its place, the definitions its ``$ref`` s entered,
    and the children still to visit."""

    path: str
    level: int
    entered: tuple[str, ...]
    children: Iterator[tuple[str, Any]]


@dataclass(slots=True)
class _Expansion:
    nodes: int = 0
    leaves: int = 0
    deepest: int = 0
    too_deep: str = ""
    active: dict[str, int] = field(default_factory=dict)


def _check_expanded(schema: dict[str, Any]) -> None:
    """Follow properties, items and ``$ref`` s as the builder will: stop at once when the
    expansion passes :data:`MAX_EXPANSION` or a definition contains itself, then judge the depth
    and the number of fields."""
    defs = _definitions(schema)
    state = _Expansion()
    stack: list[_Frame] = []
    _enter(stack, state, "", schema, defs)
    while stack:
        frame = stack[-1]
        child = next(frame.children, None)
        if child is None:
            for name in frame.entered:
                state.active[name] -= 1
            stack.pop()
            continue
        key, sub = child
        path = frame.path if frame.level > MAX_DEPTH else _join_child(frame.path, key)
        _enter(stack, state, path, sub, defs)
    if state.deepest > MAX_DEPTH:
        raise SchemaInvalid(
            f"{state.too_deep}: nested deeper than {MAX_DEPTH} levels of objects and arrays "
            f"({state.deepest} here); flatten the schema (move inner objects up a level)"
        )
    _at_most(
        state.leaves,
        MAX_FIELDS,
        "the schema has",
        "fields once its $refs are expanded",
        "one model call fills them all, so split it into several schemas",
    )


def _enter(
    stack: list[_Frame], state: _Expansion, path: str, node: Any, defs: dict[str, Any]
) -> None:
    node, names = _follow(node, defs, path)
    for name in names:
        if state.active.get(name):
            raise SchemaInvalid(
                f"{path or 'root'}: $ref {name!r} refers back to a schema that contains it, so "
                "the schema never ends; write out the levels you need as separate definitions"
            )
    state.nodes += 1
    if state.nodes > MAX_EXPANSION:
        raise SchemaInvalid(
            f"the schema expands to more than {MAX_EXPANSION:,} nodes once its $refs are "
            f"followed (each $ref is a copy of its definition, so definitions that refer to "
            f"others several times multiply); the limit is {MAX_EXPANSION:,}: refer to fewer "
            "definitions, or to each from fewer places"
        )
    children = list(_children(node))
    if not children:
        state.leaves += 1
        return
    level = stack[-1].level + 1 if stack else 0
    if level > state.deepest:
        state.deepest = level
        if level == MAX_DEPTH + 1:
            state.too_deep = path or "root"
    for name in names:
        state.active[name] = state.active.get(name, 0) + 1
    stack.append(_Frame(path, level, names, iter(children)))


def _follow(node: Any, defs: dict[str, Any], path: str) -> tuple[Any, tuple[str, ...]]:
    """``node`` with its ``$ref`` s followed, and the definitions they named. A reference that
    does not resolve is left for the builder to report."""
    names: list[str] = []
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        name = node["$ref"].rsplit("/", 1)[-1]
        if name not in defs:
            break
        if len(names) >= MAX_REF_CHAIN:
            raise SchemaInvalid(
                f"{path or 'root'}: more than {MAX_REF_CHAIN} $refs in a row (a $ref cycle?); "
                "point the $ref at the schema itself"
            )
        names.append(name)
        node = defs[name]
    return node, tuple(names)


def _children(node: Any) -> Iterator[tuple[str, Any]]:
    if not isinstance(node, dict):
        return
    table = node.get("properties")
    if isinstance(table, dict):
        yield from ((str(key), sub) for key, sub in table.items())
    if isinstance(node.get("items"), dict):
        yield "[]", node["items"]


def _join_child(path: str, key: str) -> str:
    return path + key if key == "[]" else _join(path, key)


def _definitions(schema: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        table = schema.get(key)
        if isinstance(table, dict):
            defs.update(table)
    return defs
