"""``extract``: parse -> prompt -> one structured LLM call -> verify -> ``Result``.

The composition: every stage comes in as an argument (a ``Parser``, an ``LLMBackend``), so the
same function runs with real backends, offline rules, or shipped fakes.
"""

from __future__ import annotations

import time
from pathlib import Path

from evidex import __version__
from evidex.extractors.document import ParsedDocument, Parser
from evidex.extractors.llm.base import LLMBackend, LLMRequest
from evidex.extractors.prompt import build_prompt
from evidex.extractors.verify import verify
from evidex.schemas import DocumentInfo, DocumentNotes, Result, SchemaDef, Summary, Trace
from evidex.schemas.result import PageInfo

__all__ = ["extract", "extract_parsed"]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def _page_info(document: ParsedDocument) -> list[PageInfo]:
    """Per page: size, unit (pixels for an image file, else points) and the parser that read it."""
    unit = "px" if document.media_type.startswith("image/") else "pt"
    pages = document.pages
    return [
        PageInfo(page=int(page), width=float(width), height=float(height), unit=unit, parser=name)
        for page, width, height, name in zip(
            pages["page"].tolist(),
            pages["width"].tolist(),
            pages["height"].tolist(),
            pages["parser"].astype(str).tolist(),
            strict=True,
        )
    ]


def extract(
    data: bytes | Path,
    schema: SchemaDef,
    *,
    parser: Parser,
    llm: LLMBackend,
    filename: str | None = None,
) -> Result:
    """Extract ``schema`` from a document given as bytes or a path."""
    start = time.perf_counter()
    if isinstance(data, Path):
        filename = filename or data.name
        data = data.read_bytes()
    document = parser.parse(data, filename or "document")
    return extract_parsed(document, schema, llm=llm, parse_ms=_ms(start), started=start)


def extract_parsed(
    document: ParsedDocument,
    schema: SchemaDef,
    *,
    llm: LLMBackend,
    parse_ms: float = 0.0,
    started: float | None = None,
) -> Result:
    """Extract from a document already parsed into its line table."""
    started = started if started is not None else time.perf_counter()
    timings = {"parse": parse_ms}
    t = time.perf_counter()
    prompt = build_prompt(schema, document.lines, document.filename)
    timings["prompt"] = _ms(t)
    t = time.perf_counter()
    response = llm.complete(LLMRequest(prompt.system, prompt.user, schema, document))
    timings["llm"] = _ms(t)
    t = time.perf_counter()
    checked = verify(schema, response.output, document.lines)
    timings["verify"] = _ms(t)
    timings["total"] = _ms(started)

    notes = getattr(response.output, "document_notes", None) or DocumentNotes.empty()
    if prompt.withheld_lines:
        notes.caveats.append(
            f"{prompt.withheld_lines} line(s) of text a reader cannot see were withheld from "
            "the model"
        )
    return Result(
        schema_name=schema.name,
        document=DocumentInfo(
            sha256=document.sha256,
            filename=document.filename,
            pages=document.page_count,
            parser=document.parser,
            page_info=_page_info(document),
        ),
        fields=checked.fields,
        data=checked.data,
        summary=Summary.of(checked.fields.values()),
        notes=notes,
        trace=Trace(
            llm=response.backend,
            model=response.model,
            response_id=response.response_id,
            system_fingerprint=response.system_fingerprint,
            usage=response.usage,
            mode=response.mode,
            attempts=response.attempts,
            fragments=list(prompt.fragments),
            prompt_version=prompt.version,
            timings_ms=timings,
            evidex_version=__version__,
        ),
    )
