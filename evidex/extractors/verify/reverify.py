"""Re-verify a stored result against its document (after a verifier fix, or to audit a result).

The stored fields are taken as the model's answer (quote, cited lines, value, found) and checked
again from scratch; the document must be the one the result names (same SHA-256).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from evidex.extractors.document import ParsedDocument, with_edges
from evidex.extractors.plan.completeness import mark_incomplete
from evidex.extractors.verify.fields import verify
from evidex.schemas import InputError, Result, SchemaDef, Status, Summary, build_answer

__all__ = ["Change", "reverify"]


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    before: Status
    after: Status


def reverify(
    result: Result, document: ParsedDocument, schema: SchemaDef
) -> tuple[Result, list[Change]]:
    """The result verified again, and the fields whose status changed."""
    if document.sha256 != result.document.sha256:
        raise InputError(
            f"{document.filename} is not the document of this result (its SHA-256 differs); "
            "pass the file the result was extracted from"
        )
    fields = {
        path: {
            "quote": f.quote,
            "page": f.page,
            "line_start": f.line_start,
            "line_end": f.line_end,
            "found": f.status != Status.NOT_FOUND,
            "value": f.value,
            "caveat": f.caveat,
        }
        for path, f in result.fields.items()
    }
    answer = build_answer(schema, fields, result.notes.model_dump())
    start = time.perf_counter()
    checked = verify(schema, schema.wire_model.model_validate(answer), with_edges(document))
    mark_incomplete(checked.fields, result.lists)  # the list still may continue
    elapsed = round((time.perf_counter() - start) * 1000, 2)
    trace = result.trace.model_copy(
        update={"timings_ms": {**result.trace.timings_ms, "reverify": elapsed}}
    )
    new = result.model_copy(
        update={
            "fields": checked.fields,
            "data": checked.data,
            "summary": Summary.of(checked.fields.values()),
            "trace": trace,
        }
    )
    changes = [
        Change(path, result.fields[path].status, f.status)
        for path, f in checked.fields.items()
        if path in result.fields and result.fields[path].status != f.status
    ]
    return new, changes
