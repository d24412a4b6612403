"""Splitting a schema into groups of related fields, and merging their answers into one.

Pure: schemas and answers in, schemas and answers out.

The unit of a split is a top-level field of the schema: a scalar, an object with its parts, or
a list with its items' fields. An object and its list always travel together, so a line item's
description and amount are read from the same call. Groups are made in schema order (schemas
put related fields next to each other); each group is filled by one call, against a schema of
its own fields only, and the answers are merged into one instance of the whole schema before
verification, which checks rules across all fields as if there had been one call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_origin

from pydantic import BaseModel, ConfigDict, create_model

from evidex.schemas import DocumentNotes, LeafSpec, SchemaDef
from evidex.schemas.rules import EqualRule, OrderRule, RequiredIfRule, Rule, SumRule
from evidex.schemas.wire import valid_name

__all__ = ["Unit", "is_list", "merge_answers", "sub_schema", "units"]


@dataclass(frozen=True, slots=True)
class Unit:
    """A top-level field and the leaves under it."""

    name: str
    leaves: tuple[LeafSpec, ...]
    is_list: bool


def _top(path: str) -> str:
    return path.split(".", 1)[0].split("[", 1)[0]


def is_list(schema: SchemaDef, name: str) -> bool:
    return get_origin(schema.model.model_fields[name].annotation) is list


def units(schema: SchemaDef) -> list[Unit]:
    """The schema's top-level fields, in order, each with its leaves."""
    out: list[Unit] = []
    for name in schema.model.model_fields:
        leaves = tuple(leaf for leaf in schema.leaves if _top(leaf.path) == name)
        if leaves:
            out.append(Unit(name, leaves, is_list(schema, name)))
    return out


def _rule_paths(rule: Rule) -> Iterable[str]:
    if isinstance(rule, SumRule):
        return [*rule.parts, rule.total]
    if isinstance(rule, OrderRule):
        return [rule.earlier, rule.later]
    if isinstance(rule, EqualRule):
        return list(rule.fields)
    if isinstance(rule, RequiredIfRule):
        return [rule.field, rule.condition]
    return []


def sub_schema(schema: SchemaDef, names: Sequence[str]) -> SchemaDef:
    """The schema restricted to the top-level fields ``names`` (and the rules among them)."""
    if list(names) == list(schema.model.model_fields):
        return schema
    fields: dict[str, Any] = {
        name: (info.annotation, info)
        for name, info in schema.model.model_fields.items()
        if name in names
    }
    model: type[BaseModel] = create_model(
        valid_name(schema.name) + "_part",
        __config__=ConfigDict(extra="forbid"),
        __doc__=schema.model.__doc__,
        **fields,
    )
    rules = tuple(rule for rule in schema.rules if all(_top(p) in names for p in _rule_paths(rule)))
    recipe = (sub_schema, (schema, tuple(names)))
    return SchemaDef(schema.name, model, rules, schema.description, recipe=recipe)


def merge_answers(schema: SchemaDef, parts: Sequence[Mapping[str, Any]]) -> BaseModel:
    """One instance of ``schema.wire_model`` from answers of its groups (wire dicts).

    A later part overrides an earlier one for the fields it holds (a continuation re-asks one
    list); document notes are joined.
    """
    merged: dict[str, Any] = {}
    notes = DocumentNotes.empty()
    for part in parts:
        for name, value in part.items():
            if name == "document_notes":
                got = DocumentNotes.model_validate(value)
                notes.caveats += [c for c in got.caveats if c not in notes.caveats]
                notes.conflicting_evidence += got.conflicting_evidence
                notes.context_structured = notes.context_structured and got.context_structured
                notes.suggested_clarification = (
                    notes.suggested_clarification or got.suggested_clarification
                )
            else:
                merged[name] = value
    merged["document_notes"] = notes.model_dump()
    return schema.wire_model.model_validate(merged)
