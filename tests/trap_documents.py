"""The regular-expression trap a hostile client sends: a schema whose ``pattern`` backtracks for
ever in a backtracking engine, the one-page PDF that triggers it, and a pattern the linear-time
engine cannot run (for the hostile-input tests and ``bench.trap``)."""

from __future__ import annotations

from typing import Any

import pymupdf

TRAP_VALUE = "a" * 34 + "!"
TRAP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reference_code": {
            "type": "string",
            "pattern": "^(a+)+$",
            "description": "The reference code",
        }
    },
}
LOOKAROUND: dict[str, Any] = {
    "type": "object",
    "properties": {"reference_code": {"type": "string", "pattern": "(?=a)b"}},
}


def trap_pdf() -> bytes:
    """One page reading ``Reference code: aaa…a!``."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), f"Reference code: {TRAP_VALUE}")
    data: bytes = doc.tobytes()
    doc.close()
    return data
