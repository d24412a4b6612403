"""Signed review links: a reviewer opens a job's review page from a URL, with no API key.

::

    POST   /v1/jobs/{id}/review-links            {"reviewer", "expires_in"} -> 201 {id, url, ...}
    GET    /v1/jobs/{id}/review-links            the job's links (never their tokens)
    DELETE /v1/jobs/{id}/review-links/{link_id}  revoke one: it stops working at once
    GET    /review/{token}                       the review page (HTML), no API key
    GET    /review/{token}/pages/{n}.png         its page images
    PATCH  /review/{token}/fields/{path}         a decision, recorded as the link's reviewer
    GET    /review-assets/{name}                 review.js, review.css, values.js (public files)

The token is ``evr1.<payload>.<signature>``: the payload (base64url JSON) names the job, its
tenant, the link's id and its expiry; the signature is HMAC-SHA256 under
``EVIDEX_REVIEW_LINK_SECRET`` of everything before it. So a token opens one job of one tenant
and nothing else, cannot be edited (a changed job id, tenant or expiry breaks the signature),
and cannot be forged without the secret. A link is also recorded beside the job
(``{tenant}/{job_id}/review-links.json``: reviewer, who made it, when it expires, when it was
revoked), and a token is honoured only while its record exists, is unrevoked and unexpired:
revoking is one write, and deleting the job deletes its links.

Bounds: a job keeps at most :data:`MAX_LINKS_PER_JOB` links (revoked ones count: their records
stay, so the listing keeps its history), each answered 409 ``job_limit_reached`` past it; a token
longer than any this service signs is refused before its signature is computed; the public routes
count each client address against ``EVIDEX_PUBLIC_RATE_LIMIT_PER_MINUTE`` (the guard is set in
:func:`evidex.service.app.create_app`).

Whatever is wrong with a token -- expired, revoked, tampered, for a deleted job -- the answer is
the same: the page is a 404 page that says the link has expired or is not valid and shows
nothing of the job; the requests the page makes (images, decisions) get a 404 ``not_found``
problem saying the same. So a token cannot be used to probe which jobs exist. Tokens travel
in the path, which the page's ``Referrer-Policy: no-referrer`` keeps from other sites and the
logs redact (:mod:`evidex.workers.logs`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from datetime import datetime, timedelta
from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, patch, post
from litestar.enums import MediaType
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, PathParameter
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidex.schemas import Result
from evidex.schemas.validation import first_problem
from evidex.service.assets import asset_route
from evidex.service.jobs import V1_PROBLEMS, JobId, owned_job
from evidex.service.pages import html_page, root_path
from evidex.service.problems import ApiError, problem_responses
from evidex.service.review import (
    ASSETS,
    REVIEW_DPI,
    PageFile,
    _ready,
    caller_id,
    decide_and_record,
    page_png,
    review_html,
)
from evidex.service.services import Services, ServicesDep, TenantDep
from evidex.workers.jobs import Job, now
from evidex.workers.stores import BlobNotFound, BlobStore

__all__ = [
    "MAX_LINKS_PER_JOB",
    "PREFIX",
    "LinkRequest",
    "PublicReview",
    "ReviewLink",
    "ReviewLinksController",
    "make_token",
    "public_review_assets",
    "read_token",
    "review_links_key",
]

PREFIX = "evr1"
MAX_EXPIRES_S = 90 * 24 * 3600
MAX_LINKS_PER_JOB = 100
MAX_TOKEN_CHARS = 512  # a token names a job, a tenant, a link and a time: about 230 characters
_LOCK = threading.Lock()
Token = Annotated[str, PathParameter(description="The token of a review link.")]
LinkId = Annotated[str, PathParameter(description="The link's id (rl_...).")]
FieldPath = Annotated[str, PathParameter(description="The field's result path, URL-encoded.")]


class LinkRequest(BaseModel):
    """The body of ``POST /v1/jobs/{id}/review-links``."""

    model_config = ConfigDict(extra="forbid")

    reviewer: str = Field(
        min_length=1, max_length=200, description="Who will review: recorded on each decision."
    )
    expires_in: int = Field(
        default=7 * 24 * 3600,
        ge=60,
        le=MAX_EXPIRES_S,
        description="Seconds the link works for (60 s to 90 days; default 7 days).",
    )


class ReviewLink(BaseModel):
    """A link as stored (and listed); its URL only in the answer to its creation."""

    id: str
    reviewer: str
    created_by: str = Field(description="tenant/key id of the API key that made the link.")
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None = None
    url: str | None = Field(default=None, description="Only when the link is made.")


class ReviewLinks(BaseModel):
    links: dict[str, ReviewLink] = Field(default_factory=dict)


def review_links_key(job: Job) -> str:
    return f"{job.tenant}/{job.id}/review-links.json"


def _load(blobs: BlobStore, job: Job) -> ReviewLinks:
    try:
        return ReviewLinks.model_validate_json(blobs.get(review_links_key(job)))
    except BlobNotFound:
        return ReviewLinks()


def _store(blobs: BlobStore, job: Job, links: ReviewLinks) -> None:
    body = links.model_dump_json(indent=2, exclude={"links": {"__all__": {"url"}}})
    blobs.put(review_links_key(job), body.encode(), "application/json")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: str, signed: str) -> str:
    return _b64(hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest())


def make_token(secret: str, job_id: str, tenant: str, link_id: str, expires: int) -> str:
    """A signed token for one link of one job of one tenant, good until ``expires`` (unix s)."""
    payload = _b64(
        json.dumps(
            {"j": job_id, "t": tenant, "l": link_id, "e": expires}, separators=(",", ":")
        ).encode()
    )
    signed = f"{PREFIX}.{payload}"
    return f"{signed}.{_signature(secret, signed)}"


def read_token(secret: str, token: str, at: float | None = None) -> tuple[str, str, str] | None:
    """``(job_id, tenant, link_id)`` of a token signed under ``secret`` and not expired at
    ``at``; None for anything else (the caller cannot tell which, nor can the reader)."""
    prefix, _, rest = token.partition(".")
    payload, _, signature = rest.partition(".")
    if prefix != PREFIX or not payload or not signature:
        return None
    expected = _signature(secret, f"{PREFIX}.{payload}")
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        return None
    try:
        claims = json.loads(_unb64(payload))
        job_id, tenant, link_id, expires = claims["j"], claims["t"], claims["l"], claims["e"]
    except (ValueError, KeyError, TypeError):
        return None
    if not all(isinstance(v, str) for v in (job_id, tenant, link_id)):
        return None
    if not isinstance(expires, int) or expires <= (time.time() if at is None else at):
        return None
    return job_id, tenant, link_id


def _secret(services: Services) -> str:
    secret = services.settings.review_link_secret
    if secret is None:
        raise ApiError(  # off, like /metrics without its token: not found, not a server error
            "not_found",
            "review links are off on this service: the operator turns them on by setting "
            "EVIDEX_REVIEW_LINK_SECRET (a long random string) and restarting it",
        )
    return secret.get_secret_value()


def _base_url(services: Services, request: Request[Any, Any, Any]) -> str:
    configured = services.settings.public_url.rstrip("/")
    if configured:
        return configured
    root = root_path(request)
    return str(request.base_url).rstrip("/").removesuffix(root) + root


class ReviewLinksController(Controller):
    """Make, list and revoke a job's review links (API key: the job's tenant)."""

    path = "/jobs"
    tags = ("review",)

    @post(
        "/{job_id:str}/review-links",
        status_code=201,
        sync_to_thread=True,
        summary="Make a signed review link for a reviewer without an API key",
        description="The URL opens the job's review page until expires_in seconds from now "
        "(or until revoked); decisions made there are recorded as the reviewer's. 404 "
        "not_found while the service has no EVIDEX_REVIEW_LINK_SECRET.",
        responses=problem_responses(
            *V1_PROBLEMS, "job_not_found", "job_not_ready", "job_limit_reached", "not_found"
        ),
    )
    def create_link(
        self,
        request: Request[Any, Any, Any],
        services: ServicesDep,
        tenant: TenantDep,
        job_id: JobId,
        data: Annotated[
            dict[str, Any], Body(description='{"reviewer": "Ana (AP team)", "expires_in": 86400}')
        ],
    ) -> ReviewLink:
        secret = _secret(services)
        try:
            wanted = LinkRequest.model_validate(data)
        except ValidationError as exc:
            raise ApiError("bad_request", first_problem(exc, "body")) from None
        job, _ = _ready(services, tenant, job_id)
        created = now().replace(microsecond=0)
        expires = created + timedelta(seconds=wanted.expires_in)
        link = ReviewLink(
            id="rl_" + secrets.token_hex(8),
            reviewer=wanted.reviewer.strip() or wanted.reviewer,
            created_by=caller_id(request),
            created_at=created,
            expires_at=expires,
        )
        with _LOCK:
            links = _load(services.blob_store, job)
            if len(links.links) >= MAX_LINKS_PER_JOB:
                raise ApiError(
                    "job_limit_reached",
                    f"the job has {len(links.links)} review links, the most one job keeps "
                    f"(revoked ones count); share one of its links, or submit the document "
                    "again for a new job",
                )
            links.links[link.id] = link
            _store(services.blob_store, job, links)
        token = make_token(secret, job.id, job.tenant, link.id, int(expires.timestamp()))
        return link.model_copy(update={"url": f"{_base_url(services, request)}/review/{token}"})

    @get(
        "/{job_id:str}/review-links",
        sync_to_thread=True,
        summary="The job's review links (without their URLs)",
        responses=problem_responses(*V1_PROBLEMS, "job_not_found"),
    )
    def list_links(
        self, services: ServicesDep, tenant: TenantDep, job_id: JobId
    ) -> list[ReviewLink]:
        job = owned_job(services, tenant, job_id)
        return list(_load(services.blob_store, job).links.values())

    @delete(
        "/{job_id:str}/review-links/{link_id:str}",
        sync_to_thread=True,
        summary="Revoke a review link: it stops working at once",
        responses=problem_responses(*V1_PROBLEMS, "job_not_found", "not_found"),
    )
    def revoke_link(
        self, services: ServicesDep, tenant: TenantDep, job_id: JobId, link_id: LinkId
    ) -> None:
        job = owned_job(services, tenant, job_id)
        with _LOCK:
            links = _load(services.blob_store, job)
            link = links.links.get(link_id)
            if link is None:
                raise ApiError("not_found", f"the job has no review link {link_id!r}")
            if link.revoked_at is None:
                links.links[link_id] = link.model_copy(update={"revoked_at": now()})
                _store(services.blob_store, job, links)


class _Invalid(Exception):
    """The token opens nothing (expired, revoked, tampered, job gone)."""


GONE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Review link expired</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>This review link has expired</h1>
<p>The link has expired, was revoked, or is not valid. Ask the person who sent it for a new
one.</p></main></body></html>
"""


def _open(services: Services, token: str) -> tuple[Job, Result, ReviewLink]:
    secret = services.settings.review_link_secret
    if secret is None or len(token) > MAX_TOKEN_CHARS:
        raise _Invalid
    claims = read_token(secret.get_secret_value(), token)
    if claims is None:
        raise _Invalid
    job_id, tenant, link_id = claims
    try:
        job, result = _ready(services, tenant, job_id)
    except (ApiError, BlobNotFound):
        raise _Invalid from None
    link = _load(services.blob_store, job).links.get(link_id)
    if link is None or link.revoked_at is not None or link.expires_at <= now():
        raise _Invalid
    return job, result, link


_BAD_TOKEN = (
    " An expired, revoked or tampered token is answered 404 with an HTML page that says the "
    "link has expired (nothing of the job)."
)
_BAD_TOKEN_API = " An expired, revoked or tampered token is answered 404 not_found."
_EXPIRED = "this review link has expired or is not valid; ask the person who sent it for a new one"


def _opened(services: Services, token: str) -> tuple[Job, Result, ReviewLink]:
    """:func:`_open` for the requests the page makes: a token that opens nothing is 404
    ``not_found``."""
    try:
        return _open(services, token)
    except _Invalid:
        raise ApiError("not_found", _EXPIRED) from None


class PublicReview(Controller):
    """The review page and what it loads, opened with a link's token instead of an API key."""

    path = "/review"
    tags = ("review links",)

    @get(
        "/{token:str}",
        sync_to_thread=True,
        media_type=MediaType.HTML,
        summary="The review page, opened with a review link's token (no API key)",
        description="The page of GET /v1/jobs/{id}/review for the link's job." + _BAD_TOKEN,
        responses={
            **problem_responses("bad_request", "rate_limited"),
            404: ResponseSpec(
                data_container=str,
                media_type=MediaType.HTML,
                generate_examples=False,
                description="The link has expired, was revoked or is not valid: a page that "
                "says so, with nothing of the job.",
            ),
        },
    )
    def page(self, services: ServicesDep, token: Token) -> Response[str]:
        try:
            job, result, _ = _open(services, token)
        except _Invalid:
            return html_page(GONE_PAGE, status_code=404)
        return review_html(services, job, result, f"/review/{token}", "/review-assets")

    @get(
        "/{token:str}/pages/{page_file:str}",
        sync_to_thread=True,
        media_type="image/png",
        summary="A page of the link's document as a PNG",
        description=f"'{{n}}.png': page n, 1-based, rendered at {REVIEW_DPI} dpi." + _BAD_TOKEN_API,
        responses=problem_responses(
            "bad_request", "rate_limited", "page_not_found", "page_too_large", "not_found"
        ),
    )
    def page_image(self, services: ServicesDep, token: Token, page_file: PageFile) -> Response[Any]:
        job, _, _ = _opened(services, token)
        return page_png(services, job, page_file)

    @patch(
        "/{token:str}/fields/{field_path:str}",
        sync_to_thread=True,
        summary="Confirm, edit or reject one field, as the link's reviewer",
        description="The body of PATCH /v1/jobs/{id}/fields/{path}; the decision's 'who' is "
        "the link's reviewer and id." + _BAD_TOKEN_API,
        responses=problem_responses(
            "bad_request",
            "rate_limited",
            "field_not_found",
            "decision_invalid",
            "job_limit_reached",
            "not_found",
        ),
    )
    def decide_field(
        self,
        services: ServicesDep,
        token: Token,
        field_path: FieldPath,
        data: Annotated[dict[str, Any], Body()],
    ) -> Response[Any]:
        job, result, link = _opened(services, token)
        who = f"{link.reviewer} (review link {link.id})"
        decision = decide_and_record(services, job, result, field_path, data, who)
        return Response(decision.model_dump(mode="json"))


# review.js, review.css and values.js for pages opened with a link (static files, no key).
public_review_assets = asset_route(
    "/review-assets",
    ASSETS,
    "review page",
    cache="public",
    tags=["review links"],
    problems=["bad_request"],
)
