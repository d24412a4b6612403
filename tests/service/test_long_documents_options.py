"""The context window as a user sets it: ``--context-tokens`` on the CLI, ``options`` over REST."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from long_agreement import SCHEMA, agreement_pdf
from test_api import Harness, problem

from evidex.service.cli import main


def test_rest_refuses_a_window_too_small_for_the_schema(api: Harness) -> None:
    options = json.dumps({"context_tokens": 500})
    body = problem(api.submit(schema="invoice", options=options), 422, "options_invalid")
    assert body["detail"].startswith("options.context_tokens: the model's window of 500 tokens")
    assert "leaves 375 for the prompt" in body["detail"]
    assert api.enqueued == []


def test_rest_accepts_a_window_and_keeps_it_on_the_job(api: Harness) -> None:
    response = api.submit(schema="invoice", options=json.dumps({"context_tokens": 16_000}))
    assert response.status_code == 202, response.text
    assert response.json()["options"]["context_tokens"] == 16_000
    problem(api.submit(schema="invoice", options='{"context_tokens": 0}'), 422, "options_invalid")


@pytest.fixture
def supply(tmp_path: Path) -> tuple[Path, Path]:
    """The first 12 pages of the generated credit agreement, and its schema."""
    doc, schema = tmp_path / "agreement.pdf", tmp_path / "credit_agreement.json"
    doc.write_bytes(agreement_pdf(12))
    schema.write_text(json.dumps(SCHEMA))
    return doc, schema


def test_cli_window_too_small_exits_2_naming_both_numbers(
    supply: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    doc, schema = supply
    code = main(["extract", str(doc), "--schema", str(schema), "--llm", "rules",
                 "--parser", "auto", "--context-tokens", "1000", "--quiet"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("evidex: context_window_too_small: the model's window of 1,000 tokens")
    assert "leaves 750 for the prompt" in err and "need" in err


def test_cli_window_is_planned_and_traced(supply: tuple[Path, Path], tmp_path: Path) -> None:
    doc, schema = supply
    out = tmp_path / "r.json"
    code = main(["extract", str(doc), "--schema", str(schema), "--llm", "rules",
                 "--context-tokens", "4000", "--out", str(out), "--quiet"])  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    assert result["trace"]["context"]["window_tokens"] == 4000
    calls = result["trace"]["calls"]
    assert calls and all(1 in c["pages"] and len(c["pages"]) < 12 for c in calls)
    assert result["fields"]["borrower"]["status"] == "verified"
    assert result["lists"]["events_of_default"] == {
        "complete": True,
        "items": 0,
        "last_page": None,
        "reason": "",
    }
