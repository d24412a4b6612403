"""A 30-page supply agreement as plain text (pages split by form feeds), with facts on known
pages and an optional numbered list running over several pages, and a scripted model that reads
only the lines it was sent (``request.document``)."""

from __future__ import annotations

import random
import re
from typing import Any

from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.parse.text import TextParser
from evidex.schemas import build_answer, schema_from_json

WORDS = [
    "the",
    "parties",
    "hereto",
    "agree",
    "that",
    "each",
    "notice",
    "shall",
    "be",
    "delivered",
    "in",
    "writing",
]
FACTS = {
    "supplier": (3, "Supplier: Orbit Metals GmbH", "Orbit Metals GmbH"),
    "customer": (9, "Customer: Lumen Foods Ltd", "Lumen Foods Ltd"),
    "warranty": (15, "Warranty: twelve months from delivery", "twelve months from delivery"),
    "venue": (21, "Venue: the courts of Zurich", "the courts of Zurich"),
    "currency_clause": (27, "Currency: all prices are in Swiss francs", "Swiss francs"),
}
SCHEMA_JSON: dict[str, Any] = {
    "title": "supply",
    "type": "object",
    "properties": {
        "supplier": {"type": "string", "description": "The supplier."},
        "customer": {"type": "string", "description": "The customer."},
        "warranty": {"type": "string", "description": "The warranty."},
        "venue": {"type": "string", "description": "The venue for disputes."},
        "currency_clause": {"type": "string", "description": "The currency of prices."},
        "milestones": {
            "type": "array",
            "description": "Milestones of the delivery schedule.",
            "items": {
                "type": "object",
                "properties": {"step": {"type": "string", "description": "The milestone."}},
            },
        },
    },
}
SCHEMA = schema_from_json(SCHEMA_JSON)


def filler(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."


def document_text(milestone_pages: range = range(0)) -> str:
    rng = random.Random(7)
    pages = []
    for page in range(1, 31):
        lines = [filler(rng) for _ in range(25)]
        if page == 1:
            lines[0] = "SUPPLY AGREEMENT"
        for _name, (where, text, _value) in FACTS.items():
            if page == where:
                lines[10] = text
        if page in milestone_pages:
            first = page == milestone_pages.start
            numbers = range(1, 25) if first else range(25 * (page - milestone_pages.start), 0)
            numbers = range(numbers.start, numbers.start + (24 if first else 25))
            items = [f"{n}. crate {n} inspected at the port of loading;" for n in numbers]
            lines = (["Milestones of the delivery schedule:"] if first else []) + items
        pages.append("\n".join(lines))
    return "\f".join(pages)


def document(milestone_pages: range = range(0)) -> Any:
    return TextParser().parse(document_text(milestone_pages).encode(), "supply.txt")


def reader(request: LLMRequest) -> dict[str, Any]:
    """Answers the asked fields from the sent lines only."""
    rows = list(
        zip(
            request.document.lines["line"],
            request.document.lines["page"],
            request.document.lines["text"],
            strict=True,
        )
    )
    asked = list(request.schema.model.model_fields)
    fields: dict[str, dict[str, Any]] = {}
    for name, (_page, text, value) in FACTS.items():
        for line, page, row in rows:
            if name in asked and row == text:
                fields[name] = {
                    "quote": value,
                    "value": value,
                    "page": int(page),
                    "line_start": int(line),
                    "line_end": int(line),
                }
    items = [(line, page, row) for line, page, row in rows if re.match(r"^\d+\. ", row)]
    if "milestones" in asked:
        for i, (line, page, row) in enumerate(items):
            fields[f"milestones[{i}].step"] = {
                "quote": row,
                "value": row,
                "page": int(page),
                "line_start": int(line),
                "line_end": int(line),
            }
    return build_answer(request.schema, fields)
