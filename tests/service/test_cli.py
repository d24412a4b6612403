"""``evidex extract`` as a user runs it: result JSON, highlighted PDF, exit codes, stderr lines."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from fake_openai import CHAT, RESPONSES, FakeOpenAI, Reply, fixture
from sample_answers import SAMPLES, perfect_fields
from test_api_explain import PO_FIELDS

from evidex.extractors.llm.scripted import build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.schemas import get_schema
from evidex.service.cli import main

INVOICE = SAMPLES / "invoice.pdf"


def run_cli(*argv: str | Path) -> int:
    return main([str(a) for a in argv])


def test_rules_extract_writes_result_and_highlighted_pdf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, pdf = tmp_path / "r.json", tmp_path / "h.pdf"
    code = run_cli(
        "extract", INVOICE, "--schema", "invoice", "--llm", "rules", "--out", out, "--annotate", pdf
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert set(result) == {
        *("schema", "document", "fields", "data", "summary", "notes", "trace", "lists")
    }
    assert result["schema"] == "invoice"
    assert result["document"]["pages"] == 1 and result["document"]["parser"] == "pymupdf"
    assert result["trace"]["llm"] == "rules"
    assert {"parse", "llm", "verify", "total"} <= set(result["trace"]["timings_ms"])
    iban = result["fields"]["payment.iban"]
    assert iban["status"] == "verified" and iban["value"].replace(" ", "") == (
        "DE45100400000482700203"
    )
    assert iban["boxes"] and iban["boxes"][0]["page"] == 1
    with pymupdf.open(pdf) as doc:
        titles = {a.info["title"] for a in doc[0].annots()}
    assert "payment.iban" in titles
    table = capsys.readouterr().out.splitlines()
    iban_row = next(line for line in table if line.startswith("payment.iban "))
    assert iban_row.split()[-2:] == ["ok", f"p1:{iban['line_start']}"]


def test_custom_json_schema_file(tmp_path: Path) -> None:
    schema = tmp_path / "po.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "iban": {"type": "string", "x-evidex-kind": "iban", "description": "IBAN"},
                    "invoice_number": {"type": "string", "description": "Invoice number"},
                },
            }
        )
    )
    out = tmp_path / "r.json"
    assert (
        run_cli("extract", INVOICE, "--schema", schema, "--llm", "rules", "--out", out, "--quiet")
        == 0
    )
    result = json.loads(out.read_text())
    assert result["schema"] == "po"
    assert result["fields"]["iban"]["status"] == "verified"
    assert set(result["data"]) == {"iban", "invoice_number"}


@pytest.mark.parametrize(
    ("setup", "code", "message"),
    [
        (
            lambda d: (d / "x.pdf").write_bytes(b"PK\x03\x04" + b"0" * 64) and "x.pdf",
            2,
            "evidex: unsupported_media_type:",
        ),
        (
            lambda d: (d / "y.pdf").write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 64) and "y.pdf",
            2,
            "evidex: pdf_corrupt: y.pdf: the PNG image is damaged",
        ),
        (
            lambda d: (d / "e.pdf").write_bytes(b"") is not None and "e.pdf",
            2,
            "evidex: document_empty:",
        ),
        (lambda d: "missing.pdf", 2, "no such file"),
    ],
)
def test_bad_documents_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: Any, code: int, message: str
) -> None:
    name = setup(tmp_path)
    assert run_cli("extract", tmp_path / name, "--schema", "invoice", "--llm", "rules") == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ("payslip", "evidex: schema_invalid: unknown schema 'payslip'"),
        ("{bad json", "is not valid JSON"),
        ('{"type": "object", "properties": {"a": {"type": "file"}}}', "unsupported type"),
    ],
)
def test_bad_schemas_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], schema: str, message: str
) -> None:
    ref = schema
    if schema.startswith("{"):
        (tmp_path / "s.json").write_text(schema)
        ref = str(tmp_path / "s.json")
    assert run_cli("extract", INVOICE, "--schema", ref, "--llm", "rules") == 2
    assert message in capsys.readouterr().err


def test_parser_not_in_this_version_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("extract", INVOICE, "--schema", "invoice", "--parser", "azure") == 2
    assert "parser 'azure' is not available" in capsys.readouterr().err


def test_openai_without_a_key_says_which_variable(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("extract", INVOICE, "--schema", "invoice", "--llm", "openai") == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def _invoice_answer() -> dict[str, Any]:
    lines = PyMuPDFParser().parse(INVOICE.read_bytes(), "invoice.pdf").lines
    return build_answer(get_schema("invoice"), perfect_fields("invoice", lines))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Any:
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("EVIDEX_LLM_BACKOFF_S", "0")
        yield server


def test_openai_responses_end_to_end(fake: FakeOpenAI, tmp_path: Path) -> None:
    body = copy.deepcopy(fixture("responses_completed"))
    body["output"][0]["content"][0]["text"] = json.dumps(_invoice_answer())
    fake.add(RESPONSES, Reply(500, {"error": {"message": "boom"}}), Reply(200, body))
    out = tmp_path / "r.json"
    assert run_cli("extract", INVOICE, "--schema", "invoice", "--out", out, "--quiet") == 0
    result = json.loads(out.read_text())
    assert result["trace"]["llm"] == "openai"
    assert result["trace"]["response_id"] == body["id"]
    assert result["trace"]["attempts"] == 2
    assert result["summary"]["unsupported"] == 0 and result["summary"]["needs_review"] == 0
    sent = fake.bodies(RESPONSES)[-1]
    assert sent["store"] is False and sent["text"]["format"]["strict"] is True
    user = next(m["content"] for m in sent["input"] if m["role"] == "user")
    assert "GLOBAL_LINE\tpage\tline_in_page\ttext\n1\t1\t1\t" in user


def test_openai_chat_mode_end_to_end(
    fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVIDEX_OPENAI_API", "chat")
    body = copy.deepcopy(fixture("chat_completion"))
    body["choices"][0]["message"]["content"] = json.dumps(_invoice_answer())
    fake.add(CHAT, Reply(200, body))
    out = tmp_path / "r.json"
    assert run_cli("extract", INVOICE, "--schema", "invoice", "--out", out, "--quiet") == 0
    assert json.loads(out.read_text())["trace"]["mode"] == "chat"


def test_model_refusal_exits_1(fake: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    fake.add(RESPONSES, Reply(200, fixture("responses_refusal")))
    assert run_cli("extract", INVOICE, "--schema", "invoice", "--quiet") == 1
    assert capsys.readouterr().err.startswith("evidex: llm_refused:")


def test_installed_command_runs_as_a_process(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evidex.service.cli",
            "extract",
            str(tmp_path / "none.pdf"),
            "--schema",
            "invoice",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"evidex: bad_input: {tmp_path / 'none.pdf'}: no such file"


def test_verify_command_reports_a_tampered_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "extract", INVOICE, "--schema", "invoice", "--llm", "rules", "--out", out, "--quiet"
        )
        == 0
    )
    stored = json.loads(out.read_text())
    stored["fields"]["payment.iban"]["value"] = "DE45 1004 0000 0482 7002 04"
    out.write_text(json.dumps(stored))
    again = tmp_path / "again.json"
    assert run_cli("verify", out, INVOICE, "--out", again) == 0
    report = capsys.readouterr().out
    assert "payment.iban: verified -> needs_review" in report
    assert json.loads(again.read_text())["fields"]["payment.iban"]["status"] == "needs_review"
    assert run_cli("verify", out, SAMPLES / "cv.pdf") == 2
    assert "SHA-256 differs" in capsys.readouterr().err


def test_pages_option_keeps_global_line_numbers(tmp_path: Path) -> None:
    contract = SAMPLES / "contract.pdf"
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "extract",
            contract,
            "--schema",
            "contract",
            "--llm",
            "rules",
            "--pages",
            "3",
            "--out",
            out,
            "--quiet",
        )
        == 0
    )
    result = json.loads(out.read_text())
    pages = {f["page"] for f in result["fields"].values() if f["page"] is not None}
    assert pages == {3}
    law = result["fields"]["governing_law"]
    assert law["status"] == "verified" and law["line_start"] > 60
    assert (
        run_cli(
            "extract", contract, "--schema", "contract", "--llm", "rules", "--pages", "9", "--quiet"
        )
        == 2
    )


def test_image_input_gets_pixel_boxes_and_a_highlighted_png(tmp_path: Path) -> None:
    with pymupdf.open(INVOICE) as pdf:
        (tmp_path / "invoice.png").write_bytes(pdf[0].get_pixmap(dpi=150).tobytes("png"))
    out, png = tmp_path / "r.json", tmp_path / "h.png"
    assert (
        run_cli(
            "extract",
            tmp_path / "invoice.png",
            "--schema",
            "invoice",
            "--llm",
            "rules",
            "--out",
            out,
            "--annotate",
            png,
            "--quiet",
        )
        == 0
    )
    result = json.loads(out.read_text())
    (info,) = result["document"]["page_info"]
    assert (info["unit"], info["parser"]) == ("px", "ocr")
    assert info["width"] == pytest.approx(595 * 150 / 72, abs=2)
    assert png.read_bytes().startswith(b"\x89PNG")


def test_schemas_explain_prints_each_fields_kind_and_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "po.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": PO_FIELDS,
                "x-evidex-rules": [{"kind": "sum", "parts": ["discount"], "total": "discount"}],
            }
        )
    )
    assert run_cli("schemas", "--explain", schema) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        ["po_number", "string", "default", "(string)"],
        ["discount", "amount", "inferred", "(number)"],
        ["shipped_on", "date", "inferred", "(string)"],
        ["iban", "iban", "declared", "(string)"],
        ["rule:", "discount", "=", "discount"],
    ]


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"type": "number", "format": "email"}, "contact: format 'email' contradicts its type"),
        ({"type": "boolean", "x-evidex-kind": "iban"}, "contact: x-evidex-kind 'iban' contradicts"),
    ],
)
def test_schemas_explain_a_contradicting_kind_is_exit_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], node: dict[str, Any], message: str
) -> None:
    schema = tmp_path / "bad.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"contact": node}}))
    assert run_cli("schemas", "--explain", schema) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert err.startswith(f"evidex: schema_invalid: {message}")
