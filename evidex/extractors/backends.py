"""Build the configured parser and LLM backend from ``Settings`` (used by composition roots)."""

from __future__ import annotations

from evidex.extractors.document import Parser
from evidex.extractors.llm.base import LLMBackend
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError

__all__ = ["PARSERS", "make_llm", "make_parser"]

PARSERS = ("pymupdf", "text")


def make_parser(name: str) -> Parser:
    if name == "pymupdf":
        from evidex.extractors.parsers.pymupdf_parser import PyMuPDFParser

        return PyMuPDFParser()
    if name == "text":
        from evidex.extractors.parsers.text import TextParser

        return TextParser()
    raise ConfigError(
        f"parser {name!r} is not available in this version; use one of: {', '.join(PARSERS)}"
    )


def make_llm(settings: Settings) -> LLMBackend:
    if settings.backend == "rules":
        from evidex.extractors.llm.rules import RulesBackend

        return RulesBackend()
    from evidex.extractors.llm.openai_backend import OpenAIBackend

    return OpenAIBackend.from_settings(settings)
