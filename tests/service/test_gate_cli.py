"""The pre-call gate from ``evidex extract``, against a local OpenAI-wire server that records every
request: a blank PDF, a recipe and a CV sent as invoices end with exit 2 and one line naming the
code, and the server sees no request; ``--no-gate`` makes the call and the result records the
gate's score; a batch turns a refused file into one failed row."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import RESPONSES, FakeOpenAI, Reply, fixture
from gate_documents import CV, RECIPE, write_pdf
from sample_answers import SAMPLES

from evidex.extractors.llm.scripted import build_answer
from evidex.schemas import get_schema
from evidex.service.cli import main


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("EVIDEX_LLM_BACKOFF_S", "0")
        yield server


@pytest.mark.parametrize(
    ("text", "code", "words"),
    [
        ("", "document_empty", "no text after parsing and OCR"),
        (RECIPE, "document_mismatch", "reads like none of the built-in schemas"),
        (CV, "document_mismatch", "reads like a CV (schema 'candidate_profile')"),
    ],
    ids=["blank", "recipe", "cv"],
)
def test_refused_before_any_model_call(
    text: str,
    code: str,
    words: str,
    fake: FakeOpenAI,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pdf = write_pdf(tmp_path / "upload.pdf", text)
    out = tmp_path / "r.json"
    argv = ["extract", str(pdf), "--schema", "invoice", "--llm", "openai", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"evidex: {code}: upload.pdf")
    assert words in err[0]
    assert fake.requests == []  # no model call, nothing paid
    assert not out.exists()


def test_no_gate_calls_the_model_and_records_the_score(fake: FakeOpenAI, tmp_path: Path) -> None:
    body = copy.deepcopy(fixture("responses_completed"))
    body["output"][0]["content"][0]["text"] = json.dumps(build_answer(get_schema("invoice"), {}))
    fake.add(RESPONSES, Reply(200, body))
    pdf, out = write_pdf(tmp_path / "cv.pdf", CV), tmp_path / "r.json"
    argv = ["extract", str(pdf), "--schema", "invoice", "--llm", "openai", "--out", str(out)]
    assert main([*argv, "--no-gate", "--quiet"]) == 0
    assert len(fake.requests) == 1
    gate = json.loads(out.read_text())["trace"]["gate"]
    assert gate["decision"] == "document_mismatch" and gate["enforced"] is False
    assert 0 <= gate["score"] < gate["threshold"]
    assert gate["reads_like"] == "candidate_profile"
    assert "invoice_number" in gate["missing"]


def test_a_batch_turns_a_refusal_into_one_failed_row(tmp_path: Path) -> None:
    docs = tmp_path / "in"
    docs.mkdir()
    write_pdf(docs / "blank.pdf")
    (docs / "invoice.pdf").write_bytes((SAMPLES / "invoice.pdf").read_bytes())
    out = tmp_path / "out"
    argv = ["extract", str(docs), "--schema", "invoice", "--llm", "rules", "--out-dir", str(out)]
    assert main(argv) == 1  # one file failed
    rows = {
        Path(r["file"]).name: r
        for r in map(json.loads, (out / "summary.jsonl").read_text().splitlines())
    }
    assert rows["blank.pdf"]["status"] == "failed"
    assert rows["blank.pdf"]["error"]["code"] == "document_empty"
    assert rows["invoice.pdf"]["status"] == "succeeded"
    result = json.loads((out / "invoice.result.json").read_text())
    assert result["trace"]["gate"]["decision"] == "pass" and result["trace"]["gate"]["enforced"]
    assert not (out / "blank.result.json").exists()
