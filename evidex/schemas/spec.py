"""Walk an extraction model: its leaves (for prompts and verification) and an instance's values.

A leaf is a ``FieldExtraction[T]``. Its *path template* names it with ``[]`` for list items
(``work_history[].start_date``); an instance's *path* has the index
(``work_history[0].start_date``), which is the key of the result's ``fields``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from .errors import SchemaInvalid
from .field import FieldExtraction, Kind
from .kinds import KindSource
from .values import Address, Amount, DateValue, Duration

__all__ = ["Leaf", "LeafSpec", "iter_leaves", "leaf_specs", "value_type"]

_KIND_OF_TYPE: dict[Any, Kind] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    DateValue: "date",
    Amount: "amount",
    Address: "address",
    Duration: "duration",
}


@dataclass(frozen=True, slots=True)
class LeafSpec:
    """One leaf of a schema, as the prompt and the verifier see it."""

    path: str
    kind: Kind
    description: str
    enum: tuple[str, ...] = ()
    kind_source: KindSource = "default"
    # The client's JSON Schema for this leaf, when it came from one (``None`` for models):
    # the type ``data`` must hold, its ``format``, whether null is allowed and whether the
    # property is ``required`` in its object.
    json_type: str | None = None
    format: str | None = None
    nullable: bool = False
    required: bool = False
    schema: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def type_name(self) -> str:
        return self.kind if not self.enum else "one of " + ", ".join(self.enum)


@dataclass(frozen=True, slots=True)
class Leaf:
    """One leaf of an extracted instance."""

    path: str
    spec: LeafSpec
    extraction: FieldExtraction[Any]


def value_type(annotation: Any) -> Any | None:
    """``T`` for a ``FieldExtraction[T]`` annotation, else ``None``."""
    if isinstance(annotation, type) and issubclass(annotation, FieldExtraction):
        args = annotation.__pydantic_generic_metadata__["args"]
        return args[0] if args else Any
    return None


_RICH = (DateValue, Amount, Address, Duration)


def _kind(tp: Any, declared: Kind | None, where: str) -> tuple[Kind, tuple[str, ...], KindSource]:
    if get_origin(tp) is Literal:
        choices = tuple(str(v) for v in get_args(tp))
        return declared or "enum", choices, "declared" if declared else "default"
    if declared:
        return declared, (), "declared"
    kind = _KIND_OF_TYPE.get(tp)
    if kind is None:
        raise SchemaInvalid(f"field {where!r}: unsupported value type {tp!r}")
    return kind, (), "declared" if tp in _RICH else "default"


def _list_item(annotation: Any) -> Any | None:
    if get_origin(annotation) is list:
        return get_args(annotation)[0]
    return None


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _extra(info: Any) -> dict[str, Any]:
    extra = info.json_schema_extra
    return extra if isinstance(extra, dict) else {}


def _declared_kind(info: Any) -> Kind | None:
    kind = _extra(info).get("kind")
    return typing.cast(Kind, kind) if isinstance(kind, str) else None


def leaf_specs(model: type[BaseModel], prefix: str = "") -> tuple[LeafSpec, ...]:
    """Every leaf of ``model``, depth first, in declaration order."""
    out: list[LeafSpec] = []
    for name, info in model.model_fields.items():
        if name == "document_notes":
            continue
        path = f"{prefix}{name}"
        ann = info.annotation
        item = _list_item(ann)
        target, path = (item, path + "[]") if item is not None else (ann, path)
        if isinstance(target, types.UnionType):
            raise SchemaInvalid(f"field {path!r}: unions are not supported")
        tp = value_type(target)
        if tp is not None:
            kind, enum, source = _kind(tp, _declared_kind(info), path)
            extra = _extra(info)
            out.append(
                LeafSpec(
                    path,
                    kind,
                    info.description or "",
                    enum,
                    typing.cast(KindSource, extra.get("kind_source", source)),
                    extra.get("json_type"),
                    extra.get("format"),
                    bool(extra.get("nullable", False)),
                    bool(extra.get("required", False)),
                    extra.get("schema"),
                )
            )
        elif _is_model(target):
            out.extend(leaf_specs(typing.cast(type[BaseModel], target), path + "."))
        else:
            raise SchemaInvalid(
                f"field {path!r}: every leaf must be a FieldExtraction[T], got {target!r}"
            )
    return tuple(out)


def iter_leaves(instance: BaseModel, specs: tuple[LeafSpec, ...]) -> Iterator[Leaf]:
    """Every leaf of an extracted instance with its concrete path and its spec."""
    by_path = {s.path: s for s in specs}
    yield from _walk(instance, "", "", by_path)


def _walk(
    obj: BaseModel, prefix: str, template: str, by_path: dict[str, LeafSpec]
) -> Iterator[Leaf]:
    for name in type(obj).model_fields:
        if name == "document_notes":
            continue
        value = getattr(obj, name)
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            path = f"{prefix}{name}" + ("" if index is None else f"[{index}]")
            tmpl = f"{template}{name}" + ("" if index is None else "[]")
            if isinstance(item, FieldExtraction):
                yield Leaf(path, by_path[tmpl], item)
            elif isinstance(item, BaseModel):
                yield from _walk(item, path + ".", tmpl + ".", by_path)
