"""``ScriptedLLM``: a shipped fake backend that answers with what a test or demo scripts.

Give it a function of the request, or a fixed answer (a dict in the wire shape, validated against
the schema exactly as a model's answer would be). Exceptions the function raises propagate, so a
test can script a refusal or an outage with the real error types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.schemas.answer import NOT_FOUND, build_answer

__all__ = ["NOT_FOUND", "ScriptedLLM", "build_answer"]


Answer = dict[str, Any]


class ScriptedLLM:
    name = "scripted"

    def __init__(self, answer: Answer | Callable[[LLMRequest], Answer]) -> None:
        self._answer = answer
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        answer = self._answer(request) if callable(self._answer) else self._answer
        output = request.schema.wire_model.model_validate(answer)
        return LLMResponse(
            output=output,
            backend=self.name,
            model="scripted",
            response_id=f"scripted-{len(self.requests)}",
            mode="scripted",
        )
