"""A job: one document to extract, its lifecycle and where its files are."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evidex.extractors.names import BackendName, OcrEngineName, ParserName
from evidex.schemas import SchemaDef, get_schema, schema_from_json

__all__ = ["Job", "JobError", "JobEvent", "JobOptions", "JobStatus", "new_job_id", "now"]


def now() -> datetime:
    return datetime.now(UTC)


def new_job_id() -> str:
    return "job_" + secrets.token_hex(12)


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self in (JobStatus.SUCCEEDED, JobStatus.FAILED)


class JobError(BaseModel):
    code: str
    message: str


class JobEvent(BaseModel):
    status: JobStatus
    at: datetime
    detail: str = ""


class JobOptions(BaseModel):
    """What a client may choose per job (the ``options`` JSON of ``POST /v1/jobs``).

    Every field is bounded here, where the API reads it and where the worker reads the job
    back: a client's text never reaches a model client, a URL parser or a page range unbounded.
    """

    model_config = ConfigDict(extra="forbid")

    parser: ParserName | None = None
    tables: Literal["words", "layout", "off"] | None = Field(
        default=None,
        description="How PDF tables are found: 'words' (default, from the text layer), "
        "'layout' (PyMuPDF's layout model, slower), 'off'.",
    )
    ocr: OcrEngineName | None = Field(
        default=None,
        description="The local OCR engine for scans and photos (default EVIDEX_OCR_ENGINE): "
        "'tesseract', 'rapidocr', or 'auto' (per page, by measured quality).",
    )
    llm: BackendName | None = None
    model: str | None = Field(
        default=None,
        max_length=128,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$",
        description="The model's name (default EVIDEX_MODEL): letters, digits and . _ : / @ + -, "
        "at most 128 characters.",
    )
    pages: str | None = Field(
        default=None,
        max_length=1000,
        pattern=r"^[0-9 ,-]*$",
        description="Page selection, e.g. '1-3,5': digits, ',', '-' and spaces, at most 1000 "
        "characters, naming at most the service's page limit.",
    )
    context_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="The model's window in tokens (default EVIDEX_CONTEXT_TOKENS): a longer "
        "document is sent in the pages most relevant to the fields.",
    )
    webhook_url: str | None = Field(
        default=None,
        max_length=2048,
        description="Where the job's end is posted (https, a host the operator allows), at most "
        "2048 characters.",
    )
    gate: bool = Field(
        default=True,
        description="false: skip the pre-call gate's refusals (document_empty, "
        "document_mismatch); its verdict is still recorded in the result's trace.gate.",
    )


class Job(BaseModel):
    id: str
    tenant: str
    status: JobStatus = JobStatus.QUEUED
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)
    filename: str
    media_type: str = "application/pdf"
    size: int
    sha256: str
    schema_name: str
    custom_schema: dict[str, Any] | None = None
    options: JobOptions = Field(default_factory=JobOptions)
    document_key: str
    result_key: str | None = None
    error: JobError | None = None
    events: list[JobEvent] = Field(default_factory=list)
    attempts: int = 0
    # Runs of the job whose worker died or stalled past its lease (found running when delivered
    # again): a job that did that to POISON_AFTER workers is failed ``job_poisoned``.
    lost_runs: int = 0
    # The owner token of the worker running the job now (set when a run starts), and those of the
    # workers that died or stalled while running it: a death shared with another job that was on
    # every one of those workers too does not single this job out (see runner._blame).
    ran_on: str | None = None
    lost_on: list[str] = Field(default_factory=list)
    idempotency_key: str | None = None
    reserved_tokens: int = 0

    def extraction_schema(self) -> SchemaDef:
        """The extraction schema the job asked for: its custom JSON Schema, else the built-in."""
        if self.custom_schema is not None:
            return schema_from_json(self.custom_schema)
        return get_schema(self.schema_name)

    def download_stem(self) -> str:
        """The client's filename without extension, safe in a Content-Disposition header."""
        return re.sub(r"[^A-Za-z0-9._-]", "_", self.filename.rsplit(".", 1)[0]) or "document"

    def public(self) -> dict[str, Any]:
        """The job as ``GET /v1/jobs/{id}`` shows it (without the result)."""
        return self.model_dump(
            mode="json",
            include={
                "id",
                "status",
                "created_at",
                "updated_at",
                "filename",
                "media_type",
                "size",
                "sha256",
                "schema_name",
                "options",
                "error",
                "events",
                "attempts",
            },
        )
