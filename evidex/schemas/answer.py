"""A wire answer (what the model returns) assembled from leaves given by result path.

Used by the shipped scripted backend, by ``evidex verify`` to re-check a stored result, and by
tests that script a model's answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from .notes import DocumentNotes
from .registry import SchemaDef
from .spec import value_type

__all__ = ["NOT_FOUND", "build_answer"]

NOT_FOUND: dict[str, Any] = {
    "quote": "",
    "page": None,
    "line_start": None,
    "line_end": None,
    "found": False,
    "value": None,
    "caveat": "",
}


def build_answer(
    schema: SchemaDef,
    fields: Mapping[str, Mapping[str, Any]],
    notes: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A complete wire answer from the leaves given by path; every other leaf is not found.

    ``fields`` maps result paths (``line_items[2].amount``) to leaf keys, e.g.
    ``{"value": 42, "quote": "Qty 42", "page": 1, "line_start": 7, "line_end": 7}``;
    ``found`` defaults to true for the leaves given.
    """
    answer = _fill(schema.model, "", fields)
    answer["document_notes"] = dict(notes) if notes else DocumentNotes.empty().model_dump()
    return answer


def _fill(
    model: type[BaseModel], prefix: str, fields: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        path = prefix + name
        if get_origin(info.annotation) is list:
            item = get_args(info.annotation)[0]
            pattern = re.compile(rf"^{re.escape(path)}\[(\d+)\]")
            count = max((int(m[1]) + 1 for p in fields if (m := pattern.match(p))), default=0)
            out[name] = [_one(item, f"{path}[{i}]", fields) for i in range(count)]
        else:
            out[name] = _one(info.annotation, path, fields)
    return out


def _one(tp: Any, path: str, fields: Mapping[str, Mapping[str, Any]]) -> Any:
    if value_type(tp) is not None:
        given = fields.get(path)
        return {**NOT_FOUND, "found": True, **given} if given is not None else dict(NOT_FOUND)
    return _fill(tp, path + ".", fields)
