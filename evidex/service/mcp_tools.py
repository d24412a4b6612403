"""What the MCP tools do, apart from the protocol: plain functions that return models or raise
evidex errors (:mod:`evidex.service.mcp_server` turns both into tool results).

Each tool goes through the code path its command line or REST twin uses, so an agent gets what a
person gets: ``extract_document`` is ``evidex extract`` (the CLI's own argument parser fills every
option an agent does not give, and :func:`evidex.service.local.extract_file` runs it), with the
schema read as ``POST /v1/jobs`` reads ``schema``/``schema_json`` and the options bounded by the
REST API's :class:`~evidex.workers.jobs.JobOptions`; ``explain_schema`` reads the schema as
``POST /v1/schemas/explain`` does and prints it as ``evidex schemas --explain``; ``verify_result``
is ``evidex verify``.

Files are opened only through :class:`~evidex.service.mcp_files.Roots`. Documents are read one at
a time (a lock): over HTTP several calls may arrive at once, and the parsers are not made to run
side by side in one process.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from evidex.extractors.backends import make_parser
from evidex.extractors.verify.reverify import reverify
from evidex.schemas import InputError, Result, SchemaDef, Status, Summary, builtin_names, get_schema
from evidex.schemas.validation import first_problem
from evidex.service.cliargs import parse_args
from evidex.service.intake import read_schema
from evidex.service.local import extract_file
from evidex.service.mcp_files import Roots
from evidex.service.report import render_report
from evidex.service.views import LeafView
from evidex.workers.jobs import JobOptions

__all__ = [
    "BuiltinSchema",
    "OptionsInvalid",
    "SchemaList",
    "StatusChange",
    "Tools",
    "VerifyReport",
]


class OptionsInvalid(InputError):
    """A tool call's option is outside what evidex accepts (``options_invalid``, as over REST)."""

    code = "options_invalid"


class BuiltinSchema(BaseModel):
    name: str
    description: str
    fields: list[LeafView] = Field(description="Each leaf: its path, kind and description.")
    rules: list[str] = Field(description="The cross-field rules the result is checked against.")


class SchemaList(BaseModel):
    schemas: list[BuiltinSchema]


class StatusChange(BaseModel):
    path: str
    before: Status
    after: Status


class VerifyReport(BaseModel):
    report: str = Field(description="The verification report, as `evidex verify` prints it.")
    summary: Summary
    changes: list[StatusChange] = Field(description="Fields whose status is not what was stored.")
    result: Result = Field(description="The result, verified again against the document.")


class Tools:
    """The four tools over one set of allowed roots."""

    def __init__(self, roots: Roots) -> None:
        self.roots = roots
        self._one_document = threading.Lock()

    def extract_document(
        self,
        path: str,
        schema: str | None = None,
        schema_json: dict[str, Any] | str | None = None,
        llm: str | None = None,
        pages: str | None = None,
        context_tokens: int | None = None,
    ) -> Result:
        definition = _schema(schema, schema_json)
        options = _options(llm=llm, pages=pages, context_tokens=context_tokens)
        file = self.roots.file(path)
        argv = ["extract", str(file), "--schema", schema or definition.name, "--quiet"]
        if options.llm:
            argv += ["--llm", options.llm]
        if options.pages and options.pages.strip():
            argv += ["--pages", options.pages]
        if options.context_tokens:
            argv += ["--context-tokens", str(options.context_tokens)]
        try:
            args = parse_args(argv)
        except SystemExit:  # the bounds above are the CLI's; this is a safety net
            raise OptionsInvalid(f"the options cannot be used: {' '.join(argv[3:])}") from None
        with self._one_document:
            result, _ = extract_file(args, file, definition)
        return result

    def read_schema(self, schema_json: dict[str, Any] | str) -> SchemaDef:
        """A client's JSON Schema, read as a job's ``schema_json`` is (``explain_schema``)."""
        return _schema(None, schema_json)

    def list_schemas(self) -> SchemaList:
        return SchemaList(
            schemas=[
                BuiltinSchema(
                    name=s.name,
                    description=s.description,
                    fields=[LeafView.of(leaf) for leaf in s.leaves],
                    rules=[rule.describe() for rule in s.rules],
                )
                for s in map(get_schema, builtin_names())
            ]
        )

    def verify_result(
        self,
        result: dict[str, Any] | str,
        path: str,
        schema_json: dict[str, Any] | str | None = None,
    ) -> VerifyReport:
        try:
            if isinstance(result, str):
                stored = Result.model_validate_json(result)
            else:
                stored = Result.model_validate(result)
        except ValidationError as exc:
            raise InputError(f"result is not an evidex result: {exc.errors()[0]['msg']}") from None
        definition = (
            _schema(None, schema_json)
            if schema_json is not None
            else get_schema(stored.schema_name)
        )
        file = self.roots.file(path)
        with self._one_document:
            document = make_parser(stored.document.parser).parse(file.read_bytes(), file.name)
            checked, changes = reverify(stored, document, definition)
        return VerifyReport(
            report=render_report(checked, changes),
            summary=checked.summary,
            changes=[StatusChange(path=c.path, before=c.before, after=c.after) for c in changes],
            result=checked,
        )


def _schema(name: str | None, schema_json: dict[str, Any] | str | None) -> SchemaDef:
    """A built-in by name, or a JSON Schema of plain values (an object, or its JSON text), read
    exactly as the REST API reads a job's ``schema``/``schema_json``."""
    text = schema_json if isinstance(schema_json, str) else None
    if schema_json is not None and text is None:
        try:
            text = json.dumps(schema_json, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise InputError(f"schema_json is not JSON: {exc}") from None
    if (name is None) == (text is None):
        raise InputError("pass exactly one of 'schema' (a built-in name) or 'schema_json'")
    return read_schema(name, text)[0]


def _options(**given: Any) -> JobOptions:
    """The options, bounded as the REST API bounds a job's options."""
    try:
        return JobOptions.model_validate({k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        raise OptionsInvalid(first_problem(exc, "options")) from None
