"""The documents ``bench.load`` submits, each with the answer its scripted model gives.

``invoice``, ``cv`` and ``contract`` are the samples with their expected results. ``letter`` is a
one-page letter of plain prose made here, with a small client schema: a page on which the parser
finds nothing tabular, so the figures show the service path and not the table finder.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from typing import Any

import pymupdf

from bench.common import ROOT, SAMPLES
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.verify.fields import verify
from evidex.schemas import SchemaDef, get_schema, schema_from_json
from evidex.schemas.answer import build_answer
from tests.sample_answers import SCHEMAS, cite, perfect_fields

__all__ = ["NAMES", "Sample", "load_sample", "pipeline_cpu_ms"]

RESPONSE_FIXTURE = ROOT / "tests" / "fixtures" / "openai" / "responses_completed.json"
NAMES = (*sorted(SCHEMAS), "letter")

LETTER_SCHEMA: dict[str, Any] = {
    "title": "payment_reminder",
    "type": "object",
    "properties": {
        "sender": {"type": "string", "description": "The company that wrote the letter"},
        "reference": {"type": "string", "description": "The account reference"},
        "amount_due": {"type": "number", "x-evidex-kind": "amount"},
        "due_date": {"type": "string", "format": "date", "description": "When payment is due"},
    },
}
LETTER_FACTS: dict[str, tuple[Any, str]] = {  # the wire values, and their quotes
    "sender": ("Harbour Lane Supplies Ltd", "Harbour Lane Supplies Ltd"),
    "reference": ("HLS-20931", "Account reference: HLS-20931"),
    "amount_due": ({"value": 1240.5, "currency": "EUR"}, "EUR 1,240.50"),
    "due_date": ({"iso": "2025-03-14", "original": "14 March 2025"}, "14 March 2025"),
}
LETTER_TEXT = (
    """Harbour Lane Supplies Ltd
12 Quay Street, Galway
Account reference: HLS-20931
Dear Ms Okafor,
We write about the outstanding balance of EUR 1,240.50 on your account with us.
Our records show the goods were delivered in full and accepted on arrival.
We would be grateful if you could settle the account promptly.
Please arrange payment no later than 14 March 2025 by bank transfer.
If you have already paid, please disregard this letter and accept our thanks.
Should you wish to discuss the account, our office is open on weekdays.
We value your custom and look forward to continuing to work with you.
"""
    + "\n".join(
        f"Paragraph {n}: this line is ordinary prose that carries no figure the schema asks for."
        for n in range(1, 25)
    )
    + "\nYours sincerely,\nAccounts Department"
)


@dataclass(frozen=True)
class Sample:
    filename: str
    data: bytes
    form: dict[str, str]  # the POST form besides the file: schema or schema_json
    reply: bytes  # the model server's whole Responses API body
    schema: SchemaDef
    answer: dict[str, Any]  # the wire answer inside ``reply``


def pipeline_cpu_ms(sample: Sample, repeat: int = 5) -> tuple[float, float]:
    """CPU milliseconds of one parse and one verification of ``sample`` in this process (best of
    ``repeat``): the parts of a job that the service calls but does not own."""
    parser = PyMuPDFParser()
    parses, checks = [], []
    for _ in range(repeat):
        started = time.process_time()
        lines = parser.parse(sample.data, sample.filename).lines
        parses.append(time.process_time() - started)
        output = sample.schema.wire_model.model_validate(sample.answer)
        started = time.process_time()
        verify(sample.schema, output, lines)
        checks.append(time.process_time() - started)
    return min(parses) * 1000, min(checks) * 1000


def _reply(answer: dict[str, Any]) -> bytes:
    body: dict[str, Any] = copy.deepcopy(json.loads(RESPONSE_FIXTURE.read_text(encoding="utf-8")))
    body["output"][0]["content"][0]["text"] = json.dumps(answer)
    return json.dumps(body).encode()


def letter_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 72.0
    for line in LETTER_TEXT.splitlines():
        page.insert_text((72, y), line, fontsize=10)
        y += 16
    data: bytes = doc.tobytes()
    doc.close()
    return data


def load_sample(name: str) -> Sample:
    if name == "letter":
        data = letter_pdf()
        lines = PyMuPDFParser().parse(data, "letter.pdf").lines
        fields = {}
        for path, (value, quote) in LETTER_FACTS.items():
            page, start, end = cite(lines, quote)
            fields[path] = {
                "value": value,
                "quote": quote,
                "page": page,
                "line_start": start,
                "line_end": end,
            }
        schema = schema_from_json(LETTER_SCHEMA)
        answer = build_answer(schema, fields)
        form = {"schema_json": json.dumps(LETTER_SCHEMA)}
        return Sample("letter.pdf", data, form, _reply(answer), schema, answer)
    data = (SAMPLES / f"{name}.pdf").read_bytes()
    lines = PyMuPDFParser().parse(data, f"{name}.pdf").lines
    schema = get_schema(SCHEMAS[name])
    answer = build_answer(schema, perfect_fields(name, lines))
    return Sample(f"{name}.pdf", data, {"schema": schema.name}, _reply(answer), schema, answer)
