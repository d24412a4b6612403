"""``evidex mcp``: the extraction as tools for MCP clients (desktop assistants, IDE agents).

Built on the official ``mcp`` SDK's ``MCPServer``. Four tools, whose names are a contract:

::

    extract_document(path, schema?, schema_json?, llm?, pages?, context_tokens?)
        -> the Result JSON as structured content (every field's value, status, reasons, quote,
           page, line span and boxes; the summary), and the field table as text
    explain_schema(schema_json)      -> each field's path, kind and the kind's source
    list_schemas()                   -> the built-in schemas with their fields
    verify_result(result, path, schema_json?)
                                     -> the re-verification report and the re-verified result

Transports: stdio (the default; what a desktop client launches), or streamable HTTP at ``/mcp``
with ``--http HOST:PORT``, where every request needs ``Authorization: Bearer <key>`` with one of
the REST API's keys (``EVIDEX_API_KEYS`` / ``EVIDEX_API_KEYS_FILE``; checked by
:func:`evidex.service.auth.authenticate` through the SDK's ``TokenVerifier``): 401 otherwise. The
HTTP server refuses to start without keys, as ``evidex serve`` does.

Over stdio, stdout *is* the protocol: nothing else may write there, so logs go to stderr.
Failures never end the server: an evidex error becomes a tool result with ``isError: true``,
whose text is ``<code>: <message>`` and whose structured content is ``{"error": {"code",
"message"}}``; an unexpected exception is logged and answered ``internal_error``.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, ParamSpec

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AnyHttpUrl, Field

from evidex import __version__
from evidex.schemas import ConfigError, EvidexError, Result
from evidex.schemas.validation import first_problem
from evidex.service.auth import authenticate
from evidex.service.local import explain_text, schemas_text
from evidex.service.mcp_files import Roots
from evidex.service.mcp_tools import SchemaList, Tools, VerifyReport
from evidex.service.problems import ApiError
from evidex.service.settings import ApiKey, ServiceSettings
from evidex.service.table import render_table
from evidex.service.views import SchemaExplanation

__all__ = ["ApiKeyVerifier", "McpSettings", "as_tool_errors", "build_server", "failure", "run_mcp"]

log = logging.getLogger(__name__)
P = ParamSpec("P")
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "evidex reads documents (PDF, PNG, JPEG, TIFF) and returns each field of a schema with the "
    "evidence it was read from: a verbatim quote, the page, the global line span and boxes. "
    "Each field has a status: verified (quote found, value agrees), needs_review (see its "
    "reasons), unsupported (no evidence in the document) or not_found. Trust only verified "
    "values without checking; cite the quote and page:lines when you report one."
)


class McpSettings(ServiceSettings):
    """The service's settings (the API keys, for HTTP) plus the folders the tools may read."""

    mcp_roots: str = Field(
        default="",
        description="EVIDEX_MCP_ROOTS: the folders whose files the tools may read, separated by "
        "os.pathsep; empty: the working directory.",
    )


class ApiKeyVerifier:
    """The SDK's ``TokenVerifier`` over evidex's API keys: a bearer token is a REST API key."""

    def __init__(self, keys: Sequence[ApiKey]) -> None:
        self.keys = tuple(keys)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            caller = authenticate(f"Bearer {token}", self.keys)
        except ApiError:
            return None
        # the key's hash stands for it: the key itself is not kept
        return AccessToken(token=caller.key_sha256, client_id=caller.tenant, scopes=[])


def failure(code: str, message: str) -> CallToolResult:
    """A tool error the calling model can read and act on."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code}: {message}")],
        structured_content={"error": {"code": code, "message": message}},
        is_error=True,
    )


def _answer(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def as_tool_errors(fn: Callable[P, CallToolResult]) -> Callable[P, CallToolResult]:
    """Every failure of ``fn`` as a tool error with its evidex code; the server carries on."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
        try:
            return fn(*args, **kwargs)
        except EvidexError as exc:
            return failure(exc.code, exc.message)
        except ApiError as exc:
            return failure(exc.code, exc.detail)
        except OSError as exc:
            return failure("io_error", f"{exc}; check the file and try again")
        except Exception:
            log.exception("the tool %s failed unexpectedly", fn.__name__)
            return failure(
                "internal_error",
                "evidex failed unexpectedly; the server's log (stderr) has the details",
            )

    return call


SchemaJson = Annotated[
    dict[str, Any] | str,
    Field(description="A JSON Schema of plain values (an object, or its JSON text)."),
]


def build_server(
    tools: Tools, auth: AuthSettings | None = None, keys: Sequence[ApiKey] = ()
) -> MCPServer:
    """The MCP server with the four tools; ``auth`` (with ``keys``) guards streamable HTTP."""
    server = MCPServer(
        "evidex",
        instructions=INSTRUCTIONS,
        version=__version__,
        auth=auth,
        token_verifier=ApiKeyVerifier(keys) if auth is not None else None,
    )

    @server.tool(title="Extract a document with evidence", annotations=READ_ONLY)
    @as_tool_errors
    def extract_document(
        path: Annotated[
            str, Field(description="The document's path (relative: from the first allowed root).")
        ],
        schema: Annotated[
            str | None, Field(description="A built-in schema's name (see list_schemas).")
        ] = None,
        schema_json: Annotated[
            dict[str, Any] | str | None,
            Field(description="Instead of schema: a JSON Schema of plain values."),
        ] = None,
        llm: Annotated[
            str | None,
            Field(description="'openai' or 'rules' (default: openai when a key is configured)."),
        ] = None,
        pages: Annotated[str | None, Field(description="Only these pages, e.g. '1-3,5'.")] = None,
        context_tokens: Annotated[
            int | None,
            Field(description="The model's window in tokens: a longer document is sent in pages."),
        ] = None,
    ) -> Annotated[CallToolResult, Result]:
        """Extract a schema's fields from a document. Every field comes with its value, status
        (verified, needs_review, unsupported, not_found), reasons, the verbatim quote, page,
        global line span and boxes; `summary` counts the statuses."""
        result = tools.extract_document(path, schema, schema_json, llm, pages, context_tokens)
        data: dict[str, Any] = result.model_dump(mode="json", by_alias=True)
        return _answer(render_table(result), data)

    @server.tool(title="How a JSON Schema will be read", annotations=READ_ONLY)
    @as_tool_errors
    def explain_schema(schema_json: SchemaJson) -> Annotated[CallToolResult, SchemaExplanation]:
        """Each field of a JSON Schema with the kind its value will be checked as (amount, date,
        iban, ...) and where that kind came from (declared, inferred, default), before any
        document is sent."""
        schema = tools.read_schema(schema_json)
        explanation = SchemaExplanation.of(schema)
        return _answer(explain_text(schema), explanation.model_dump(mode="json"))

    @server.tool(title="The built-in schemas", annotations=READ_ONLY)
    @as_tool_errors
    def list_schemas() -> Annotated[CallToolResult, SchemaList]:
        """The built-in schemas (invoice, contract, candidate_profile, ...) with their fields."""
        return _answer(schemas_text(), tools.list_schemas().model_dump(mode="json"))

    @server.tool(title="Verify a stored result again", annotations=READ_ONLY)
    @as_tool_errors
    def verify_result(
        result: Annotated[
            dict[str, Any] | str,
            Field(description="A result from extract_document (the object or its JSON text)."),
        ],
        path: Annotated[str, Field(description="The document the result was extracted from.")],
        schema_json: Annotated[
            dict[str, Any] | str | None,
            Field(description="The JSON Schema, when the result used a custom one."),
        ] = None,
    ) -> Annotated[CallToolResult, VerifyReport]:
        """Check a stored result against its document again, from scratch: the report counts
        the statuses and their reasons and names each field whose status changed."""
        report = tools.verify_result(result, path, schema_json)
        return _answer(report.report, report.model_dump(mode="json", by_alias=True))

    return server


def run_mcp(http: str | None, log_level: str = "warning") -> int:
    """Serve over stdio, or over streamable HTTP on ``http`` (``HOST:PORT``)."""
    from pydantic import ValidationError

    from evidex.workers.logs import configure_logging

    try:
        settings = McpSettings()
    except ValidationError as exc:
        raise ConfigError(f"invalid setting {first_problem(exc, 'settings')}") from None
    configure_logging(settings.log_format, log_level)  # stderr: stdout is the protocol
    tools = Tools(Roots.parse(settings.mcp_roots, Path(os.getcwd()), settings.max_upload_bytes))
    if http is None:
        build_server(tools).run("stdio")
        return 0
    host, port = _address(http)
    if not settings.api_keys:
        raise ConfigError(
            "evidex mcp --http needs API keys: set EVIDEX_API_KEYS (tenant=key,...) or "
            "EVIDEX_API_KEYS_FILE, as for evidex serve"
        )
    here = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    auth = AuthSettings(issuer_url=AnyHttpUrl(here), resource_server_url=None)
    server = build_server(tools, auth, settings.api_keys)
    server.run("streamable-http", host=host, port=port)
    return 0


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError(f"--http {text!r}: give HOST:PORT, e.g. 127.0.0.1:8765")
    return host, int(port)
