"""The document-level block the model fills in the same call as the fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Conflict", "DocumentNotes"]


class Conflict(BaseModel):
    """Two places in the document that disagree about the same fields."""

    model_config = ConfigDict(extra="forbid")

    fields: list[str] = Field(description="Dotted paths of the fields concerned.")
    description: str = Field(description="What disagrees, naming both places (GLOBAL_LINEs).")


class DocumentNotes(BaseModel):
    """Signals about the document as a whole that the pipeline acts on."""

    model_config = ConfigDict(extra="forbid")

    caveats: list[str] = Field(
        description="Things a reviewer should know about the whole document; empty if none."
    )
    conflicting_evidence: list[Conflict] = Field(
        description="Places that disagree (e.g. an amendment that changes a date); empty if none."
    )
    context_structured: bool = Field(
        description="false when the numbered lines look garbled (broken table, OCR noise, "
        "scrambled reading order) so that the document should be parsed again."
    )
    suggested_clarification: str = Field(
        description="One question to ask the sender that would settle the most doubtful field; "
        "empty string if none."
    )

    @classmethod
    def empty(cls) -> DocumentNotes:
        return cls(
            caveats=[], conflicting_evidence=[], context_structured=True, suggested_clarification=""
        )
