"""The reviewed values of a job, one row per field of the machine result, as JSON or CSV.

A row: the field's path, machine value and status, and, when a person has decided on it, the
decision, the reviewed value, who and when (empty otherwise). Rows follow the result's field
order.

CSV cells: strings as they are, numbers and booleans in JSON notation, objects and lists as
compact JSON, null as an empty cell. The values come from documents a stranger may have
written, so a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
gets a leading ``'`` (spreadsheets would otherwise run it as a formula); the JSON export is
the exact one.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from evidex.schemas import Result, Status
from evidex.service.csvcell import csv_cell
from evidex.service.decisions import Action, Decisions

__all__ = ["CSV_COLUMNS", "ExportRow", "ReviewExport", "export_csv", "review_export"]

CSV_COLUMNS = (
    "path",
    "machine_value",
    "status",
    "decision",
    "reviewed_value",
    "who",
    "when",
    "note",
)


class ExportRow(BaseModel):
    path: str
    machine_value: Any
    status: Status = Field(description="The machine's verification status.")
    decision: Action | None = Field(description="null: nobody has decided on this field.")
    reviewed_value: Any = Field(description="The decided value; null when undecided/rejected.")
    who: str | None
    when: datetime | None
    note: str = ""


class ReviewExport(BaseModel):
    job_id: str
    schema_name: str
    filename: str
    reviewed: int = Field(description="Fields with a decision.")
    fields: list[ExportRow]


def review_export(job_id: str, filename: str, result: Result, decisions: Decisions) -> ReviewExport:
    rows = []
    for path, field in result.fields.items():
        decision = decisions.decisions.get(path)
        rows.append(
            ExportRow(
                path=path,
                machine_value=field.value,
                status=field.status,
                decision=decision.action if decision else None,
                reviewed_value=decision.value if decision else None,
                who=decision.who if decision else None,
                when=decision.at if decision else None,
                note=decision.note if decision else "",
            )
        )
    return ReviewExport(
        job_id=job_id,
        schema_name=result.schema_name,
        filename=filename,
        reviewed=sum(row.decision is not None for row in rows),
        fields=rows,
    )


def export_csv(export: ReviewExport) -> str:
    """The export as CSV (RFC 4180, CRLF line ends, a header row)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in export.fields:
        data = row.model_dump(mode="json")
        writer.writerow([csv_cell(data[column]) for column in CSV_COLUMNS])
    return out.getvalue()
