"""Azure OpenAI (``EVIDEX_OPENAI_API=azure``): the real ``openai`` SDK's ``AzureOpenAI`` client
against a local server that serves Azure's deployment paths and refuses a request without the
``api-key`` header, as Azure does."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import AZURE_DENIED, FakeOpenAI, Reply, azure_chat, fixture
from sample_answers import SAMPLES, perfect_fields

from evidex.extractors.backends import make_llm
from evidex.extractors.llm.azure_openai import AzureTarget
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.llm.scripted import build_answer
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.text import TextParser
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError, get_schema
from evidex.service.cli import main

INVOICE = SAMPLES / "invoice.pdf"
DEPLOYMENT = "invoices-gpt41"
VERSION = "2024-10-21"
KEY = "azure-test-key"


def chat_reply(answer: dict[str, Any]) -> Reply:
    body = copy.deepcopy(fixture("chat_completion"))
    body["choices"][0]["message"]["content"] = json.dumps(answer)
    return Reply(200, body)


def invoice_answer() -> dict[str, Any]:
    lines = PyMuPDFParser().parse(INVOICE.read_bytes(), "invoice.pdf").lines
    return build_answer(get_schema("invoice"), perfect_fields("invoice", lines))


@pytest.fixture
def azure(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """An Azure-shaped server, and the environment of a deployment that uses it with a key."""
    with FakeOpenAI(require={"api-key": KEY}) as server:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.root)
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_API_VERSION", VERSION)
        monkeypatch.setenv("EVIDEX_MODEL", DEPLOYMENT)
        monkeypatch.setenv("EVIDEX_LLM_BACKOFF_S", "0")
        yield server


def test_extract_through_an_azure_deployment(azure: FakeOpenAI, tmp_path: Path) -> None:
    azure.add(azure_chat(DEPLOYMENT), chat_reply(invoice_answer()))
    out = tmp_path / "r.json"
    assert main(["extract", str(INVOICE), "--schema", "invoice", "--out", str(out), "--quiet"]) == 0
    [seen] = azure.requests
    assert seen.path == f"/openai/deployments/{DEPLOYMENT}/chat/completions"
    assert seen.query == f"api-version={VERSION}"
    assert seen.headers["api-key"] == KEY
    assert "authorization" not in seen.headers
    fmt = seen.body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert seen.body["model"] == DEPLOYMENT
    result = json.loads(out.read_text())
    assert result["trace"]["llm"] == "openai" and result["trace"]["mode"] == "azure"
    iban = result["fields"]["payment.iban"]
    assert iban["status"] == "verified"
    assert iban["value"].replace(" ", "") == "DE45100400000482700203"


def test_a_wrong_key_is_refused_with_401_and_named(
    azure: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "not-the-key")
    azure.add(azure_chat(DEPLOYMENT), chat_reply(invoice_answer()))
    assert main(["extract", str(INVOICE), "--schema", "invoice", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evidex: llm_auth_failed:")
    assert "HTTP 401" in err and "AZURE_OPENAI_API_KEY" in err
    assert AZURE_DENIED["error"]["message"][:40] in err
    assert len(azure.requests) == 1  # a refused key is not retried


def test_a_token_provider_signs_in_with_a_bearer_token() -> None:
    with FakeOpenAI(require={"authorization": "Bearer entra-token"}) as server:
        answer = build_answer(
            get_schema("invoice"),
            {
                "invoice_number": {
                    "quote": "Invoice No: INV-1",
                    "page": 1,
                    "line_start": 1,
                    "line_end": 1,
                    "value": "INV-1",
                }
            },
        )
        server.add(azure_chat(DEPLOYMENT), chat_reply(answer))
        target = AzureTarget(server.root, VERSION, token_provider=lambda: "entra-token")
        document = TextParser().parse(b"Invoice No: INV-1\n", "a.txt")
        request = LLMRequest(
            system="Extract.",
            user="1\t1\t1\tInvoice No: INV-1",
            schema=get_schema("invoice"),
            document=document,
        )
        with OpenAIBackend(
            api_key=None, model=DEPLOYMENT, api="azure", azure=target, max_retries=0
        ) as backend:
            response = backend.complete(request)
    [seen] = server.requests
    assert seen.headers["authorization"] == "Bearer entra-token" and "api-key" not in seen.headers
    assert seen.query == f"api-version={VERSION}"
    assert response.mode == "azure"
    assert response.output.model_dump()["invoice_number"]["value"] == "INV-1"


def test_the_endpoint_chooses_azure_unless_a_mode_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    settings = Settings()
    assert settings.openai_api == "azure" and settings.backend == "openai"
    monkeypatch.setenv("EVIDEX_OPENAI_API", "chat")
    assert Settings().openai_api == "chat"


@pytest.mark.parametrize(
    ("unset", "named"),
    [
        ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_ENDPOINT"),
        ("OPENAI_API_VERSION", "OPENAI_API_VERSION"),
        ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"),
    ],
)
def test_missing_azure_settings_say_what_to_set(
    monkeypatch: pytest.MonkeyPatch, unset: str, named: str
) -> None:
    monkeypatch.setenv("EVIDEX_OPENAI_API", "azure")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_VERSION", VERSION)
    monkeypatch.delenv(unset)
    # without a key, Entra ID sign-in needs azure-identity: here it is absent
    monkeypatch.setitem(sys.modules, "azure.identity", None)
    with pytest.raises(ConfigError) as caught:
        make_llm(Settings())
    assert caught.value.code == "config_error"
    assert named in str(caught.value)
