"""Build the configured parser and LLM backend from ``Settings`` (used by composition roots)."""

from __future__ import annotations

from typing import get_args

from evidex.extractors.document import Parser
from evidex.extractors.llm.base import LLMBackend
from evidex.extractors.names import OcrEngineName, ParserName
from evidex.extractors.plan.context import ContextBudget
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError

__all__ = ["OCR_ENGINES", "PARSERS", "make_context", "make_llm", "make_parser"]

PARSERS: tuple[str, ...] = (*get_args(ParserName), "text")  # and "text", the shipped fake
OCR_ENGINES: tuple[str, ...] = get_args(OcrEngineName)


def make_parser(
    name: str,
    settings: Settings | None = None,
    tables: str | None = None,
    ocr: str | None = None,
) -> Parser:
    """The parser called ``name`` (:data:`PARSERS`). ``settings`` configure Azure (``azure``
    needs them, ``auto`` uses Azure for scanned pages when they name an endpoint) and the local
    OCR engine (``ocr_engine``). ``tables``: how the text layer's tables are found (``words``,
    the default; ``layout``: PyMuPDF's layout model; ``off``); ``ocr``: the local OCR engine
    (``tesseract``, ``rapidocr``, ``auto``; default the settings'). ``name`` may carry both after
    colons, in any order, as ``"auto:layout:rapidocr"`` (a job's options in one string)."""
    name, *suffixes = name.split(":")
    for suffix in suffixes:
        if suffix in OCR_ENGINES:
            ocr = ocr or suffix
        elif suffix:
            tables = tables or suffix
    if ocr is not None and ocr not in OCR_ENGINES:
        raise ConfigError(
            f"OCR engine {ocr!r} does not exist; use one of: {', '.join(OCR_ENGINES)}"
        )
    engine = ocr or (settings.ocr_engine if settings is not None else None)
    layer: Parser | None = None
    if tables is not None and name in ("auto", "pymupdf", "ocr"):
        from evidex.extractors.parse.pymupdf_parser import TABLE_MODES, PyMuPDFParser

        if tables not in TABLE_MODES:
            raise ConfigError(
                f"tables {tables!r} does not exist; use one of: {', '.join(TABLE_MODES)}"
            )
        layer = PyMuPDFParser(tables=tables)
        if name == "pymupdf":
            return layer
    if name in ("auto", "ocr"):
        from evidex.extractors.parse.ocr import DEFAULT_ENGINE, OcrParser

        local = OcrParser(text_layer=layer, engine=engine or DEFAULT_ENGINE)
        if name == "ocr":
            return local
        from evidex.extractors.parse.auto import AutoParser, azure_parser

        azure = azure_parser(settings) if settings is not None else None
        return AutoParser(text_layer=layer, ocr=local, azure=azure)
    if name == "pymupdf":
        from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser

        return PyMuPDFParser()
    if name == "azure":
        return _azure(settings)
    if name == "text":
        from evidex.extractors.parse.text import TextParser

        return TextParser()
    raise ConfigError(f"parser {name!r} does not exist; use one of: {', '.join(PARSERS)}")


def _azure(settings: Settings | None) -> Parser:
    try:
        from evidex.extractors.parse.azure_layout import AzureLayoutParser
    except ImportError:
        raise ConfigError(
            "parser 'azure' is not available in this version (its module or the "
            "azure-ai-documentintelligence package is missing); use --parser auto or ocr"
        ) from None
    if settings is None:
        raise ConfigError("parser 'azure' is not available: no settings name its endpoint")
    try:
        parser: Parser = AzureLayoutParser.from_settings(settings)
    except ConfigError as exc:
        raise ConfigError(f"parser 'azure' is not available: {exc}") from None
    return parser


def make_llm(settings: Settings) -> LLMBackend:
    if settings.backend == "rules":
        from evidex.extractors.llm.rules import RulesBackend

        return RulesBackend()
    from evidex.extractors.llm.openai_backend import OpenAIBackend

    return OpenAIBackend.from_settings(settings)


def make_context(settings: Settings) -> ContextBudget | None:
    """The context budget of ``EVIDEX_CONTEXT_TOKENS``; None (one call, whatever the size) when
    it is not set."""
    if not settings.context_tokens:
        return None
    return ContextBudget(settings.context_tokens, settings.max_output_tokens)
