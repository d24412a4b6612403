"""A local OpenAI-wire server with a context window, answering by reading the lines it is sent.

``WindowedOpenAI`` extends :class:`fake_openai.FakeOpenAI`: every request to ``/v1/responses`` or
``/v1/chat/completions`` is measured (messages plus the response format's schema, at
``chars_per_token`` characters a token: denser than evidex's own estimate, as real tokenizers
are on numbered lines). Over ``window_tokens`` it answers 400 ``context_length_exceeded`` in
OpenAI's words (the Chat Completions message names both numbers, the Responses one none).
Otherwise a ``reader`` turns the numbered lines of the prompt into a wire answer for the fields
the request's schema asks for, with its usage. The reader sees only what was sent: a fact on a
page that was not sent cannot be answered.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from fake_openai import CHAT, RESPONSES, FakeOpenAI, Reply, Seen, fixture

from evidex.schemas import NOT_FOUND as NOT_FOUND  # scripts of long documents use it from here

Row = tuple[int, int, str]  # global line, page, text
Reader = Callable[[list[Row], dict[str, Any]], dict[str, Any]]
_ROW = re.compile(r"^(\d+)\t(\d+)\t\d+\t(.*)$")


def rows_of(prompt: str) -> list[Row]:
    """The numbered lines of a prompt (``GLOBAL_LINE<TAB>page<TAB>line_in_page<TAB>text``)."""
    out = []
    for line in prompt.splitlines():
        m = _ROW.match(line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3)))
    return out


def leaf(row: Row, quote: str, value: Any) -> dict[str, Any]:
    return {
        "quote": quote,
        "page": row[1],
        "line_start": row[0],
        "line_end": row[0],
        "found": True,
        "value": value,
        "caveat": "",
    }


NOTES = {
    "caveats": [],
    "conflicting_evidence": [],
    "context_structured": True,
    "suggested_clarification": "",
}


class WindowedOpenAI(FakeOpenAI):
    def __init__(self, window_tokens: int, reader: Reader, chars_per_token: float = 3.0) -> None:
        super().__init__()
        self.window_tokens, self.reader, self.chars_per_token = (
            window_tokens,
            reader,
            chars_per_token,
        )
        self.refused = 0
        self.counted: list[int] = []

    def tokens(self, body: dict[str, Any]) -> int:
        messages = body.get("input") or body.get("messages") or []
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        fmt = (body.get("text") or {}).get("format") or body.get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema") or {}
        chars += len(json.dumps(schema, ensure_ascii=False))
        return math.ceil(chars / self.chars_per_token) + 8

    def _next(self, path: str, seen: Seen) -> Reply:
        if path not in (RESPONSES, CHAT) or not isinstance(seen.body, dict):
            return super()._next(path, seen)
        with self._lock:
            self.requests.append(seen)
        body = seen.body
        counted = self.tokens(body)
        self.counted.append(counted)
        if counted > self.window_tokens:
            self.refused += 1
            return self._too_long(path, counted)
        messages = body.get("input") or body.get("messages")
        user = str(messages[-1]["content"])
        fmt = (body.get("text") or {}).get("format") or body.get("response_format") or {}
        schema = fmt.get("schema") or fmt["json_schema"]["schema"]
        answer = self.reader(rows_of(user), schema)
        answer["document_notes"] = NOTES
        text = json.dumps(answer)
        usage_in, usage_out = counted, math.ceil(len(text) / 4)
        if path == RESPONSES:
            reply = fixture("responses_completed")
            reply["output"][0]["content"][0]["text"] = text
            reply["usage"] = {
                "input_tokens": usage_in,
                "output_tokens": usage_out,
                "total_tokens": usage_in + usage_out,
            }
        else:
            reply = fixture("chat_completion")
            reply["choices"][0]["message"]["content"] = text
            reply["usage"] = {
                "prompt_tokens": usage_in,
                "completion_tokens": usage_out,
                "total_tokens": usage_in + usage_out,
            }
        return Reply(200, reply)

    def _too_long(self, path: str, counted: int) -> Reply:
        if path == CHAT:
            message = (
                f"This model's maximum context length is {self.window_tokens} tokens. However, "
                f"your messages resulted in {counted} tokens. Please reduce the length of the "
                "messages."
            )
            param = "messages"
        else:
            message = (
                "Your input exceeds the context window of this model. Please adjust your input "
                "and try again."
            )
            param = "input"
        error = {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": "context_length_exceeded",
        }
        return Reply(400, {"error": error})


def pattern_reader(
    finders: dict[str, Callable[[list[Row]], dict[str, Any] | list[dict[str, Any]] | None]],
) -> Reader:
    """A reader answering each asked field with its finder over the lines sent (None: not
    found; a list: the items of a list field)."""

    def read(rows: list[Row], schema: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = {}
        for name, spec in schema["properties"].items():
            if name == "document_notes":
                continue
            found = finders[name](rows) if name in finders else None
            if spec.get("type") == "array":
                answer[name] = found if isinstance(found, list) else []
            else:
                answer[name] = found if isinstance(found, dict) else dict(NOT_FOUND)
        return answer

    return read


def first_match(
    pattern: str, make: Callable[[re.Match[str]], tuple[str, Any]]
) -> Callable[[list[Row]], dict[str, Any] | None]:
    """A finder: the first line matching ``pattern``; ``make`` gives the quote and value."""
    compiled = re.compile(pattern)

    def find(rows: list[Row]) -> dict[str, Any] | None:
        for row in rows:
            m = compiled.search(row[2])
            if m:
                quote, value = make(m)
                return leaf(row, quote, value)
        return None

    return find
