"""``data``: each leaf's value in the type the client's JSON Schema declares.

The model fills a kind's richer value where one exists (a date as ``{iso, original}``, an amount
as ``{value, currency}``, a duration as ``{amount, unit}``): the verifier needs the text as written
and the currency. ``fields[path].value`` keeps that; ``data`` holds what the client asked for, so
it validates against the schema the client sent:

* ``type: string`` dates are the ISO date (``2026-03-15``); with ``format: date-time`` the start of
  that day in UTC (``2026-03-15T00:00:00Z``: documents rarely state a time); a date that is not a
  real calendar date is the text as written when the string has no format, else left out;
* ``type: number``/``integer`` amounts are the number (the currency stays in ``fields``); a
  ``string`` amount is ``"1234.5 EUR"``, a ``string`` duration ``"3 years"``, a ``string``
  address its parts joined by ``", "``;
* a value that does not fit its leaf's own schema (``format``, ``pattern``, ``minimum`` …) or a
  field the document does not state: ``null`` where the type allows null, else left out of its
  object (absent, as JSON Schema means it), or dropped from its list. Only a ``required``
  property the document does not state comes back ``null`` against a non-null type: its status
  says ``not_found``. Patterns run in RE2, and a value too long to run against its pattern counts
  as not fitting, with that reason (:mod:`evidex.schemas.patterns`).

Schemas built from Pydantic models (the built-ins) declare their rich types themselves; their
``data`` is the value as the model gave it, ``null`` when not found.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.protocols import Validator
from pydantic import BaseModel

from . import patterns
from .spec import LeafSpec

__all__ = ["OMIT", "plain_data", "plain_value"]


class _Omit:
    def __repr__(self) -> str:
        return "OMIT"


OMIT: Any = _Omit()  # leave the key out of its object (or the item out of its list)


def plain_data(output: BaseModel, specs: tuple[LeafSpec, ...]) -> dict[str, Any]:
    """The plain values of ``output`` in the schema's shape (see the module docstring)."""
    by_path = {s.path: s for s in specs}
    dumped = output.model_dump(mode="json", exclude={"document_notes"})
    return _object(dumped, "", by_path)


def _object(node: Mapping[str, Any], prefix: str, by_path: dict[str, LeafSpec]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        template = prefix + key
        if isinstance(value, list):
            items = [_node(item, template + "[]", by_path) for item in value]
            out[key] = [item for item in items if item is not OMIT]
        else:
            got = _node(value, template, by_path)
            if got is not OMIT:
                out[key] = got
    return out


def _node(value: Any, template: str, by_path: dict[str, LeafSpec]) -> Any:
    spec = by_path.get(template)
    if spec is not None and isinstance(value, dict) and "found" in value:
        return plain_value(spec, value["value"] if value["found"] else None)[0]
    if isinstance(value, dict):
        return _object(value, template + ".", by_path)
    return value


def plain_value(spec: LeafSpec, value: Any) -> tuple[Any, str]:
    """``value`` (JSON form) in the client's declared type, and why it could not be, if so.

    Returns ``(OMIT, reason)`` or ``(None, reason)`` for a value that cannot be given in that type.
    """
    if spec.json_type is None:
        return value, ""
    if value is None:
        return _absent(spec), ""
    plain, problem = _convert(spec, value)
    if not problem and spec.schema:
        problem = _violation(spec.schema, plain)
    if problem:
        return _absent(spec), problem
    return plain, ""


def _absent(spec: LeafSpec) -> Any:
    if spec.nullable or (spec.required and not spec.path.endswith("[]")):
        return None
    return OMIT


def _convert(spec: LeafSpec, value: Any) -> tuple[Any, str]:
    kind = spec.json_type
    if kind == "string":
        if isinstance(value, dict):
            return _rich_string(spec, value)
        if isinstance(value, bool):
            return str(value).lower(), ""
        if isinstance(value, int | float):
            return _number_text(value), ""
        return value, ""
    if kind in ("number", "integer"):
        if isinstance(value, dict):
            value = value.get("value", value.get("amount"))
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None, f"{value!r} is not a number"
        if kind == "integer":
            if not float(value).is_integer():
                return None, f"{_number_text(value)} is not an integer"
            return int(value), ""
        return value, ""
    return value, ""


def _rich_string(spec: LeafSpec, value: Mapping[str, Any]) -> tuple[Any, str]:
    if "iso" in value:
        try:
            day = dt.date.fromisoformat(str(value["iso"]))
        except ValueError:
            if spec.format in ("date", "date-time"):
                return None, f"{value['iso']!r} is not a calendar date"
            return str(value.get("original") or value["iso"]), ""
        if spec.format == "date-time":
            return f"{day.isoformat()}T00:00:00Z", ""
        return day.isoformat(), ""
    if "currency" in value:
        number = value.get("value")
        text = _number_text(number) if isinstance(number, int | float) else ""
        return " ".join(p for p in (text, value.get("currency") or "") if p), ""
    if "unit" in value:
        amount, unit = value.get("amount"), str(value.get("unit") or "")
        count = _number_text(amount) if isinstance(amount, int | float) else ""
        return f"{count} {unit[:-1] if amount == 1 and unit.endswith('s') else unit}".strip(), ""
    street, code, city = (value.get(k) for k in ("street", "postal_code", "city"))
    place = " ".join(str(p) for p in (code, city) if p)
    parts = [street, place, value.get("region"), value.get("country")]
    return ", ".join(str(p) for p in parts if p), ""


def _number_text(value: float) -> str:
    """A number as JSON writes it, without a trailing ``.0`` (``3``, ``1234.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@lru_cache(maxsize=512)
def _validator(schema: str) -> Validator:
    """Draft 2020-12 with the client's patterns run in RE2 (:mod:`evidex.schemas.patterns`)."""
    return patterns.Validator(json.loads(schema), format_checker=patterns.FORMAT_CHECKER)


def _violation(schema: Mapping[str, Any], value: Any) -> str:
    validator = _validator(json.dumps(schema, sort_keys=True))
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return ""
    if isinstance(error, patterns.PatternNotChecked):
        return error.message
    return f"the value does not fit the schema: {error.message}"
