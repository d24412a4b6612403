"""The ``evidex`` command line.

``evidex extract FILE --schema NAME|SCHEMA.json [--llm openai|rules] [--model M]
[--parser auto|pymupdf|ocr|azure] [--pages 1-3] [--out result.json] [--annotate highlighted.pdf]``

``evidex verify RESULT.json FILE [--schema S] [--out new.json]`` re-verifies a stored result against
its document and prints the verification report.

``evidex schemas [NAME]``; ``evidex serve [--host H] [--port P]`` (the REST API under uvicorn);
``evidex worker [--concurrency N] [--queues Q1,Q2]`` (a Celery worker, thread pool).

Exit codes: 0 done; 1 the extraction failed; 2 bad input or usage. Failures print one line on
stderr: ``evidex: <code>: <what happened and what to do>``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evidex.extractors.backends import make_llm, make_parser
from evidex.extractors.document import ParsedDocument, Parser, select_pages
from evidex.extractors.highlight import annotate
from evidex.extractors.pipeline import extract
from evidex.extractors.reverify import reverify
from evidex.extractors.settings import Settings
from evidex.schemas import (
    ConfigError,
    EvidexError,
    InputError,
    Result,
    SchemaDef,
    SchemaInvalid,
    builtin_names,
    get_schema,
    schema_from_json,
)
from evidex.service.report import render_report
from evidex.service.table import render_table

__all__ = ["load_schema", "main"]


def load_schema(ref: str) -> SchemaDef:
    """A built-in schema name, or the path of a JSON Schema file of plain values."""
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


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="evidex", description="Extraction with per-field evidence.")
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="extract a schema from a document")
    ex.add_argument("file", type=Path)
    ex.add_argument(
        "--schema",
        required=True,
        help=f"built-in name ({', '.join(builtin_names())}) or a JSON Schema file",
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
    ex.add_argument("--pages", help="only these pages, e.g. '1-3,5'")
    ex.add_argument("--quiet", action="store_true", help="do not print the field table")
    vf = sub.add_parser("verify", help="re-verify a stored result JSON against its document")
    vf.add_argument("result", type=Path)
    vf.add_argument("file", type=Path)
    vf.add_argument("--schema", help="the schema, when the result used a custom JSON Schema file")
    vf.add_argument("--out", type=Path, help="write the re-verified result JSON here")
    sc = sub.add_parser("schemas", help="list the built-in schemas or print one")
    sc.add_argument("name", nargs="?")
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
    return ap


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {k: v for k, v in (("llm", args.llm), ("model", args.model)) if v}
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise InputError(f"invalid setting: {exc.errors()[0]['msg']}") from None


def _extract(args: argparse.Namespace) -> int:
    schema = load_schema(args.schema)
    if not args.file.is_file():
        raise InputError(f"{args.file}: no such file")
    settings = _settings(args)
    data = args.file.read_bytes()
    parser = make_parser(args.parser, settings, args.tables)
    if args.pages:
        parser = _PageParser(parser, args.pages)
    result = extract(
        data,
        schema,
        parser=parser,
        llm=make_llm(settings),
        filename=args.file.name,
    )
    to_stdout = str(args.out) == "-"
    if args.out and not to_stdout:
        args.out.write_text(result.to_json() + "\n", encoding="utf-8")
    if args.annotate:
        if result.document.page_info and result.document.page_info[0].unit == "px":
            from evidex.extractors.parsers.images import annotate_image

            args.annotate.write_bytes(annotate_image(data, result))  # a PNG of page 1
        else:
            args.annotate.write_bytes(annotate(data, result))
    if not args.quiet:
        print(render_table(result), file=sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        print(result.to_json())
    return 0


class _PageParser:
    """A parser restricted to a page selection (global line numbers are kept)."""

    def __init__(self, inner: Parser, pages: str) -> None:
        self.inner, self.pages, self.name = inner, pages, inner.name

    def parse(self, data: bytes, filename: str) -> ParsedDocument:
        document = self.inner.parse(data, filename)
        try:
            return select_pages(document, self.pages)
        except ValueError as exc:
            raise InputError(str(exc)) from None


def _verify(args: argparse.Namespace) -> int:
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
    if args.name:
        print(json.dumps(get_schema(args.name).wire_schema, indent=2))
    else:
        for name in builtin_names():
            schema = get_schema(name)
            print(f"{name:20} {len(schema.leaves):3} fields  {schema.description}")
    return 0


def _from_env(settings_class: type[Any]) -> Any:
    """Settings from the environment; an invalid value is a ConfigError (one line, exit 2)."""
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

    settings: ServiceSettings = _from_env(ServiceSettings)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    app = production_app(settings)
    uvicorn.run(
        app,
        host=args.host or settings.host,
        port=args.port or settings.port,
        log_level=args.log_level,
    )
    return 0


def _worker(args: argparse.Namespace) -> int:
    from evidex.workers.celery_app import make_celery
    from evidex.workers.settings import WorkerSettings

    settings: WorkerSettings = _from_env(WorkerSettings)
    celery = make_celery(settings)
    concurrency = args.concurrency or settings.worker_concurrency
    argv = ["worker", "--pool", "threads", "--concurrency", str(concurrency)]
    argv += ["--loglevel", args.loglevel]
    if args.queues:
        argv += ["--queues", args.queues]
    celery.worker_main(argv)
    return 0


_COMMANDS = {
    "extract": _extract,
    "verify": _verify,
    "schemas": _schemas,
    "serve": _serve,
    "worker": _worker,
}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
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
