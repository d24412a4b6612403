"""Review: a page to check a job's fields against the document, and the decisions it saves.

::

    GET   /v1/jobs/{id}/review           the page (HTML): page images, boxes, the field list
    GET   /v1/jobs/{id}/pages/{n}.png    page n (1-based) rendered at REVIEW_DPI; of an image
                                         file, frame n upright, at most REVIEW_IMAGE_PIXELS
    PATCH /v1/jobs/{id}/fields/{path}    confirm, edit or reject one field (path URL-encoded)
    GET   /v1/jobs/{id}/decisions        every decision (latest per field, and the history)
    GET   /v1/jobs/{id}/export.json      one row per field: machine and reviewed value
    GET   /v1/jobs/{id}/export.csv       the same as CSV
    GET   /v1/review-assets/{name}       review.js, review.css, values.js

Authentication is the bearer header of every ``/v1`` route, for the page *and* everything it
loads: no cookie, no token in a URL. Whoever opens the page must send the header with every
request, which browser automation (Playwright's ``extra_http_headers``), an authenticating
reverse proxy or an HTTP client does. So there is no second credential to mint, leak through
logs, history or a Referer, or expire, and no CSRF (a browser never adds the header by itself).
Every route looks the job up through :func:`~evidex.service.jobs.owned_job`: another tenant's
key gets 404 ``job_not_found`` on each of them, as for a missing job.

The page is served with a strict Content-Security-Policy (:data:`CSP`, the headers of every page:
:mod:`evidex.service.pages`): scripts and styles only from these routes, requests only to this
origin, no framing.

Bounds, for these routes and a review link's: every decision rewrites the job's whole decisions
file, so once it holds :data:`MAX_DECISIONS_BYTES` a decision is 409 ``job_limit_reached``; a page
image whose pixmap would pass :data:`MAX_PAGE_PIXELS` (a poster-sized page, or a PDF that claims
one) is 413 ``page_too_large`` before anything is rendered; so is an image file's frame of
more than :data:`MAX_PAGE_PIXELS`, whose pixels would have to be decoded to show it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, patch
from litestar.enums import MediaType
from litestar.params import Body, PathParameter

from evidex.extractors.parse.render import (
    image_frames,
    page_sizes,
    pixel_size,
    render_image_png,
    render_page_png,
)
from evidex.schemas import LeafSpec, Result
from evidex.service.assets import asset_route, asset_url
from evidex.service.auth import Caller
from evidex.service.decisions import (
    Decision,
    Decisions,
    decide,
    decisions_key,
    load_decisions,
    record_decision,
)
from evidex.service.decisions_export import ReviewExport, export_csv, review_export
from evidex.service.jobs import V1_PROBLEMS, JobId, owned_job, succeeded_result
from evidex.service.pages import CSP, html_page, root_path
from evidex.service.problems import ApiError, problem_responses
from evidex.service.review_page import PageImage, render_review, spec_for
from evidex.service.services import Services, ServicesDep, TenantDep
from evidex.workers.jobs import Job
from evidex.workers.stores import BlobNotFound

__all__ = [
    "CSP",
    "MAX_DECISIONS_BYTES",
    "MAX_PAGE_PIXELS",
    "REVIEW_DPI",
    "REVIEW_IMAGE_PIXELS",
    "ReviewController",
    "caller_id",
    "review_assets",
]

REVIEW_DPI = 110
MAX_DECISIONS_BYTES = 4 * 1024 * 1024  # about 10,000 decisions of a usual size
MAX_PAGE_PIXELS = 25_000_000  # an A0 page at REVIEW_DPI is 18.7 million; 75 MB as RGB
REVIEW_IMAGE_PIXELS = 4_000_000  # a photo is shown at most this large: a 12 MP one at 2309 x 1732
ASSETS = {
    "review.js": "text/javascript",
    "review.css": "text/css",
    "values.js": "text/javascript",
}
_PAGE_FILE = re.compile(r"([1-9][0-9]{0,5})\.png")
_JOB = ("job_not_found", "job_not_ready", "not_found")
FieldPath = Annotated[
    str, PathParameter(description="The field's result path, URL-encoded: items%5B0%5D.amount.")
]
PageFile = Annotated[str, PathParameter(description="'{n}.png', n the 1-based page number.")]


def _ready(services: Services, tenant: str, job_id: str) -> tuple[Job, Result]:
    """The tenant's succeeded job and its machine result."""
    job = owned_job(services, tenant, job_id)
    return job, succeeded_result(services, job, "review it once it has succeeded")


def _export(services: Services, tenant: str, job_id: str) -> tuple[Job, ReviewExport]:
    """The tenant's succeeded job and its reviewed values: the machine result and the decisions."""
    job, result = _ready(services, tenant, job_id)
    decisions = load_decisions(services.blob_store, job)
    return job, review_export(job.id, job.filename, result, decisions)


def _specs(job: Job) -> dict[str, LeafSpec]:
    return {spec.path: spec for spec in job.extraction_schema().leaves}


def _is_pdf(job: Job) -> bool:
    return job.media_type == "application/pdf"


def _is_image(job: Job) -> bool:
    return job.media_type.startswith("image/")


def _image_pages(document: bytes, result: Result) -> list[PageImage]:
    """An image file's frames as pages: each box lies at its fraction of the page the OCR read
    (``page_info``, in pixels), drawn over the frame shown upright and scaled down."""
    read = {
        info.page: info
        for info in result.document.page_info
        if info.unit == "px" and info.width > 0 and info.height > 0
    }
    pages = []
    for frame in image_frames(document, REVIEW_IMAGE_PIXELS):
        info = read.get(frame.page)
        width, height = (info.width, info.height) if info else (frame.width, frame.height)
        pages.append(
            PageImage(
                frame.page,
                frame.shown_width / width,
                width,
                height,
                frame.shown_width,
                frame.shown_height,
                scale_y=frame.shown_height / height,
            )
        )
    return pages


def caller_id(request: Request[Any, Any, Any]) -> str:
    """``tenant/key id`` of the API key that sent ``request``: the key id is the start of the
    key's SHA-256, never the key."""
    caller = request.scope.get("auth")
    if not isinstance(caller, Caller):
        raise ApiError("unauthorized", "send your API key as 'Authorization: Bearer <key>'")
    return f"{caller.tenant}/{caller.key_sha256[:12]}"


def review_html(
    services: Services, job: Job, result: Result, api: str, assets: str
) -> Response[str]:
    """The review page of ``job``; ``api`` is where the page sends its requests (the job's
    ``/v1`` route, or a review link's), ``assets`` where it loads its scripts and stylesheet."""
    pages = []
    if _is_pdf(job):
        for number, (w, h) in enumerate(page_sizes(services.blob_store.get(job.document_key))):
            px, py = pixel_size(w, h, REVIEW_DPI)
            pages.append(PageImage(number + 1, REVIEW_DPI / 72, w, h, px, py))
    elif _is_image(job):
        pages = _image_pages(services.blob_store.get(job.document_key), result)
    html = render_review(
        job_id=job.id,
        filename=job.filename,
        result=result,
        decisions=load_decisions(services.blob_store, job),
        specs=_specs(job),
        pages=pages,
        api=api,
        assets={name: asset_url(assets, name) for name in ASSETS},
    )
    return html_page(html)


def page_png(services: Services, job: Job, page_file: str) -> Response[bytes]:
    """``{n}.png``: page n of the job's document at REVIEW_DPI (frame n of an image file,
    upright, at most REVIEW_IMAGE_PIXELS), or ``page_not_found``."""
    found = _PAGE_FILE.fullmatch(page_file)
    if found is None or not (_is_pdf(job) or _is_image(job)):
        raise ApiError("page_not_found", f"no page image {page_file!r}: use '{{n}}.png'")
    document, number = services.blob_store.get(job.document_key), int(found[1])
    if _is_image(job):
        return _png(_image_png(document, number))
    sizes = page_sizes(document)
    if number <= len(sizes):
        width, height = pixel_size(*sizes[number - 1], REVIEW_DPI)
        if width * height > MAX_PAGE_PIXELS:
            raise ApiError(
                "page_too_large",
                f"page {number} would be {width} x {height} pixels at {REVIEW_DPI} dpi, over "
                f"the {MAX_PAGE_PIXELS:,} the service renders; its fields can still be reviewed",
            )
    try:
        png, _, _ = render_page_png(document, number, REVIEW_DPI)
    except IndexError as exc:
        raise ApiError("page_not_found", str(exc)) from None
    return _png(png)


def _image_png(document: bytes, number: int) -> bytes:
    """Frame ``number`` of an image file, shown upright at most REVIEW_IMAGE_PIXELS large."""
    frames = image_frames(document, REVIEW_IMAGE_PIXELS)
    if not 1 <= number <= len(frames):
        raise ApiError("page_not_found", f"page {number} is not in the image (1..{len(frames)})")
    frame = frames[number - 1]
    if frame.width * frame.height > MAX_PAGE_PIXELS:
        raise ApiError(
            "page_too_large",
            f"page {number} is an image of {frame.width} x {frame.height} pixels, over the "
            f"{MAX_PAGE_PIXELS:,} the service decodes to show; its fields can still be reviewed",
        )
    return render_image_png(document, number, REVIEW_IMAGE_PIXELS)


def _png(png: bytes) -> Response[bytes]:
    headers = {"Cache-Control": "private, max-age=600", "X-Content-Type-Options": "nosniff"}
    return Response(png, media_type="image/png", headers=headers)


def decide_and_record(
    services: Services, job: Job, result: Result, field_path: str, data: Any, who: str
) -> Decision:
    """Check a reviewer's decision on one field and save it (under the job's decision lock)."""
    field = result.fields.get(field_path)
    if field is None:
        raise ApiError("field_not_found", f"the result has no field {field_path!r}")
    decision = decide(field_path, field, spec_for(_specs(job), field_path), data, who)
    _check_room(services, job)
    record_decision(services.blob_store, job, decision, services.decision_lock)
    return decision


def _check_room(services: Services, job: Job) -> None:
    """``job_limit_reached`` once the job's decisions file holds MAX_DECISIONS_BYTES: each
    decision reads and rewrites all of it, so its size is what every further decision costs."""
    try:
        size = len(services.blob_store.get(decisions_key(job)))
    except BlobNotFound:
        return
    if size >= MAX_DECISIONS_BYTES:
        raise ApiError(
            "job_limit_reached",
            f"the job's review decisions fill {size:,} bytes, the most one job keeps; export "
            f"them (GET /v1/jobs/{job.id}/export.json) and review a new job of the document",
        )


class ReviewController(Controller):
    path = "/jobs"
    tags = ("review",)

    @get(
        "/{job_id:str}/review",
        sync_to_thread=True,
        media_type=MediaType.HTML,
        summary="The review page: the document's pages with each field's evidence",
        description="HTML for people: page images with every field's boxes coloured by "
        "status, and the fields (not verified first) with confirm / edit / reject. Scripts "
        "and styles come from /v1/review-assets; send the bearer header with every request "
        "the page makes. 409 until the job has succeeded.",
        responses=problem_responses(*V1_PROBLEMS, *_JOB),
    )
    def review_page(
        self,
        request: Request[Any, Any, Any],
        services: ServicesDep,
        tenant: TenantDep,
        job_id: JobId,
    ) -> Response[str]:
        job, result = _ready(services, tenant, job_id)
        v1 = root_path(request) + "/v1"
        return review_html(services, job, result, f"{v1}/jobs/{job.id}", f"{v1}/review-assets")

    @get(
        "/{job_id:str}/pages/{page_file:str}",
        sync_to_thread=True,
        media_type="image/png",
        summary="One page of the document as a PNG (for the review page)",
        description=f"'{{n}}.png': page n, 1-based, rendered at {REVIEW_DPI} dpi; of an image "
        "file, its frame n, upright and at most "
        f"{REVIEW_IMAGE_PIXELS:,} pixels.",
        responses=problem_responses(*V1_PROBLEMS, *_JOB, "page_not_found", "page_too_large"),
    )
    def page_image(
        self, services: ServicesDep, tenant: TenantDep, job_id: JobId, page_file: PageFile
    ) -> Response[bytes]:
        job, _ = _ready(services, tenant, job_id)
        return page_png(services, job, page_file)

    @patch(
        "/{job_id:str}/fields/{field_path:str}",
        sync_to_thread=True,
        summary="Confirm, edit or reject one field",
        description='Body: {"action": "confirm"|"edit"|"reject", "value": ... (edit only, '
        'typed by the field\'s kind), "note": ""}. Saved beside the machine result (never '
        "changed) with who and when; the field's latest decision replaces the one before, "
        "the history keeps both.",
        responses=problem_responses(
            *V1_PROBLEMS, *_JOB, "field_not_found", "decision_invalid", "job_limit_reached"
        ),
    )
    def decide_field(
        self,
        request: Request[Any, Any, Any],
        services: ServicesDep,
        tenant: TenantDep,
        job_id: JobId,
        field_path: FieldPath,
        data: Annotated[
            dict[str, Any],
            Body(description='{"action": "edit", "value": 19953.8, "note": "per PO"}'),
        ],
    ) -> Decision:
        job, result = _ready(services, tenant, job_id)
        return decide_and_record(services, job, result, field_path, data, caller_id(request))

    @get(
        "/{job_id:str}/decisions",
        sync_to_thread=True,
        summary="The review decisions of a job",
        responses=problem_responses(*V1_PROBLEMS, *_JOB),
    )
    def decisions(self, services: ServicesDep, tenant: TenantDep, job_id: JobId) -> Decisions:
        job, _ = _ready(services, tenant, job_id)
        return load_decisions(services.blob_store, job)

    @get(
        "/{job_id:str}/export.json",
        sync_to_thread=True,
        summary="The reviewed values as JSON: one row per field",
        responses=problem_responses(*V1_PROBLEMS, *_JOB),
    )
    def export_json(self, services: ServicesDep, tenant: TenantDep, job_id: JobId) -> ReviewExport:
        return _export(services, tenant, job_id)[1]

    @get(
        "/{job_id:str}/export.csv",
        sync_to_thread=True,
        media_type="text/csv",
        summary="The reviewed values as CSV: one row per field",
        description="Columns: path, machine_value, status, decision, reviewed_value, who, "
        "when, note. Text starting with = + - @ is prefixed with ' (spreadsheet formulas).",
        responses=problem_responses(*V1_PROBLEMS, *_JOB),
    )
    def export_csv(self, services: ServicesDep, tenant: TenantDep, job_id: JobId) -> Response[str]:
        job, export = _export(services, tenant, job_id)
        disposition = f'attachment; filename="{job.download_stem()}.review.csv"'
        return Response(
            export_csv(export),
            media_type="text/csv",
            headers={"Content-Disposition": disposition},
        )


# The review page's scripts and stylesheet (no third-party host, nothing inline).
review_assets = asset_route(
    "/review-assets",
    ASSETS,
    "review page",
    cache="private",
    tags=["review"],
    problems=V1_PROBLEMS,
)
