"""``SchemaDef``: an extraction schema ready to use, and the registry of built-in ones.

A schema crosses a process boundary (a worker runs a job's CPU stages in child processes) as the
recipe that built it, not as its models: a client's schema is made of Pydantic classes created at
run time, which ``pickle`` cannot name. A built-in is sent by name, a client's JSON Schema as its
JSON (built once per process on arrival), a part of a schema as its whole and the part's fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import BaseModel, Field, create_model

from . import candidate_profile, contract, invoice, receipt
from .errors import SchemaInvalid
from .notes import DocumentNotes
from .rules import Rule
from .spec import LeafSpec, leaf_specs
from .wire import LIMITS, Limits, preflight, strict_schema, valid_name

__all__ = ["BUILTIN", "SchemaDef", "builtin_names", "get_schema", "schema_from_model"]


@dataclass(frozen=True)
class SchemaDef:
    """A named extraction model (leaves are ``FieldExtraction[T]``) with its cross-field rules."""

    name: str
    model: type[BaseModel]
    rules: tuple[Rule, ...] = ()
    description: str = ""
    source: dict[str, Any] | None = field(default=None, compare=False)
    # How to build this schema again in another process, when it is not a built-in: a client's
    # JSON Schema from its text, a part of a schema as ``(sub_schema, (whole, names))``.
    recipe: tuple[Callable[..., SchemaDef], tuple[Any, ...]] | None = field(
        default=None, compare=False, repr=False
    )

    def __reduce__(self) -> tuple[Callable[..., SchemaDef], tuple[Any, ...]]:
        """Pickle as the recipe (see the module docstring)."""
        if BUILTIN.get(self.name) is self:
            return get_schema, (self.name,)
        if self.recipe is not None:
            return self.recipe
        # A caller's importable model: the class pickles by name; no cached models go along.
        return SchemaDef, (self.name, self.model, self.rules, self.description)

    @cached_property
    def leaves(self) -> tuple[LeafSpec, ...]:
        return leaf_specs(self.model)

    @cached_property
    def wire_model(self) -> type[BaseModel]:
        """The root the model fills: the schema's fields plus ``document_notes``."""
        return create_model(
            valid_name(self.name),
            __base__=self.model,
            document_notes=(DocumentNotes, Field(description="About the document as a whole.")),
        )

    @cached_property
    def wire_schema(self) -> dict[str, Any]:
        return strict_schema(self.wire_model)

    def check(self, limits: Limits = LIMITS) -> None:
        """Raise :class:`SchemaInvalid` unless the strict wire schema is acceptable."""
        problems = preflight(self.wire_schema, valid_name(self.name), limits)
        if problems:
            raise SchemaInvalid(
                f"schema {self.name!r} cannot be sent as a strict JSON schema: "
                + "; ".join(problems[:5])
            )


def schema_from_model(
    model: type[BaseModel], name: str | None = None, rules: tuple[Rule, ...] = ()
) -> SchemaDef:
    """Wrap a caller's Pydantic model whose leaves are ``FieldExtraction[T]``."""
    if "document_notes" in model.model_fields:
        raise SchemaInvalid("the field name 'document_notes' is reserved; rename that field")
    schema = SchemaDef(name or model.__name__, model, rules, (model.__doc__ or "").strip())
    _ = schema.leaves  # fail now, with the field's path, if a leaf is not a FieldExtraction
    schema.check()
    return schema


BUILTIN: dict[str, SchemaDef] = {
    s.name: s
    for s in (
        SchemaDef(
            "candidate_profile",
            candidate_profile.CandidateProfile,
            candidate_profile.RULES,
            "A candidate's CV, read for screening.",
        ),
        SchemaDef(
            "invoice", invoice.Invoice, invoice.RULES, "A supplier invoice, read for payment."
        ),
        SchemaDef("contract", contract.Contract, contract.RULES, "A commercial agreement."),
        SchemaDef("receipt", receipt.Receipt, receipt.RULES, "A till receipt, read for expenses."),
    )
}


def builtin_names() -> list[str]:
    return sorted(BUILTIN)


def get_schema(name: str) -> SchemaDef:
    try:
        return BUILTIN[name]
    except KeyError:
        raise SchemaInvalid(
            f"unknown schema {name!r}: use one of {', '.join(builtin_names())} "
            "or pass a JSON Schema file"
        ) from None
