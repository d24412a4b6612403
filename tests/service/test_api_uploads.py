"""``POST /v1/jobs`` rejections: each bad upload gets its problem code, and nothing is kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from litestar.routes import HTTPRoute
from test_api import ACME, INVOICE, Harness, harness, pdf_with_pages, problem

from evidex.extractors.backends import make_parser
from evidex.extractors.llm.rules import RulesBackend
from evidex.extractors.pipeline import extract
from evidex.schemas import get_schema
from evidex.service.app import FORM_OVERHEAD, SMALL_BODY
from evidex.service.intake import safe_filename
from evidex.workers.jobs import JobStatus

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200


def encrypted_pdf() -> bytes:
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "Salary: 100,000")
        data: bytes = doc.tobytes(
            encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user"
        )
    return data


def blank_pdf() -> bytes:
    with pymupdf.open() as doc:
        doc.new_page()
        data: bytes = doc.tobytes()
    return data


@pytest.fixture
def api() -> Iterator[Harness]:
    with harness(max_pages=3, webhook_allowed_hosts=["hooks.example.com"]) as h:
        yield h


def nothing_kept(api: Harness) -> None:
    assert api.enqueued == [] and api.blobs.keys() == [] and api.jobs.list("acme") == ([], None)


SCHEMA = {"schema": "invoice"}


@pytest.mark.parametrize(
    ("data", "filename", "form", "status", "code"),
    [
        (PNG, "scan.pdf", SCHEMA, 415, "unsupported_media_type"),
        (b"PK\x03\x04 docx", "cv.pdf", SCHEMA, 415, "unsupported_media_type"),
        (b"", "empty.pdf", SCHEMA, 422, "document_empty"),
        (encrypted_pdf(), "locked.pdf", SCHEMA, 422, "pdf_encrypted"),
        (b"%PDF-1.7\n" + b"\x00garbage" * 50, "broken.pdf", SCHEMA, 422, "pdf_corrupt"),
        (pdf_with_pages(4), "long.pdf", SCHEMA, 413, "too_many_pages"),
        (INVOICE, "a.pdf", {"schema": "nope"}, 422, "schema_invalid"),
        (INVOICE, "a.pdf", {"schema_json": "{not json"}, 422, "schema_invalid"),
        (INVOICE, "a.pdf", {"schema_json": '{"type": "object", "properties": {}}'}, 422,
         "schema_invalid"),
        (INVOICE, "a.pdf", {"schema_json": json.dumps(
            {"type": "object", "properties": {"x": {"type": "wat"}}})}, 422, "schema_invalid"),
        (INVOICE, "a.pdf", {"schema": "invoice", "schema_json": "{}"}, 400, "bad_request"),
        (INVOICE, "a.pdf", {"options": "{}"}, 400, "bad_request"),
        (INVOICE, "a.pdf", {**SCHEMA, "options": '{"colour": "red"}'}, 422, "options_invalid"),
        (INVOICE, "a.pdf", {**SCHEMA, "options": "[1"}, 422, "options_invalid"),
        (INVOICE, "a.pdf", {**SCHEMA, "options": '{"llm": "gpt"}'}, 422, "options_invalid"),
        (INVOICE, "a.pdf", {**SCHEMA, "options": '{"pages": "2-3"}'}, 422, "options_invalid"),
        (INVOICE, "a.pdf", {**SCHEMA, "options": '{"pages": "x"}'}, 422, "options_invalid"),
        (INVOICE, "a.pdf", {**SCHEMA, "options": '{"webhook_url": "https://evil.example.net/h"}'},
         422, "webhook_not_allowed"),
    ],
)  # fmt: skip
def test_bad_upload_is_rejected_with_its_code(
    api: Harness, data: bytes, filename: str, form: dict[str, str], status: int, code: str
) -> None:
    body = problem(api.submit(data, filename=filename, form=form), status, code)
    assert body["detail"]
    nothing_kept(api)


def test_encrypted_pdf_detail_tells_what_to_do(api: Harness) -> None:
    body = problem(api.submit(encrypted_pdf(), filename="locked.pdf"), 422, "pdf_encrypted")
    assert "password" in body["detail"] and "locked.pdf" in body["detail"]


def test_missing_file_part_is_400(api: Harness) -> None:
    r = api.client.post("/v1/jobs", data={"schema": "invoice"}, files={}, headers=ACME)
    problem(r, 400, "bad_request")
    nothing_kept(api)


def test_json_body_instead_of_multipart_is_400(api: Harness) -> None:
    problem(
        api.client.post("/v1/jobs", json={"schema": "invoice"}, headers=ACME), 400, "bad_request"
    )


def test_file_over_the_limit_is_413() -> None:
    with harness(max_upload_bytes=len(INVOICE) - 1) as api:
        body = problem(api.submit(INVOICE), 413, "file_too_large")
        assert str(len(INVOICE) - 1) in body["detail"]
        nothing_kept(api)


def test_body_far_over_the_limit_is_cut_off_while_reading() -> None:
    """Beyond the upload route's body limit Litestar stops reading: still 413 file_too_large."""
    with harness(max_upload_bytes=1000) as api:
        huge = b"%PDF-1.7\n" + b"0" * (FORM_OVERHEAD + 2000)
        body = problem(api.submit(huge), 413, "file_too_large")
        assert f"over {1000 + FORM_OVERHEAD} bytes" in body["detail"]
        nothing_kept(api)


def test_only_the_upload_route_has_a_large_body_limit(api: Harness) -> None:
    limits = {
        (method, route.path): handler.resolve_request_max_body_size()
        for route in api.client.app.routes
        if isinstance(route, HTTPRoute)
        for method, (handler, _) in route.route_handler_map.items()
        if method != "OPTIONS"
    }
    assert limits.pop(("POST", "/v1/jobs")) == api.settings.max_upload_bytes + FORM_OVERHEAD
    assert limits and set(limits.values()) == {SMALL_BODY}


def test_pages_at_the_limit_are_accepted(api: Harness) -> None:
    assert api.submit(pdf_with_pages(3)).status_code == 202


@pytest.mark.parametrize(
    ("allowed", "url", "accepted"),
    [
        (["hooks.example.com"], "https://hooks.example.com/evidex", True),
        (["hooks.example.com"], "http://hooks.example.com/evidex", False),  # https only
        (["http://127.0.0.1"], "http://127.0.0.1:8080/hook", True),  # http when listed so
        (["*.example.com"], "https://a.b.example.com/h", True),
        (["*.example.com"], "https://example.com/h", False),
        (["hooks.example.com"], "https://other.example.com/evidex", False),
        (["hooks.example.com"], "https://hooks.example.com@evil.example.net/h", False),
        (["10.1.2.3"], "https://10.1.2.4/h", False),
        ([], "https://hooks.example.org/h", False),  # no allowlist: no webhooks
        (["hooks.example.com"], "ftp://hooks.example.com/h", False),
    ],
)
def test_webhook_urls(allowed: list[str], url: str, accepted: bool) -> None:
    with harness(webhook_allowed_hosts=allowed) as api:
        r = api.submit(schema="invoice", options=json.dumps({"webhook_url": url}))
        if accepted:
            assert r.status_code == 202, r.text
            assert r.json()["options"]["webhook_url"] == url
        else:
            problem(r, 422, "webhook_not_allowed")
            nothing_kept(api)


@pytest.mark.parametrize("key", ["", "x" * 256, "has space", "naïve"])
def test_bad_idempotency_key_is_400(api: Harness, key: str) -> None:
    headers: dict[str, Any] = {**ACME, "Idempotency-Key": key.encode()}
    problem(api.submit(headers=headers), 400, "bad_request")
    nothing_kept(api)


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\cv.pdf", "cv.pdf"),
        ("a\x00b\x1fc.pdf", "abc.pdf"),
        (".hidden.pdf", "hidden.pdf"),
        ("", "document.pdf"),
        (None, "document.pdf"),
        ("/", "document.pdf"),
        ("x" * 300 + ".pdf", "x" * 200),
    ],
)
def test_safe_filename(name: str | None, safe: str) -> None:
    assert safe_filename(name) == safe


def _png() -> bytes:
    with pymupdf.open(Path(__file__).parents[2] / "samples" / "invoice.pdf") as pdf:
        return bytes(pdf[0].get_pixmap(dpi=50).tobytes("png"))


@pytest.mark.parametrize(
    ("data", "filename", "media_type"),
    [
        (blank_pdf(), "scan.pdf", "application/pdf"),
        (_png(), "scan.png", "image/png"),
        (_png(), "scan", "image/png"),
    ],
)
def test_scans_and_images_are_accepted_for_ocr(
    api: Harness, data: bytes, filename: str, media_type: str
) -> None:
    r = api.submit(data=data, filename=filename)
    assert r.status_code == 202, r.text
    job = api.jobs.get(r.json()["id"])
    assert job is not None and job.media_type == media_type
    assert api.blobs.content_type(job.document_key) == media_type


def test_an_image_job_returns_a_highlighted_png(api: Harness) -> None:
    png = _png()
    job_id = api.submit(data=png, filename="scan.png").json()["id"]
    result = extract(
        png,
        get_schema("invoice"),
        parser=make_parser("auto"),
        llm=RulesBackend(),
        filename="scan.png",
    )
    assert result.document.page_info[0].unit == "px"
    key = f"acme/{job_id}/result.json"
    api.blobs.put(key, result.to_json().encode(), "application/json")
    assert api.jobs.transition(job_id, frozenset({JobStatus.QUEUED}), JobStatus.RUNNING)
    assert api.jobs.transition(
        job_id, frozenset({JobStatus.RUNNING}), JobStatus.SUCCEEDED, result_key=key
    )
    r = api.client.get(f"/v1/jobs/{job_id}/annotated.pdf", headers=ACME)
    assert r.status_code == 200
    assert r.headers["content-type"] == "image/png"
    assert r.content.startswith(b"\x89PNG")
