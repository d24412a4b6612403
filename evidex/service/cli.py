"""The ``evidex`` command line.

``evidex extract FILE --schema NAME|SCHEMA.json [--llm openai|rules] [--model M]
[--parser auto|pymupdf|ocr|azure] [--pages 1-3] [--out result.json] [--annotate highlighted.pdf]``

``evidex verify RESULT.json FILE [--schema S] [--out new.json]`` re-verifies a stored result against
its document and prints the verification report.

``evidex schemas [NAME]``; ``evidex serve [--host H] [--port P]`` (the REST API under uvicorn);
``evidex worker [--concurrency N] [--queues Q1,Q2]`` (a Celery worker, thread pool).

``evidex schemas --explain SCHEMA.json`` prints each field's kind and its source (declared,
inferred or default) before any job is sent.

Exit codes: 0 done; 1 the extraction failed; 2 bad input or usage. Failures print one line on
stderr: ``evidex: <code>: <what happened and what to do>``. Flags with a number or a page
selection are bounded as the REST options are (``--pages`` at most 1000 characters of digits,
``,``, ``-``; ``--context-tokens`` 1 to 10,000,000; ``--jobs`` 1 to 64 processes): argparse
refuses a value outside them with exit 2 before any file is read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Start-up time: ``evidex --help`` and ``evidex schemas`` import none of pydantic, pandas,
# PyMuPDF, the SDKs or the web stack; each command imports what it uses, where it uses it.
if TYPE_CHECKING:
    from evidex.extractors.document import ParsedDocument, Parser
    from evidex.extractors.settings import Settings
    from evidex.schemas import Result, SchemaDef

BUILTIN_HELP = "candidate_profile, contract, invoice; see 'evidex schemas'"
MAX_JOBS = 64  # local processes, each holding the whole extraction stack
MAX_CONTEXT_TOKENS = 10_000_000  # as options.context_tokens over REST
MAX_PAGES_CHARS = 1000  # as options.pages over REST
_PAGE_SELECTION = re.compile(r"[0-9 ,-]+")

__all__ = ["load_schema", "main"]


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


def _parser() -> argparse.ArgumentParser:
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
        choices=["openai", "rules"],
        help="default: openai when OPENAI_API_KEY is set, else rules",
    )
    ex.add_argument("--model", help="model name for --llm openai (default EVIDEX_MODEL)")
    ex.add_argument(
        "--parser",
        choices=["auto", "pymupdf", "ocr", "azure"],
        default="auto",
        help="auto (default): the text layer where a page has one, OCR (Azure when configured, "
        "else Tesseract) for scanned pages and images; pymupdf: text layer only; ocr: Tesseract "
        "for pages without text; azure: Azure Document Intelligence",
    )
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
    sb = sub.add_parser("submit", help="send documents to an evidex service and fetch results")
    sb.add_argument("file", nargs="+", type=Path, metavar="FILE")
    sb.add_argument("--server", required=True, help="the service's base URL, http://host:8000")
    sb.add_argument("--schema", required=True, help="built-in name or a JSON Schema file")
    sb.add_argument("--api-key", help="default: EVIDEX_API_KEY from the environment")
    sb.add_argument("--options", help='job options as JSON, e.g. \'{"llm": "rules"}\'')
    sb.add_argument("--out-dir", type=Path, help="write <name>.result.json per document here")
    sb.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for each job")
    return ap


def _settings(args: argparse.Namespace) -> Settings:
    from pydantic import ValidationError

    from evidex.extractors.settings import Settings
    from evidex.schemas import InputError

    chosen = (("llm", args.llm), ("model", args.model), ("context_tokens", args.context_tokens))
    overrides = {k: v for k, v in chosen if v is not None and v != ""}
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise InputError(f"invalid setting: {exc.errors()[0]['msg']}") from None


def _extract(args: argparse.Namespace) -> int:
    from evidex.service.batch import is_batch, run_batch

    if is_batch(args):
        return run_batch(args, extract_file)
    args.file = args.file[0]
    result, data = extract_file(args, args.file)
    to_stdout = str(args.out) == "-"
    if args.out and not to_stdout:
        args.out.write_text(result.to_json() + "\n", encoding="utf-8")
    if args.annotate:
        if result.document.page_info and result.document.page_info[0].unit == "px":
            from evidex.extractors.parsers.images import annotate_image

            args.annotate.write_bytes(annotate_image(data, result))  # a PNG of page 1
        else:
            from evidex.extractors.highlight import annotate

            args.annotate.write_bytes(annotate(data, result))
    if not args.quiet:
        from evidex.service.table import render_table

        print(render_table(result), file=sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        print(result.to_json())
    return 0


def extract_file(args: argparse.Namespace, path: Path) -> tuple[Result, bytes]:
    """One document with the options of ``evidex extract``: its result and its bytes."""
    from evidex.extractors.backends import make_context, make_llm, make_parser
    from evidex.extractors.pipeline import extract
    from evidex.schemas import InputError

    schema = load_schema(args.schema)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    settings = _settings(args)
    data = path.read_bytes()
    parser = make_parser(args.parser, settings, args.tables)
    if args.pages:
        parser = _PageParser(parser, args.pages)
    result = extract(
        data,
        schema,
        parser=parser,
        llm=make_llm(settings),
        filename=path.name,
        context=make_context(settings),
    )
    return result, data


class _PageParser:
    """A parser restricted to a page selection (global line numbers are kept)."""

    def __init__(self, inner: Parser, pages: str) -> None:
        self.inner, self.pages, self.name = inner, pages, inner.name

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        from evidex.extractors.document import select_pages
        from evidex.schemas import InputError

        document = self.inner.parse(data, filename)
        try:
            return select_pages(document, self.pages)
        except ValueError as exc:
            raise InputError(str(exc)) from None


def _verify(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from evidex.extractors.backends import make_parser
    from evidex.extractors.reverify import reverify
    from evidex.schemas import InputError, Result
    from evidex.service.report import render_report

    try:
        stored = Result.model_validate_json(args.result.read_text(encoding="utf-8"))
    except ValidationError as exc:
        raise InputError(
            f"{args.result} is not an evidex result: {exc.errors()[0]['msg']}"
        ) from None
    if not args.file.is_file():
        raise InputError(f"{args.file}: no such file")
    schema = load_schema(args.schema or stored.schema_name)
    document = make_parser(stored.document.parser).parse(args.file.read_bytes(), args.file.name)
    result, changes = reverify(stored, document, schema)
    if args.out:
        args.out.write_text(result.to_json() + "\n", encoding="utf-8")
    print(render_report(result, changes))
    return 0


def _schemas(args: argparse.Namespace) -> int:
    from evidex.schemas import builtin_names, get_schema

    if args.explain:
        schema = load_schema(args.explain)
        width = max(len(leaf.path) for leaf in schema.leaves)
        for leaf in schema.leaves:
            typed = f"  ({leaf.json_type})" if leaf.json_type else ""
            print(f"{leaf.path:{width}}  {leaf.kind:10} {leaf.kind_source:8}{typed}")
        for rule in schema.rules:
            print(f"rule: {rule.describe()}")
        return 0
    if args.name:
        print(json.dumps(get_schema(args.name).wire_schema, indent=2))
    else:
        for name in builtin_names():
            schema = get_schema(name)
            print(f"{name:20} {len(schema.leaves):3} fields  {schema.description}")
    return 0


def _from_env(settings_class: type[Any]) -> Any:
    """Settings from the environment; an invalid value is a ConfigError (one line, exit 2)."""
    from pydantic import ValidationError

    from evidex.schemas import ConfigError

    try:
        return settings_class()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise ConfigError(f"invalid setting {where}: {first['msg']}") from None


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from evidex.service.app import production_app
    from evidex.service.settings import ServiceSettings
    from evidex.workers.logs import configure_logging

    settings: ServiceSettings = _from_env(ServiceSettings)
    configure_logging(settings.log_format, args.log_level)
    app = production_app(settings)
    uvicorn.run(
        app,
        host=args.host or settings.host,
        port=args.port or settings.port,
        log_level=args.log_level,
        log_config=None,  # uvicorn's records go through evidex's structured logs
        access_log=False,  # one record per request comes from the app (requestlog.py)
    )
    return 0


def _worker(args: argparse.Namespace) -> int:
    from evidex.workers.celery_app import make_celery
    from evidex.workers.logs import configure_logging
    from evidex.workers.settings import WorkerSettings

    settings: WorkerSettings = _from_env(WorkerSettings)
    configure_logging(settings.log_format, args.loglevel)
    celery = make_celery(settings)
    celery.conf.worker_hijack_root_logger = False  # keep the structured logs configured above
    concurrency = args.concurrency or settings.worker_concurrency
    argv = ["worker", "--pool", "threads", "--concurrency", str(concurrency)]
    argv += ["--loglevel", args.loglevel]
    if args.queues:
        argv += ["--queues", args.queues]
    celery.worker_main(argv)
    return 0


def _submit(args: argparse.Namespace) -> int:
    from evidex.service.submit import run_submit

    return run_submit(args)


_COMMANDS = {
    "submit": _submit,
    "extract": _extract,
    "verify": _verify,
    "schemas": _schemas,
    "serve": _serve,
    "worker": _worker,
}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from evidex.schemas.errors import EvidexError

    try:
        return _COMMANDS[args.command](args)
    except EvidexError as exc:
        print(f"evidex: {exc.code}: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        print(f"evidex: io_error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
