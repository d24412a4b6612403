"""The ``evidex`` command line's arguments: the parser of every verb, the bounds its flags share
with the REST options, and reading a ``--schema`` argument (see :mod:`evidex.service.cli`).

Kept apart from the commands, so the modules that run them (the batch, the MCP tools) and the
command line itself import this one and not each other.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from evidex.extractors.names import BackendName, OcrEngineName, ParserName

if TYPE_CHECKING:
    from evidex.schemas import SchemaDef

BUILTIN_HELP = "candidate_profile, contract, invoice, receipt; see 'evidex schemas'"
MAX_JOBS = 64  # local processes, each holding the whole extraction stack
MAX_CONTEXT_TOKENS = 10_000_000  # as options.context_tokens over REST
MAX_PAGES_CHARS = 1000  # as options.pages over REST
OCR_CHOICES = list(get_args(OcrEngineName))
OCR_HELP = (
    "the local OCR engine for scans and photos (default EVIDEX_OCR_ENGINE, else auto): "
    "tesseract, rapidocr, or auto (per page: RapidOCR, then Tesseract too when it reads poorly)"
)
_PAGE_SELECTION = re.compile(r"[0-9 ,-]+")

__all__ = ["OCR_CHOICES", "OCR_HELP", "build_parser", "load_schema", "parse_args"]


def load_schema(ref: str) -> SchemaDef:
    """A built-in schema name, or the path of a JSON Schema file of plain values."""
    from evidex.schemas import SchemaInvalid, builtin_names, get_schema, schema_from_json

    path = Path(ref)
    if ref in builtin_names() or (not path.suffix and not path.exists()):
        return get_schema(ref)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SchemaInvalid(f"schema file {ref} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SchemaInvalid(f"schema file {ref} is not valid JSON: {exc}") from None
    return schema_from_json(raw, name=path.stem)


def _whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low:,} to {high:,}, not {value:,}")
        return value

    return parse


def _page_selection(text: str) -> str:
    """An argparse ``type``: pages as ``1-3,5``, at most MAX_PAGES_CHARS characters."""
    if len(text) > MAX_PAGES_CHARS or not _PAGE_SELECTION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"a page selection is digits, ',' and '-' (e.g. 1-3,5), at most {MAX_PAGES_CHARS} "
            "characters"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="evidex", description="Extraction with per-field evidence.")
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser(
        "extract",
        help="extract a schema from a document, or from many (paths, folders, globs)",
    )
    ex.add_argument(
        "file",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="a document; several, folders or globs ('in/**/*.pdf') need --out-dir",
    )
    ex.add_argument(
        "--schema",
        required=True,
        help=f"built-in name ({BUILTIN_HELP}) or a JSON Schema file",
    )
    ex.add_argument(
        "--llm",
        choices=list(get_args(BackendName)),
        help="default: openai when OPENAI_API_KEY is set, else rules",
    )
    ex.add_argument("--model", help="model name for --llm openai (default EVIDEX_MODEL)")
    ex.add_argument(
        "--parser",
        choices=list(get_args(ParserName)),
        default="auto",
        help="auto (default): the text layer where a page has one, OCR (Azure when configured, "
        "else Tesseract) for scanned pages and images; pymupdf: text layer only; ocr: Tesseract "
        "for pages without text; azure: Azure Document Intelligence",
    )
    ex.add_argument("--ocr", choices=OCR_CHOICES, help=OCR_HELP)
    ex.add_argument(
        "--tables",
        choices=["words", "layout", "off"],
        help="how PDF tables are found: words (default; from the text layer), layout (PyMuPDF's "
        "layout model: slower, ~0.3 s a tabular page), off",
    )
    ex.add_argument("--out", type=Path, help="write the result JSON here ('-' for stdout)")
    ex.add_argument("--annotate", type=Path, help="write the highlighted PDF here")
    ex.add_argument("--pages", type=_page_selection, help="only these pages, e.g. '1-3,5'")
    ex.add_argument(
        "--context-tokens",
        type=_whole_number(1, MAX_CONTEXT_TOKENS),
        help="the model's window in tokens (default EVIDEX_CONTEXT_TOKENS): a longer document is "
        "sent in the pages most relevant to the fields",
    )
    ex.add_argument("--quiet", action="store_true", help="do not print the field table")
    ex.add_argument(
        "--no-gate",
        action="store_true",
        help="call the model even when the document has no text or does not answer the schema "
        "(document_empty, document_mismatch); the gate's verdict is still in trace.gate",
    )
    ex.add_argument(
        "--out-dir",
        type=Path,
        help="many files: write <name>.result.json per file, summary.csv and summary.jsonl "
        "here; files whose result is already there (same content, schema, version) are skipped",
    )
    ex.add_argument(
        "--jobs",
        type=_whole_number(1, MAX_JOBS),
        default=1,
        help=f"files extracted at once, in local processes (1 to {MAX_JOBS})",
    )
    vf = sub.add_parser("verify", help="re-verify a stored result JSON against its document")
    vf.add_argument("result", type=Path)
    vf.add_argument("file", type=Path)
    vf.add_argument("--schema", help="the schema, when the result used a custom JSON Schema file")
    vf.add_argument("--out", type=Path, help="write the re-verified result JSON here")
    sc = sub.add_parser("schemas", help="list the built-in schemas or print one")
    sc.add_argument("name", nargs="?")
    sc.add_argument(
        "--explain",
        metavar="SCHEMA.json",
        help="show how a JSON Schema will be read: each field's kind and where it came from",
    )
    sv = sub.add_parser("serve", help="run the REST API (uvicorn)")
    sv.add_argument("--host", help="interface to bind (default EVIDEX_HOST or 127.0.0.1)")
    sv.add_argument("--port", type=int, help="port (default EVIDEX_PORT or 8000)")
    sv.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    wk = sub.add_parser("worker", help="run a Celery worker that processes extraction jobs")
    wk.add_argument(
        "--concurrency", type=int, help="worker threads (default EVIDEX_WORKER_CONCURRENCY)"
    )
    wk.add_argument("--queues", help="comma-separated queues to consume (default: the app's)")
    wk.add_argument("--loglevel", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    mc = sub.add_parser("mcp", help="serve the extraction as tools to MCP clients (agents)")
    mc.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="streamable HTTP on this address (at /mcp, API keys as bearer tokens) instead of "
        "stdio",
    )
    mc.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    ln = sub.add_parser("lines", help="print the line table of a document as the model sees it")
    ln.add_argument("file", type=Path, metavar="FILE")
    ln.add_argument("--parser", choices=list(get_args(ParserName)), default="auto")
    ln.add_argument("--ocr", choices=OCR_CHOICES, help=OCR_HELP)
    ln.add_argument("--tables", choices=["words", "layout", "off"])
    ln.add_argument("--pages", help="only these pages, e.g. '1-3,5' (line numbers are kept)")
    ln.add_argument("--format", choices=["tsv", "jsonl"], default="tsv")
    sb = sub.add_parser("submit", help="send documents to an evidex service and fetch results")
    sb.add_argument("file", nargs="+", type=Path, metavar="FILE")
    sb.add_argument("--server", required=True, help="the service's base URL, http://host:8000")
    sb.add_argument("--schema", required=True, help="built-in name or a JSON Schema file")
    sb.add_argument("--api-key", help="default: EVIDEX_API_KEY from the environment")
    sb.add_argument("--options", help='job options as JSON, e.g. \'{"llm": "rules"}\'')
    sb.add_argument("--out-dir", type=Path, help="write <name>.result.json per document here")
    sb.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for each job")
    return ap


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line's options as ``main`` reads them: every default included, so a caller
    that builds a command (the MCP tools) gets the same options as a person typing it."""
    return build_parser().parse_args(argv)
