"""Parse time per page (evidex's line table vs raw PyMuPDF ``get_text("dict")``, same files, same
run) and verification time per field, on the samples and on ``shared/eval`` when present.

    .venv/bin/python -m bench.parse_speed
"""

from __future__ import annotations

import time
from pathlib import Path

import pymupdf

from bench.common import SAMPLES, best_of, eval_dir
from evidex.extractors.align import DocText
from evidex.extractors.errors import DocumentError
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parsers.pymupdf_parser import PyMuPDFParser
from evidex.extractors.verify import verify
from evidex.schemas import get_schema

FAMILY_SCHEMA = {
    "samples": None,
    "kleister_nda": "contract",
    "cuad": "contract",
    "invoice2data": "invoice",
    "rendercv_cv": "candidate_profile",
}
SAMPLE_SCHEMA = {
    "cv.pdf": "candidate_profile",
    "invoice.pdf": "invoice",
    "contract.pdf": "contract",
}


def raw_dict(data: bytes) -> None:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            page.get_text("dict")


def families() -> list[tuple[str, list[Path]]]:
    out = [("samples", sorted(SAMPLES.glob("*.pdf")))]
    root = eval_dir()
    if root is not None:
        for name in ("kleister_nda", "cuad", "invoice2data", "rendercv_cv"):
            out.append((name, sorted((root / name / "pdfs").glob("*.pdf"))))
    return out


def main() -> None:
    parser, rules = PyMuPDFParser(), RulesBackend()
    print(
        f"{'family':14} {'docs':>4} {'pages':>5} {'evidex ms/page':>15} {'raw dict ms/page':>17}"
        f" {'ratio':>6} {'fields':>7} {'verify ms/field':>16}"
    )
    for family, files in families():
        pages = 0
        ours = raw = verify_s = 0.0
        fields = 0
        docs = 0
        for path in files:
            data = path.read_bytes()
            try:
                parsed = parser.parse(data, path.name)
            except DocumentError:
                continue
            docs += 1
            pages += parsed.page_count
            ours += best_of(lambda d=data, n=path.name: parser.parse(d, n))
            raw += best_of(lambda d=data: raw_dict(d))
            schema = get_schema(FAMILY_SCHEMA[family] or SAMPLE_SCHEMA.get(path.name, "contract"))
            output = rules.complete(LLMRequest("", "", schema, parsed)).output
            start = time.perf_counter()
            checked = verify(schema, output, parsed.lines, DocText(parsed.lines))
            verify_s += time.perf_counter() - start
            fields += len(checked.fields)
        if not pages:
            continue
        print(
            f"{family:14} {docs:4d} {pages:5d} {ours / pages * 1000:15.2f} "
            f"{raw / pages * 1000:17.2f} {ours / raw:6.2f} {fields:7d} "
            f"{verify_s / max(fields, 1) * 1000:16.3f}"
        )
    if eval_dir() is None:
        print("(shared/eval not found: samples only; set EVIDEX_EVAL_DIR to include it)")


if __name__ == "__main__":
    main()
