"""The review page in a real browser: headless Chromium (Debian's) driven by Playwright, against
the app served by uvicorn on 127.0.0.1 in a background thread, over the memory stores.

The bearer header reaches every request the page makes (images, assets, fetch) through the
browser context's ``extra_http_headers``, as it would through an authenticating proxy. Requests
to anywhere but the served app are aborted and fail the test, as does any console error (a CSP
violation is one). A screenshot at 1280x800 is written to ``out/review.png`` (ignored by git).
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from test_api import ACME, INVOICE, KEYS
from test_review import ITEM, TAMPERED, WHO, drawn, reviewable_result, succeed_with

from evidex.schemas import Result
from evidex.service.app import create_app
from evidex.service.review import REVIEW_DPI
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobstore_memory import MemoryJobStore

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
ARTEFACT = Path(__file__).resolve().parents[2] / "out" / "review.png"
TOLERANCE_PX = 2.0

if not CHROMIUM.exists():
    pytest.skip(f"Chromium not installed: {CHROMIUM} is missing", allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright not installed: pip install playwright"
)


@dataclass
class Served:
    base: str
    job_id: str
    blobs: MemoryBlobStore


@pytest.fixture
def served() -> Iterator[Served]:
    """The app on a free port of 127.0.0.1, with one succeeded, reviewable invoice job."""
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    app = create_app(
        ServiceSettings(api_keys=KEYS, rate_limit_per_minute=1000),
        job_store=jobs,
        blob_store=blobs,
        enqueue=lambda _job_id: None,
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
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
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, headers=ACME) as client:
            files = {"file": ("invoice.pdf", INVOICE, "application/pdf")}
            r = client.post("/v1/jobs", files=files, data={"schema": "invoice"})
            assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        succeed_with(jobs, blobs, job_id, reviewable_result())
        yield Served(base, job_id, blobs)
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
    assert not thread.is_alive(), "uvicorn did not stop"


def _box_rects(page: Any, field_id: str) -> list[dict[str, float]]:
    rects: list[dict[str, float]] = page.eval_on_selector_all(
        f'#pages .box[data-field="{field_id}"]',
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; })",
    )
    return rects


def _in_viewport(rect: dict[str, float], width: int = 1280, height: int = 800) -> bool:
    return (
        rect["y"] >= 0
        and rect["y"] + rect["height"] <= height
        and rect["x"] >= 0
        and rect["x"] + rect["width"] <= width
    )


def test_review_page_in_chromium(served: Served, tmp_path: Path) -> None:
    result = Result.model_validate_json(reviewable_result())
    url = f"{served.base}/v1/jobs/{served.job_id}/review"
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(
                viewport={"width": 1280, "height": 800},
                device_scale_factor=1,
                extra_http_headers=ACME,
            )

            def only_the_app(route: Any) -> None:
                if route.request.url.startswith(served.base + "/"):
                    route.continue_()
                else:
                    problems.append(f"request to another host: {route.request.url}")
                    route.abort()

            context.route("**/*", only_the_app)
            page = context.new_page()
            page.on("console", lambda m: m.type == "error" and problems.append(m.text))
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on(
                "response",
                lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"),
            )
            _review(page, url, served, result, tmp_path)
            context.close()
        finally:
            browser.close()
    assert problems == []
    with httpx.Client(base_url=served.base, headers=ACME) as client:
        listed = client.get(f"/v1/jobs/{served.job_id}/decisions").json()["decisions"]
    assert {path: d["action"] for path, d in listed.items()} == {
        TAMPERED: "edit",
        ITEM: "confirm",
        "invoice_number": "confirm",
    }
    assert listed[TAMPERED]["value"] == "PO-NL-77215"
    assert all(d["who"] == WHO for d in listed.values())


def _review(page: Any, url: str, served: Served, result: Result, tmp_path: Path) -> None:
    page.goto(url)
    page.wait_for_function(
        "() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
    )
    ids = dict(page.eval_on_selector_all("li.field", "els => els.map(e => [e.dataset.path, e.id])"))
    assert list(ids)[:2] == [TAMPERED, ITEM]  # not verified first
    image = page.locator("#page-1 img")
    natural = image.evaluate("i => i.naturalWidth")
    assert natural == 910
    # Every box is drawn where the result says, scaled to the displayed image.
    img = image.bounding_box()
    scale = img["width"] / natural * REVIEW_DPI / 72
    checked = 0
    for path, field in result.fields.items():
        rects = _box_rects(page, ids[path])
        boxes = [box for box in field.boxes if box.page == 1]  # a one-page document
        assert len(rects) == len(boxes), path
        for box, rect in zip(boxes, rects, strict=True):
            expected = {
                "x": img["x"] + box.x0 * scale,
                "y": img["y"] + box.y0 * scale,
                "width": (box.x1 - box.x0) * scale,
                "height": (box.y1 - box.y0) * scale,
            }
            for key, value in expected.items():
                assert abs(rect[key] - value) <= TOLERANCE_PX, (path, key, rect, expected)
            checked += 1
    assert checked == drawn(result) >= 3
    title = page.locator(f'.box[data-field="{ids["invoice_number"]}"]').get_attribute("title")
    assert title == "invoice_number = INV-2026-00418 · verified"  # shown on hover

    # Clicking a field scrolls to its evidence and emphasises it: the lowest box on the page
    # starts below the fold at 1280x800.
    low = max(
        (p for p, f in result.fields.items() if any(b.page == 1 for b in f.boxes)),
        key=lambda p: max(b.y1 for b in result.fields[p].boxes if b.page == 1),
    )
    assert not _in_viewport(_box_rects(page, ids[low])[0])
    page.locator(f'li[data-path="{low}"] .path').click()
    focused = page.locator(f'.box[data-field="{ids[low]}"]').first
    assert "focus" in (focused.get_attribute("class") or "")
    assert _in_viewport(_box_rects(page, ids[low])[0])

    # Click the field that needs review, edit it from the keyboard.
    page.locator(f'li[data-path="{TAMPERED}"] .value').click()
    field = page.locator(f'li[data-path="{TAMPERED}"]')
    assert "current" in (field.get_attribute("class") or "")
    page.keyboard.press("e")
    value = field.locator('form.editor input[name="value"]')
    assert value.is_visible() and value.evaluate("e => e === document.activeElement")
    value.fill("PO-NL-77215")
    value.press("Enter")
    field.locator(".decided .d-label", has_text="Edited").wait_for()
    assert field.locator(".d-value").inner_text() == "PO-NL-77215"
    assert field.locator("form.editor").is_hidden()

    # j / ArrowDown / k: next, next, previous; then c confirms (a path that needs encoding).
    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("k")
    item = page.locator(f'li[data-path="{ITEM}"]')
    assert "current" in (item.get_attribute("class") or "")
    page.keyboard.press("c")
    item.locator(".decided .d-label", has_text="Confirmed").wait_for()
    # And the mouse: the Confirm button of another field.
    page.locator('li[data-path="invoice_number"] button[data-act="confirm"]').click()
    page.locator('li[data-path="invoice_number"] .d-label', has_text="Confirmed").wait_for()
    reviewed = f"3 of {len(result.fields)} reviewed"
    assert page.locator("#progress").inner_text() == reviewed

    # Reload: the decisions are kept.
    page.reload()
    page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
    assert "d-edit" in (field.get_attribute("class") or "")
    assert field.locator(".d-label").inner_text() == "Edited"
    assert field.locator(".d-value").inner_text() == "PO-NL-77215"
    assert WHO in field.locator(".d-who").inner_text()
    assert "d-confirm" in (item.get_attribute("class") or "")
    assert page.locator("#progress").inner_text() == reviewed

    page.locator(f'li[data-path="{TAMPERED}"] .value').click()
    shot = tmp_path / "review.png"
    page.screenshot(path=str(shot))
    ARTEFACT.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, ARTEFACT)
    assert shot.stat().st_size > 10_000
