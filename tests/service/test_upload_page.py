"""The upload page's HTML and files over the memory stores: public, under the review page's CSP,
nothing inline or from another host, and the names scripts rely on. (The page at work, in
Chromium against the real service: ``test_upload_browser``.)"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from litestar.testing import TestClient
from test_api import KEYS, Harness, harness, problem

from evidex.schemas import builtin_names
from evidex.service.app import create_app
from evidex.service.review import CSP
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobstore_memory import MemoryJobStore

MAX_UPLOAD = 3 * 1024 * 1024


@pytest.fixture
def api() -> Iterator[Harness]:
    with harness(max_upload_bytes=MAX_UPLOAD) as h:
        yield h


def test_page_is_public_under_the_review_pages_csp(api: Harness) -> None:
    r = api.client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["cache-control"] == "no-store"
    html = r.text
    assert " style=" not in html and "<style" not in html and "<script>" not in html
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sorted(u.split("?")[0] for u in urls) == [
        "/upload-assets/upload.css",
        "/upload-assets/upload.js",
        "/upload-assets/values.js",
        "data:,",
    ]


def test_form_fields_keep_their_names(api: Harness) -> None:
    html = api.client.get("/").text
    for name in ("api_key", "file", "schema", "schema_json", "llm", "pages"):
        assert re.search(rf'<(?:input|select|textarea) id="{name}" name="{name}"', html), name
        assert f'<label for="{name}">' in html, name
    assert '<input id="api_key" name="api_key" type="password" autocomplete="off"' in html
    select = re.search(r'<select id="schema" name="schema">(.*?)</select>', html)
    assert select is not None
    values = re.findall(r'<option value="([^"]*)"', select[1])
    assert values == builtin_names()
    assert '<option value="invoice" selected>' in select[1]
    backends = re.search(r'<select id="llm" name="llm">(.*?)</select>', html)
    assert backends is not None
    assert re.findall(r'<option value="([^"]*)"', backends[1]) == ["", "openai", "rules"]
    # The limit the page checks before sending, and the API's title for a file over it.
    assert f'data-max-bytes="{MAX_UPLOAD}"' in html and "at most\n        3 MiB" in html
    assert 'data-too-large="The document is too large"' in html


def test_assets_are_served_and_nothing_else(api: Harness) -> None:
    html = api.client.get("/").text
    for name, media in (("upload.js", "text/javascript"), ("upload.css", "text/css")):
        version = re.search(rf"/upload-assets/{re.escape(name)}\?v=([0-9a-f]+)", html)
        assert version is not None
        r = api.client.get(f"/upload-assets/{name}?v={version[1]}")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith(media)
        assert r.headers["x-content-type-options"] == "nosniff"
        assert "http" not in r.text  # nothing from another host
    script = api.client.get("/upload-assets/upload.js").text
    assert "sessionStorage" in script and "localStorage" not in script and "cookie" not in script
    for bad in ("review.js", "evil.js", "..%2Fapp.py"):
        problem(api.client.get(f"/upload-assets/{bad}"), 404, "not_found")


def test_a_mounted_app_serves_the_page_under_its_root() -> None:
    app = create_app(
        ServiceSettings(api_keys=KEYS),
        job_store=MemoryJobStore(),
        blob_store=MemoryBlobStore(),
        enqueue=lambda _job_id: None,
    )
    with TestClient(app, root_path="/evidex") as mounted:
        r = mounted.get("/")
    assert 'data-root="/evidex"' in r.text  # upload.js sends to /evidex/v1/...
    assert '<script src="/evidex/upload-assets/upload.js?v=' in r.text
