"""Typed values: what a field holds when a plain string would force downstream re-parsing."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Address", "Amount", "DateValue", "Duration"]


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Amount(_Value):
    """A money amount: the number and its ISO 4217 currency."""

    value: float = Field(description="The number, as a plain decimal (1234.5, not '1.234,50').")
    currency: str | None = Field(
        description="ISO 4217 code (USD, EUR, GBP...) as stated or implied by a symbol; "
        "null when the document gives no currency."
    )


class DateValue(_Value):
    """A calendar date, in ISO form and as written."""

    iso: str = Field(description="The date as YYYY-MM-DD.")
    original: str = Field(description="The date exactly as written in the document.")


class Address(_Value):
    """A postal address split into its parts; null for parts the document does not give."""

    street: str | None
    postal_code: str | None
    city: str | None
    region: str | None
    country: str | None


class Duration(_Value):
    """A length of time such as a contract term or a notice period."""

    amount: float = Field(description="How many units (3 for 'three (3) years').")
    unit: Literal["days", "weeks", "months", "years"]
