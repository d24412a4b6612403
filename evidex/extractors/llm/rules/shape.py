"""A value in the shape the schema asks for.

The finders read rich values (a date's ISO form and its wording, a duration's amount and unit,
an amount and its currency). A schema that declares a rich type gets it whole; a plain
``string`` gets the value as a reader would write it, and a plain ``number`` the number:

* a date: the ISO form where the field's kind is ``date`` (declared or inferred), otherwise the
  date as the document writes it;
* a duration: "3 years" for "three (3) years" (the words alone, "two years", where the document
  gives no digits, so the value still says what its quote says);
* an amount: its number for a number field, its written form for a string one.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["shaped"]


def _duration_text(value: dict[str, Any], written: str, quote: str) -> str:
    amount = float(value["amount"])
    n = int(amount) if amount.is_integer() else amount
    unit = str(value["unit"])
    text = f"{n} {unit[:-1] if n == 1 else unit}"
    return text if str(n) in re.findall(r"\d+(?:\.\d+)?", quote) else written


def shaped(value: Any, tp: Any, kind: str, written: str, quote: str) -> Any:
    """``value`` (as read) in the shape of the schema's type ``tp``."""
    if not isinstance(value, dict):
        if tp is int and isinstance(value, float) and value.is_integer():
            return int(value)
        if tp is str and not isinstance(value, str):
            return written
        return value
    if tp is str:
        if "iso" in value:
            return value["iso"] if kind == "date" else value["original"]
        if "unit" in value:
            return _duration_text(value, written, quote)
        return written
    if tp in (float, int):
        number = float(value["value"] if "value" in value else value["amount"])
        return int(number) if tp is int and number.is_integer() else number
    return value
