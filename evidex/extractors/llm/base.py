"""The ``LLMBackend`` protocol: one structured call that fills the whole schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel

from evidex.extractors.document import ParsedDocument
from evidex.schemas import SchemaDef

__all__ = ["LLMBackend", "LLMRequest", "LLMResponse"]


@dataclass(frozen=True)
class LLMRequest:
    """What a backend needs: the prompt, the schema to fill, and the parsed document.

    ``document`` is there for offline backends (rules, scripted) that read the line table
    directly; a model backend sends ``system`` and ``user`` only. ``document`` holds the pages
    the prompt holds. ``max_output_tokens``, when set, caps this call's answer below the
    backend's own cap (what the context window leaves after the prompt).
    """

    system: str
    user: str
    schema: SchemaDef
    document: ParsedDocument
    max_output_tokens: int | None = None


@dataclass(frozen=True)
class LLMResponse:
    """The filled schema (an instance of ``schema.wire_model``) and the audit record."""

    output: BaseModel
    backend: str
    model: str = ""
    response_id: str = ""
    system_fingerprint: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    mode: str = ""
    attempts: int = 1


class LLMBackend(Protocol):
    name: str

    def complete(self, request: LLMRequest) -> LLMResponse: ...
