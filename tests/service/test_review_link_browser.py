"""A signed review link in a real browser: headless Chromium opens it with no API key at all,
reviews a field, and a tampered or revoked link shows the expired page with nothing of the job.

The app is served by uvicorn on 127.0.0.1 in a background thread over the memory stores (as in
``test_review_browser``); requests to any other host fail the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from browser import LOADED, Tab
from test_api import ACME
from test_review import ITEM, TAMPERED
from test_review_browser import Served, serving_a_reviewable_job

REVIEWER = "Ana Souza"


@pytest.fixture
def reviewable() -> Iterator[Served]:
    with serving_a_reviewable_job(review_link_secret="browser-test-secret") as job:
        yield job


def test_review_link_opens_in_chromium_without_a_key(
    reviewable: Served, open_tab: Callable[..., Tab]
) -> None:
    base, job_id = reviewable.base, reviewable.job_id
    api = httpx.Client(base_url=base, headers=ACME)
    link = api.post(
        f"/v1/jobs/{job_id}/review-links", json={"reviewer": REVIEWER, "expires_in": 3600}
    ).json()
    url = link["url"]
    assert url.startswith(f"{base}/review/evr1.")
    tab = open_tab(base)
    page = tab.page
    first = page.goto(url)
    assert first is not None and first.status == 200
    page.wait_for_function(LOADED)
    paths = page.eval_on_selector_all("li.field", "els => els.map(e => e.dataset.path)")
    assert paths[:2] == [TAMPERED, ITEM]
    assert page.locator("#pages .box").count() >= 3
    page.locator(f'li[data-path="{ITEM}"] button[data-act="confirm"]').click()
    page.locator(f'li[data-path="{ITEM}"] .d-label', has_text="Confirmed").wait_for()
    assert tab.problems == []
    assert "authorization" not in {h.lower() for h in tab.sent_headers}

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
    decisions = api.get(f"/v1/jobs/{job_id}/decisions").json()["decisions"]
    assert decisions[ITEM]["action"] == "confirm"
    assert decisions[ITEM]["who"] == f"{REVIEWER} (review link {link['id']})"
    api.close()
