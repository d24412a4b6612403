"""The review page in a real browser: headless Chromium driven by Playwright (``tests/browser``),
against the app served by uvicorn on 127.0.0.1 in a background thread, over the memory stores.

The bearer header reaches every request the page makes (images, assets, fetch) through the
browser context's ``extra_http_headers``, as it would through an authenticating proxy. Requests
to anywhere but the served app are aborted and fail the test, as does any console error (a CSP
violation is one) or answer >= 400. A screenshot at 1280x800 is written to ``out/review.png``
(ignored by git).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import FIELD_IDS, LOADED, OUT, Tab, assert_drawn_at, box_rects, served
from test_api import ACME, INVOICE, KEYS
from test_review import ITEM, TAMPERED, WHO, drawn, reviewable_result, succeed_with

from evidex.schemas import Result
from evidex.service.app import create_app
from evidex.service.review import REVIEW_DPI
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobstore_memory import MemoryJobStore

ARTEFACT = OUT / "review.png"


@dataclass
class Served:
    base: str
    job_id: str
    blobs: MemoryBlobStore


@contextlib.contextmanager
def serving_a_reviewable_job(**settings: Any) -> Iterator[Served]:
    """The app (``settings`` over the test keys) on a free port of 127.0.0.1, with one
    succeeded, reviewable invoice job."""
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    app = create_app(
        ServiceSettings(api_keys=KEYS, rate_limit_per_minute=1000, **settings),
        job_store=jobs,
        blob_store=blobs,
        enqueue=lambda _job_id: None,
    )
    with served(app) as base:
        with httpx.Client(base_url=base, headers=ACME) as client:
            files = {"file": ("invoice.pdf", INVOICE, "application/pdf")}
            r = client.post("/v1/jobs", files=files, data={"schema": "invoice"})
            assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        succeed_with(jobs, blobs, job_id, reviewable_result())
        yield Served(base, job_id, blobs)


@pytest.fixture
def reviewable() -> Iterator[Served]:
    with serving_a_reviewable_job() as job:
        yield job


def _box_rects(page: Any, field_id: str) -> list[dict[str, Any]]:
    return box_rects(page, f'#pages .box[data-field="{field_id}"]')


def _in_viewport(rect: dict[str, float], width: int = 1280, height: int = 800) -> bool:
    return (
        rect["y"] >= 0
        and rect["y"] + rect["height"] <= height
        and rect["x"] >= 0
        and rect["x"] + rect["width"] <= width
    )


def test_review_page_in_chromium(
    reviewable: Served, open_tab: Callable[..., Tab], tmp_path: Path
) -> None:
    result = Result.model_validate_json(reviewable_result())
    url = f"{reviewable.base}/v1/jobs/{reviewable.job_id}/review"
    tab = open_tab(reviewable.base, headers=ACME)
    _review(tab.page, url, result, tmp_path)
    assert tab.problems == []
    with httpx.Client(base_url=reviewable.base, headers=ACME) as client:
        listed = client.get(f"/v1/jobs/{reviewable.job_id}/decisions").json()["decisions"]
    assert {path: d["action"] for path, d in listed.items()} == {
        TAMPERED: "edit",
        ITEM: "confirm",
        "invoice_number": "confirm",
    }
    assert listed[TAMPERED]["value"] == "PO-NL-77215"
    assert all(d["who"] == WHO for d in listed.values())


def _review(page: Any, url: str, result: Result, tmp_path: Path) -> None:
    page.goto(url)
    page.wait_for_function(LOADED)
    ids = dict(page.eval_on_selector_all("li.field", FIELD_IDS))
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
            assert_drawn_at(rect, box, img, scale, path)
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
