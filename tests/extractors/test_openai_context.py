"""The OpenAI adapter's part in long documents: the window error translated, the answer capped."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest
from fake_openai import CHAT, RESPONSES, FakeOpenAI, Reply, fixture, local_backend

from evidex.extractors.errors import LLMBadRequest, LLMContextExceeded
from evidex.extractors.llm.base import LLMRequest
from evidex.extractors.llm.openai_backend import OpenAIBackend
from evidex.extractors.parse.text import TextParser
from evidex.schemas import build_answer, get_schema

INVOICE = get_schema("invoice")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def backend(fake: FakeOpenAI, api: str = "responses") -> OpenAIBackend:
    return local_backend(
        fake.base_url, "local", api, max_retries=2, backoff_s=0.0, max_output_tokens=16_384
    )


def request(cap: int | None = None) -> LLMRequest:
    doc = TextParser().parse(b"Invoice No: INV-1\n", "a.txt")
    return LLMRequest("Extract.", "1\t1\t1\tInvoice No: INV-1", INVOICE, doc, cap)


def too_long(message: str, code: str | None = "context_length_exceeded") -> Reply:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return Reply(400, {"error": error})


CHAT_MESSAGE = (
    "This model's maximum context length is 16385 tokens. However, your messages resulted in "
    "20012 tokens. Please reduce the length of the messages."
)
VLLM_MESSAGE = (
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens "
    "(8000 in the messages, 1000 in the completion). Please reduce the length of the messages "
    "or completion."
)
RESPONSES_MESSAGE = (
    "Your input exceeds the context window of this model. Please adjust your input and try again."
)


@pytest.mark.parametrize(
    ("api", "reply", "window", "counted"),
    [
        ("chat", too_long(CHAT_MESSAGE), 16_385, 20_012),
        ("chat", too_long(VLLM_MESSAGE, code=None), 8_192, 8_000),
        ("responses", too_long(RESPONSES_MESSAGE), None, None),
    ],
)
def test_a_prompt_over_the_window_is_context_exceeded_with_the_providers_numbers(
    fake, api, reply, window, counted
):
    fake.add(CHAT if api == "chat" else RESPONSES, reply)
    with backend(fake, api) as llm, pytest.raises(LLMContextExceeded) as caught:
        llm.complete(request())

    err = caught.value
    assert (err.code, err.window_tokens, err.prompt_tokens) == (
        "llm_context_exceeded",
        window,
        counted,
    )
    assert isinstance(err, LLMBadRequest) and "EVIDEX_CONTEXT_TOKENS" in str(err)
    assert len(fake.requests) == 1  # never retried: the same prompt would be refused again


def test_another_bad_request_stays_a_bad_request(fake):
    fake.add(RESPONSES, Reply(400, fixture("error_bad_request")))
    with backend(fake) as llm, pytest.raises(LLMBadRequest) as caught:
        llm.complete(request())
    assert caught.value.code == "llm_bad_request"


def answer_body(name: str) -> dict[str, object]:
    body = copy.deepcopy(fixture(name))
    text = json.dumps(build_answer(INVOICE, {}))
    if name.startswith("chat"):
        body["choices"][0]["message"]["content"] = text  # type: ignore[index]
    else:
        body["output"][0]["content"][0]["text"] = text  # type: ignore[index]
    return body


@pytest.mark.parametrize(
    ("api", "path", "key"),
    [("responses", RESPONSES, "max_output_tokens"), ("chat", CHAT, "max_tokens")],
)
def test_the_answer_is_capped_by_what_the_window_leaves(fake, api, path, key):
    body = answer_body("chat_completion" if api == "chat" else "responses_completed")
    fake.add(path, Reply(200, body), Reply(200, body))
    with backend(fake, api) as llm:
        llm.complete(request(cap=3_000))
        llm.complete(request())
    first, second = fake.bodies(path)
    assert (first[key], second[key]) == (3_000, 16_384)
