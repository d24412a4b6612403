"""Local HTTP servers for tests and benches: one on a free port of 127.0.0.1, in a thread, for the
length of a ``with`` block.

- :func:`serving`: a request handler class served, yielding ``http://127.0.0.1:<port>``;
- :class:`LocalServer`: the same as an object whose :meth:`~LocalServer.answer` answers each
  request of :attr:`~LocalServer.methods` (the fake model servers subclass it);
- :func:`send`: answer a request with a status, a body and headers, saying whether the client
  was still there to read it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    """A threading HTTP server on a free port of 127.0.0.1 while the ``with`` block runs.

    Given a ``handler`` class it serves that; without one each request of :attr:`methods` goes
    to :meth:`answer` with the body it sent. ``queue_size`` is the listen backlog (a burst of
    connections must not overflow it).
    """

    methods: tuple[str, ...] = ("POST",)
    queue_size = 5

    def __init__(self, handler: type[BaseHTTPRequestHandler] | None = None) -> None:
        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = self.queue_size

        self._server = Server(("127.0.0.1", 0), handler or self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def root(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, request: BaseHTTPRequestHandler, sent: bytes) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                server.answer(self, self.rfile.read(length) if length else b"")

            def log_message(self, format: str, *args: object) -> None:
                return None

        for method in self.methods:
            setattr(Handler, f"do_{method}", Handler.serve)
        return Handler


def send(
    request: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    content_type: str | None = "application/json",
) -> bool:
    """Answer ``status`` with ``body`` and ``headers`` (``content_type`` unless they name one);
    False when the client has gone (a timeout test)."""
    headers = headers or {}
    try:
        request.send_response(status)
        if content_type and "content-type" not in {name.lower() for name in headers}:
            request.send_header("content-type", content_type)
        request.send_header("content-length", str(len(body)))
        for name, value in headers.items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(body)
        request.wfile.flush()
    except OSError:
        return False
    return True


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """``http://127.0.0.1:<port>`` while ``handler`` answers there; stopped on exit."""
    with LocalServer(handler) as server:
        yield server.root
