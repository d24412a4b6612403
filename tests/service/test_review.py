"""The review page over the memory stores: its HTML and headers, the page images, the assets,
and tenancy, readiness and auth on every review route (decisions and exports:
``test_review_decisions``).

The job's result is the real pipeline's (rules backend) on samples/invoice.pdf, reviewable:
``purchase_order`` tampered and re-verified (needs review), and a made-up ``line_items[0]``
amount (unsupported, EUR) for a path that must be URL-encoded. Expectations are read from that
result wherever they are the pipeline's business, so a better parser does not break them.
``reviewable_result``, ``succeed_with`` and ``patch`` are imported by the other review tests.
"""

from __future__ import annotations

import hashlib
import re
import struct
from functools import cache
from typing import Any

from test_api import ACME, GLOBEX, INVOICE, KEYS, Harness, problem

from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.parse.pymupdf_parser import PyMuPDFParser
from evidex.extractors.parse.render import pixel_size
from evidex.extractors.pipeline import extract
from evidex.extractors.verify.reverify import reverify
from evidex.schemas import Box, FieldResult, Result, Status, get_schema
from evidex.service.review import CSP, REVIEW_DPI
from evidex.workers.jobs import JobStatus
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.stores import BlobStore

TAMPERED = "purchase_order"
ITEM = "line_items[0].amount"
ABSENT = "line_items[0].quantity"
ITEM_URL = "line_items%5B0%5D.amount"
WHO = "acme/" + hashlib.sha256(KEYS["acme"].encode()).hexdigest()[:12]
ORDER = ["needs_review", "unsupported", "not_found", "verified"]


@cache
def reviewable_result() -> str:
    """The invoice's real result, with one field needing review, one unsupported and one not
    found (JSON)."""
    schema = get_schema("invoice")
    result = extract(INVOICE, schema, parser=PyMuPDFParser(), llm=RulesBackend())
    fields = dict(result.fields)
    fields[TAMPERED] = fields[TAMPERED].model_copy(update={"value": "PO-NL-77251"})
    result, _ = reverify(
        result.model_copy(update={"fields": fields}), PyMuPDFParser().parse(INVOICE, "d"), schema
    )
    assert result.fields[TAMPERED].status is Status.NEEDS_REVIEW
    item = FieldResult(
        value={"value": 120.0, "currency": "EUR"},
        status=Status.UNSUPPORTED,
        reasons=["made up for the test: <b>not</b> in the document"],
        quote="120.00",
        page=1,
        line_start=60,
        line_end=60,
        boxes=[Box(page=1, x0=400.0, y0=400.0, x1=450.0, y1=412.0)],
    )
    # the rules backend finds every leaf of this invoice: one the document does not state
    absent = FieldResult(value=None, status=Status.NOT_FOUND)
    fields = {**result.fields, ITEM: item, ABSENT: absent}
    return result.model_copy(update={"fields": fields}).to_json()


def succeed_with(jobs: MemoryJobStore, blobs: BlobStore, job_id: str, result_json: str) -> str:
    """Store ``result_json`` as the job's result and mark the job succeeded; the result key."""
    job = jobs.get(job_id)
    assert job is not None
    key = f"{job.tenant}/{job_id}/result.json"
    blobs.put(key, result_json.encode(), "application/json")
    assert jobs.transition(job_id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING)
    assert jobs.transition(
        job_id, frozenset({JobStatus.RUNNING}), JobStatus.SUCCEEDED, result_key=key
    )
    return key


def machine() -> Result:
    return Result.model_validate_json(reviewable_result())


def drawn(result: Result, pages: int = 1) -> int:
    """How many boxes the page draws: those on a page of the document."""
    return sum(1 for f in result.fields.values() for b in f.boxes if 1 <= b.page <= pages)


def patch(api: Harness, job_id: str, path: str, body: Any, headers: Any = None) -> Any:
    return api.client.patch(
        f"/v1/jobs/{job_id}/fields/{path}", json=body, headers=ACME if headers is None else headers
    )


# --- the page --------------------------------------------------------------------------------


def test_page_lists_every_field_not_verified_first_under_a_strict_csp(
    api: Harness, job: str
) -> None:
    r = api.client.get(f"/v1/jobs/{job}/review", headers=ACME)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == (
        "default-src 'none'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'"
    )
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    html = r.text
    result = machine()
    listed = re.findall(r'<li id="f-\d+" class="field s-(\w+)[^"]*" data-path="([^"]+)"', html)
    assert sorted(path for _, path in listed) == sorted(result.fields)
    statuses = [status for status, _ in listed]
    assert statuses == sorted(statuses, key=ORDER.index)  # not verified first
    assert listed[0] == ("needs_review", TAMPERED) and listed[1] == ("unsupported", ITEM)
    assert "the digits 77251 in the value are not in the quote" in html  # the reason
    assert "p. 1 · line 26" in html  # page:lines of purchase_order
    assert html.count('<div class="box ') == drawn(result) > 0
    assert 'class="box s-needs_review"' in html
    assert 'title="purchase_order = PO-NL-77251 · needs review"' in html
    # Nothing inline, nothing from another host.
    assert " style=" not in html and "<style" not in html
    assert re.findall(r"<script[^>]*>", html) == [
        f'<script src="/v1/review-assets/values.js?v={_version(html, "js", "values")}" defer>',
        f'<script src="/v1/review-assets/review.js?v={_version(html, "js")}" defer>',
    ]
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert all(url.startswith("/v1/") or url == "data:," for url in urls)  # data: the icon
    assert f'src="/v1/jobs/{job}/pages/1.png" width="910" height="1287"' in html
    # Values from the document are escaped.
    assert "<b>not</b>" not in html and "&lt;b&gt;not&lt;/b&gt;" in html


def _version(html: str, ext: str, name: str = "review") -> str:
    found = re.search(rf"{name}\.{ext}\?v=([0-9a-f]+)", html)
    assert found
    return found[1]


def test_edit_inputs_are_typed_by_kind(api: Harness, job: str) -> None:
    html = api.client.get(f"/v1/jobs/{job}/review", headers=ACME).text

    def item(path: str) -> str:
        found = re.search(rf'data-path="{re.escape(path)}".*?</form></li>', html)
        assert found, path
        return found[0]

    assert 'data-kind="amount"' in item(ITEM) and 'data-kind="amount"' in item("total")
    assert 'type="number" name="value" step="any" value="120.0"' in item(ITEM)
    assert 'type="number" name="value" step="any"' in item("total")
    assert 'type="number" name="value" step="any"' in item("tax_rate")
    assert 'type="date" name="value" value="2026-03-16"' in item("issue_date")
    assert 'type="text" name="value" value="PO-NL-77251"' in item(TAMPERED)
    assert 'type="text" name="value" value="INV-2026-00418"' in item("invoice_number")


def test_assets_are_served_by_the_app(api: Harness) -> None:
    js = api.client.get("/v1/review-assets/review.js", headers=ACME)
    css = api.client.get("/v1/review-assets/review.css", headers=ACME)
    assert js.status_code == css.status_code == 200
    assert js.headers["content-type"].startswith("text/javascript")
    assert css.headers["content-type"].startswith("text/css")
    assert "http" not in js.text and "http" not in css.text  # no other host
    problem(api.client.get("/v1/review-assets/../app.py", headers=ACME), 404, "not_found")
    problem(api.client.get("/v1/review-assets/evil.js", headers=ACME), 404, "not_found")
    problem(api.client.get("/v1/review-assets/review.js"), 401, "unauthorized")


def test_page_image_is_a_png_of_the_rendered_size(api: Harness, job: str) -> None:
    r = api.client.get(f"/v1/jobs/{job}/pages/1.png", headers=ACME)
    assert r.status_code == 200
    assert r.headers["content-type"] == "image/png"
    assert r.content[:8] == b"\x89PNG\r\n\x1a\n" and r.content[12:16] == b"IHDR"
    width, height = struct.unpack(">II", r.content[16:24])
    assert (width, height) == pixel_size(595, 842, REVIEW_DPI) == (910, 1287)
    for bad in ("2.png", "0.png", "1.jpg", "one.png"):
        problem(api.client.get(f"/v1/jobs/{job}/pages/{bad}", headers=ACME), 404, "page_not_found")


# --- tenancy, readiness, auth ----------------------------------------------------------------


def _routes(job: str) -> list[tuple[str, str]]:
    base = f"/v1/jobs/{job}"
    return [
        ("GET", f"{base}/review"),
        ("GET", f"{base}/pages/1.png"),
        ("PATCH", f"{base}/fields/total"),
        ("PATCH", f"{base}/fields/{ITEM_URL}"),
        ("GET", f"{base}/decisions"),
        ("GET", f"{base}/export.json"),
        ("GET", f"{base}/export.csv"),
    ]


def test_another_tenant_gets_404_on_every_review_route(api: Harness, job: str) -> None:
    for method, url in _routes(job):
        r = api.client.request(method, url, headers=GLOBEX, json={"action": "confirm"})
        problem(r, 404, "job_not_found")
    assert not api.blobs.exists(f"acme/{job}/decisions.json")
    assert not [key for key in api.blobs.keys() if key.startswith("globex/")]  # noqa: SIM118


def test_every_review_route_is_409_until_the_job_succeeded(api: Harness) -> None:
    job = api.submit().json()["id"]
    for method, url in _routes(job):
        r = api.client.request(method, url, headers=ACME, json={"action": "confirm"})
        problem(r, 409, "job_not_ready")
    missing = "job_000000000000000000000000"
    problem(api.client.get(f"/v1/jobs/{missing}/review", headers=ACME), 404, "job_not_found")


def test_every_review_route_needs_the_api_key(api: Harness, job: str) -> None:
    for method, url in _routes(job):
        problem(api.client.request(method, url, json={"action": "confirm"}), 401, "unauthorized")
