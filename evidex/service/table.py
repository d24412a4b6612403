"""A readable per-field table of a result, for terminals."""

from __future__ import annotations

import json
from typing import Any

from evidex.schemas import FieldResult, Result

__all__ = ["render_table"]

_MARK = {"verified": "ok", "needs_review": "REVIEW", "unsupported": "UNSUPPORTED", "not_found": "-"}


def _short(value: Any, width: int) -> str:
    if value is None:
        return ""
    if isinstance(value, dict) and set(value) == {"value", "currency"}:
        text = f"{value['value']} {value['currency'] or ''}".strip()
    elif isinstance(value, dict) and "iso" in value:
        text = str(value["iso"])
    elif isinstance(value, dict) and set(value) == {"amount", "unit"}:
        unit = str(value["unit"])
        text = f"{value['amount']:g} {unit[:-1] if value['amount'] == 1 else unit}"  # 1 year
    elif isinstance(value, dict):
        text = ", ".join(str(v) for v in value.values() if v)
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _where(field: FieldResult) -> str:
    if field.line_start is None:
        return ""
    lines = (
        f"{field.line_start}"
        if field.line_start == field.line_end
        else f"{field.line_start}-{field.line_end}"
    )
    return f"p{field.page}:{lines}" + ("*" if field.span_corrected else "")


def render_table(result: Result, *, show_not_found: bool = True, width: int = 48) -> str:
    rows = [("field", "value", "status", "page:lines")]
    for path, field in result.fields.items():
        if field.status.value == "not_found" and not show_not_found:
            continue
        rows.append((path, _short(field.value, width), _MARK[field.status.value], _where(field)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    s = result.summary
    lines.append(
        f"{result.document.filename} [{result.schema_name}]: {s.verified} verified, "
        f"{s.needs_review} needs review, {s.unsupported} unsupported, {s.not_found} not found"
        + ("   (* span corrected)" if any(f.span_corrected for f in result.fields.values()) else "")
    )
    for path, field in result.fields.items():
        if field.status.value in ("needs_review", "unsupported"):
            lines.append(f"  {path}: {'; '.join(field.reasons)}")
    return "\n".join(lines)
