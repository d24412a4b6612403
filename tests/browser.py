"""The browser tests' harness: headless Chromium (Debian's) driven by Playwright, an app served by
uvicorn on 127.0.0.1 in a background thread, and a tab that records what must fail a test.

Importing this module skips the importing test module when Chromium or Playwright is missing.
A :class:`Tab` lets requests reach only the served app: one to any other host is aborted and
kept in ``problems``, as is every console error (a CSP violation is one) and page error; the
browser's own note of an answer >= 400 is kept too unless ``http_errors`` says those are
expected. The ``chromium`` and ``open_tab`` fixtures (``tests/service/conftest.py``) give each
test the browser and its tabs.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUT = Path(__file__).resolve().parents[1] / "out"  # screenshots (ignored by git)
TOLERANCE_PX = 2.0
LOADED = "() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
FIELD_IDS = "els => els.map(e => [e.dataset.path, e.id])"  # on "li.field": path -> element id
_HTTP_ERROR = "Failed to load resource: the server responded with a status of"

if not CHROMIUM.exists():
    pytest.skip(f"Chromium not installed: {CHROMIUM} is missing", allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright not installed: pip install playwright"
)


@dataclass
class Tab:
    page: Any
    context: Any
    problems: list[str] = field(default_factory=list)
    sent_headers: list[str] = field(default_factory=list)  # names, of every request to the app


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium for the block."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def tab(
    browser: Any,
    base: str,
    *,
    height: int = 800,
    headers: dict[str, str] | None = None,
    http_errors: bool = False,
) -> Iterator[Tab]:
    """A fresh context (no storage; ``headers`` on every request) 1280 wide, and a page in it
    that may reach only ``base``. ``http_errors``: answers >= 400 are expected, not problems."""
    context = browser.new_context(
        viewport={"width": 1280, "height": height},
        device_scale_factor=1,
        extra_http_headers=headers or {},
    )
    opened = Tab(context.new_page(), context)

    def only_the_app(route: Any) -> None:
        if route.request.url.startswith(base + "/"):
            opened.sent_headers.extend(route.request.headers)
            route.continue_()
        else:
            opened.problems.append(f"request to another host: {route.request.url}")
            route.abort()

    def console(message: Any) -> None:
        if message.type == "error" and not (http_errors and message.text.startswith(_HTTP_ERROR)):
            opened.problems.append(message.text)

    def response(answer: Any) -> None:
        if answer.status >= 400 and not http_errors:
            opened.problems.append(f"{answer.status} {answer.url}")

    context.route("**/*", only_the_app)
    opened.page.on("console", console)
    opened.page.on("pageerror", lambda e: opened.problems.append(f"page error: {e}"))
    opened.page.on("response", response)
    try:
        yield opened
    finally:
        context.close()


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free port of 127.0.0.1 in a thread; its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, lifespan="on", http="h11", ws="none", log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
    assert not thread.is_alive(), "uvicorn did not stop"


def box_rects(page: Any, selector: str) -> list[dict[str, Any]]:
    """Where each element of ``selector`` is drawn (x, y, width, height) and its classes."""
    rects: list[dict[str, Any]] = page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height, classes: e.className}; })",
    )
    return rects


def assert_drawn_at(
    rect: dict[str, Any], box: Any, image: dict[str, float], scale: float, what: str
) -> None:
    """``rect`` (of the box of field ``what``) is ``box`` (x0, y0, x1, y1 in the page's units)
    scaled by ``scale`` onto the image shown at ``image``, within :data:`TOLERANCE_PX`."""
    x0, y0, x1, y1 = (box[k] if isinstance(box, dict) else getattr(box, k) for k in _CORNERS)
    expected = {
        "x": image["x"] + x0 * scale,
        "y": image["y"] + y0 * scale,
        "width": (x1 - x0) * scale,
        "height": (y1 - y0) * scale,
    }
    for key, value in expected.items():
        assert abs(rect[key] - value) <= TOLERANCE_PX, (what, key, rect, expected)


_CORNERS = ("x0", "y0", "x1", "y1")
