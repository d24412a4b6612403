"""Long documents under a 16k-token window beside no limit: tokens sent, fields found, lists.

    PYTHONPATH=. .venv/bin/python -m bench.long_docs

Documents: the generated 300-page credit agreement of the tests (``tests/long_agreement.py``:
facts on pages 1, 147 and 288, a 14-item list over pages 150-151) and CUAD's five longest
contracts (``shared/eval/cuad``, skipped when absent). Each runs twice through the real
``openai`` backend against the local server of the tests (``tests/fake_window.py``), which
counts tokens (3 characters a token), refuses prompts over its window and answers from the
lines it was sent only:

* the agreement: the reader of the tests (the planted facts, by pattern);
* CUAD: a perfect reader of what it was sent. The schema asks for 15 CUAD categories (as
  ``text`` fields, and the parties as a list); for each asked field the reader answers the
  first annotated evidence span (its first part, CUAD joins parts with ``<omitted>``) that
  occurs in the lines sent (located with evidex's aligner), else not found. What it finds with
  a window, against what it finds with the whole document, is what page selection kept.

Printed per document and window: pages sent of all, calls, tokens sent (as the server counted
them) beside the whole document in one call (what the unlimited run sent), fields found and
verified (top-level fields; of those annotated, for CUAD), and each list's completeness.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pymupdf

from bench.common import ROOT, eval_dir
from evidex.extractors.align import DocText
from evidex.extractors.context import ContextBudget
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.parsers.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.schemas import Result, SchemaDef, Status, schema_from_json

sys.path.insert(0, str(ROOT / "tests"))  # the local OpenAI-wire server and the agreement

from fake_window import NOT_FOUND, Row, WindowedOpenAI
from long_agreement import READER, agreement_pdf
from long_agreement import SCHEMA as AGREEMENT_SCHEMA

WINDOW = 16_000
UNLIMITED_SERVER_WINDOW = 10**8
SEP = "<omitted>"
CATEGORIES = {
    "document_name": ("Document Name", "The name of the agreement (its title)."),
    "agreement_date": ("Agreement Date", "The date the agreement is dated or signed."),
    "effective_date": ("Effective Date", "The date the agreement takes effect."),
    "expiration_date": ("Expiration Date", "When the initial term of the agreement ends."),
    "renewal_term": ("Renewal Term", "The renewal term after the initial term expires."),
    "notice_period_to_terminate_renewal": (
        "Notice Period To Terminate Renewal",
        "The notice needed to terminate renewal.",
    ),
    "governing_law": ("Governing Law", "The law of which jurisdiction governs the agreement."),
    "termination_for_convenience": (
        "Termination For Convenience",
        "Whether a party may terminate without cause (for convenience).",
    ),
    "change_of_control": (
        "Change Of Control",
        "Rights on a change of control, merger or sale of a party.",
    ),
    "anti_assignment": ("Anti-Assignment", "Whether consent is needed to assign the agreement."),
    "audit_rights": ("Audit Rights", "A party's right to audit the books or records."),
    "cap_on_liability": ("Cap On Liability", "A cap on the liability of a party."),
    "insurance": ("Insurance", "Insurance a party must maintain."),
    "post_termination_services": (
        "Post-Termination Services",
        "Obligations that continue after termination.",
    ),
}
PARTIES = ("Parties", "The parties to the agreement.")


def cuad_schema() -> SchemaDef:
    properties: dict[str, Any] = {
        name: {"type": "string", "x-evidex-kind": "text", "description": description}
        for name, (_cat, description) in CATEGORIES.items()
    }
    properties["parties"] = {
        "type": "array",
        "description": PARTIES[1],
        "items": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "A party's name."}},
        },
    }
    return schema_from_json({"title": "cuad_contract", "type": "object", "properties": properties})


def first_part(span: str) -> str:
    return span.split(SEP)[0].strip()


def oracle(
    doc: ParsedDocument, fields: dict[str, Any]
) -> Callable[[list[Row], dict[str, Any]], dict[str, Any]]:
    """A perfect reader of what it is sent: an annotated span found in the lines sent."""
    spans = {name: fields.get(cat, {}).get("evidence_spans") or [] for name, (cat, _) in
             CATEGORIES.items()}  # fmt: skip
    spans["parties"] = fields.get(PARTIES[0], {}).get("evidence_spans") or []

    def answer(span: str, sent: Any, text: DocText) -> dict[str, Any] | None:
        quote = first_part(span)
        if not quote:
            return None
        match = text.locate(quote, None, None, None)
        if match is None:
            return None
        rows = [r for r, _, _ in match.ranges]
        first, last = sent.iloc[rows[0]], sent.iloc[rows[-1]]
        return {
            "quote": quote,
            "page": int(first["page"]),
            "line_start": int(first["line"]),
            "line_end": int(last["line"]),
            "found": True,
            "value": quote,
            "caveat": "",
        }

    def read(rows: list[Row], schema: dict[str, Any]) -> dict[str, Any]:
        numbers = {r[0] for r in rows}
        sent = doc.lines[doc.lines["line"].isin(numbers)].reset_index(drop=True)
        text = DocText(sent)
        out: dict[str, Any] = {}
        for name in schema["properties"]:
            if name == "document_notes":
                continue
            found = [a for s in spans.get(name, []) if (a := answer(s, sent, text))]
            if name == "parties":
                out[name] = [{"name": a} for a in found]
            else:
                out[name] = found[0] if found else dict(NOT_FOUND)
        return out

    return read


def run(
    doc: ParsedDocument, schema: SchemaDef, reader: Any, window: int | None
) -> tuple[Result, WindowedOpenAI]:
    server = WindowedOpenAI(window or UNLIMITED_SERVER_WINDOW, reader)
    with (
        server,
        OpenAIBackend(
            api_key="local", model="local", base_url=server.base_url, max_retries=0, timeout_s=120
        ) as llm,
    ):
        result = extract_parsed(doc, schema, llm=llm, context=ContextBudget(window, 16_384))
    return result, server


def _top(path: str) -> str:
    return path.split(".")[0].split("[")[0]


def row(name: str, pages: int, window: int | None, result: Result, server: WindowedOpenAI,
        whole: int, annotated: int | None) -> str:  # fmt: skip
    sent_pages = sorted({p for c in result.trace.calls for p in c.pages})
    sent = sum(server.counted) - sum(
        n for n in server.counted if n > (window or UNLIMITED_SERVER_WINDOW)
    )
    found_paths = [
        p for p, f in result.fields.items() if f.status in (Status.VERIFIED, Status.NEEDS_REVIEW)
    ]
    found = len({_top(p) for p in found_paths})
    verified = len(
        {_top(p) for p in found_paths}
        - {_top(p) for p in found_paths if result.fields[p].status is not Status.VERIFIED}
    )
    lists = ", ".join(
        f"{k}: {'complete' if v.complete else 'INCOMPLETE'} ({v.items})"
        for k, v in result.lists.items()
    )
    of = f"/{annotated}" if annotated is not None else ""
    label = f"{window // 1000}k" if window else "none"
    return (
        f"| {name[:28]} | {label} | {len(sent_pages)}/{pages} | {len(result.trace.calls)} | "
        f"{sent:,} | {whole:,} | {sent / whole:.1%} | {found}{of} | {verified} | {lists} |"
    )


def main() -> None:
    parser = PyMuPDFParser(tables=False)
    print("| document | window | pages sent | calls | tokens sent | whole document | share "
          "| fields found | verified | lists |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    agreement = parser.parse(agreement_pdf(), "credit_agreement.pdf")
    schema = schema_from_json(AGREEMENT_SCHEMA)
    full, full_server = run(agreement, schema, READER, None)
    whole = sum(full_server.counted)
    limited, server = run(agreement, schema, READER, WINDOW)
    print(row("generated agreement", 300, WINDOW, limited, server, whole, None))
    print(row("generated agreement", 300, None, full, full_server, whole, None))
    base = eval_dir()
    if base is None:
        print("shared/eval not found: CUAD skipped")
        return
    cuad = base / "cuad"
    truth = [json.loads(line) for line in (cuad / "ground_truth.jsonl").open()]
    sizes = []
    for entry in truth:
        with pymupdf.open(cuad / "pdfs" / entry["local_pdf"]) as pdf:
            sizes.append((pdf.page_count, entry))
    sizes.sort(key=lambda d: -d[0])
    schema = cuad_schema()
    for pages, entry in sizes[:5]:
        pdf_path = cuad / "pdfs" / entry["local_pdf"]
        parsed = parser.parse(pdf_path.read_bytes(), pdf_path.name)
        fields = entry["fields"]
        reader = oracle(parsed, fields)
        annotated = sum(
            1 for cat, _ in [*CATEGORIES.values(), PARTIES] if fields.get(cat, {}).get(
                "evidence_spans")
        )  # fmt: skip
        full, full_server = run(parsed, schema, reader, None)
        whole = sum(full_server.counted)
        limited, server = run(parsed, schema, reader, WINDOW)
        name = entry["local_pdf"].split("_")[1]
        print(row(name, pages, WINDOW, limited, server, whole, annotated))
        print(row(name, pages, None, full, full_server, whole, annotated))


if __name__ == "__main__":
    main()
