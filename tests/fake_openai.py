"""A local HTTP server that speaks the OpenAI wire format, answering from a script.

Each endpoint (``/v1/responses``, ``/v1/chat/completions``) has a queue of scripted replies
``(status, headers, body)``; every request is recorded (path, lower-cased headers, JSON body) so
tests can assert what the real SDK sent. An unscripted request gets a 418 (never retried), so a
test fails loudly instead of hanging. Use it as a context manager; ``base_url`` is
``http://127.0.0.1:PORT/v1``.

Azure OpenAI's paths are scripted the same way (``azure_chat(deployment)``, with ``root`` as the
endpoint): replies are chosen by the path without its query, which is recorded apart
(``api-version=…``). ``FakeOpenAI(require={"api-key": KEY})`` answers 401, as Azure does, to a
request without those headers.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from local_http import LocalServer, send

from evidex.extractors.llm.openai_backend import OpenAIBackend

FIXTURES = Path(__file__).parent / "fixtures" / "openai"
RESPONSES = "/v1/responses"
CHAT = "/v1/chat/completions"
AZURE_DENIED = {
    "error": {
        "code": "401",
        "message": "Access denied due to invalid subscription key or wrong API endpoint. Make "
        "sure to provide a valid key for an active subscription and use a correct regional API "
        "endpoint for your resource.",
    }
}


def azure_chat(deployment: str) -> str:
    """The path of an Azure OpenAI deployment's Chat Completions."""
    return f"/openai/deployments/{deployment}/chat/completions"


def fixture(name: str) -> dict[str, Any]:
    """A recorded/scripted wire body from ``tests/fixtures/openai/NAME.json``."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering (to provoke client timeouts)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    query: str = ""


class FakeOpenAI(LocalServer):
    def __init__(self, require: dict[str, str] | None = None) -> None:
        self.script: dict[str, deque[Reply]] = {RESPONSES: deque(), CHAT: deque()}
        self.require = {k.lower(): v for k, v in (require or {}).items()}
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        super().__init__()

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def add(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self.script.setdefault(path, deque()).extend(replies)

    def bodies(self, path: str | None = None) -> list[Any]:
        return [s.body for s in self.requests if path is None or s.path == path]

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        try:
            body: Any = json.loads(sent)
        except ValueError:
            body = sent.decode("utf-8", "replace")
        path, _, query = request.path.partition("?")
        headers = {k.lower(): v for k, v in request.headers.items()}
        reply = self._next(path, Seen(path, headers, body, query))
        if reply.delay_s:
            time.sleep(reply.delay_s)
        data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        send(request, reply.status, data, {"connection": "close", **reply.headers})
        request.close_connection = True

    def _next(self, path: str, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            if any(seen.headers.get(k) != v for k, v in self.require.items()):
                return Reply(401, AZURE_DENIED)
            queue = self.script.get(path)
            if queue:
                return queue.popleft()
        error = {"message": f"fake server: nothing scripted for {path}", "type": "test"}
        return Reply(418, {"error": error})


def local_backend(
    base_url: str, model: str = "local", api: str = "responses", **options: Any
) -> OpenAIBackend:
    """The real OpenAI backend, its SDK and all, pointed at a local server of these tests."""
    return OpenAIBackend(
        api_key="sk-local",
        model=model,
        base_url=base_url,
        api=api,  # type: ignore[arg-type]
        **options,
    )
