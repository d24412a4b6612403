"""The JSON the API answers with, as models, so the OpenAPI document shows every field."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from evidex.schemas import LeafSpec, SchemaDef
from evidex.workers.jobs import Job, JobError, JobEvent, JobOptions, JobStatus
from evidex.workers.stores import BlobStore

__all__ = [
    "JobList",
    "JobView",
    "LeafView",
    "Readiness",
    "SchemaDetail",
    "SchemaExplanation",
    "SchemaSummary",
    "StoredView",
    "job_view",
    "stored_view",
]


class JobView(BaseModel):
    """A job as ``GET /v1/jobs/{id}`` shows it; ``result`` only once it has succeeded."""

    id: str
    status: JobStatus
    created_at: datetime
    updated_at: datetime
    filename: str = Field(description="The client's file name (sanitised; metadata only).")
    media_type: str
    size: int = Field(description="Bytes.")
    sha256: str
    schema_name: str
    options: JobOptions
    error: JobError | None = Field(default=None, description="Why the job failed.")
    events: list[JobEvent]
    attempts: int
    result: dict[str, Any] | None = Field(
        default=None, description="The Result JSON (see DESIGN.md); present when succeeded."
    )

    @model_serializer(mode="wrap")
    def _omit_missing_result(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("result") is None:
            data.pop("result", None)
        return data


def job_view(job: Job, blob_store: BlobStore | None = None) -> JobView:
    """The public view of ``job``, with its result read from ``blob_store`` when given."""
    result = None
    if blob_store is not None and job.status is JobStatus.SUCCEEDED and job.result_key:
        result = json.loads(blob_store.get(job.result_key))
    return JobView.model_validate({**job.public(), "result": result})


@dataclass(frozen=True)
class StoredView:
    """``GET /v1/jobs/{id}``'s body as bytes, and its strong ETag (a hash of those bytes)."""

    body: bytes
    etag: str

    def matches(self, if_none_match: str | None) -> bool:
        """Whether an ``If-None-Match`` header names this body (``*``, or a list of tags,
        weak ones compared weakly as RFC 9110 says for GET)."""
        if not if_none_match:
            return False
        if if_none_match.strip() == "*":
            return True
        tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
        return self.etag in tags


def stored_view(job: Job, blob_store: BlobStore) -> StoredView:
    """The same document as :func:`job_view` with its blob store, built without decoding the
    result: the worker stored the result's JSON once, and it is served as those bytes.

    Decoding it, validating it into :class:`JobView` and encoding it again on every poll cost
    more than the rest of the request; the job's own fields are a few hundred bytes.
    """
    head = json.dumps(job.public(), ensure_ascii=False, separators=(",", ":")).encode()
    if job.status is JobStatus.SUCCEEDED and job.result_key:
        head = head[:-1] + b',"result":' + blob_store.get(job.result_key).strip() + b"}"
    digest = hashlib.blake2b(head, digest_size=16).hexdigest()
    return StoredView(head, f'"{digest}"')


class JobList(BaseModel):
    jobs: list[JobView] = Field(description="Newest first; without results.")
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next page; null: end.")


class LeafView(BaseModel):
    path: str = Field(description="Dotted path, '[]' for list items.")
    kind: str = Field(description="How a value is checked against its quote (amount, date, ...).")
    kind_source: str = Field(
        default="default",
        description="declared (x-evidex-kind, a built-in's type), inferred (format, enum, name, "
        "description) or default (the JSON type alone).",
    )
    type: str | None = Field(
        default=None, description="The JSON type data holds (custom JSON Schemas only)."
    )
    description: str
    enum: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, spec: LeafSpec) -> LeafView:
        return cls(
            path=spec.path,
            kind=spec.kind,
            kind_source=spec.kind_source,
            type=spec.json_type,
            description=spec.description,
            enum=list(spec.enum),
        )


class SchemaSummary(BaseModel):
    name: str
    description: str
    fields: int = Field(description="Number of leaf fields.")


class SchemaDetail(BaseModel):
    name: str
    description: str
    leaves: list[LeafView]
    wire_schema: dict[str, Any] = Field(
        description="The strict JSON schema the model fills (OpenAI structured outputs)."
    )

    @classmethod
    def of(cls, schema: SchemaDef) -> SchemaDetail:
        return cls(
            name=schema.name,
            description=schema.description,
            leaves=[LeafView.of(s) for s in schema.leaves],
            wire_schema=schema.wire_schema,
        )


class SchemaExplanation(BaseModel):
    """How a JSON Schema will be read: each leaf's kind and where it came from, and its rules."""

    name: str
    leaves: list[LeafView]
    rules: list[str] = Field(description="The cross-field rules (x-evidex-rules), described.")

    @classmethod
    def of(cls, schema: SchemaDef) -> SchemaExplanation:
        return cls(
            name=schema.name,
            leaves=[LeafView.of(s) for s in schema.leaves],
            rules=[rule.describe() for rule in schema.rules],
        )


class Readiness(BaseModel):
    status: str = Field(description="'ok' (healthz), 'ready' or 'not_ready' (readyz).")
    checks: dict[str, str] = Field(default_factory=dict)
