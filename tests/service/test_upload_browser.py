"""The upload page in a real browser against the real service: ``evidex serve`` and ``evidex
worker`` processes on a private Redis (``service_stack``), the embedded rules backend, and
headless Chromium driven by Playwright (``tests/browser``).

The browser holds no key of its own: the person types it, the page sends it as the bearer
header, and the review page is reached by the signed link the page makes. Requests to any other
host are aborted and fail the test, as does any console error but the browser's own note of an
answer >= 400 (a CSP violation is one). Every bad input is compared with what the API itself
answers for it, and no job may come of it. Screenshots at 1280x900 are written to
``out/upload.png`` and ``out/review-photo.png`` (ignored by git).
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from browser import FIELD_IDS, LOADED, OUT, Tab, assert_drawn_at, box_rects
from sample_answers import SAMPLES
from service_stack import Service, running_stack, skip_without_redis

from evidex.schemas import builtin_names
from evidex.service.review import CSP

INVOICE = SAMPLES / "invoice.pdf"
MAX_UPLOAD = 1024 * 1024
WAIT_MS = 180_000  # an upper bound for a job on a loaded machine, not a timing
ARTEFACT = OUT / "upload.png"

skip_without_redis()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp("upload")
    variables = {"EVIDEX_LLM": "rules", "EVIDEX_MAX_UPLOAD_BYTES": str(MAX_UPLOAD)}
    with running_stack(tmp, ("web",), **variables) as stack:
        yield stack


def _newest(stack: Service) -> dict[str, Any]:
    return stack.job(stack.jobs()[0]["id"])


@pytest.fixture
def tab(stack: Service, open_tab: Callable[..., Tab]) -> Tab:
    """A fresh browser context (no key, no storage) on the upload page."""
    tab: Tab = open_tab(stack.base, height=900, http_errors=True)
    tab.page.set_default_timeout(WAIT_MS)
    first = tab.page.goto(stack.base + "/")
    assert first is not None and first.status == 200
    assert first.headers["content-security-policy"] == CSP
    return tab


def _rows(page: Any, table: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.eval_on_selector_all(
        f"{table} tbody tr",
        "rows => rows.map(r => ({field: r.dataset.field, status: r.dataset.status,"
        " cells: Array.from(r.cells).map(c => c.innerText.trim())}))",
    )
    return found


def _where(field: dict[str, Any]) -> str:
    if field["page"] is None:
        return "—"
    start, end = field["line_start"], field["line_end"] or field["line_start"]
    return f"{field['page']}:{start}" + (f"–{end}" if end != start else "")


def _send_and_wait(page: Any) -> list[dict[str, Any]]:
    page.locator("#fields tbody tr").first.wait_for()
    return _rows(page, "#fields")


def _problem(page: Any) -> tuple[str, str]:
    box = page.locator("#problem")
    box.wait_for()
    assert box.evaluate("e => e === document.activeElement")  # read out and in view
    assert page.locator("#result").is_hidden()
    assert not page.locator("#controls").is_disabled()  # the form is usable again
    title = box.locator(".p-title").inner_text()
    detail = box.locator(".p-detail").inner_text()
    box.evaluate("e => { e.hidden = true; }")  # the next attempt shows its own
    return title, detail


def _api_problem(
    stack: Service, files: Any, key: str | None = None, **data: str
) -> tuple[str, str]:
    headers = {"Authorization": f"Bearer {key or stack.key}"}
    r = httpx.post(f"{stack.base}/v1/jobs", files=files, data=data, headers=headers)
    assert r.headers["content-type"].startswith("application/problem+json"), r.text
    return r.json()["title"], r.json()["detail"]


def test_a_built_in_schema_from_the_keyboard_to_the_review_page(stack: Service, tab: Tab) -> None:
    page = tab.page
    options = page.eval_on_selector_all("#schema option", "os => os.map(o => o.value)")
    assert options == builtin_names()
    unlabelled = page.eval_on_selector_all(
        "input, select, textarea", "els => els.filter(e => e.labels.length === 0).map(e => e.id)"
    )
    assert unlabelled == []
    page.locator('[name="api_key"]').fill(stack.key)
    page.locator('[name="file"]').set_input_files(str(INVOICE))
    page.locator('[name="schema"]').select_option("invoice")
    page.locator("#llm").select_option("rules")
    page.locator("#pages").fill("1")
    page.locator("#pages").press("Enter")  # Enter submits
    rows = _send_and_wait(page)

    job = _newest(stack)
    assert job["status"] == "succeeded" and job["schema_name"] == "invoice"
    assert job["options"]["llm"] == "rules" and job["options"]["pages"] == "1"
    fields = job["result"]["fields"]
    assert [(r["field"], r["status"]) for r in rows] == [
        (p, f["status"]) for p, f in fields.items()
    ]
    total = next(r for r in rows if r["field"] == "total")
    assert total["status"] == fields["total"]["status"] == "verified"
    assert total["cells"][0] == "total"
    assert total["cells"][1] == f"{fields['total']['value']['value']} EUR"
    assert total["cells"][2] == "verified"
    assert total["cells"][3] == _where(fields["total"])
    assert page.evaluate("document.activeElement.id") == "result_title"
    # The key: in this tab's session storage only, never a cookie.
    assert page.evaluate("sessionStorage.getItem('evidex.api_key')") == stack.key
    assert tab.context.cookies() == []

    link = page.locator("#review_link")
    href = link.get_attribute("href")
    assert href is not None and href.startswith(f"{stack.base}/review/evr1.")
    ARTEFACT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACT), full_page=True)
    link.focus()
    with tab.context.expect_page() as opened:
        page.keyboard.press("Enter")
    review = opened.value
    review.wait_for_load_state()
    review.wait_for_function(LOADED)
    listed = review.eval_on_selector_all("li.field", "els => els.map(e => e.dataset.path)")
    assert sorted(listed) == sorted(fields)
    assert review.locator("#pages .box.s-verified").count() >= 1
    assert tab.problems == []


def test_a_pasted_schema_shows_its_kinds_before_it_is_sent(stack: Service, tab: Tab) -> None:
    page = tab.page
    schema = {
        "type": "object",
        "properties": {
            "invoice_number": {"type": "string", "description": "The invoice number"},
            "issue_date": {"type": "string", "format": "date"},
            "total": {"type": "number", "description": "The total amount due"},
        },
    }
    page.locator("#api_key").fill(stack.key)
    page.locator("#file").set_input_files(str(INVOICE))
    page.locator("#llm").select_option("rules")
    page.locator("#schema_json").fill(json.dumps(schema, indent=2))
    assert page.locator("#source_json").is_checked()  # typing a schema chooses it
    before = len(stack.jobs())
    page.locator("#explain").click()
    page.locator("#kinds tbody tr").first.wait_for()
    explained = stack.request("POST", "/v1/schemas/explain", json=schema).json()
    kinds = _rows(page, "#kinds")
    assert [(r["field"], r["cells"][1], r["cells"][2]) for r in kinds] == [
        (leaf["path"], leaf["kind"], leaf["kind_source"]) for leaf in explained["leaves"]
    ]
    assert ("issue_date", "date") in [(r["field"], r["cells"][1]) for r in kinds]
    assert len(stack.jobs()) == before  # explaining sends no job

    page.locator("#schema_json").press("Control+Enter")
    rows = _send_and_wait(page)
    job = _newest(stack)
    statuses = {r["field"]: r["status"] for r in rows}
    assert set(statuses) == set(schema["properties"])
    assert statuses == {p: f["status"] for p, f in job["result"]["fields"].items()}
    assert statuses["total"] == "verified"
    assert tab.problems == []


def test_bad_input_is_shown_in_the_apis_words_and_nothing_is_sent(stack: Service, tab: Tab) -> None:
    page = tab.page
    before = len(stack.jobs())
    invoice = INVOICE.read_bytes()

    # A wrong key: refused, and not kept.
    page.locator("#api_key").fill("not-the-key")
    page.locator("#file").set_input_files(str(INVOICE))
    page.locator("#api_key").press("Enter")
    files = {"file": ("invoice.pdf", invoice, "application/pdf")}
    wrong = _api_problem(stack, files, key="not-the-key", schema="invoice")
    assert _problem(page) == wrong
    assert wrong[0] == "A valid API key is required"
    assert page.evaluate("sessionStorage.getItem('evidex.api_key')") is None

    # A file over the upload limit: refused before it is sent, in the API's words.
    page.locator("#api_key").fill(stack.key)
    big = b"%PDF-1.7\n" + b"0" * MAX_UPLOAD
    page.locator("#file").set_input_files(
        files={"name": "big.pdf", "mimeType": "application/pdf", "buffer": big}
    )
    page.locator("#send").click()
    too_large = _api_problem(stack, {"file": ("big.pdf", big, "application/pdf")}, schema="invoice")
    assert _problem(page) == too_large
    assert too_large[0] == "The document is too large"

    # Not a document.
    text = b"Dear team, the invoice is attached.\n"
    page.locator("#file").set_input_files(
        files={"name": "notes.txt", "mimeType": "text/plain", "buffer": text}
    )
    page.locator("#send").click()
    not_a_document = _api_problem(
        stack, {"file": ("notes.txt", text, "text/plain")}, schema="invoice"
    )
    assert _problem(page) == not_a_document

    # A pasted schema the API cannot use, and one that is not JSON at all.
    page.locator("#file").set_input_files(str(INVOICE))
    unusable = {"type": "object", "properties": {"total": {"type": "money"}}}
    page.locator("#schema_json").fill(json.dumps(unusable))
    page.locator("#send").click()
    refused = stack.request("POST", "/v1/schemas/explain", json=unusable).json()
    assert _problem(page) == (refused["title"], refused["detail"])
    assert refused["code"] == "schema_invalid"
    page.locator("#schema_json").fill('{"type": "object", "properties": {')
    page.locator("#schema_json").press("Control+Enter")
    title, detail = _problem(page)
    assert title == "The schema cannot be used"
    assert detail.startswith("schema_json is not valid JSON: ")

    assert len(stack.jobs()) == before  # nothing half-submitted
    assert page.locator("#fields tbody tr").count() == 0
    assert tab.problems == []


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")
def test_a_photo_of_a_receipt_is_reviewed_on_the_photo(stack: Service, tab: Tab) -> None:
    from PIL import Image, ImageDraw, ImageFont

    lines = [
        "CORNER GROCERY",
        "12 Main Street, Springfield",
        "Date: 2024-03-05",
        "Milk 2.50",
        "Bread 3.20",
        "Total: 5.70",
    ]
    photo = Image.new("RGB", (720, 80 + 60 * len(lines)), (250, 248, 240))
    draw, font = ImageDraw.Draw(photo), ImageFont.load_default(size=36)
    for n, line in enumerate(lines):
        draw.text((40, 40 + 60 * n), line, fill=(20, 20, 20), font=font)
    jpeg = io.BytesIO()
    photo.save(jpeg, "JPEG", quality=90)
    schema = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "format": "date"},
            "total": {"type": "number", "description": "The total paid"},
        },
    }
    page = tab.page
    page.locator("#api_key").fill(stack.key)
    page.locator("#file").set_input_files(
        files={"name": "receipt.jpg", "mimeType": "image/jpeg", "buffer": jpeg.getvalue()}
    )
    page.locator("#schema_json").fill(json.dumps(schema))
    page.locator("#llm").select_option("rules")
    page.locator("#send").click()
    rows = _send_and_wait(page)
    result = _newest(stack)["result"]
    verified = [r["field"] for r in rows if r["status"] == "verified"]
    assert verified, rows  # the date and the total, as OCR reads them today
    assert all(result["fields"][path]["boxes"] for path in verified)
    info = result["document"]["page_info"][0]
    assert (info["unit"], info["width"], info["height"]) == ("px", 720, 440)

    href = page.locator("#review_link").get_attribute("href")
    assert href is not None
    page.goto(href)
    page.wait_for_function(LOADED)
    assert "no page images" not in page.content()
    image = page.locator("#page-1 img")
    assert image.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [720, 440]
    shown = image.bounding_box()
    ids = dict(page.eval_on_selector_all("li.field", FIELD_IDS))
    scale = shown["width"] / info["width"]
    drawn = 0
    for path, found in result["fields"].items():
        rects = box_rects(page, f'#page-1 .box[data-field="{ids[path]}"]')
        assert len(rects) == len(found["boxes"]), path
        for box, rect in zip(found["boxes"], rects, strict=True):
            assert_drawn_at(rect, box, shown, scale, path)
            assert f"s-{found['status']}" in rect["classes"].split()
            drawn += 1
    assert drawn >= len(verified)
    for path in verified:
        assert page.locator(f'#page-1 .box.s-verified[data-field="{ids[path]}"]').count() >= 1
    ARTEFACT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACT.with_name("review-photo.png")))
    assert tab.problems == []
