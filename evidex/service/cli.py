"""The ``evidex`` command line.

``evidex extract FILE --schema NAME|SCHEMA.json [--llm openai|rules] [--model M]
[--parser pymupdf|azure|ocr] [--out result.json] [--annotate highlighted.pdf]``

Exit codes: 0 done; 1 the extraction failed; 2 bad input or usage. Failures print one line on
stderr: ``evidex: <code>: <what happened and what to do>``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from evidex.extractors.backends import make_llm, make_parser
from evidex.extractors.highlight import annotate
from evidex.extractors.pipeline import extract
from evidex.extractors.settings import Settings
from evidex.schemas import (
    EvidexError,
    InputError,
    SchemaDef,
    SchemaInvalid,
    builtin_names,
    get_schema,
    schema_from_json,
)
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
    ex.add_argument("--parser", choices=["pymupdf", "azure", "ocr"], default="pymupdf")
    ex.add_argument("--out", type=Path, help="write the result JSON here ('-' for stdout)")
    ex.add_argument("--annotate", type=Path, help="write the highlighted PDF here")
    ex.add_argument("--quiet", action="store_true", help="do not print the field table")
    sc = sub.add_parser("schemas", help="list the built-in schemas or print one")
    sc.add_argument("name", nargs="?")
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
    if args.parser != "pymupdf":
        raise InputError(
            f"parser {args.parser!r} is not available in this version; use --parser pymupdf"
        )
    data = args.file.read_bytes()
    result = extract(
        data,
        schema,
        parser=make_parser(args.parser),
        llm=make_llm(settings),
        filename=args.file.name,
    )
    to_stdout = str(args.out) == "-"
    if args.out and not to_stdout:
        args.out.write_text(result.to_json() + "\n", encoding="utf-8")
    if args.annotate:
        args.annotate.write_bytes(annotate(data, result))
    if not args.quiet:
        print(render_table(result), file=sys.stderr if to_stdout else sys.stdout)
    if to_stdout:
        print(result.to_json())
    return 0


def _schemas(args: argparse.Namespace) -> int:
    if args.name:
        print(json.dumps(get_schema(args.name).wire_schema, indent=2))
    else:
        for name in builtin_names():
            schema = get_schema(name)
            print(f"{name:20} {len(schema.leaves):3} fields  {schema.description}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _extract(args) if args.command == "extract" else _schemas(args)
    except EvidexError as exc:
        print(f"evidex: {exc.code}: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        print(f"evidex: io_error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
