"""evidex's verifier beside fieldproof's (PyPI, the closest peer) on the same cases
(``bench.verifier_cases``): planted errors caught, true fields verified, time per field.

    PYTHONPATH=. .venv/bin/python -m bench.verifier_compare

evidex runs the real pipeline path: the case's answer (on a sample the whole expected answer with
the case's field in it; on a crafted document the field plus the fields a rule needs) goes
through ``ScriptedLLM`` and ``extract_parsed``; the case counts by that field's status.

fieldproof is fed the same text: each document is parsed once by evidex (PyMuPDF for PDFs,
``TextParser`` for text) and its line table turned into a ``fieldproof.document.Document``: per
page, every line's words in line order, joined by single spaces, each ``Word`` with evidex's word
box (``Page.text`` as fieldproof's own pdfplumber loader builds it). Hidden lines (white, tiny)
are included, as pdfplumber includes them: fieldproof has no notion of visibility. (The script
also reruns fieldproof on its own ``load_pdf`` text for the PDFs: same counts, so the feed is
fair.) The same answer becomes one pydantic model of ``Evidenced`` leaves, verified with
``fieldproof.verify.verify(model, document)``: grounding by ``find_candidates_in_document`` with
the cited page as ``hint_page`` (ambiguous occurrences settled by a list item's first grounded
sibling), then its value check, then its cross-field rules.

* shape: the model mirrors evidex's paths (``create_model``, nested models, lists), so
  fieldproof reports the same paths and its row-anchor disambiguation works on list items. An
  invoice answer holding what fieldproof's ``Invoice`` requires (seller.name -> vendor_name,
  invoice_number, issue_date, total) is built on a subclass of ``Invoice``: its rules (line items
  sum, subtotal + tax = total, due after issue) run only on that class.
* values: amount -> ``Evidenced[float]`` of the amount (fieldproof has no currency); date ->
  ``Evidenced[str]`` ISO date (fieldproof checks a date only when the path holds "date", which
  every evidex date path does); number/percentage/years -> float; boolean -> bool; duration ->
  str ``"3 years"`` (its contract schema keeps terms as text); address -> parts joined by ", ";
  everything else (IBAN, VAT id, email, phone, URL, currency) -> str.
* it has no line numbers (only a page hint), no check digits, no currency check, no number
  words, no visibility test: where it lacks a check, its real behaviour is what is counted.

Time: verification only, both given the parsed document and the filled answer (evidex
``verify(schema, output, lines)`` as ``extract_parsed`` calls it; fieldproof ``verify``), each
distinct answer once, best of 3 per document.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from fieldproof import __version__ as FP_VERSION
from fieldproof.document import load_pdf
from fieldproof.document.model import BBox, Document, Page, Word
from fieldproof.schemas import Evidenced, Invoice
from fieldproof.verify import FieldStatus
from fieldproof.verify import verify as fp_verify
from pydantic import BaseModel, create_model

from bench.common import SAMPLES, best_of
from bench.verifier_cases import AUTO, CASES, DOCS, TEXT_DOCS, Case, hidden_pdf, kind_of
from evidex.extractors.document import ParsedDocument
from evidex.extractors.llm.scripted import ScriptedLLM, build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.pipeline import extract_parsed
from evidex.extractors.verify.fields import verify
from evidex.schemas import Result, Status, get_schema

FP_INVOICE = {"seller.name": "vendor_name", "purchase_order": "po_number"}
FP_INVOICE_REQUIRED = ("seller.name", "invoice_number", "issue_date", "total")


def pdf(doc: str) -> bytes:
    return hidden_pdf() if doc == "hidden" else (SAMPLES / f"{doc}.pdf").read_bytes()


def parse(doc: str) -> ParsedDocument:
    if doc in TEXT_DOCS:
        return TextParser().parse(TEXT_DOCS[doc].encode(), f"{doc}.txt")
    return PyMuPDFParser().parse(pdf(doc), f"{doc}.pdf")


def to_fieldproof(parsed: ParsedDocument) -> Document:
    pages = []
    for info in parsed.pages.itertuples():
        words: list[Word] = []
        text = ""
        for row in parsed.lines[parsed.lines["page"] == info.page].itertuples():
            for a, b, x0, y0, x1, y1 in row.words:
                text += " " if text else ""
                token = str(row.text)[a:b]
                words.append(Word(token, BBox(x0, y0, x1, y1), len(text), len(text) + len(token)))
                text += token
        pages.append(Page(int(info.page), float(info.width), float(info.height), text, words))
    return Document(parsed.filename, pages)


def cite(parsed: ParsedDocument, text: str) -> tuple[int | None, int | None, int | None]:
    """(page, line_start, line_end): the first line, or run of up to 8 lines, holding ``text``."""
    lines = parsed.lines
    texts = [" ".join(str(t).split()) for t in lines["text"]]
    want = re.compile(rf"(?<!\w){re.escape(' '.join(text.split()))}(?!\w)")
    for width in range(1, 9):
        for i in range(len(texts) - width + 1):
            if want.search(" ".join(texts[i : i + width])):
                page = int(lines["page"].iloc[i])
                return page, int(lines["line"].iloc[i]), int(lines["line"].iloc[i + width - 1])
    return None, None, None


def leaves(parsed: ParsedDocument, case: Case) -> dict[str, dict[str, Any]]:
    """The answer's leaves: the case's field (cited as the case says) and its context."""
    if case.cite is None:
        where: tuple[int | None, ...] = (None, None, None)
    elif isinstance(case.cite, tuple):  # wrong lines, right page
        where = (cite(parsed, case.quote)[0], *case.cite)
    else:
        where = cite(parsed, case.quote if case.cite == AUTO else case.cite)
    out = {}
    for path, value, quote, (page, start, end) in [
        *((p, v, q, cite(parsed, q)) for p, v, q in case.context),
        (case.path, case.value, case.quote, where),
    ]:
        out[path] = {"value": value, "quote": quote, "page": page}
        out[path] |= {"line_start": start, "line_end": end}
    return out


def fp_value(kind: str, value: Any) -> Any:
    if kind in ("amount", "date"):
        return float(value["value"]) if kind == "amount" else str(value["iso"])
    if kind == "duration":
        return f"{value['amount']:g} {value['unit']}"
    if kind == "address":
        return ", ".join(str(v) for v in value.values() if v)
    if isinstance(value, bool | str):
        return value
    return float(value) if isinstance(value, int | float) else str(value)


@dataclass
class Leaf:
    item: dict[str, Any]


def _annotation(node: Any, name: str) -> Any:
    if isinstance(node, Leaf):
        return Evidenced[type(node.item["value"])]  # type: ignore[misc]
    if all(isinstance(k, int) for k in node):
        items = list(node.values())
        if isinstance(items[0], Leaf):
            return list[_annotation(items[0], name) | None]  # type: ignore[misc]
        merged: dict[str | int, Any] = {}
        for item in items:
            merged |= {k: v for k, v in item.items() if k not in merged}
        return list[_model(merged, name)]  # type: ignore[misc]
    return _model(node, name)


def _model(node: dict[str | int, Any], name: str, base: type[BaseModel] = BaseModel) -> Any:
    fields: dict[str, Any] = {
        str(key): (_annotation(child, f"{name}_{key}") | None, None)
        for key, child in node.items()
        if str(key) not in base.model_fields
    }
    return create_model(name, __base__=base, **fields)


def _plain(node: Any) -> Any:
    if isinstance(node, Leaf):
        return node.item
    if all(isinstance(k, int) for k in node):  # an index the answer skips: an empty item
        empty = None if isinstance(next(iter(node.values())), Leaf) else {}
        return [_plain(node[k]) if k in node else empty for k in range(max(node) + 1)]
    return {k: _plain(v) for k, v in node.items()}


def fp_answer(doc: str, answer: dict[str, dict[str, Any]]) -> tuple[BaseModel, dict[str, str]]:
    """The answer as a fieldproof model shaped like evidex's paths, and evidex -> its paths.

    An invoice answer holding what fieldproof's ``Invoice`` requires is built on that class, so
    its cross-field rules run (they dispatch on ``isinstance``)."""
    invoice = DOCS[doc] == "invoice" and set(FP_INVOICE_REQUIRED) <= set(answer)
    paths = {p: FP_INVOICE.get(p, p) if invoice else p for p in answer}
    tree: dict[str | int, Any] = {}
    for path, fp_path in paths.items():
        item = answer[path]
        value = fp_value(kind_of(doc, path), item["value"])
        keys = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", fp_path)]
        node = tree
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = Leaf({"value": value, "evidence": [item["quote"]], "page": item["page"]})
    model = _model(tree, "Answer", Invoice if invoice else BaseModel)
    return model.model_validate(_plain(tree)), paths


def run_evidex(parsed: ParsedDocument, doc: str, answer: dict[str, Any]) -> Result:
    schema = get_schema(DOCS[doc])
    return extract_parsed(parsed, schema, llm=ScriptedLLM(build_answer(schema, answer)))


Call = tuple[str, dict[str, dict[str, Any]]]  # (document, answer): one verification call


def main() -> None:
    docs = {doc: parse(doc) for doc in DOCS}
    fp_docs = {doc: to_fieldproof(parsed) for doc, parsed in docs.items()}
    calls: dict[str, Call] = {}  # the same answer is verified once (every true sample field)
    keys = []
    for case in CASES:
        answer = leaves(docs[case.doc], case)
        key = json.dumps([case.doc, answer], sort_keys=True, default=str)
        calls.setdefault(key, (case.doc, answer))
        keys.append(key)
    ours = {k: run_evidex(docs[doc], doc, answer).fields for k, (doc, answer) in calls.items()}
    models = {k: fp_answer(doc, answer) for k, (doc, answer) in calls.items()}
    theirs = {
        k: {f.path: f for f in fp_verify(model, fp_docs[calls[k][0]]).fields}
        for k, (model, _) in models.items()
    }
    rows = [
        (case, ours[k][case.path], theirs[k][models[k][1][case.path]])
        for case, k in zip(CASES, keys, strict=True)
    ]

    print(f"fieldproof {FP_VERSION}; {len(CASES)} cases over {len(DOCS)} documents")
    fields = sum(len(a) for _, a in calls.values())
    print(f"{len(calls)} distinct answers verified ({fields} fields)\n")
    groups: dict[bool, list[tuple[bool, bool]]] = defaultdict(list)
    by_cat: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for case, mine, peer in rows:
        hit = (
            right(case.planted, mine.status == Status.VERIFIED),
            right(case.planted, peer.status == FieldStatus.VERIFIED),
        )
        groups[case.planted].append(hit)
        by_cat[case.category].append(hit)

    def score(hits: list[tuple[bool, bool]], i: int) -> str:
        return f"{sum(h[i] for h in hits)}/{len(hits)}"

    print(f"{'':28} {'evidex':>10} {'fieldproof':>11}")
    for planted, label in ((True, "planted errors caught"), (False, "true fields verified")):
        print(f"{label:28} {score(groups[planted], 0):>10} {score(groups[planted], 1):>11}")
    print(f"\n{'category':48} {'n':>3} {'evidex':>7} {'fieldproof':>11}")
    for cat in sorted(by_cat, key=lambda c: (c.startswith("true"), c)):
        hits = by_cat[cat]
        print(f"{cat:48} {len(hits):>3} {score(hits, 0):>7} {score(hits, 1):>11}")

    # the same, with fieldproof reading the PDFs itself (pdfplumber), to show the feed is fair
    own = {doc: load_pdf(pdf(doc)) for doc in DOCS if doc not in TEXT_DOCS}
    on_own: dict[bool, list[bool]] = defaultdict(list)
    on_ours: dict[bool, list[bool]] = defaultdict(list)
    for case, k, (_, _, peer) in zip(CASES, keys, rows, strict=True):
        if case.doc in own:
            model, paths = models[k]
            mine_fp = {f.path: f for f in fp_verify(model, own[case.doc]).fields}[paths[case.path]]
            on_own[case.planted].append(right(case.planted, mine_fp.status == "verified"))
            on_ours[case.planted].append(right(case.planted, peer.status == "verified"))
    print(f"\nfieldproof on the {len(own)} PDFs, fed {'evidex text':>11} {'own pdfplumber':>15}")
    for planted, label in ((True, "planted errors caught"), (False, "true fields verified")):
        a, b = on_ours[planted], on_own[planted]
        print(f"{label:33} {f'{sum(a)}/{len(a)}':>11} {f'{sum(b)}/{len(b)}':>15}")

    print_timing(docs, fp_docs, calls, models)
    print("\nevidex wrong (planted error verified, or true field not verified):")
    for case, mine, _ in rows:
        if not right(case.planted, mine.status == Status.VERIFIED):
            why = "; ".join(mine.reasons) or "-"
            print(f"  [{case.category}] {case.name}: {mine.status.value}: {why}")
    print("\nfieldproof wrong:")
    for case, _, peer in rows:
        if not right(case.planted, peer.status == FieldStatus.VERIFIED):
            why = "; ".join(peer.reasons)[:100] or "-"
            print(f"  [{case.category}] {case.name}: {peer.status.value}: {why}")


def right(planted: bool, verified: bool) -> bool:
    return verified != planted


def _each(fn: Callable[..., object], args: list[tuple[Any, ...]]) -> None:
    for a in args:
        fn(*a)


def print_timing(
    docs: dict[str, ParsedDocument],
    fp_docs: dict[str, Document],
    calls: dict[str, Call],
    models: dict[str, tuple[BaseModel, dict[str, str]]],
) -> None:
    print("\nverification time per document, best of 3 (each distinct answer verified once)")
    print(f"{'document':16} {'calls':>5} {'fields':>6} {'evidex ms':>10} {'/field':>7}", end="")
    print(f" {'fieldproof ms':>14} {'/field':>7} {'ratio':>6}")
    total = [0.0, 0.0, 0.0, 0.0]
    for doc in docs:
        schema, lines = get_schema(DOCS[doc]), docs[doc].lines
        mine = [k for k, (d, _) in calls.items() if d == doc]
        outs = [schema.wire_model.model_validate(build_answer(schema, calls[k][1])) for k in mine]
        peer = [models[k][0] for k in mine]
        ours = best_of(partial(_each, verify, [(schema, o, lines) for o in outs])) * 1000
        theirs = best_of(partial(_each, fp_verify, [(m, fp_docs[doc]) for m in peer])) * 1000
        n = sum(len(calls[k][1]) for k in mine)
        total = [total[0] + len(mine), total[1] + n, total[2] + ours, total[3] + theirs]
        print(f"{doc:16} {len(mine):>5} {n:>6} {ours:>10.2f} {ours / n:>7.3f}", end="")
        print(f" {theirs:>14.2f} {theirs / n:>7.3f} {ours / theirs:>6.2f}")
    calls_n, n, ours, theirs = total
    print(f"{'all':16} {calls_n:>5.0f} {n:>6.0f} {ours:>10.2f} {ours / n:>7.3f}", end="")
    print(f" {theirs:>14.2f} {theirs / n:>7.3f} {ours / theirs:>6.2f}   (target: ratio <= 0.5)")


if __name__ == "__main__":
    main()
