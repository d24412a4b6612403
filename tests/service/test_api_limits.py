"""Every input a client controls has a bound, checked before the work it would cost: each case
asserts the status, the problem code and that nothing was made (no job, document, link or
decision; no schema parsed, no page rendered, no figure read)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pymupdf
import pytest
from litestar.testing import TestClient
from test_api import ACME, KEYS, Harness, harness, pdf_with_pages, problem
from test_review import ITEM_URL, reviewable_result, succeed_with

from evidex.service import intake, review, review_links
from evidex.service.app import SingleFlightCheck, create_app
from evidex.service.cli import main
from evidex.service.intake import MAX_OPTIONS_BYTES, MAX_SCHEMA_BYTES
from evidex.service.jobs import MAX_FORM_PARTS
from evidex.service.ratelimit import MemoryRateLimiter, address_key
from evidex.service.settings import ServiceSettings
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.jobstore_memory import MemoryJobStore
from evidex.workers.metrics import MemoryMetrics, Snapshot

SECRET = "review-link-secret-for-tests"
TOKEN = "metrics-token-for-tests"
NOW = 60.0 * 20_000_000 + 30  # 30 s into a window: Retry-After is 30
SCHEMA = {"title": "po", "type": "object", "properties": {"po_number": {"type": "string"}}}


def frozen() -> float:
    return NOW


class CountingMetrics(MemoryMetrics):
    """Memory metrics that count how often the figures are read."""

    def __init__(self) -> None:
        super().__init__()
        self.snapshots = 0

    def snapshot(self) -> Snapshot:
        self.snapshots += 1
        return super().snapshot()


@contextmanager
def by_address(limit: int, metrics: MemoryMetrics | None = None) -> Iterator[Harness]:
    """The app with a per-address limit of ``limit`` (clock frozen mid-window), review links
    and /metrics on."""
    jobs, blobs = MemoryJobStore(), MemoryBlobStore()
    enqueued: list[str] = []
    config = ServiceSettings(
        api_keys=KEYS, review_link_secret=SECRET, metrics_token=TOKEN, rate_limit_per_minute=1000
    )
    app = create_app(
        config,
        job_store=jobs,
        blob_store=blobs,
        enqueue=enqueued.append,
        address_limiter=MemoryRateLimiter(limit, clock=frozen),
        metrics=metrics,
    )
    with TestClient(app) as client:
        yield Harness(client, jobs, blobs, config, enqueued)


def nothing_made(api: Harness) -> None:
    assert api.jobs.list("acme") == ([], None)
    assert api.blobs.keys() == []
    assert api.enqueued == []


def succeeded_job(api: Harness, data: bytes | None = None) -> str:
    r = api.submit() if data is None else api.submit(data)
    assert r.status_code == 202, r.text
    job_id: str = r.json()["id"]
    succeed_with(api.jobs, api.blobs, job_id, reviewable_result())
    return job_id


def make_link(api: Harness, job_id: str) -> Any:
    return api.client.post(
        f"/v1/jobs/{job_id}/review-links", json={"reviewer": "Ana"}, headers=ACME
    )


def link_path(api: Harness, job_id: str) -> str:
    r = make_link(api, job_id)
    assert r.status_code == 201, r.text
    return "/" + str(r.json()["url"]).split("/", 3)[3]


# --- the upload: schema_json, options, the form ----------------------------------------------


def test_schema_json_over_256_kib_is_refused_before_it_is_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    padded = {**SCHEMA, "description": "x" * MAX_SCHEMA_BYTES}
    with harness() as api:

        def never(*_: Any, **__: Any) -> Any:
            raise AssertionError("json.loads ran on a schema over the limit")

        with monkeypatch.context() as m:
            m.setattr(intake.json, "loads", never)
            r = api.submit(schema_json=json.dumps(padded))
        body = problem(r, 422, "schema_invalid")
        assert f"the limit is {MAX_SCHEMA_BYTES} bytes" in body["detail"]
        nothing_made(api)


def test_schema_json_is_measured_in_utf8_bytes() -> None:
    # 100,000 characters of three bytes each: under the limit in characters, over it in bytes
    wide = {**SCHEMA, "description": "€" * 100_000}
    with harness() as api:
        problem(api.submit(schema_json=json.dumps(wide, ensure_ascii=False)), 422, "schema_invalid")
        nothing_made(api)


def test_options_over_16_kib_are_refused_before_they_are_parsed() -> None:
    raw = json.dumps({"llm": "rules", "model": "m" + " " * MAX_OPTIONS_BYTES})
    with harness() as api:
        body = problem(api.submit(schema="invoice", options=raw), 422, "options_invalid")
        assert f"the limit is {MAX_OPTIONS_BYTES} bytes" in body["detail"]
        nothing_made(api)


@pytest.mark.parametrize(
    ("options", "where"),
    [
        ({"model": "m" * 129}, "model"),
        ({"model": "gpt 4o"}, "model"),
        ({"model": "../etc/passwd"}, "model"),
        ({"model": "gpt-4o\n"}, "model"),
        ({"pages": "1," * 500 + "1"}, "pages"),
        ({"pages": "1;2"}, "pages"),
        ({"pages": "١-٢"}, "pages"),  # digits, but not ASCII ones
        ({"pages": "1-4,1-4,1-4"}, "pages"),  # 12 pages named, repeats counted: over 10
        ({"pages": "1-11"}, "pages"),
        ({"context_tokens": 0}, "context_tokens"),
        ({"context_tokens": 10_000_001}, "context_tokens"),
        ({"webhook_url": "https://hooks.example.com/" + "a" * 2030}, "webhook_url"),
        ({"tables": "everything"}, "tables"),
        ({"priority": "high"}, "priority"),
    ],
)
def test_each_option_is_bounded(options: dict[str, Any], where: str) -> None:
    with harness(max_pages=10, webhook_allowed_hosts=["hooks.example.com"]) as api:
        body = problem(
            api.submit(schema="invoice", options=json.dumps(options)), 422, "options_invalid"
        )
        assert where in body["detail"]
        nothing_made(api)


@pytest.mark.parametrize(
    "options",
    [
        {"model": "ft:gpt-4o-mini-2024-07-18:acme:inv_1:AbC", "llm": "rules"},
        {"model": "m" * 128},
        {"pages": "1, 1-1"},
        {"context_tokens": 10_000_000},
        {"webhook_url": "https://hooks.example.com/" + "a" * 2022},  # 2048 characters
    ],
)
def test_options_at_their_bounds_are_taken(options: dict[str, Any]) -> None:
    with harness(max_pages=10, webhook_allowed_hosts=["hooks.example.com"]) as api:
        r = api.submit(schema="invoice", options=json.dumps(options))
        assert r.status_code == 202, r.text
        assert len(api.enqueued) == 1


def test_a_webhook_url_must_be_https_to_an_allowed_host() -> None:
    with harness(webhook_allowed_hosts=["hooks.example.com"]) as api:
        for url in ("ftp://hooks.example.com/x", "https://elsewhere.example.org/x"):
            r = api.submit(schema="invoice", options=json.dumps({"webhook_url": url}))
            problem(r, 422, "webhook_not_allowed")
        nothing_made(api)


def test_a_form_with_more_parts_than_it_reads_is_refused() -> None:
    extra = [(f"x{i}", (None, b"1")) for i in range(MAX_FORM_PARTS)]
    with harness() as api:
        r = api.client.post(
            "/v1/jobs",
            files=[("file", ("a.pdf", pdf_with_pages(1), "application/pdf")), *extra],
            headers=ACME,
        )
        body = problem(r, 400, "bad_request")
        assert "more parts" in body["detail"]
        nothing_made(api)


def test_an_idempotency_key_over_255_characters_is_refused() -> None:
    with harness() as api:
        r = api.submit(headers={**ACME, "Idempotency-Key": "k" * 256})
        problem(r, 400, "bad_request")
        nothing_made(api)


def test_an_upload_over_the_size_limit_is_refused() -> None:
    with harness(max_upload_bytes=1000) as api:
        problem(api.submit(pdf_with_pages(3)), 413, "file_too_large")
        nothing_made(api)


def test_a_document_over_the_page_limit_is_refused() -> None:
    with harness(max_pages=2) as api:
        problem(api.submit(pdf_with_pages(3)), 413, "too_many_pages")
        nothing_made(api)


# --- the other routes: lists, explain, JSON bodies --------------------------------------------


@pytest.mark.parametrize("params", [{"limit": 101}, {"limit": 0}, {"cursor": "1" * 129}])
def test_list_paging_is_bounded(params: dict[str, Any]) -> None:
    with harness() as api:
        problem(api.client.get("/v1/jobs", params=params, headers=ACME), 400, "bad_request")


def test_explain_takes_at_most_64_kib() -> None:
    big = {**SCHEMA, "description": "x" * 70_000}
    with harness() as api:
        r = api.client.post("/v1/schemas/explain", json=big, headers=ACME)
        problem(r, 413, "file_too_large")


@pytest.mark.parametrize("route", ["explain", "link", "decision", "public decision"])
def test_a_json_body_nested_too_deeply_is_a_bad_request_not_a_500(route: str) -> None:
    deep = b'{"a":' * 5000 + b"1" + b"}" * 5000
    with by_address(100) as api:
        job_id = succeeded_job(api)
        path = link_path(api, job_id)
        method, url, headers = {
            "explain": ("POST", "/v1/schemas/explain", ACME),
            "link": ("POST", f"/v1/jobs/{job_id}/review-links", ACME),
            "decision": ("PATCH", f"/v1/jobs/{job_id}/fields/{ITEM_URL}", ACME),
            "public decision": ("PATCH", f"{path}/fields/{ITEM_URL}", {}),
        }[route]
        r = api.client.request(
            method, url, content=deep, headers={**headers, "Content-Type": "application/json"}
        )
        problem(r, 400, "bad_request")
        links = api.client.get(f"/v1/jobs/{job_id}/review-links", headers=ACME).json()
        assert len(links) == 1
        decided = api.client.get(f"/v1/jobs/{job_id}/decisions", headers=ACME).json()
        assert decided["history"] == []


# --- review links and decisions: how much one job holds ---------------------------------------


def test_a_job_holds_at_most_so_many_review_links(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_links, "MAX_LINKS_PER_JOB", 2)
    with harness(review_link_secret=SECRET) as api:
        job_id = succeeded_job(api)
        first = make_link(api, job_id).json()["id"]
        api.client.delete(f"/v1/jobs/{job_id}/review-links/{first}", headers=ACME)
        assert make_link(api, job_id).status_code == 201  # a revoked link still counts
        body = problem(make_link(api, job_id), 409, "job_limit_reached")
        assert "2 review links" in body["detail"]
        links = api.client.get(f"/v1/jobs/{job_id}/review-links", headers=ACME).json()
        assert len(links) == 2


def test_a_job_holds_at_most_so_many_bytes_of_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    confirm = {"action": "confirm", "note": "checked against the purchase order"}
    with by_address(100) as api:
        job_id = succeeded_job(api)
        public = link_path(api, job_id)
        url = f"/v1/jobs/{job_id}/fields/{ITEM_URL}"
        assert api.client.patch(url, json=confirm, headers=ACME).status_code == 200
        one = len(api.blobs.get(f"acme/{job_id}/decisions.json"))
        monkeypatch.setattr(review, "MAX_DECISIONS_BYTES", one + 1)  # room for one more
        assert api.client.patch(url, json=confirm, headers=ACME).status_code == 200
        kept = api.client.get(f"/v1/jobs/{job_id}/decisions", headers=ACME).json()["history"]
        assert len(kept) == 2
        problem(api.client.patch(url, json=confirm, headers=ACME), 409, "job_limit_reached")
        r = api.client.patch(f"{public}/fields/{ITEM_URL}", json=confirm)
        body = problem(r, 409, "job_limit_reached")
        assert "export.json" in body["detail"]
        after = api.client.get(f"/v1/jobs/{job_id}/decisions", headers=ACME).json()["history"]
        assert after == kept


def test_a_token_longer_than_any_signed_is_refused_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_: Any) -> Any:
        raise AssertionError("a token over the limit was read")

    with by_address(100) as api:
        job_id = succeeded_job(api)
        path = link_path(api, job_id)
        assert len(path) - len("/review/") <= review_links.MAX_TOKEN_CHARS
        monkeypatch.setattr(review_links, "read_token", never)
        r = api.client.get(path + "A" * review_links.MAX_TOKEN_CHARS)
        assert r.status_code == 404 and "This review link has expired" in r.text


def test_a_token_for_the_longest_tenant_fits_the_limit() -> None:
    token = review_links.make_token(SECRET, "job_" + "f" * 24, "t" * 64, "rl_" + "f" * 16, 2**40)
    assert len(token) <= review_links.MAX_TOKEN_CHARS
    assert review_links.read_token(SECRET, token, at=0) is not None


def test_a_page_too_large_to_render_is_refused_before_rendering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pymupdf.open() as doc:
        doc.new_page(width=14_400, height=14_400).insert_text((72, 72), "Invoice INV-1")
        poster = doc.tobytes()

    def never(*_: Any) -> Any:
        raise AssertionError("a page over the pixel limit was rendered")

    with by_address(100) as api:
        job_id = succeeded_job(api, poster)
        path = link_path(api, job_id)
        monkeypatch.setattr(review, "render_page_png", never)
        for url, headers in ((f"/v1/jobs/{job_id}/pages/1.png", ACME), (f"{path}/pages/1.png", {})):
            body = problem(api.client.get(url, headers=headers), 413, "page_too_large")
            assert "22000 x 22000 pixels" in body["detail"]


# --- what answers without an API key: rate limited per client address --------------------------


def test_review_link_routes_are_limited_per_client_address() -> None:
    with by_address(3) as api:
        job_id = succeeded_job(api)
        path = link_path(api, job_id)  # /v1: counted per key, not per address
        assert api.client.get(path).status_code == 200
        assert api.client.get("/review/evr1.forged.token").status_code == 404
        assert api.client.get(f"{path}/pages/1.png").status_code == 200
        for r in (
            api.client.get(path),
            api.client.get("/review/evr1.forged.token"),
            api.client.patch(f"{path}/fields/{ITEM_URL}", json={"action": "confirm"}),
        ):
            problem(r, 429, "rate_limited")
            assert r.headers["retry-after"] == "30"
        decided = api.client.get(f"/v1/jobs/{job_id}/decisions", headers=ACME).json()
        assert decided["history"] == []  # the refused decision was not stored
        assert api.client.get("/v1/jobs", headers=ACME).status_code == 200
        assert api.client.get("/healthz").status_code == 200  # health is never limited
        assert api.client.get("/readyz").status_code == 200
        assert api.client.get("/review-assets/review.js").status_code == 200  # static


def test_metrics_token_guesses_are_cheap_and_limited_per_address() -> None:
    metrics = CountingMetrics()
    with by_address(3, metrics) as api:
        for _ in range(3):
            problem(api.client.get("/metrics", headers=ACME), 401, "unauthorized")
        r = api.client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        problem(r, 429, "rate_limited")
        assert metrics.snapshots == 0  # no guess, nor the refused right one, read a figure
        assert metrics.snapshot().counters["evidex_rate_limit_hits"] == {(): 1.0}


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),  # the same subscriber's /64
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("testclient", "testclient"),
        (None, "unknown"),
    ],
)
def test_addresses_are_counted_per_ipv4_address_and_ipv6_64(host: str | None, key: str) -> None:
    assert address_key(host) == key


def test_the_memory_limiter_forgets_past_windows() -> None:
    now = [NOW]
    limiter = MemoryRateLimiter(1, clock=lambda: now[0])
    for n in range(50):
        asyncio.run(limiter.hit(f"client-{n}"))
    now[0] += 60
    asyncio.run(limiter.hit("late"))
    assert list(limiter._counts) == ["late"]


# --- /readyz: one worker ping at a time ---------------------------------------------------------


def test_while_a_worker_ping_is_under_way_other_callers_get_the_last_answer() -> None:
    release, started, calls = threading.Event(), threading.Event(), [0]

    def check() -> list[str]:
        calls[0] += 1
        if calls[0] == 2:  # the second ping hangs until released
            started.set()
            release.wait(5)
        return [f"w{calls[0]}"]

    shared = SingleFlightCheck(check)
    assert shared() == ["w1"]
    with ThreadPoolExecutor(1) as pool:
        pinging = pool.submit(shared)
        assert started.wait(5)
        answers = [shared() for _ in range(50)]  # no wait, no ping: the answer before
        release.set()
        assert pinging.result(5) == ["w2"]
    assert answers == [["w1"]] * 50 and calls == [2]
    with harness(worker_check=shared) as api:
        assert api.client.get("/readyz").json()["checks"]["workers"] == "ok: 1 live"
    assert calls == [3]  # one at a time, but each probe after the last still asks


def test_callers_before_the_first_answer_share_it() -> None:
    release, calls = threading.Event(), [0]

    def check() -> list[str]:
        calls[0] += 1
        release.wait(5)
        raise ConnectionError("broker down")

    shared = SingleFlightCheck(check)
    ready = threading.Barrier(5)

    def probe() -> list[str]:
        ready.wait(5)
        return shared()

    with ThreadPoolExecutor(4) as pool:
        waiting = [pool.submit(probe) for _ in range(4)]
        ready.wait(5)
        time.sleep(0.5)  # each caller is now waiting on the first one's ping
        release.set()
        for future in waiting:
            with pytest.raises(RuntimeError, match="broker down"):
                future.result(5)
    assert calls == [1]


# --- the CLI -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags",
    [
        ["--jobs", "0"],
        ["--jobs", "65"],
        ["--context-tokens", "0"],
        ["--context-tokens", "10000001"],
        ["--pages", "1;2"],
        ["--pages", "1," * 500 + "1"],
    ],
)
def test_cli_flags_out_of_bounds_are_usage_errors(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["extract", "no-such-file.pdf", "--schema", "invoice", *flags])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert flags[0] in err and "no such file" not in err
