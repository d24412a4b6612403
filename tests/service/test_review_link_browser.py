"""A signed review link in a real browser: headless Chromium opens it with no API key at all,
reviews a field, and a tampered or revoked link shows the expired page with nothing of the job.

The app is served by uvicorn on 127.0.0.1 in a background thread over the memory stores (as in
``test_review_browser``); requests to any other host fail the test.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from test_api import ACME, INVOICE, KEYS
from test_review import ITEM, TAMPERED, reviewable_result, succeed_with
from test_review_browser import ARGS, CHROMIUM, sync_api

from evidex.service.app import create_app
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobstore_memory import MemoryJobStore

REVIEWER = "Ana Souza"


@pytest.fixture
def served() -> Iterator[tuple[str, str]]:
    """The app's base URL and one succeeded invoice job."""
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    settings = ServiceSettings(
        api_keys=KEYS, rate_limit_per_minute=1000, review_link_secret="browser-test-secret"
    )
    app = create_app(settings, job_store=jobs, blob_store=blobs, enqueue=lambda _job_id: None)
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
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        with httpx.Client(base_url=base, headers=ACME) as client:
            files = {"file": ("invoice.pdf", INVOICE, "application/pdf")}
            r = client.post("/v1/jobs", files=files, data={"schema": "invoice"})
            assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        succeed_with(jobs, blobs, job_id, reviewable_result())
        yield base, job_id
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def test_review_link_opens_in_chromium_without_a_key(served: tuple[str, str]) -> None:
    base, job_id = served
    api = httpx.Client(base_url=base, headers=ACME)
    link = api.post(
        f"/v1/jobs/{job_id}/review-links", json={"reviewer": REVIEWER, "expires_in": 3600}
    ).json()
    url = link["url"]
    assert url.startswith(f"{base}/review/evr1.")
    problems: list[str] = []
    sent_headers: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})

            def only_the_app(route: Any) -> None:
                if route.request.url.startswith(base + "/"):
                    sent_headers.extend(route.request.headers)
                    route.continue_()
                else:
                    problems.append(f"request to another host: {route.request.url}")
                    route.abort()

            context.route("**/*", only_the_app)
            page = context.new_page()
            page.on("console", lambda m: m.type == "error" and problems.append(m.text))
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            first = page.goto(url)
            assert first is not None and first.status == 200
            page.wait_for_function(
                "() => Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
            )
            paths = page.eval_on_selector_all("li.field", "els => els.map(e => e.dataset.path)")
            assert paths[:2] == [TAMPERED, ITEM]
            assert page.locator("#pages .box").count() >= 3
            page.locator(f'li[data-path="{ITEM}"] button[data-act="confirm"]').click()
            page.locator(f'li[data-path="{ITEM}"] .d-label', has_text="Confirmed").wait_for()
            assert problems == []
            assert "authorization" not in {h.lower() for h in sent_headers}

            # Tampered: one character of the signature changed.
            token = url.rsplit("/", 1)[1]
            bad = token[:-1] + ("A" if token[-1] != "A" else "B")
            gone = page.goto(f"{base}/review/{bad}")
            assert gone is not None and gone.status == 404
            text = page.locator("body").inner_text()
            assert "This review link has expired" in text
            assert job_id not in page.content() and "invoice" not in page.content().lower()

            # Revoked: the very URL that worked is now the same page.
            revoked = api.delete(f"/v1/jobs/{job_id}/review-links/{link['id']}")
            assert revoked.status_code == 204
            again = page.goto(url)
            assert again is not None and again.status == 404
            assert "This review link has expired" in page.locator("h1").inner_text()
            context.close()
        finally:
            browser.close()
    decisions = api.get(f"/v1/jobs/{job_id}/decisions").json()["decisions"]
    assert decisions[ITEM]["action"] == "confirm"
    assert decisions[ITEM]["who"] == f"{REVIEWER} (review link {link['id']})"
    api.close()
