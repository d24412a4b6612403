"""One CSV cell of a value, safe to open in a spreadsheet."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["csv_cell"]

# a cell starting so is read as a formula by spreadsheets (CSV injection): a leading ' keeps it
# text
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> str:
    """``value`` as a cell: text as it is (a formula-like start escaped with ``'``), anything
    else as compact JSON, ``None`` as empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return "'" + value if value.startswith(_FORMULA_START) else value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
