"""``evidex mcp`` as an MCP client meets it: the SDK's ``ClientSession`` over stdio against the
server started as a process, calling each tool on a sample PDF with the ``rules`` backend; bad
input as tool errors with their codes; streamable HTTP behind the API keys."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from sample_answers import SAMPLES
from service_stack import free_port

from evidex.schemas import ConfigError
from evidex.service.cli import main
from evidex.service.mcp_files import FileNotFound, FileTooLarge, PathNotAllowed, Roots
from evidex.service.mcp_server import as_tool_errors

TOOLS = {"extract_document", "explain_schema", "list_schemas", "verify_result"}
SERVER = [sys.executable, "-m", "evidex.service.cli", "mcp"]
README = Path(__file__).resolve().parents[2] / "README.md"
PO_SCHEMA = {
    "type": "object",
    "properties": {
        "po_number": {"type": "string", "description": "The purchase order number"},
        "due": {"type": "string", "format": "date"},
        "total_amount": {"type": "number", "description": "Total amount due"},
    },
}
T = TypeVar("T")
Session = Callable[[ClientSession], Awaitable[T]]


def readme_command() -> tuple[str, list[str]]:
    """The command and arguments of the README's desktop-client configuration, the command
    taken from this environment's scripts."""
    section = README.read_text(encoding="utf-8").split("## Agents (MCP)", 1)[1]
    config = json.loads(section.split("```json", 1)[1].split("```", 1)[0])["mcpServers"]["evidex"]
    return str(Path(sys.executable).with_name(config["command"])), config["args"]


def in_session(cwd: Path, scenario: Session[T], env: dict[str, str] | None = None) -> T:
    """Run ``scenario`` against ``evidex mcp`` started over stdio in ``cwd``, as the README's
    configuration starts it."""

    async def run() -> T:
        command, args = readme_command()
        params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=env or {})
        with open(os.devnull, "w") as quiet:  # the server's log lines, not the protocol
            async with (
                stdio_client(params, errlog=quiet) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await scenario(session)

    return anyio.run(run)


def error_of(result: CallToolResult) -> tuple[str, str]:
    assert result.is_error
    error = result.structured_content["error"]
    assert result.content[0].text == f"{error['code']}: {error['message']}"
    return error["code"], error["message"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(SAMPLES / "invoice.pdf", folder / "invoice.pdf")
    return folder


def test_each_tool_over_stdio_on_a_sample_pdf(root: Path) -> None:
    async def scenario(session: ClientSession) -> dict[str, CallToolResult]:
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        assert all(tool.output_schema for tool in listed.tools)
        extracted = await session.call_tool(
            "extract_document", {"path": "invoice.pdf", "schema": "invoice", "llm": "rules"}
        )
        tampered = json.loads(json.dumps(extracted.structured_content))
        tampered["fields"]["total"]["value"] = {"value": 99.0, "currency": "EUR"}
        return {
            "extract": extracted,
            "explain": await session.call_tool("explain_schema", {"schema_json": PO_SCHEMA}),
            "list": await session.call_tool("list_schemas", {}),
            "verify": await session.call_tool(
                "verify_result",
                {"result": extracted.structured_content, "path": str(root / "invoice.pdf")},
            ),
            "tampered": await session.call_tool(
                "verify_result", {"result": json.dumps(tampered), "path": "invoice.pdf"}
            ),
        }

    answers = in_session(root, scenario)  # no EVIDEX_MCP_ROOTS: the working directory

    extract = answers["extract"]
    assert not extract.is_error
    result: dict[str, Any] = extract.structured_content
    assert result["schema"] == "invoice" and result["trace"]["llm"] == "rules"
    assert result["document"]["filename"] == "invoice.pdf"
    iban = result["fields"]["payment.iban"]
    assert iban["status"] == "verified" and iban["reasons"] == []
    assert iban["value"].replace(" ", "") == "DE45100400000482700203"
    assert iban["page"] == 1 and iban["line_start"] <= iban["line_end"]
    assert iban["boxes"][0]["page"] == 1 and iban["boxes"][0]["x1"] > iban["boxes"][0]["x0"]
    assert iban["quote"].replace(" ", "").endswith("DE45100400000482700203")
    assert sum(result["summary"].values()) == len(result["fields"])
    text = extract.content[0].text
    assert f"p1:{iban['line_start']}" in text and "payment.iban" in text

    explain = answers["explain"].structured_content
    kinds = {leaf["path"]: (leaf["kind"], leaf["kind_source"]) for leaf in explain["leaves"]}
    assert kinds["due"] == ("date", "inferred")
    assert kinds["total_amount"][0] == "amount"
    assert "due" in answers["explain"].content[0].text

    schemas = {s["name"]: s for s in answers["list"].structured_content["schemas"]}
    assert {"invoice", "contract", "candidate_profile"} <= set(schemas)
    assert "payment.iban" in {leaf["path"] for leaf in schemas["invoice"]["fields"]}

    verify = answers["verify"].structured_content
    assert verify["changes"] == [] and verify["summary"] == result["summary"]
    assert verify["result"]["fields"]["payment.iban"]["status"] == "verified"

    tampered = answers["tampered"].structured_content
    assert tampered["changes"] == [{"path": "total", "before": "verified", "after": "needs_review"}]
    assert "total: verified -> needs_review" in tampered["report"]


def test_bad_input_is_a_tool_error_with_its_code(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.pdf"
    shutil.copy(SAMPLES / "invoice.pdf", outside)
    (root / "link.pdf").symlink_to(outside)
    # a damaged PDF: the parser's failure, not the server's
    (root / "broken.pdf").write_bytes((SAMPLES / "invoice.pdf").read_bytes()[:3000])
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("extract_document", {"path": "missing.pdf", "schema": "invoice"}, "file_not_found"),
        ("extract_document", {"path": "/etc/passwd", "schema": "invoice"}, "path_not_allowed"),
        ("extract_document", {"path": "../secret.pdf", "schema": "invoice"}, "path_not_allowed"),
        ("extract_document", {"path": "link.pdf", "schema": "invoice"}, "path_not_allowed"),
        ("extract_document", {"path": "invoice.pdf", "schema": "nope"}, "schema_invalid"),
        (
            "extract_document",
            {"path": "invoice.pdf", "schema_json": {"type": "object", "properties": 3}},
            "schema_invalid",
        ),
        (
            "extract_document",
            {"path": "invoice.pdf", "schema": "invoice", "llm": "gpt-at-home"},
            "options_invalid",
        ),
        ("extract_document", {"path": "broken.pdf", "schema": "invoice"}, "pdf_corrupt"),
        ("explain_schema", {"schema_json": "{not json"}, "schema_invalid"),
        ("verify_result", {"result": {"fields": {}}, "path": "invoice.pdf"}, "bad_input"),
    ]

    async def scenario(session: ClientSession) -> tuple[list[CallToolResult], CallToolResult]:
        answers = [await session.call_tool(name, args) for name, args, _ in calls]
        return answers, await session.call_tool("list_schemas", {})

    answers, after = in_session(root, scenario)
    for (name, args, code), answer in zip(calls, answers, strict=True):
        assert error_of(answer)[0] == code, (name, args)
    assert "/etc/passwd is outside" in error_of(answers[1])[1]
    assert "EVIDEX_MCP_ROOTS" in error_of(answers[1])[1]
    assert not after.is_error  # the server is still there after every error


def test_roots_come_from_evidex_mcp_roots(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(SAMPLES / "invoice.pdf", other / "second.pdf")

    async def scenario(session: ClientSession) -> list[CallToolResult]:
        return [
            await session.call_tool(
                "extract_document",
                {"path": str(other / "second.pdf"), "schema": "invoice", "llm": "rules"},
            ),
            await session.call_tool(
                "extract_document", {"path": "invoice.pdf", "schema": "invoice", "llm": "rules"}
            ),
        ]

    # started elsewhere: the roots, not the working directory, decide
    second, first = in_session(
        tmp_path, scenario, env={"EVIDEX_MCP_ROOTS": os.pathsep.join([str(root), str(other)])}
    )
    assert second.structured_content["document"]["filename"] == "second.pdf"
    assert first.structured_content["summary"]["verified"] > 0  # relative: from the first root


# -- the roots, without a process ----------------------------------------------------------------


def test_roots_resolve_links_and_relative_paths(tmp_path: Path) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (inside / "a.pdf").write_bytes(b"%PDF-1.7")
    (outside / "b.pdf").write_bytes(b"%PDF-1.7")
    (inside / "to_out").symlink_to(outside)
    roots = Roots.parse("in", tmp_path)
    assert roots.folders == (inside.resolve(),)
    assert roots.file("a.pdf") == (inside / "a.pdf").resolve()
    (inside / "sub").mkdir()
    assert roots.file("./sub/../a.pdf") == (inside / "a.pdf").resolve()
    with pytest.raises(PathNotAllowed):
        roots.file("to_out/b.pdf")
    with pytest.raises(PathNotAllowed):
        roots.file(str(outside / "missing.pdf"))  # outside: refused, existing or not
    with pytest.raises(FileNotFound):
        roots.file("missing.pdf")
    with pytest.raises(FileNotFound):
        roots.file("")
    assert Roots.parse("", tmp_path).folders == (tmp_path.resolve(),)
    with pytest.raises(ConfigError, match="EVIDEX_MCP_ROOTS"):
        Roots.parse(str(inside / "a.pdf"), tmp_path)


def test_a_file_over_the_upload_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    (tmp_path / "big.pdf").write_bytes(b"%PDF-1.7" + b" " * 100)
    roots = Roots.parse("", tmp_path, max_bytes=100)
    with pytest.raises(FileTooLarge, match=r"big\.pdf is 108 bytes; the limit is 100 bytes") as err:
        roots.file("big.pdf")
    assert err.value.code == "file_too_large"
    assert Roots.parse("", tmp_path, max_bytes=108).file("big.pdf").name == "big.pdf"


# -- streamable HTTP ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``evidex mcp --http`` with one API key, started in a folder holding the invoice; its
    /mcp URL (one server for the module's tests: starting one takes seconds)."""
    root = tmp_path_factory.mktemp("http-root")
    shutil.copy(SAMPLES / "invoice.pdf", root / "invoice.pdf")
    port = free_port()
    env = {**os.environ, "EVIDEX_API_KEYS": "acme=mcp-test-key"}
    log = root / "server.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [*SERVER, "--http", f"127.0.0.1:{port}"],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        for _ in range(600):  # wait until it listens (or has died)
            if proc.poll() is not None:
                raise AssertionError(log.read_text(errors="replace"))
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise AssertionError("evidex mcp --http did not listen")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-key", "Basic bWNwOnRlc3Q="])
def test_http_without_the_key_is_401(http_server: str, authorization: str | None) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if authorization:
        headers["Authorization"] = authorization
    answer = httpx.post(http_server, json=INITIALIZE, headers=headers, timeout=10)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")


def test_http_with_an_api_key_serves_the_tools(http_server: str) -> None:
    async def run() -> tuple[set[str], CallToolResult]:
        headers = {"Authorization": "Bearer mcp-test-key"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(http_server, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            extracted = await session.call_tool(
                "extract_document", {"path": "invoice.pdf", "schema": "invoice", "llm": "rules"}
            )
            return names, extracted

    names, extracted = anyio.run(run)
    assert names == TOOLS
    assert extracted.structured_content["fields"]["payment.iban"]["status"] == "verified"


def test_http_without_configured_keys_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("EVIDEX_API_KEYS", raising=False)
    monkeypatch.delenv("EVIDEX_API_KEYS_FILE", raising=False)
    assert main(["mcp", "--http", "127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evidex: config_error: evidex mcp --http needs API keys")


def test_http_address_must_be_host_and_port(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--http", "localhost"]) == 2
    assert "give HOST:PORT" in capsys.readouterr().err


def test_an_unexpected_failure_is_an_internal_error_and_keeps_its_text_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @as_tool_errors
    def broken() -> CallToolResult:
        raise KeyError("secret detail")

    code, message = error_of(broken())
    assert code == "internal_error" and "secret detail" not in message
    assert "secret detail" in caplog.text
