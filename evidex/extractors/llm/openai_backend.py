"""``OpenAIBackend``: one structured call to OpenAI or an OpenAI-compatible server.

The only module importing ``openai``. Modes (``EVIDEX_OPENAI_API``): ``responses`` (Responses API,
strict ``text.format``; ``create`` not ``parse``, so truncation and refusals keep id and usage),
``chat`` (Chat Completions, ``response_format`` json_schema) and ``prompt`` (the schema in the
system prompt) and ``azure`` (an Azure OpenAI deployment through the SDK's ``AzureOpenAI`` client:
``chat`` on ``/openai/deployments/{model}/chat/completions?api-version=…``; see ``azure_openai``).
Answers are validated against ``schema.wire_model``; in ``chat``/``prompt``/``azure`` mode a
server may ignore the schema, so an invalid answer gets ONE repair request first. Retries are ours
alone (the SDK client has ``max_retries=0``): tenacity retries 408/409/429/5xx, connection errors
and timeouts with exponential backoff, honouring ``retry-after-ms``/``Retry-After`` (capped).
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.responses import Response, ResponseOutputMessage, ResponseOutputRefusal
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt
from tenacity import wait_exponential as exponential
from tenacity import wait_random as jitter

from evidex.extractors.errors import (
    LLMAuthError,
    LLMBadRequest,
    LLMContextExceeded,
    LLMError,
    LLMInvalidOutput,
    LLMRefused,
    LLMTruncated,
    LLMUnavailable,
)
from evidex.extractors.llm.azure_openai import AzureTarget, azure_target
from evidex.extractors.llm.base import LLMRequest, LLMResponse
from evidex.extractors.settings import Settings
from evidex.schemas import SchemaDef
from evidex.schemas.errors import ConfigError
from evidex.schemas.wire import valid_name

__all__ = ["ApiMode", "OpenAIBackend"]

ApiMode = Literal["responses", "chat", "prompt", "azure"]
T = TypeVar("T")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_WAIT_S = 60.0  # cap on any single wait, whether computed or asked for by Retry-After
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?[ \t]*```$", re.DOTALL)
PROMPT_SUFFIX = (
    "\n\nAnswer with ONE JSON object and nothing else: no prose, no code fences. "
    "It must validate against this JSON Schema (every property present, no others):\n"
)
_CONTEXT_WORDS = re.compile(r"context (?:length|window)|maximum context", re.IGNORECASE)
_WINDOW = re.compile(r"maximum context length is (\d+)", re.IGNORECASE)
_COUNTED = re.compile(r"resulted in (\d+) tokens|(\d+) (?:tokens )?in the messages", re.I)
REPAIR = (
    "Your previous answer is not valid: {errors}\n"
    "Reply with the corrected JSON object only, keeping every value that was right."
)


class _Invalid(Exception):
    """An answer that is not JSON or not the schema; the message says what is wrong."""


@dataclass
class _Tally:
    attempts: int = 0
    usage: dict[str, int] = field(default_factory=dict)

    def add(self, *counts: int | None) -> None:  # input, output, total
        for key, n in zip(("input_tokens", "output_tokens", "total_tokens"), counts, strict=True):
            self.usage[key] = self.usage.get(key, 0) + int(n or 0)


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        *,
        api_key: str | None,
        model: str,
        base_url: str | None = None,
        api: ApiMode = "responses",
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        max_output_tokens: int = 16_384,
        sleep: Callable[[float], None] = time.sleep,
        azure: AzureTarget | None = None,
    ) -> None:
        if (api == "azure") != (azure is not None):
            raise ConfigError(
                "EVIDEX_OPENAI_API=azure and an Azure OpenAI resource (AZURE_OPENAI_ENDPOINT) "
                "go together: give both, or neither"
            )
        if azure is None and not api_key:
            raise ConfigError(
                "OPENAI_API_KEY is not set: set it to your OpenAI key (for a local "
                "OpenAI-compatible server that needs none, set any dummy value, e.g. 'local')"
            )
        if api not in ("responses", "chat", "prompt", "azure"):
            raise ConfigError(f"EVIDEX_OPENAI_API={api!r}: use responses, chat, prompt or azure")
        if max_retries < 0:
            raise ConfigError(f"EVIDEX_LLM_MAX_RETRIES={max_retries}: must be 0 or more")
        self.model, self.api, self.timeout_s = model, api, timeout_s
        self.base_url = azure.endpoint if azure else base_url or DEFAULT_BASE_URL
        # the settings a person checks when the server refuses the key or cannot be reached
        self._key_var, self._url_var = (
            ("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT")
            if azure
            else ("OPENAI_API_KEY", "OPENAI_BASE_URL")
        )
        self.max_retries, self.max_output_tokens = max_retries, max_output_tokens
        self._sleep = sleep
        self._backoff = exponential(multiplier=backoff_s, max=MAX_WAIT_S) + jitter(0, backoff_s / 4)
        self._reasoning = model.lower().startswith(_REASONING_PREFIXES)
        # Retries are ours (tenacity below); an SDK that also retried would multiply them.
        self._client: openai.OpenAI
        if azure is not None:
            self._client = openai.AzureOpenAI(
                azure_endpoint=azure.endpoint,
                api_version=azure.api_version,
                api_key=azure.api_key,
                azure_ad_token_provider=azure.token_provider,
                timeout=timeout_s,
                max_retries=0,
            )
        else:
            self._client = openai.OpenAI(
                api_key=api_key, base_url=self.base_url, timeout=timeout_s, max_retries=0
            )

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAIBackend:
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        return cls(
            api_key=key,
            model=settings.model,
            base_url=settings.openai_base_url,
            api=settings.openai_api,
            timeout_s=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
            backoff_s=settings.llm_backoff_s,
            max_output_tokens=settings.max_output_tokens,
            azure=azure_target(settings) if settings.openai_api == "azure" else None,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the call ------------------------------------------------------------------------------

    def complete(self, request: LLMRequest) -> LLMResponse:
        tally = _Tally()
        if self.api == "responses":
            resp = self._send(tally, Response, lambda: self._create_response(request))
            output = self._read_response(resp, request.schema, tally)
            model, rid, fingerprint = resp.model, resp.id, ""
        else:
            output, done = self._chat(request, tally)
            model, rid, fingerprint = done.model, done.id, done.system_fingerprint or ""
        return LLMResponse(
            output=output,
            backend=self.name,
            model=str(model or self.model),
            response_id=rid,
            system_fingerprint=fingerprint,
            usage=tally.usage,
            mode=self.api,
            attempts=tally.attempts,
        )

    def _create_response(self, request: LLMRequest) -> Response:
        # The messages go in ``extra_body``, the SDK's documented way to add JSON to a request,
        # which it sends as given: the typed ``input`` is first walked against every kind of
        # input item the API knows (~0.6 ms a call, the SDK's largest cost here) to leave two
        # plain text messages unchanged. The request body is the same either way.
        messages = [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ]
        return self._client.responses.create(
            model=self.model,
            extra_body={"input": messages},
            text={
                "format": {
                    "type": "json_schema",
                    "name": valid_name(request.schema.name),
                    "schema": request.schema.wire_schema,
                    "strict": True,
                }
            },
            temperature=openai.omit if self._reasoning else 0,
            store=False,  # the default is true: never keep customer documents at the provider
            max_output_tokens=self._output_cap(request),
        )

    def _output_cap(self, request: LLMRequest) -> int:
        """The answer's cap: ours, lowered to what the window leaves when the request says."""
        asked = request.max_output_tokens
        return min(self.max_output_tokens, asked) if asked else self.max_output_tokens

    def _read_response(self, resp: Response, schema: SchemaDef, tally: _Tally) -> BaseModel:
        if u := resp.usage:
            tally.add(u.input_tokens, u.output_tokens, u.total_tokens)
        if resp.status == "incomplete":
            details = resp.incomplete_details
            reason = (details.reason if details else None) or "unknown"
            raise LLMTruncated(
                f"the model's answer was cut off ({reason}) at max_output_tokens="
                f"{self.max_output_tokens}; raise EVIDEX_MAX_OUTPUT_TOKENS or send fewer pages",
                response_id=resp.id,
            )
        if resp.status == "failed":
            why = f"{resp.error.code}: {resp.error.message}" if resp.error else "no reason given"
            raise LLMUnavailable(f"the model failed to answer ({why})", response_id=resp.id)
        refusals = [
            part.refusal
            for item in resp.output
            if isinstance(item, ResponseOutputMessage)
            for part in item.content
            if isinstance(part, ResponseOutputRefusal)
        ]
        if refusals:
            text = " ".join(refusals)
            raise LLMRefused(f"the model refused: {text}", refusal=text, response_id=resp.id)
        try:
            return _validate(schema, resp.output_text)
        except _Invalid as err:
            raise LLMInvalidOutput(
                f"the answer does not fit the schema despite strict mode: {err}",
                response_id=resp.id,
            ) from None

    def _chat(self, request: LLMRequest, tally: _Tally) -> tuple[BaseModel, ChatCompletion]:
        schema = request.schema
        system = request.system
        fmt: ResponseFormatJSONSchema | openai.Omit = openai.omit
        if self.api != "prompt":  # chat, azure
            fmt = {
                "type": "json_schema",
                "json_schema": {
                    "name": valid_name(schema.name),
                    "schema": schema.wire_schema,
                    "strict": True,
                },
            }
        else:
            system += PROMPT_SUFFIX + json.dumps(schema.wire_schema, ensure_ascii=False)
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": request.user},
        ]
        cap = self._output_cap(request)
        done, content = self._chat_once(messages, fmt, tally, cap)
        try:
            return _validate(schema, content), done
        except _Invalid as first:
            # The server did not enforce the schema: one repair request, then give up.
            messages.append({"role": "assistant", "content": content})
            messages.append({"role": "user", "content": REPAIR.format(errors=first)})
        done, content = self._chat_once(messages, fmt, tally, cap)
        try:
            return _validate(schema, content), done
        except _Invalid as second:
            raise LLMInvalidOutput(
                f"the answer does not fit the schema, even after one repair request: {second}",
                response_id=done.id,
            ) from None

    def _chat_once(
        self,
        messages: list[ChatCompletionMessageParam],
        fmt: ResponseFormatJSONSchema | openai.Omit,
        tally: _Tally,
        cap: int | None = None,
    ) -> tuple[ChatCompletion, str]:
        # OpenAI wants max_completion_tokens (reasoning models reject max_tokens); many
        # compatible servers only know max_tokens.
        modern = self._reasoning or self.base_url == DEFAULT_BASE_URL
        cap = cap or self.max_output_tokens
        done = self._send(
            tally,
            ChatCompletion,
            lambda: self._client.chat.completions.create(
                model=self.model,
                messages=list(messages),
                response_format=fmt,
                temperature=openai.omit if self._reasoning else 0,
                max_completion_tokens=cap if modern else openai.omit,
                max_tokens=openai.omit if modern else cap,
            ),
        )
        if u := done.usage:
            tally.add(u.prompt_tokens, u.completion_tokens, u.total_tokens)
        if not done.choices:
            raise LLMInvalidOutput("the server answered with no choices", response_id=done.id)
        choice = done.choices[0]
        if choice.finish_reason == "length":
            raise LLMTruncated(
                f"the model's answer was cut off at max tokens={self.max_output_tokens}; "
                "raise EVIDEX_MAX_OUTPUT_TOKENS or send fewer pages",
                response_id=done.id,
            )
        refusal = choice.message.refusal or (
            "blocked by the content filter" if choice.finish_reason == "content_filter" else ""
        )
        if refusal:
            raise LLMRefused(f"the model refused: {refusal}", refusal=refusal, response_id=done.id)
        return done, choice.message.content or ""

    # -- retries and error translation -----------------------------------------------------

    def _send(self, tally: _Tally, expect: type[T], call: Callable[[], object]) -> T:
        attempts = 0

        def attempt() -> object:
            nonlocal attempts
            attempts += 1
            tally.attempts += 1
            return call()

        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(_transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            result = retrying(attempt)
        except openai.APIStatusError as err:
            raise self._status_error(err, attempts) from err
        except openai.APITimeoutError as err:
            raise LLMUnavailable(
                f"no answer from {self.base_url} within {self.timeout_s:g}s on {attempts} "
                "attempt(s); raise EVIDEX_LLM_TIMEOUT_S or try again later"
            ) from err
        except openai.APIConnectionError as err:
            raise LLMUnavailable(
                f"cannot reach {self.base_url} ({err.message}) after {attempts} attempt(s); "
                f"check {self._url_var} and the network"
            ) from err
        except openai.OpenAIError as err:
            raise LLMError(f"the OpenAI SDK failed: {err}") from err
        except ValueError as err:  # a 200 whose body is not JSON
            result = err
        if not isinstance(result, expect):
            raise LLMInvalidOutput(
                f"{self.base_url} did not answer in the OpenAI wire format ({result!r:.80}); "
                f"is {self._url_var} an OpenAI-compatible API?"
            )
        return result

    def _wait(self, state: RetryCallState) -> float:
        err = state.outcome.exception() if state.outcome else None
        asked = _retry_after(err) if isinstance(err, openai.APIStatusError) else None
        if asked is not None:
            return min(asked, MAX_WAIT_S)
        return float(self._backoff(state))

    def _status_error(self, err: openai.APIStatusError, attempts: int) -> LLMError:
        status, detail = err.status_code, _provider_message(err)
        where = f"{self.base_url} answered HTTP {status}"
        if _retryable(status):
            return LLMUnavailable(
                f"{where} on all {attempts} attempt(s): {detail}; try again later"
            )
        if status in (401, 403):
            return LLMAuthError(f"{where}: {detail}; check {self._key_var}")
        if err.code == "context_length_exceeded" or (
            status in (400, 413) and _CONTEXT_WORDS.search(detail)
        ):
            window, counted = _WINDOW.search(detail), _COUNTED.search(detail)
            return LLMContextExceeded(
                f"{where}: the prompt is longer than the model's window: {detail}; set "
                "EVIDEX_CONTEXT_TOKENS to the model's window so evidex sends fewer pages",
                window_tokens=int(window.group(1)) if window else None,
                prompt_tokens=int(next(g for g in counted.groups() if g)) if counted else None,
            )
        hint = ""
        if status == 404:
            hint = f"; check EVIDEX_MODEL ({self.model}) and {self._url_var}"
            if self.api == "azure":
                hint = (
                    f"; check that EVIDEX_MODEL ({self.model}) names a deployment of "
                    "AZURE_OPENAI_ENDPOINT and that OPENAI_API_VERSION exists"
                )
            if self.api == "responses":
                hint += (
                    ", and if the server has no Responses API (most OpenAI-compatible "
                    "servers), set EVIDEX_OPENAI_API=chat"
                )
        return LLMBadRequest(f"{where}, rejecting the request: {detail}{hint}")


def _retryable(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def _transient(err: BaseException) -> bool:
    if isinstance(err, openai.APIStatusError):
        return _retryable(err.status_code)
    return isinstance(err, openai.APIConnectionError)  # includes APITimeoutError


def _retry_after(err: openai.APIStatusError) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``Retry-After``), if any."""
    headers = err.response.headers
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            when = email.utils.parsedate_tz(value)
            if when is None:
                continue
            seconds = email.utils.mktime_tz(when) - time.time()
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    return None


def _provider_message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return err.message


def _validate(schema: SchemaDef, text: str) -> BaseModel:
    raw = text.strip()
    fenced = _FENCE.match(raw)
    if fenced:
        raw = fenced.group(1).strip()
    if not raw:
        raise _Invalid("the answer is empty")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise _Invalid(f"not JSON ({err.msg} at line {err.lineno} column {err.colno})") from None
    try:
        return schema.wire_model.model_validate(data)
    except ValidationError as err:
        problems = [f"{_path(e['loc'])}: {e['msg']}" for e in err.errors(include_url=False)]
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise _Invalid("; ".join(problems[:10]) + more) from None


def _path(loc: tuple[int | str, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "(root)"
