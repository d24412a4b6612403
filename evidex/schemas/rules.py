"""Cross-field rules a schema declares: data, checked by the verifier, never hard-coded per schema.

Paths are field paths with ``[]`` standing for every item of a list (``line_items[].amount``).
A schema declares its rules next to its model; a custom JSON Schema declares them under the
top-level key ``x-evidex-rules`` as a list of objects such as
``{"kind": "sum", "parts": ["line_items[].amount"], "total": "subtotal", "tolerance": 0.01}``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

__all__ = ["EqualRule", "OrderRule", "RequiredIfRule", "Rule", "SumRule", "parse_rules"]


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SumRule(_Rule):
    """The parts add up to the total, within ``tolerance`` (absolute, in the total's units).

    ``optional`` parts count as zero when the document does not state them (a receipt's tax or
    rounding line); any other member missing leaves the sum unchecked."""

    kind: Literal["sum"] = "sum"
    parts: tuple[str, ...]
    total: str
    tolerance: float = 0.011
    optional: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _optional_parts(self) -> SumRule:
        stray = [p for p in self.optional if p not in self.parts]
        if stray:
            raise ValueError(f"optional members {stray} must be among the parts")
        return self

    def describe(self) -> str:
        return f"{' + '.join(self.parts)} = {self.total}"


class OrderRule(_Rule):
    """``earlier`` is not after ``later`` (dates or numbers)."""

    kind: Literal["order"] = "order"
    earlier: str
    later: str

    def describe(self) -> str:
        return f"{self.earlier} <= {self.later}"


class EqualRule(_Rule):
    """All the fields hold the same value (e.g. every amount's currency)."""

    kind: Literal["equal"] = "equal"
    fields: tuple[str, ...]

    def describe(self) -> str:
        return " = ".join(self.fields)


class RequiredIfRule(_Rule):
    """When ``condition`` is found (and true, for booleans), ``field`` must be found too."""

    kind: Literal["required_if"] = "required_if"
    field: str
    condition: str

    def describe(self) -> str:
        return f"{self.field} required when {self.condition} is set"


Rule = Annotated[SumRule | OrderRule | EqualRule | RequiredIfRule, Field(discriminator="kind")]

_RULES = TypeAdapter(list[Rule])


def parse_rules(raw: object) -> tuple[Rule, ...]:
    """Validate rules declared in a custom schema."""
    return tuple(_RULES.validate_python(raw))
