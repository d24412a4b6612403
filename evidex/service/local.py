"""What ``evidex extract``, ``evidex schemas`` and the MCP tools run in this process: one document
with the command line's options, and the texts that describe schemas.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evidex.service.cliargs import load_schema

if TYPE_CHECKING:
    from evidex.extractors.document import ParsedDocument, Parser
    from evidex.extractors.settings import Settings
    from evidex.schemas import Result, SchemaDef

__all__ = ["explain_text", "extract_file", "schemas_text"]


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


def extract_file(
    args: argparse.Namespace, path: Path, schema: SchemaDef | None = None
) -> tuple[Result, bytes]:
    """One document with the options of ``evidex extract``: its result and its bytes.
    ``schema``, when given, is used instead of reading ``args.schema``."""
    from evidex.extractors.backends import make_context, make_llm, make_parser
    from evidex.extractors.pipeline import extract
    from evidex.schemas import InputError

    schema = schema or load_schema(args.schema)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    settings = _settings(args)
    data = path.read_bytes()
    parser = make_parser(args.parser, settings, args.tables, getattr(args, "ocr", None))
    if args.pages:
        parser = _PageParser(parser, args.pages)
    result = extract(
        data,
        schema,
        parser=parser,
        llm=make_llm(settings),
        filename=path.name,
        context=make_context(settings),
        gate=not getattr(args, "no_gate", False),
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


def explain_text(schema: SchemaDef) -> str:
    """Each field's path, kind and the kind's source, one a line; then the rules."""
    width = max(len(leaf.path) for leaf in schema.leaves)
    lines = []
    for leaf in schema.leaves:
        typed = f"  ({leaf.json_type})" if leaf.json_type else ""
        lines.append(f"{leaf.path:{width}}  {leaf.kind:10} {leaf.kind_source:8}{typed}")
    lines += [f"rule: {rule.describe()}" for rule in schema.rules]
    return "\n".join(lines)


def schemas_text() -> str:
    """The built-in schemas, one a line: name, number of fields, description."""
    from evidex.schemas import builtin_names, get_schema

    return "\n".join(
        f"{name:20} {len(schema.leaves):3} fields  {schema.description}"
        for name, schema in ((n, get_schema(n)) for n in builtin_names())
    )
