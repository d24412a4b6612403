"""A plain client schema (names and types only, no ``x-evidex-kind``): planted errors caught and
true values verified, each case a scripted answer through the real pipeline.

    PYTHONPATH=. .venv/bin/python -m bench.plain_schema

The document and the cases are those a new user meets first: a discount rate offered for the
discount, another label's amount on the same line, an impossible date whose digits are in the
quote, an IBAN and an email that cannot be valid; and true values written differently from their
quotes (``£`` for GBP, an IBAN in groups of four, a written date, the document's minus sign).
The answers follow the schema's wire model, so the same script runs on any version of evidex.
"""

from __future__ import annotations

from typing import Any

from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract
from evidex.schemas import schema_from_json
from tests.order_document import ORDER_DOC
from tests.plain_schemas import plain

SCHEMA = plain(
    discount="number",
    total="number",
    shipped_on="string",
    delivered_on="string",
    currency="string",
    iban="string",
    contact_email="string",
)
LINE5 = "Subtotal: $250.00 Tax (8%): $20.00 Total: $270.00"
# (planted?, path, number or (iso, as written) or text, quote, line)
CASES: list[tuple[bool, str, Any, str, int]] = [
    (True, "discount", 5.0, "Discount (5%): -$12.00", 6),
    (True, "total", 250.0, LINE5, 5),
    (True, "shipped_on", ("2026-02-30", "30.02.2026"), "Shipped on: 30.02.2026", 3),
    (True, "iban", "GB83 WEST 1234 5698 7654 32", "IBAN: GB82 WEST 1234 5698 7654 32", 8),
    (True, "contact_email", "orders@northwind", "orders@northwind.example", 9),
    (False, "discount", -12.0, "Discount (5%): -$12.00", 6),
    (False, "total", 270.0, "Total: $270.00", 5),
    (False, "delivered_on", ("2026-03-03", "3 March 2026"), "3 March 2026", 4),
    (False, "currency", "GBP", "Currency: £", 7),
    (False, "iban", "GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32", 8),
]


def main() -> None:
    schema = schema_from_json(SCHEMA)
    kinds = {leaf.path: leaf.kind for leaf in schema.leaves}
    counts = {True: 0, False: 0}
    for planted, path, given, quote, line in CASES:
        value: Any = given
        if kinds[path] == "amount":
            value = {"value": given, "currency": None}
        elif isinstance(given, tuple):
            value = {"iso": given[0], "original": given[1]} if kinds[path] == "date" else given[0]
        leaf = {"value": value, "quote": quote, "page": 1, "line_start": line, "line_end": line}
        llm = ScriptedLLM(build_answer(schema, {path: leaf}))
        field = extract(ORDER_DOC.encode(), schema, parser=TextParser(), llm=llm).fields[path]
        good = (field.status.value != "verified") == planted
        counts[planted] += good
        reason = field.reasons[0] if field.reasons else ""
        print(f"{'planted' if planted else 'true':8} {path:14} {field.status.value:13} {reason}")
    n_planted = sum(1 for c in CASES if c[0])
    print(f"\nplanted errors caught {counts[True]}/{n_planted}")
    print(f"true values verified  {counts[False]}/{len(CASES) - n_planted}")


if __name__ == "__main__":
    main()
