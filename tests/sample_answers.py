"""The samples' expected values as a model's answer: each quote cited on the first line(s) that
hold it, found by plain substring search over the parsed lines (independent of the verifier).
:func:`leaf` is one field of such an answer, cited on one line of page 1."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
SCHEMAS = {"cv": "candidate_profile", "invoice": "invoice", "contract": "contract"}


def expected(name: str) -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(
        (SAMPLES / f"{name}.expected.json").read_text(encoding="utf-8")
    )
    return data


def cite(lines: pd.DataFrame, quote: str) -> tuple[int, int, int]:
    """(page, line_start, line_end) of the first line, or pair of adjacent lines, holding quote."""
    texts = [" ".join(str(t).split()) for t in lines["text"]]
    want = re.compile(rf"(?<!\w){re.escape(' '.join(quote.split()))}(?!\w)")
    for i, text in enumerate(texts):
        if want.search(text):
            return (
                int(lines["page"].iloc[i]),
                int(lines["line"].iloc[i]),
                int(lines["line"].iloc[i]),
            )
    for width in range(2, 9):
        for i in range(len(texts) - width + 1):
            if want.search(" ".join(texts[i : i + width])):
                return (
                    int(lines["page"].iloc[i]),
                    int(lines["line"].iloc[i]),
                    int(lines["line"].iloc[i + width - 1]),
                )
    raise AssertionError(f"quote {quote!r} is not in the parsed lines")


def leaf(value: Any, quote: str, line: int) -> dict[str, Any]:
    return {"value": value, "quote": quote, "page": 1, "line_start": line, "line_end": line}


def perfect_fields(name: str, lines: pd.DataFrame) -> dict[str, dict[str, Any]]:
    out = {}
    for path, item in expected(name).items():
        page, start, end = cite(lines, item["quote"])
        out[path] = {
            "value": item["value"],
            "quote": item["quote"],
            "page": page,
            "line_start": start,
            "line_end": end,
        }
    return out
