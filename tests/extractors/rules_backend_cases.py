"""Texts and readers the ``RulesBackend`` tests share: an invoice, a CV and a contract in plain
text, a bill-to block, the sample PDFs with their expected answers, and the functions that run the
backend on a document and index its answer by leaf path."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.schemas import FieldExtraction, SchemaDef, get_schema, iter_leaves

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

INVOICE = """\
ACME GmbH
Invoice No: INV-2026-001
Invoice date: 15 March 2026
Due date: 14.04.2026
PO Number: 4500012345
Subtotal: 1.037,44 EUR
VAT (19%): 197,12 EUR
Total: 1.234,56 EUR
IBAN: DE89 3704 0044 0532 0130 00
BIC: COBADEFFXXX
VAT ID: DE136695976
Payment terms: Net 30 days
"""

CV = """\
Jane Doe
Senior Data Engineer
Berlin, Germany | jane.doe@example.com | +49 151 23456789
linkedin.com/in/janedoe | https://github.com/janedoe | https://janedoe.dev
Data engineer with 8 years of experience building pipelines.
Skills: Python, SQL, AWS (S3, Glue), Kubernetes
Certifications
- AWS Certified Solutions Architect
2021
- CKA
"""

CONTRACT = """\
MASTER SERVICES AGREEMENT
This Agreement is made between Alpha Corp (the "Supplier") and Beta LLC ("Customer").
This Agreement is effective as of March 1, 2026.
The initial term of this Agreement is three (3) years.
It shall automatically renew for successive one (1) year periods unless either party gives
ninety (90) days' written notice.
This Agreement shall be governed by the laws of the State of New York, without regard to conflicts.
"""


def parse(text: str) -> ParsedDocument:
    return TextParser().parse(text.encode(), "doc.txt")


def respond(document: ParsedDocument, schema: SchemaDef) -> LLMResponse:
    return RulesBackend().complete(LLMRequest("system", "user", schema, document))


def run(text: str | ParsedDocument, schema: SchemaDef | str) -> BaseModel:
    schema = get_schema(schema) if isinstance(schema, str) else schema
    return respond(parse(text) if isinstance(text, str) else text, schema).output


def fields(output: BaseModel, schema: SchemaDef | str) -> dict[str, FieldExtraction[Any]]:
    schema = get_schema(schema) if isinstance(schema, str) else schema
    return {leaf.path: leaf.extraction for leaf in iter_leaves(output, schema.leaves)}


def lines_of(
    got: dict[str, FieldExtraction[Any]], *paths: str
) -> dict[str, tuple[Any, int | None]]:
    """Path -> (value, first line) of each of ``paths`` in ``got``."""
    return {p: (got[p].value, got[p].line_start) for p in paths}


def found(output: BaseModel, schema: str) -> dict[str, Any]:
    """Path -> value of every found leaf, values as JSON."""
    return {
        p: f.model_dump(mode="json")["value"] for p, f in fields(output, schema).items() if f.found
    }


BILL_TO = """\
ACME GmbH
Invoice No: INV-7
Bill to:
Beta LLC
4557 De Silva St
Fremont, CA 94538
USA
Total: 5,00 EUR
"""


@cache
def sample(name: str) -> tuple[ParsedDocument, dict[str, Any]]:
    doc = PyMuPDFParser().parse((SAMPLES / f"{name}.pdf").read_bytes(), f"{name}.pdf")
    return doc, json.loads((SAMPLES / f"{name}.expected.json").read_text())
