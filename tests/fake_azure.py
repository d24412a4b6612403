"""A local HTTP server that speaks Azure Document Intelligence's analyze wire format.

``POST {endpoint}/documentintelligence/documentModels/{model}:analyze?api-version=...`` answers
``202`` with ``Operation-Location: {endpoint}/documentintelligence/documentModels/{model}/
analyzeResults/{id}?api-version=...``; a ``GET`` on that answers ``{"status": "running"}``
``running_polls`` times, then ``{"status": "succeeded", "analyzeResult": ...}`` with the next
body of ``results`` (recorded bodies: ``tests/fixtures/azure/NAME.json``). Scriptable: replies for
the POST (``post_errors``, consumed first) and for polls (``poll_errors``), a hang (``hang``: the
operation stays running), a failed operation (``failure``). A request without the right
``Ocp-Apim-Subscription-Key`` gets Azure's 401. Every request is recorded with its arrival time.
Use it as a context manager; ``endpoint`` is ``http://127.0.0.1:PORT``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from local_http import LocalServer, send

FIXTURES = Path(__file__).parent / "fixtures" / "azure"
KEY = "fake-azure-key"
PREFIX = "/documentintelligence/documentModels/"


def body(name: str) -> dict[str, Any]:
    """A recorded ``analyzeResult`` from ``tests/fixtures/azure/NAME.json``."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def error(name: str) -> dict[str, Any]:
    """A recorded Azure error body from ``tests/fixtures/azure/errors.json``."""
    data: dict[str, Any] = json.loads((FIXTURES / "errors.json").read_text(encoding="utf-8"))
    return dict(data[name])


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # wait before answering (ends early when the server stops)


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() on arrival


@dataclass
class _Operation:
    result: dict[str, Any] | None
    polls: int = 0


class FakeAzure(LocalServer):
    methods = ("GET", "POST")

    def __init__(self, key: str = KEY) -> None:
        self.key = key
        self.results: deque[dict[str, Any]] = deque()
        self.post_errors: deque[Reply] = deque()
        self.poll_errors: deque[Reply] = deque()
        self.running_polls = 1
        self.hang = False
        self.failure: dict[str, Any] | None = None
        self.requests: list[Seen] = []
        self._operations: dict[str, _Operation] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        super().__init__()

    @property
    def endpoint(self) -> str:
        return self.root

    def add(self, *results: dict[str, Any]) -> None:
        with self._lock:
            self.results.extend(results)

    def seen(self, method: str) -> list[Seen]:
        return [s for s in self.requests if s.method == method]

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        super().__exit__(*exc)

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        url = urlsplit(request.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        headers = {k.lower(): v for k, v in request.headers.items()}
        reply = self.reply(Seen(request.command, url.path, query, headers, sent, time.monotonic()))
        if reply.delay_s and self._stop.wait(reply.delay_s):
            request.close_connection = True
            return
        data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        send(
            request,
            reply.status,
            data,
            reply.headers,
            "application/json; charset=utf-8" if data else None,
        )

    def reply(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            if seen.headers.get("ocp-apim-subscription-key") != self.key:
                return Reply(401, error("401"))
            if seen.method == "POST" and seen.path.endswith(":analyze"):
                return self._analyze(seen)
            op_id = seen.path.rsplit("/", 1)[-1]
            if seen.method == "GET" and op_id in self._operations:
                return self._poll(self._operations[op_id])
        return Reply(404, {"error": {"code": "404", "message": "Resource not found"}})

    def _analyze(self, seen: Seen) -> Reply:
        if self.post_errors:
            return self.post_errors.popleft()
        op_id = str(uuid.uuid4())
        self._operations[op_id] = _Operation(self.results.popleft() if self.results else None)
        model = seen.path[len(PREFIX) :].removesuffix(":analyze")
        location = (
            f"{self.endpoint}{PREFIX}{model}/analyzeResults/{op_id}"
            f"?api-version={seen.query.get('api-version', '')}"
        )
        return Reply(202, b"", {"Operation-Location": location, "apim-request-id": op_id})

    def _poll(self, op: _Operation) -> Reply:
        if self.poll_errors:
            return self.poll_errors.popleft()
        op.polls += 1
        stamp = {
            "createdDateTime": "2026-03-16T10:00:00Z",
            "lastUpdatedDateTime": "2026-03-16T10:00:01Z",
        }
        if self.hang or op.polls <= self.running_polls:
            return Reply(200, {"status": "running", **stamp})
        if self.failure is not None:
            return Reply(200, {"status": "failed", **stamp, "error": self.failure})
        if op.result is None:
            return Reply(418, {"error": {"code": "418", "message": "fake: no result scripted"}})
        return Reply(200, {"status": "succeeded", **stamp, "analyzeResult": op.result})
