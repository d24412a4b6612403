"""Signed review links: made with the API key, opened without it, scoped, expiring, revocable."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_api import ACME, GLOBEX, Harness, harness, problem
from test_review import ITEM_URL, TAMPERED, reviewable_result, succeed_with

from evidex.service.review_links import make_token, read_token

SECRET = "review-link-secret-for-tests"


@pytest.fixture
def api() -> Iterator[Harness]:
    with harness(review_link_secret=SECRET, rate_limit_per_minute=1000) as h:
        yield h


def _link(api: Harness, job_id: str, **body: Any) -> dict[str, Any]:
    r = api.client.post(
        f"/v1/jobs/{job_id}/review-links",
        json={"reviewer": "Ana Souza", **body},
        headers=ACME,
    )
    assert r.status_code == 201, r.text
    link: dict[str, Any] = r.json()
    return link


def _path(link: dict[str, Any]) -> str:
    return "/" + link["url"].split("/", 3)[3]


def _expired(r: Any, job_id: str) -> None:
    """What the page's own requests (images, decisions) get for a bad token."""
    body = problem(r, 404, "not_found")
    assert body["detail"].startswith("this review link has expired")
    assert job_id not in r.text


def _gone(r: Any, job_id: str) -> None:
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "This review link has expired" in r.text
    assert job_id not in r.text and "invoice" not in r.text.lower()


def test_a_link_opens_the_review_page_without_a_key_and_records_the_reviewer(
    api: Harness, job: str
) -> None:
    link = _link(api, job, expires_in=3600)
    assert link["url"].startswith("http://testserver.local/review/evr1.")
    assert link["reviewer"] == "Ana Souza" and link["revoked_at"] is None
    path = _path(link)
    page = api.client.get(path)  # no Authorization header
    assert page.status_code == 200
    assert f'data-api="{path}"' in page.text and "invoice.pdf" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert api.client.get(f"{path}/pages/1.png").content.startswith(b"\x89PNG")
    r = api.client.patch(f"{path}/fields/{ITEM_URL}", json={"action": "confirm"})
    assert r.status_code == 200, r.text
    edit = api.client.patch(f"{path}/fields/{TAMPERED}", json={"action": "edit", "value": "PO-1"})
    assert edit.status_code == 200
    decisions = api.client.get(f"/v1/jobs/{job}/decisions", headers=ACME).json()["decisions"]
    who = f"Ana Souza (review link {link['id']})"
    assert {p: d["who"] for p, d in decisions.items()} == {
        "line_items[0].amount": who, TAMPERED: who
    }  # fmt: skip
    assert decisions[TAMPERED]["value"] == "PO-1"
    # Listed for the tenant, without the URL (the token is shown once).
    listed = api.client.get(f"/v1/jobs/{job}/review-links", headers=ACME).json()
    assert [(x["id"], x["url"]) for x in listed] == [(link["id"], None)]


def test_revoked_tampered_and_foreign_links_are_a_404_page_saying_expired(
    api: Harness, job: str
) -> None:
    link = _link(api, job)
    path = _path(link)
    token = path.rsplit("/", 1)[1]
    prefix, payload, signature = token.split(".")
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    for bad in (f"{prefix}.{payload}.{flipped}", f"{prefix}.{payload[:-1]}x.{signature}", "x"):
        _gone(api.client.get(f"/review/{bad}"), job)
        _expired(
            api.client.patch(f"/review/{bad}/fields/{TAMPERED}", json={"action": "reject"}), job
        )
    # Signed with another secret: the same page.
    other = make_token("another-secret", job, "acme", link["id"], int(time.time()) + 600)
    _gone(api.client.get(f"/review/{other}"), job)
    # A valid signature for another tenant's claim cannot exist without the secret, and
    # another tenant cannot list, make or revoke links of this job.
    assert api.client.get(f"/v1/jobs/{job}/review-links", headers=GLOBEX).status_code == 404
    r = api.client.post(f"/v1/jobs/{job}/review-links", json={"reviewer": "x"}, headers=GLOBEX)
    problem(r, 404, "job_not_found")
    # Revoked: stops at once, page images and decisions included.
    assert api.client.get(path).status_code == 200
    gone = api.client.delete(f"/v1/jobs/{job}/review-links/{link['id']}", headers=ACME)
    assert gone.status_code == 204
    _gone(api.client.get(path), job)
    _expired(api.client.get(f"{path}/pages/1.png"), job)
    _expired(api.client.patch(f"{path}/fields/{TAMPERED}", json={"action": "reject"}), job)
    listed = api.client.get(f"/v1/jobs/{job}/review-links", headers=ACME).json()
    assert listed[0]["revoked_at"] is not None


def test_links_expire(api: Harness, job: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _path(_link(api, job, expires_in=60))
    assert api.client.get(path).status_code == 200
    later = time.time() + 61
    monkeypatch.setattr(time, "time", lambda: later)
    _gone(api.client.get(path), job)
    token = path.rsplit("/", 1)[1]
    assert read_token(SECRET, token, at=later - 5) is not None
    assert read_token(SECRET, token, at=later) is None


def test_deleting_the_job_deletes_its_links(api: Harness, job: str) -> None:
    path = _path(_link(api, job))
    assert api.client.delete(f"/v1/jobs/{job}", headers=ACME).status_code == 204
    assert not [k for k in sorted(api.blobs.keys()) if k.endswith("review-links.json")]
    _gone(api.client.get(path), job)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({}, "reviewer"),
        ({"reviewer": ""}, "reviewer"),
        ({"reviewer": "a", "expires_in": 10}, "expires_in"),
        ({"reviewer": "a", "expires_in": 10**9}, "expires_in"),
        ({"reviewer": "a", "scope": "all"}, "scope"),
    ],
)
def test_bad_link_requests_say_what_is_wrong(
    api: Harness, job: str, body: dict[str, Any], detail: str
) -> None:
    r = api.client.post(f"/v1/jobs/{job}/review-links", json=body, headers=ACME)
    assert problem(r, 400, "bad_request")["detail"].startswith(detail)


def test_without_a_secret_links_cannot_be_made() -> None:
    with harness() as h:
        job_id = h.submit().json()["id"]
        succeed_with(h.jobs, h.blobs, job_id, reviewable_result())
        r = h.client.post(f"/v1/jobs/{job_id}/review-links", json={"reviewer": "a"}, headers=ACME)
        assert "EVIDEX_REVIEW_LINK_SECRET" in problem(r, 404, "not_found")["detail"]
        _gone(h.client.get(f"/review/{make_token('x', job_id, 'acme', 'rl_1', 2**40)}"), job_id)
