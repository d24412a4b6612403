"""The result document: the same JSON from the CLI, the library and the REST API."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .notes import DocumentNotes

__all__ = [
    "Box",
    "CallTrace",
    "ContextTrace",
    "DocumentInfo",
    "FieldResult",
    "GateTrace",
    "ListCompleteness",
    "PageInfo",
    "Result",
    "Status",
    "Summary",
    "Trace",
]


class Status(StrEnum):
    VERIFIED = "verified"
    NEEDS_REVIEW = "needs_review"
    UNSUPPORTED = "unsupported"
    NOT_FOUND = "not_found"


class Box(BaseModel):
    """A rectangle to highlight, origin top-left, page 1-based; in PDF points, or in pixels for
    an image (the page's ``unit`` in ``DocumentInfo.page_info``)."""

    model_config = ConfigDict(frozen=True)

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class FieldResult(BaseModel):
    """One field: the value, how far it was checked, and its evidence."""

    value: Any
    status: Status
    reasons: list[str] = Field(default_factory=list)
    quote: str = ""
    page: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    span_corrected: bool = False
    match: str = Field(
        default="none", description="How the quote was located: exact, normalized, fuzzy or none."
    )
    computed: bool = Field(
        default=False, description="Part of the value was derived (e.g. a currency from '$')."
    )
    boxes: list[Box] = Field(default_factory=list)
    caveat: str = ""
    kind: str | None = Field(
        default=None,
        description="How the value was checked: amount, date, iban, email, string ... "
        "(null in results stored before kinds were recorded).",
    )
    kind_source: Literal["declared", "inferred", "default"] | None = Field(
        default=None,
        description="declared: the schema says so (x-evidex-kind, a built-in's type); "
        "inferred: from the JSON Schema's format, enum, name or description; default: from "
        "the JSON type alone.",
    )


class PageInfo(BaseModel):
    """One page as parsed: its size in ``unit`` (the unit of every box on it) and who read it."""

    page: int
    width: float
    height: float
    unit: Literal["pt", "px"] = Field(
        description="pt: PDF points (PDF pages); px: the image's own pixels (image files)."
    )
    parser: str = Field(description="The parser that read this page: pymupdf, ocr, azure, text.")


class DocumentInfo(BaseModel):
    sha256: str
    filename: str
    pages: int
    parser: str = Field(
        description="The parser that read every page, or auto when pages were read by different "
        "parsers (page_info says which)."
    )
    page_info: list[PageInfo] = Field(default_factory=list)


class Summary(BaseModel):
    verified: int = 0
    needs_review: int = 0
    unsupported: int = 0
    not_found: int = 0

    @classmethod
    def of(cls, fields: Iterable[FieldResult]) -> Summary:
        """How many fields have each status."""
        return cls(**Counter(f.status.value for f in fields))


class CallTrace(BaseModel):
    """One model call: the fields it filled and the pages it was sent, each with why."""

    purpose: str = Field(
        description="whole document, selected pages, group i of n, continuation of a list, "
        "or a retry after the model refused the prompt as too long."
    )
    fields: list[str] = Field(description="The top-level fields this call filled.")
    pages: list[int] = Field(description="The pages sent, in page order.")
    why: dict[int, str] = Field(
        default_factory=dict, description="Why each page was sent (empty: every page was)."
    )
    estimated_tokens: int = Field(description="Input tokens estimated before the call.")
    max_output_tokens: int | None = None
    response_id: str = ""
    usage: dict[str, int] = Field(default_factory=dict)


class ContextTrace(BaseModel):
    """The context budget the calls were planned with, and how the estimate was calibrated."""

    window_tokens: int | None = Field(description="The model's window; null: no limit set.")
    prompt_budget_tokens: int | None = Field(description="75% of the window, for each prompt.")
    chars_per_token: float = Field(description="The estimate's ratio before any call.")
    calibrated_chars_per_token: float | None = Field(
        default=None, description="The ratio measured from the usage the provider reported."
    )
    document_tokens: int = Field(
        description="Estimated input tokens of the whole document in one call."
    )
    tokens_sent: int = Field(
        description="Input tokens sent over all calls (as reported, else estimated)."
    )
    pages: int
    pages_sent: int = Field(description="Distinct pages sent in at least one call.")


class ListCompleteness(BaseModel):
    """Whether a list field holds every item: the next-page check, made by the pipeline."""

    complete: bool
    items: int
    last_page: int | None = Field(default=None, description="The page its evidence ends on.")
    reason: str = ""


class GateTrace(BaseModel):
    """The pre-call gate's verdict: whether the document answers the schema, and why."""

    decision: str = Field(description="pass | document_empty | document_mismatch")
    enforced: bool = Field(
        default=True, description="false: the caller skipped the gate (--no-gate, options.gate)."
    )
    score: float | None = Field(
        default=None,
        description="Mean support of the judged fields (1 named, 0.5 hinted, 0.25 only values "
        "of their kind found); null: too little to judge.",
    )
    threshold: float = Field(description="Under this score the document is refused.")
    judged: int = Field(default=0, description="Fields the schema says enough about to judge.")
    supported: list[str] = Field(
        default_factory=list, description="Fields the document names or hints at."
    )
    missing: list[str] = Field(
        default_factory=list, description="Judged fields the document does not mention."
    )
    reads_like: str = Field(
        default="", description="The built-in schema the document answers better, if any."
    )


class Trace(BaseModel):
    """The audit record of how the result was produced."""

    llm: str
    model: str = ""
    response_id: str = ""
    system_fingerprint: str = ""
    usage: dict[str, int] = Field(default_factory=dict)
    mode: str = ""
    attempts: int = 1
    fragments: list[str] = Field(default_factory=list)
    prompt_version: str = ""
    timings_ms: dict[str, float] = Field(default_factory=dict)
    context: ContextTrace | None = None
    calls: list[CallTrace] = Field(default_factory=list)
    gate: GateTrace | None = Field(
        default=None, description="The pre-call gate's verdict (recorded when skipped too)."
    )
    evidex_version: str = Field(default="", description="The evidex release that made it.")


class Result(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    schema_name: str = Field(alias="schema")
    document: DocumentInfo
    fields: dict[str, FieldResult]
    data: dict[str, Any]
    summary: Summary
    notes: DocumentNotes
    trace: Trace
    lists: dict[str, ListCompleteness] = Field(
        default_factory=dict, description="Per top-level list field: whether it is complete."
    )

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)
