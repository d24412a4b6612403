"""``FieldExtraction[T]``: one schema leaf, its value and the evidence it was read from.

The key order is the order the model writes: the quote and its lines come before the value, so
the model finds the evidence before it states the value.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["FieldExtraction", "FieldGroup", "Kind", "field"]

T = TypeVar("T")

Kind = Literal[
    "string",
    "text",
    "integer",
    "number",
    "percentage",
    "boolean",
    "enum",
    "date",
    "amount",
    "currency",
    "address",
    "duration",
    "email",
    "phone",
    "url",
    "iban",
    "bic",
    "vat_id",
    "years",
]


class FieldGroup(BaseModel):
    """An object of a built-in schema (the document's root, a party, a list's item): closed, as
    the wire schema made from it must be, so a key the model adds is refused, not kept."""

    model_config = ConfigDict(extra="forbid")


class FieldExtraction(BaseModel, Generic[T]):
    """What the model returns for one leaf of the schema."""

    model_config = ConfigDict(extra="forbid")

    quote: str = Field(
        description="The shortest verbatim text from the numbered lines that states the value; "
        "empty string when not found."
    )
    page: int | None = Field(description="Page of the quote (1-based); null when not found.")
    line_start: int | None = Field(
        description="GLOBAL_LINE (first column) where the quote starts; null when not found."
    )
    line_end: int | None = Field(
        description="GLOBAL_LINE (first column) where the quote ends; null when not found."
    )
    found: bool = Field(description="false when the document does not state this field.")
    value: T | None = Field(description="The value read from the quote; null when not found.")
    caveat: str = Field(description="Anything a reviewer should know; empty string otherwise.")


def field(description: str, kind: Kind | None = None) -> Any:
    """Declare a schema field with the description the model sees and an optional value kind.

    ``kind`` refines how a value is checked against its quote (an ``email`` string is compared
    as an address, an ``iban`` by its check digits); without it the kind follows the type.
    """
    extra: dict[str, Any] | None = {"kind": kind} if kind else None
    return Field(description=description, json_schema_extra=extra)
