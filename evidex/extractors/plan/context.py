"""The context budget: how many tokens a prompt may use, and a cheap estimate of what it uses.

Pure: numbers and strings in, numbers out.

Why 75% of the window: the answer shares the window with the prompt (servers such as vLLM refuse
a request whose prompt plus ``max_tokens`` exceed it), and a model's attention degrades well
before the hard limit. The remaining quarter is the room for the answer and for the error of the
estimate.

Why characters per token rather than a tokenizer: a tokenizer is model-specific (an
OpenAI-compatible server may run any model), some need files fetched at run time, and the
estimate only has to be good to the headroom. It starts at :data:`CHARS_PER_TOKEN` and is
calibrated by the ``usage`` the provider reports: after a call, characters sent divided by input
tokens counted is the ratio for the next call of the job. Both numbers are recorded in the trace.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace

from evidex.schemas import ConfigError, SchemaDef

__all__ = [
    "CHARS_PER_TOKEN",
    "MESSAGE_OVERHEAD_TOKENS",
    "PROMPT_SHARE",
    "ContextBudget",
    "ContextTooSmall",
    "schema_chars",
]

PROMPT_SHARE = 0.75
CHARS_PER_TOKEN = 3.5  # numbered lines and JSON schema tokenise denser than prose (~4)
MESSAGE_OVERHEAD_TOKENS = 16  # role markers and framing of two messages
_CPT_RANGE = (1.0, 8.0)  # a measured ratio outside this is a provider's odd count, not text


class ContextTooSmall(ConfigError):
    """The window cannot hold the instructions, the schema and one page of the document."""

    code = "context_window_too_small"


def schema_chars(schema: SchemaDef) -> int:
    """Characters of the strict JSON schema sent with the call (it counts as input)."""
    return len(json.dumps(schema.wire_schema, ensure_ascii=False))


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """The model's window and the ratio used to estimate tokens from characters.

    ``window_tokens`` None means no known limit: everything goes in one call, as always.
    """

    window_tokens: int | None = None
    max_output_tokens: int = 16_384
    chars_per_token: float = CHARS_PER_TOKEN
    calibrated: bool = False

    @property
    def limited(self) -> bool:
        return self.window_tokens is not None

    @property
    def prompt_tokens(self) -> int | None:
        """The most tokens one prompt (messages and schema) may use."""
        if self.window_tokens is None:
            return None
        return int(self.window_tokens * PROMPT_SHARE)

    def tokens(self, chars: int) -> int:
        """Estimated tokens of ``chars`` characters of prompt text."""
        return math.ceil(chars / self.chars_per_token)

    def output_tokens(self, prompt_tokens: int) -> int:
        """The answer's cap for a prompt of ``prompt_tokens``: what is configured, and never
        more than what the window leaves."""
        if self.window_tokens is None:
            return self.max_output_tokens
        return max(1, min(self.max_output_tokens, self.window_tokens - prompt_tokens))

    def calibrate(self, chars_sent: int, input_tokens: int | None) -> ContextBudget:
        """The budget with the ratio measured on a call: characters sent over tokens counted."""
        if not input_tokens or input_tokens <= MESSAGE_OVERHEAD_TOKENS or chars_sent <= 0:
            return self
        ratio = chars_sent / (input_tokens - MESSAGE_OVERHEAD_TOKENS)
        lo, hi = _CPT_RANGE
        return replace(self, chars_per_token=round(min(max(ratio, lo), hi), 3), calibrated=True)

    def shrunk(
        self, prompt_tokens: int, window: int | None = None, counted: int | None = None
    ) -> ContextBudget:
        """The budget after the model refused a prompt of ``prompt_tokens`` (estimated).

        When the provider named its window and what it counted, both are believed: the window
        replaces ours and the ratio is recalibrated. Otherwise the prompt budget is set to half
        of what was refused.
        """
        chars = prompt_tokens * self.chars_per_token
        budget = self.calibrate(int(chars), counted) if counted else self
        if window is not None and (budget.window_tokens is None or window < budget.window_tokens):
            return replace(budget, window_tokens=window)
        if counted and budget.window_tokens is not None:
            return budget
        return replace(budget, window_tokens=max(1, math.ceil(prompt_tokens / 2 / PROMPT_SHARE)))

    def too_small(
        self, fixed_tokens: int, page_tokens: int | None = None, page: int = 1
    ) -> ContextTooSmall:
        """The error for a window that cannot hold the instructions and schema (and one page)."""
        need = f"the instructions and schema need {fixed_tokens:,}"
        if page_tokens is not None:
            total = fixed_tokens + page_tokens
            need += f" and page {page} alone {page_tokens:,} ({total:,} in all)"
        return ContextTooSmall(
            f"the model's window of {self.window_tokens:,} tokens leaves {self.prompt_tokens:,} "
            f"for the prompt (75%), but {need}; raise EVIDEX_CONTEXT_TOKENS (--context-tokens, "
            "options.context_tokens) to the model's real window, or use a smaller schema"
        )
