"""``OpenAIBackend`` against a local server speaking the OpenAI wire format (the real SDK runs)."""

from __future__ import annotations

import copy
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fake_openai import CHAT, RESPONSES, FakeOpenAI, Reply, fixture  # tests/: conftest rootdir

from evidex.extractors.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMInvalidOutput,
    LLMRefused,
    LLMTruncated,
    LLMUnavailable,
)
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.parse.text import TextParser
from evidex.extractors.settings import Settings
from evidex.schemas import ConfigError, build_answer, get_schema

INVOICE = get_schema("invoice")
LOCAL = ("127.0.0.1", "localhost", "::1")

# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def blocked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Guard: a dummy key, no inherited base URL, and no name lookup beyond this machine."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-test-key")
    for name in ("OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    real_getaddrinfo = socket.getaddrinfo
    hosts: list[str] = []

    def local_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOCAL:
            hosts.append(str(host))
            raise OSError(f"test guard: no network access to {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", local_only)
    return hosts


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


Make = Callable[..., OpenAIBackend]


@pytest.fixture
def waits() -> list[float]:
    """The backoff waits of backends built by ``make`` (their sleep records instead of sleeping)."""
    return []


@pytest.fixture
def make(fake: FakeOpenAI, waits: list[float]) -> Iterator[Make]:
    """Build backends against the fake server; they are closed after the test."""
    made: list[OpenAIBackend] = []

    def build(**kwargs: Any) -> OpenAIBackend:
        options: dict[str, Any] = {
            "api_key": "sk-dummy",
            "model": "gpt-4.1-mini",
            "base_url": fake.base_url,
            "max_retries": 2,
            "backoff_s": 0.0,
            "timeout_s": 5.0,
            "sleep": waits.append,
        }
        backend = OpenAIBackend(**(options | kwargs))
        made.append(backend)
        return backend

    yield build
    for backend in made:
        backend.close()


# -- helpers ------------------------------------------------------------------------------------


def invoice_answer(**leaf: Any) -> dict[str, Any]:
    """A valid wire answer: the invoice number found on line 1, every other leaf not found."""
    number = {
        "quote": "Invoice No: INV-1",
        "page": 1,
        "line_start": 1,
        "line_end": 1,
        "value": "INV-1",
    }
    return build_answer(INVOICE, {"invoice_number": number | leaf})


def request() -> LLMRequest:
    document = TextParser().parse(b"Invoice No: INV-1\n", "a.txt")
    return LLMRequest(
        system="Extract the invoice.",
        user="1\t1\t1\tInvoice No: INV-1",
        schema=INVOICE,
        document=document,
    )


def responses_body(text: str, name: str = "responses_completed") -> dict[str, Any]:
    body = copy.deepcopy(fixture(name))
    body["output"][0]["content"][0]["text"] = text
    return body


def chat_body(content: str, name: str = "chat_completion") -> dict[str, Any]:
    body = copy.deepcopy(fixture(name))
    body["choices"][0]["message"]["content"] = content
    return body


def ok_responses(answer: dict[str, Any] | None = None) -> Reply:
    return Reply(200, responses_body(json.dumps(answer or invoice_answer())))


def ok_chat(content: str | None = None) -> Reply:
    return Reply(200, chat_body(content if content is not None else json.dumps(invoice_answer())))


def error(status: int, name: str, **headers: str) -> Reply:
    return Reply(status, fixture(name), headers)


# -- responses mode -----------------------------------------------------------------------------


def test_responses_good_answer_is_parsed_with_its_audit_record(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, ok_responses())
    result = make(max_output_tokens=4000).complete(request())

    assert isinstance(result.output, INVOICE.wire_model)
    assert result.output.model_dump()["invoice_number"]["value"] == "INV-1"
    assert result.response_id == "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b"
    assert result.model == "gpt-4.1-mini-2025-04-14"
    assert result.usage == {"input_tokens": 1830, "output_tokens": 912, "total_tokens": 2742}
    assert (result.backend, result.mode, result.attempts) == ("openai", "responses", 1)
    [seen] = fake.requests
    assert seen.path == RESPONSES
    assert seen.headers["authorization"] == "Bearer sk-dummy"
    body = seen.body
    assert body["store"] is False
    assert body["temperature"] == 0
    assert body["model"] == "gpt-4.1-mini"
    assert body["max_output_tokens"] == 4000
    assert body["text"] == {
        "format": {
            "type": "json_schema",
            "name": "invoice",
            "schema": INVOICE.wire_schema,
            "strict": True,
        }
    }
    assert body["input"] == [
        {"role": "system", "content": "Extract the invoice."},
        {"role": "user", "content": "1\t1\t1\tInvoice No: INV-1"},
    ]


def test_reasoning_model_gets_no_temperature(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, ok_responses())
    make(model="gpt-5-mini").complete(request())
    assert "temperature" not in fake.bodies()[0]
    assert fake.bodies()[0]["store"] is False


def test_wrong_line_numbers_pass_through_unchanged(fake: FakeOpenAI, make: Make):
    # The backend does not judge evidence; verification corrects the span later.
    fake.add(RESPONSES, ok_responses(invoice_answer(line_start=7, line_end=9, page=3)))
    leaf = make().complete(request()).output.model_dump()["invoice_number"]
    assert (leaf["page"], leaf["line_start"], leaf["line_end"]) == (3, 7, 9)


def test_responses_refusal_raises_refused_with_its_words(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, Reply(200, fixture("responses_refusal")))
    with pytest.raises(LLMRefused) as info:
        make().complete(request())
    assert info.value.refusal == "I'm sorry, I cannot help with that request."
    assert info.value.response_id == "resp_refusal_0001"
    assert info.value.code == "llm_refused"


def test_responses_incomplete_raises_truncated_with_the_reason(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, Reply(200, fixture("responses_incomplete")))
    with pytest.raises(LLMTruncated, match="max_output_tokens") as info:
        make().complete(request())
    assert info.value.response_id == "resp_incomplete_0001"
    assert "EVIDEX_MAX_OUTPUT_TOKENS" in str(info.value)
    assert len(fake.requests) == 1


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "not JSON"),
        (
            json.dumps({k: v for k, v in invoice_answer().items() if k != "document_notes"}),
            "document_notes: Field required",
        ),
    ],
)
def test_responses_invalid_output_is_not_repaired(fake: FakeOpenAI, make: Make, text, reason):
    fake.add(RESPONSES, Reply(200, responses_body(text)))
    with pytest.raises(LLMInvalidOutput, match=reason) as info:
        make().complete(request())
    assert info.value.response_id.startswith("resp_")
    assert len(fake.requests) == 1  # strict mode: the server enforced it, a repair would not help


# -- retries and errors ---------------------------------------------------------------------------


def test_rate_limit_with_retry_after_zero_then_success(
    fake: FakeOpenAI, make: Make, waits: list[float]
):
    fake.add(RESPONSES, error(429, "error_rate_limit", **{"Retry-After": "0"}), ok_responses())
    backend = make(backoff_s=5.0)
    result = backend.complete(request())
    assert result.attempts == 2
    assert len(fake.requests) == 2
    assert waits == [0.0]  # the header beat the 5 s backoff


def test_retry_after_headers_are_honoured_and_capped(
    fake: FakeOpenAI, make: Make, waits: list[float]
):
    fake.add(
        RESPONSES,
        error(429, "error_rate_limit", **{"retry-after-ms": "1500"}),
        error(503, "error_server", **{"Retry-After": "3600"}),
        error(500, "error_server"),
        ok_responses(),
    )
    result = make(max_retries=3, backoff_s=1.0).complete(request())
    assert result.attempts == 4
    first, second, third = waits
    assert (first, second) == (1.5, 60.0)
    assert 4.0 <= third <= 4.25  # exponential: 1 s * 2**2, plus up to 25% jitter


def test_server_error_storm_gives_up_after_max_retries(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, *[error(500, "error_server")] * 5)
    with pytest.raises(LLMUnavailable, match="HTTP 500 on all 3 attempt") as info:
        make(max_retries=2).complete(request())
    assert info.value.transient is True
    assert len(fake.requests) == 3  # ours only: the SDK's own retries are off


def test_zero_retries_means_one_request(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, *[error(503, "error_server")] * 3)
    with pytest.raises(LLMUnavailable, match="1 attempt"):
        make(max_retries=0).complete(request())
    assert len(fake.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_auth_errors_are_not_retried(fake: FakeOpenAI, make: Make, status: int):
    fake.add(RESPONSES, *[error(status, "error_auth")] * 3)
    with pytest.raises(LLMAuthError, match="OPENAI_API_KEY") as info:
        make().complete(request())
    assert "Incorrect API key provided" in str(info.value)
    assert info.value.transient is False
    assert len(fake.requests) == 1


def test_not_found_suggests_chat_mode(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, error(404, "error_not_found"))
    with pytest.raises(LLMBadRequest, match="EVIDEX_OPENAI_API=chat") as info:
        make().complete(request())
    assert "Invalid URL (POST /v1/responses)" in str(info.value)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("status", [400, 422])
def test_bad_request_carries_the_provider_message(fake: FakeOpenAI, make: Make, status: int):
    fake.add(RESPONSES, error(status, "error_bad_request"))
    with pytest.raises(LLMBadRequest, match="additionalProperties") as info:
        make().complete(request())
    assert f"HTTP {status}" in str(info.value)
    assert len(fake.requests) == 1


def test_timeouts_are_retried_then_unavailable(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, *[Reply(200, responses_body("{}"), delay_s=0.6)] * 2)
    with pytest.raises(LLMUnavailable, match=r"within 0\.2s on 2 attempt"):
        make(timeout_s=0.2, max_retries=1).complete(request())
    assert len(fake.requests) == 2


def test_connection_refused_is_unavailable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with (
        OpenAIBackend(
            api_key="k",
            model="m",
            base_url=f"http://127.0.0.1:{port}/v1",
            max_retries=1,
            backoff_s=0.0,
        ) as backend,
        pytest.raises(LLMUnavailable, match=r"cannot reach .* after 2 attempt"),
    ):
        backend.complete(request())


def test_real_network_guard_blocks_the_default_endpoint(blocked: list[str]):
    with OpenAIBackend(api_key="k", model="m", max_retries=0) as backend:
        assert backend.base_url == "https://api.openai.com/v1"
        with pytest.raises(LLMUnavailable, match=r"cannot reach https://api\.openai\.com"):
            backend.complete(request())
    assert blocked == ["api.openai.com"]  # stopped by the guard, not by a missing network


def test_a_reply_that_is_not_the_wire_format_is_invalid_output(fake: FakeOpenAI, make: Make):
    fake.add(RESPONSES, Reply(200, b"<html>login</html>", {"content-type": "text/html"}))
    with pytest.raises(LLMInvalidOutput, match="OpenAI wire format"):
        make().complete(request())
    assert len(fake.requests) == 1


def test_failed_response_is_unavailable(fake: FakeOpenAI, make: Make):
    body = responses_body("") | {
        "status": "failed",
        "output": [],
        "error": {"code": "server_error", "message": "boom"},
    }
    fake.add(RESPONSES, Reply(200, body))
    with pytest.raises(LLMUnavailable, match="server_error: boom") as info:
        make().complete(request())
    assert info.value.transient is True


@pytest.mark.parametrize("key", [None, ""])
def test_missing_key_is_a_config_error(key: str | None):
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIBackend(api_key=key, model="m")


def test_from_settings(fake: FakeOpenAI):
    settings = Settings(
        openai_api_key="local",
        openai_base_url=fake.base_url,
        openai_api="chat",
        model="qwen",
        llm_timeout_s=3,
        llm_max_retries=0,
        llm_backoff_s=0,
        max_output_tokens=123,
    )
    fake.add(CHAT, ok_chat())
    with OpenAIBackend.from_settings(settings) as backend:
        assert (backend.api, backend.model, backend.max_retries) == ("chat", "qwen", 0)
        assert backend.complete(request()).mode == "chat"
    assert fake.bodies()[0]["max_tokens"] == 123


# -- chat and prompt modes ------------------------------------------------------------------------


def test_chat_good_answer(fake: FakeOpenAI, make: Make):
    fake.add(CHAT, ok_chat())
    result = make(api="chat", max_output_tokens=2000).complete(request())
    assert result.output.model_dump()["invoice_number"]["value"] == "INV-1"
    assert result.response_id == "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"
    assert result.system_fingerprint == "fp_fc9f1d7035"
    assert result.usage == {"input_tokens": 1117, "output_tokens": 946, "total_tokens": 2063}
    assert (result.mode, result.attempts) == ("chat", 1)
    [body] = fake.bodies(CHAT)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "invoice", "schema": INVOICE.wire_schema, "strict": True},
    }
    assert body["temperature"] == 0
    assert body["max_tokens"] == 2000  # a compatible server: the widely known name
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


def test_chat_refusal(fake: FakeOpenAI, make: Make):
    fake.add(CHAT, Reply(200, fixture("chat_refusal")))
    with pytest.raises(LLMRefused) as info:
        make(api="chat").complete(request())
    assert info.value.refusal == "I'm sorry, I cannot help with that request."
    assert info.value.response_id == "chatcmpl-refusal0001"


def test_chat_length_is_truncated(fake: FakeOpenAI, make: Make):
    fake.add(CHAT, Reply(200, fixture("chat_length")))
    with pytest.raises(LLMTruncated) as info:
        make(api="chat").complete(request())
    assert info.value.response_id == "chatcmpl-length0001"
    assert len(fake.requests) == 1


def test_chat_bad_json_is_repaired_once(fake: FakeOpenAI, make: Make):
    fake.add(CHAT, ok_chat("Sure! {oops"), ok_chat())
    result = make(api="chat").complete(request())
    assert result.output.model_dump()["invoice_number"]["value"] == "INV-1"
    assert result.attempts == 2
    assert result.usage["total_tokens"] == 2 * 2063
    first, repair = fake.bodies(CHAT)
    assert repair["messages"][:2] == first["messages"]
    assert repair["messages"][2] == {"role": "assistant", "content": "Sure! {oops"}
    assert repair["messages"][3]["role"] == "user"
    assert "not JSON" in repair["messages"][3]["content"]
    assert repair["response_format"] == first["response_format"]


def test_chat_bad_json_twice_is_invalid_output(fake: FakeOpenAI, make: Make):
    fake.add(CHAT, ok_chat("{oops"), ok_chat("still not json"), ok_chat())
    with pytest.raises(LLMInvalidOutput, match="even after one repair"):
        make(api="chat").complete(request())
    assert len(fake.requests) == 2


def test_chat_schema_violation_is_repaired_with_the_errors(fake: FakeOpenAI, make: Make):
    wrong = invoice_answer()
    wrong["invoice_number"]["found"] = "maybe"
    del wrong["document_notes"]
    fake.add(CHAT, ok_chat(json.dumps(wrong)), ok_chat())
    result = make(api="chat").complete(request())
    assert result.output.model_dump()["document_notes"]["context_structured"] is True
    errors = fake.bodies(CHAT)[1]["messages"][3]["content"]
    assert "invoice_number.found" in errors
    assert "document_notes: Field required" in errors


def test_prompt_mode_reads_fenced_json(fake: FakeOpenAI, make: Make):
    fence = "```json\n" + json.dumps(invoice_answer(), indent=1) + "\n```"
    fake.add(CHAT, ok_chat(fence))
    result = make(api="prompt").complete(request())
    assert result.output.model_dump()["invoice_number"]["value"] == "INV-1"
    assert (result.mode, result.attempts) == ("prompt", 1)
    [body] = fake.bodies(CHAT)
    assert "response_format" not in body
    system = body["messages"][0]["content"]
    assert system.startswith("Extract the invoice.")
    assert json.dumps(INVOICE.wire_schema, ensure_ascii=False) in system


def test_prompt_mode_invalid_after_repair(fake: FakeOpenAI, make: Make):
    fake.add(CHAT, ok_chat("I think the invoice number is INV-1."), ok_chat("{}"))
    with pytest.raises(LLMInvalidOutput, match="invoice_number: Field required"):
        make(api="prompt").complete(request())
    assert len(fake.requests) == 2
