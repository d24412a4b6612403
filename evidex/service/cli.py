"""The ``evidex`` command line.

``evidex extract FILE --schema NAME|SCHEMA.json [--llm openai|rules] [--model M]
[--parser auto|pymupdf|ocr|azure] [--pages 1-3] [--out result.json] [--annotate highlighted.pdf]
[--no-gate]``: a document without text (``document_empty``) or one that does not answer the
schema (``document_mismatch``) exits 2 before any model call, unless ``--no-gate``.

``evidex verify RESULT.json FILE [--schema S] [--out new.json]`` re-verifies a stored result against
its document and prints the verification report.

``evidex schemas [NAME]``; ``evidex serve [--host H] [--port P]`` (the REST API under uvicorn);
``evidex worker [--concurrency N] [--queues Q1,Q2]`` (a Celery worker, thread pool).

``evidex mcp [--http HOST:PORT]`` serves the extraction as tools to MCP clients (agents), over stdio
or, with ``--http``, streamable HTTP behind the API keys (see :mod:`evidex.service.mcp_server`).

``evidex lines FILE [--parser P] [--ocr tesseract|rapidocr|auto] [--pages 1-3] [--format
tsv|jsonl]`` prints the line table as the model sees it (:mod:`evidex.service.linetable`);
``--ocr`` on ``extract`` and ``lines`` picks the local OCR engine (default EVIDEX_OCR_ENGINE).

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
import sys
from typing import Any

# Start-up time: ``evidex --help`` and ``evidex schemas`` import none of pydantic, pandas,
# PyMuPDF, the SDKs or the web stack; each command imports what it uses, where it uses it.
from evidex.service.cliargs import build_parser, load_schema
from evidex.service.local import explain_text, extract_file, schemas_text

__all__ = ["main"]


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
            from evidex.extractors.parse.images import annotate_image

            args.annotate.write_bytes(annotate_image(data, result))  # a PNG of page 1
        else:
            from evidex.extractors.parse.highlight import annotate

            args.annotate.write_bytes(annotate(data, result))
    if not args.quiet:
        from evidex.service.table import render_table

        print(render_table(result), file=sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        print(result.to_json())
    return 0


def _verify(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from evidex.extractors.backends import make_parser
    from evidex.extractors.verify.reverify import reverify
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
    from evidex.schemas import get_schema

    if args.explain:
        print(explain_text(load_schema(args.explain)))
        return 0
    if args.name:
        print(json.dumps(get_schema(args.name).wire_schema, indent=2))
    else:
        print(schemas_text())
    return 0


def _from_env(settings_class: type[Any]) -> Any:
    """Settings from the environment; an invalid value is a ConfigError (one line, exit 2)."""
    from pydantic import ValidationError

    from evidex.schemas import ConfigError
    from evidex.schemas.validation import first_problem

    try:
        return settings_class()
    except ValidationError as exc:
        raise ConfigError(f"invalid setting {first_problem(exc, 'settings')}") from None


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


def _mcp(args: argparse.Namespace) -> int:
    from evidex.service.mcp_server import run_mcp

    return run_mcp(args.http, args.log_level)


def _submit(args: argparse.Namespace) -> int:
    from evidex.service.submit import run_submit

    return run_submit(args)


def _lines(args: argparse.Namespace) -> int:
    from evidex.service.linetable import run_lines

    return run_lines(args)


_COMMANDS = {
    "lines": _lines,
    "submit": _submit,
    "mcp": _mcp,
    "extract": _extract,
    "verify": _verify,
    "schemas": _schemas,
    "serve": _serve,
    "worker": _worker,
}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
