"""``ScriptedLLM``: a shipped fake backend that answers with what a test or demo scripts.

Give it a function of the request, or a fixed answer (a dict in the wire shape, validated against
the schema exactly as a model's answer would be). Exceptions the function raises propagate, so a
test can script a refusal or an outage with the real error types.

With ``window_tokens`` it behaves like a model with a context window: it counts the prompt at
``chars_per_token`` characters a token, refuses one over the window with
:class:`~evidex.extractors.errors.LLMContextExceeded` (naming both numbers, as OpenAI does), and
reports the count as ``usage`` otherwise.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from evidex.extractors.errors import LLMContextExceeded
from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.schemas.answer import NOT_FOUND, build_answer

__all__ = ["NOT_FOUND", "ScriptedLLM", "build_answer"]


Answer = dict[str, Any]


class ScriptedLLM:
    name = "scripted"

    def __init__(
        self,
        answer: Answer | Callable[[LLMRequest], Answer],
        *,
        window_tokens: int | None = None,
        chars_per_token: float = 3.0,
    ) -> None:
        self._answer = answer
        self.window_tokens, self.chars_per_token = window_tokens, chars_per_token
        self.requests: list[LLMRequest] = []

    def _count(self, request: LLMRequest) -> int:
        chars = len(request.system) + len(request.user)
        chars += len(json.dumps(request.schema.wire_schema, ensure_ascii=False))
        return math.ceil(chars / self.chars_per_token)

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        usage: dict[str, int] = {}
        if self.window_tokens is not None:
            counted = self._count(request)
            if counted > self.window_tokens:
                raise LLMContextExceeded(
                    f"the prompt of {counted} tokens is over the window of {self.window_tokens}",
                    window_tokens=self.window_tokens,
                    prompt_tokens=counted,
                )
            usage = {"input_tokens": counted}
        answer = self._answer(request) if callable(self._answer) else self._answer
        output = request.schema.wire_model.model_validate(answer)
        return LLMResponse(
            output=output,
            backend=self.name,
            model="scripted",
            response_id=f"scripted-{len(self.requests)}",
            usage=usage,
            mode="scripted",
        )
