"""Long documents under a 16k-token window beside no limit: tokens sent, fields found, lists.

    PYTHONPATH=. .venv/bin/python -m bench.long_docs [--cuad tuning|held-out|all|none]
                                                     [--no-generated]

``--cuad`` chooses the CUAD contracts run (default: all ten); ``--no-generated`` skips the
generated agreements.

Documents:

* the generated 300-page credit agreement of the tests (``tests/long_agreement.py``: facts on
  pages 1, 147 and 288, a 14-item list over pages 150-151);
* two agreements written as real ones are (``tests/long_contract.py``: a cover page, a table of
  contents, the parties on page 4 or 5 with defined roles, definitions, defined terms on every
  page, twelve events of default over a page break, the governing law near the end): the
  312-page facility agreement, on which page selection was tuned, and the 334-page credit
  agreement, held out (its wording, numbering and seed differ; it was not run while tuning. Its
  first run lost the list of events of default, and the rule that a list's evidence takes the
  page after each evidence page came from that diagnosis: its figures are no longer unseen);
* CUAD's ten longest contracts (``shared/eval/cuad``, skipped when absent): the five longest
  were the tuning set, the next five are held out.

Each runs twice through the real ``openai`` backend against the local server of the tests
(``tests/fake_window.py``), which counts tokens (3 characters a token), refuses prompts over its
window and answers from the lines it was sent only:

* the generated agreements: their readers (the planted facts, by pattern);
* CUAD: a perfect reader of what it was sent. The schema asks for 15 CUAD categories (as
  ``text`` fields, and the parties as a list); for each asked field the reader answers the
  first annotated evidence span (its first part, CUAD joins parts with ``<omitted>``) that
  occurs in the lines sent (located with evidex's aligner), else not found. What it finds with
  a window, against what it finds with the whole document, is what page selection kept.

Printed per document and window: pages sent of all, calls, tokens sent (as the server counted
them) beside the whole document in one call (what the unlimited run sent), the budget used by
the planned calls (estimated prompt tokens over the prompt budget: least and mean; "fits" when
the calls together were sent every page), fields
found and verified (top-level fields; of those annotated, for CUAD), the fields the window lost,
and each list's completeness. Then, per CUAD category, on how many contracts it was found and
verified with the window and without.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import pymupdf

from bench.common import ROOT, eval_dir
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.plan.context import ContextBudget
from evidex.extractors.verify.align import DocText
from evidex.schemas import Result, SchemaDef, Status, schema_from_json

sys.path.insert(0, str(ROOT / "tests"))  # the local OpenAI-wire server and the agreement

from fake_window import NOT_FOUND, Row, WindowedOpenAI
from long_agreement import READER, agreement_pdf
from long_agreement import SCHEMA as AGREEMENT_SCHEMA
from long_contract import agreement_pdf as contract_pdf
from long_contract import reader as contract_reader
from long_contract import schema as contract_schema
from long_contract_credit import CREDIT
from long_contract_facility import FACILITY

WINDOW = 16_000
CUAD_LONGEST = 10
CUAD_TUNED = 5  # the five longest were watched while tuning page selection; the rest were not
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


def found_fields(result: Result) -> tuple[set[str], set[str]]:
    """Top-level fields found (verified or in review), and those with every leaf verified."""
    found = {
        _top(p)
        for p, f in result.fields.items()
        if f.status in (Status.VERIFIED, Status.NEEDS_REVIEW)
    }
    doubtful = {_top(p) for p, f in result.fields.items() if f.status is not Status.VERIFIED}
    return found, found - doubtful


def budget_use(result: Result) -> str:
    """The planned calls' estimated prompt tokens over the prompt budget: least and mean."""
    context = result.trace.context
    planned = [c for c in result.trace.calls if not c.purpose.startswith(("continuation", "retry"))]
    if context is None or not context.prompt_budget_tokens or not planned:
        return "-"
    if len({p for c in planned for p in c.pages}) >= context.pages:
        return "fits"
    shares = [c.estimated_tokens / context.prompt_budget_tokens for c in planned]
    return f"{min(shares):.1%} / {sum(shares) / len(shares):.1%}"


def row(name: str, pages: int, window: int | None, result: Result, server: WindowedOpenAI,
        whole: int, annotated: int | None, lost: set[str] | None = None) -> str:  # fmt: skip
    sent_pages = sorted({p for c in result.trace.calls for p in c.pages})
    sent = sum(server.counted) - sum(
        n for n in server.counted if n > (window or UNLIMITED_SERVER_WINDOW)
    )
    found, verified = found_fields(result)
    lists = ", ".join(
        f"{k}: {'complete' if v.complete else 'INCOMPLETE'} ({v.items})"
        for k, v in result.lists.items()
    )
    of = f"/{annotated}" if annotated is not None else ""
    label = f"{window // 1000}k" if window else "none"
    use = budget_use(result) if window else "-"
    missed = ", ".join(sorted(lost)) if lost else ("-" if lost is None else "none")
    return (
        f"| {name[:28]} | {label} | {len(sent_pages)}/{pages} | {len(result.trace.calls)} | "
        f"{sent:,} | {whole:,} | {sent / whole:.1%} | {use} | {len(found)}{of} | "
        f"{len(verified)} | {missed} | {lists} |"
    )


def contract_rows(
    name: str,
    pages: int,
    doc: ParsedDocument,
    schema: SchemaDef,
    reader: Any,
    annotated: int | None = None,
) -> tuple[Result, Result, list[str]]:
    """The two runs of one document (whole, then windowed) and their table rows."""
    full, full_server = run(doc, schema, reader, None)
    whole = sum(full_server.counted)
    limited, server = run(doc, schema, reader, WINDOW)
    lost = found_fields(full)[0] - found_fields(limited)[0]
    rows = [
        row(name, pages, WINDOW, limited, server, whole, annotated, lost),
        row(name, pages, None, full, full_server, whole, annotated),
    ]
    return full, limited, rows


def generated_check(style: Any, result: Result) -> str:
    """Facts verified with their planted values, and list items verified, of a generated
    agreement."""
    from long_contract import expected

    values = expected(style)
    facts = sum(
        1
        for name, value in values.items()
        if result.fields[name].status is Status.VERIFIED and result.fields[name].value == value
    )
    events = [result.fields.get(f"events_of_default[{i}].event") for i in range(len(style.events))]
    items = sum(
        1
        for f, (_, text) in zip(events, style.events, strict=True)
        if f is not None and f.status is Status.VERIFIED and f.value == text
    )
    extra = f"events_of_default[{len(style.events)}].event" in result.fields
    return (
        f"{facts}/{len(values)} facts verified, {items}/{len(style.events)} list items verified"
        + (" (and items that are not there)" if extra else "")
    )


HEADER = (
    "| document | window | pages sent | calls | tokens sent | whole document | share "
    "| budget use (least / mean) | fields found | verified | lost to the window | lists |"
)


def main(argv: list[str] | None = None) -> None:
    args = _arguments(argv)
    parser = PyMuPDFParser(tables=False)
    if args.generated:
        generated_table(parser)
    if args.cuad == "none":
        return
    base = eval_dir()
    if base is None:
        print("shared/eval not found: CUAD skipped")
        return
    cuad_table(base / "cuad", parser, args.cuad)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench.long_docs", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--cuad",
        choices=("tuning", "held-out", "all", "none"),
        default="all",
        help="CUAD contracts to run: the five longest (tuning), the next five (held out), all ten",
    )
    parser.add_argument(
        "--no-generated",
        dest="generated",
        action="store_false",
        help="skip the generated agreements",
    )
    return parser.parse_args(argv)


def generated_table(parser: PyMuPDFParser) -> None:
    """The generated agreements, each whole and with the window, and their planted facts."""
    print(HEADER)
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    agreement = parser.parse(agreement_pdf(), "credit_agreement.pdf")
    _, _, rows = contract_rows(
        "generated agreement", 300, agreement, schema_from_json(AGREEMENT_SCHEMA), READER
    )
    print("\n".join(rows))
    checks = []
    for style, role in ((FACILITY, "tuning"), (CREDIT, "held out")):
        doc = parser.parse(contract_pdf(style), f"{style.name}.pdf")
        label = f"{style.name} ({role})"
        schema = schema_from_json(contract_schema(style))
        full, limited, rows = contract_rows(label, style.pages, doc, schema, contract_reader(style))
        print("\n".join(rows))
        checks.append(f"- {label}: 16k: {generated_check(style, limited)}; "
                      f"none: {generated_check(style, full)}")  # fmt: skip
    print()
    print("\n".join(checks))


def cuad_table(cuad: Any, parser: PyMuPDFParser, chosen: str = "all") -> None:
    truth = [json.loads(line) for line in (cuad / "ground_truth.jsonl").open()]
    sizes = []
    for entry in truth:
        with pymupdf.open(cuad / "pdfs" / entry["local_pdf"]) as pdf:
            sizes.append((pdf.page_count, entry))
    sizes.sort(key=lambda d: -d[0])
    schema = cuad_schema()
    per_field: dict[str, list[int]] = {name: [0, 0, 0, 0] for name in [*CATEGORIES, "parties"]}
    totals = {"tuning": [0, 0], "held out": [0, 0]}
    print()
    print(HEADER)
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rank, (pages, entry) in enumerate(sizes[:CUAD_LONGEST]):
        pdf_path = cuad / "pdfs" / entry["local_pdf"]
        parsed = parser.parse(pdf_path.read_bytes(), pdf_path.name)
        fields = entry["fields"]
        annotated = sum(
            1 for cat, _ in [*CATEGORIES.values(), PARTIES] if fields.get(cat, {}).get(
                "evidence_spans")
        )  # fmt: skip
        role = "tuning" if rank < CUAD_TUNED else "held out"
        if chosen not in ("all", role.replace(" ", "-")):
            continue
        name = f"{entry['local_pdf'].split('_')[1]} ({role})"
        full, limited, rows = contract_rows(name, pages, parsed, schema, oracle(parsed, fields),
                                            annotated)  # fmt: skip
        print("\n".join(rows))
        (f16, v16), (fall, vall) = found_fields(limited), found_fields(full)
        totals[role][0] += len(f16)
        totals[role][1] += len(fall)
        for name_ in per_field:
            counts = per_field[name_]
            counts[0] += name_ in f16
            counts[1] += name_ in v16
            counts[2] += name_ in fall
            counts[3] += name_ in vall
    print()
    for role, (a, b) in totals.items():
        if not b:
            continue
        print(f"- CUAD {role}: {a} fields found with 16k of {b} found with the whole document "
              f"({a / b:.1%})")  # fmt: skip
    print()
    print("| CUAD field | found 16k | verified 16k | found none | verified none |")
    print("|---|---|---|---|---|")
    for name_, (a, b, c, d) in per_field.items():
        print(f"| {name_} | {a} | {b} | {c} | {d} |")


if __name__ == "__main__":
    main()
