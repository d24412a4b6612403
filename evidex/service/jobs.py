"""``/v1/jobs``: submit a document, read a job and its result, list, download, delete.

Routes are thin: read the request, call one function, shape the response. Every job lookup goes
through :func:`owned_job`, the single place tenancy is decided for a job id.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, delete, get, post
from litestar.datastructures import ResponseHeader
from litestar.enums import RequestEncodingType
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, HeaderParameter, PathParameter, QueryParameter

from evidex.extractors.parse.highlight import annotate
from evidex.extractors.parse.images import annotate_image
from evidex.schemas import Result
from evidex.service.decisions import decisions_key
from evidex.service.intake import Submission, submit
from evidex.service.jobform import JobForm
from evidex.service.problems import ApiError, problem_responses
from evidex.service.services import Services, ServicesDep, TenantDep
from evidex.service.views import JobList, JobView, job_view, stored_view
from evidex.workers.jobs import Job, JobStatus
from evidex.workers.runner import result_key
from evidex.workers.webhooks import webhook_key

__all__ = [
    "V1_PROBLEMS",
    "JobForm",
    "JobId",
    "JobSubmission",
    "JobsController",
    "owned_job",
    "succeeded_result",
]

V1_PROBLEMS = ("bad_request", "unauthorized", "rate_limited", "store_unavailable")
MAX_FORM_PARTS = 8  # file, schema or schema_json, options: the rest is not read
_NOT_FOUND = "no job with this id (for this API key)"
JobId = Annotated[str, PathParameter(description="The job's id, as returned on submission.")]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        description="Same tenant + key: the first job is returned, never queued twice.",
    ),
]
IfNoneMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-None-Match", required=False, description="The ETag of the copy the client has."
    ),
]


def owned_job(services: Services, tenant: str, job_id: str) -> Job:
    """The job, if it exists and belongs to ``tenant``; otherwise ``job_not_found`` (also for
    another tenant's job: 404 rather than 403, so ids cannot be probed)."""
    job = services.job_store.get(job_id)
    if job is None or job.tenant != tenant:
        raise ApiError("job_not_found", _NOT_FOUND)
    return job


def succeeded_result(services: Services, job: Job, next_step: str) -> Result:
    """The machine result of ``job``; until the job has succeeded, ``job_not_ready`` naming
    its status and ``next_step``."""
    if job.status is not JobStatus.SUCCEEDED or not job.result_key:
        raise ApiError("job_not_ready", f"the job is {job.status.value}; {next_step}")
    return Result.model_validate_json(services.blob_store.get(job.result_key))


def _location(job: Job) -> dict[str, str]:
    return {"Location": f"/v1/jobs/{job.id}"}


class JobSubmission(Controller):
    """``POST /v1/jobs``: on its own controller so only it gets the large body limit."""

    path = "/jobs"
    tags = ("jobs",)

    @post(
        "/",
        status_code=202,
        sync_to_thread=True,
        summary="Submit a document for extraction",
        description="202 with the new job and its Location. With an Idempotency-Key the "
        "tenant's first job for that key is returned instead (200, header Idempotent-Replayed: "
        "true) and nothing new is queued.",
        response_headers=[
            ResponseHeader(
                name="Location",
                description="/v1/jobs/{id}: poll it for the status and result.",
                documentation_only=True,
            )
        ],
        responses={
            200: ResponseSpec(
                JobView,
                generate_examples=False,
                description="Idempotent replay: the tenant's job for this Idempotency-Key "
                "(header Idempotent-Replayed: true); nothing new was queued.",
            ),
            **problem_responses(
                *V1_PROBLEMS,
                "idempotency_conflict",
                "file_too_large",
                "too_many_pages",
                "unsupported_media_type",
                "schema_invalid",
                "options_invalid",
                "webhook_not_allowed",
                "document_empty",
                "pdf_corrupt",
                "pdf_encrypted",
                "pdf_no_pages",
                "no_text_layer",
                "queue_unavailable",
            ),
        },
    )
    def create_job(
        self,
        data: Annotated[
            JobForm,
            Body(
                media_type=RequestEncodingType.MULTI_PART,
                multipart_form_part_limit=MAX_FORM_PARTS,
            ),
        ],
        services: ServicesDep,
        tenant: TenantDep,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[JobView]:
        try:
            body = data.file.file.read()
        finally:
            data.file.file.close()
        sent = Submission(
            body, data.file.filename, data.schema, data.schema_json, data.options, idempotency_key
        )
        job, created = submit(services, tenant, sent)
        headers = _location(job) | ({} if created else {"Idempotent-Replayed": "true"})
        return Response(job_view(job), status_code=202 if created else 200, headers=headers)


class JobsController(Controller):
    path = "/jobs"
    tags = ("jobs",)

    @get(
        "/",
        sync_to_thread=True,
        summary="List the tenant's jobs, newest first",
        responses=problem_responses(*V1_PROBLEMS),
    )
    def list_jobs(
        self,
        services: ServicesDep,
        tenant: TenantDep,
        limit: Annotated[int, QueryParameter(ge=1, le=100, description="Page size.")] = 50,
        cursor: Annotated[
            str | None,
            QueryParameter(max_length=128, description="next_cursor of the last page."),
        ] = None,
        status: Annotated[
            JobStatus | None, QueryParameter(description="Only jobs in this state.")
        ] = None,
    ) -> JobList:
        try:
            jobs, next_cursor = services.job_store.list(tenant, status, limit, cursor)
        except ValueError as exc:
            raise ApiError("bad_request", str(exc)) from None
        return JobList(jobs=[job_view(j) for j in jobs], next_cursor=next_cursor)

    @get(
        "/{job_id:str}",
        sync_to_thread=True,
        media_type="application/json",
        summary="A job: its status, and its result once it has succeeded",
        description="Answers with an ETag; sending it back as If-None-Match gets 304 Not "
        "Modified (no body) while the job is unchanged, so polling costs little.",
        response_headers=[
            ResponseHeader(
                name="ETag",
                description="Changes whenever the body would; send it as If-None-Match.",
                documentation_only=True,
            )
        ],
        responses={
            200: ResponseSpec(JobView, generate_examples=False, description="The job."),
            304: ResponseSpec(None, description="Unchanged since the ETag sent in If-None-Match."),
            **problem_responses(*V1_PROBLEMS, "job_not_found", "not_found"),
        },
    )
    def get_job(
        self,
        services: ServicesDep,
        tenant: TenantDep,
        job_id: JobId,
        if_none_match: IfNoneMatch = None,
    ) -> Response[bytes]:
        view = stored_view(owned_job(services, tenant, job_id), services.blob_store)
        headers = {"ETag": view.etag, "Cache-Control": "private, no-cache"}
        if view.matches(if_none_match):
            return Response(b"", status_code=304, headers=headers)
        return Response(view.body, media_type="application/json", headers=headers)

    @get(
        "/{job_id:str}/annotated.pdf",
        sync_to_thread=True,
        media_type="application/pdf",
        summary="The document with each field's evidence highlighted",
        description="Highlights coloured by status; each names its field. 409 until the job "
        "has succeeded. For an image document, a highlighted PNG of its first page.",
        responses=problem_responses(*V1_PROBLEMS, "job_not_found", "job_not_ready", "not_found"),
    )
    def annotated_pdf(
        self, services: ServicesDep, tenant: TenantDep, job_id: JobId
    ) -> Response[bytes]:
        job = owned_job(services, tenant, job_id)
        result = succeeded_result(services, job, f"poll GET /v1/jobs/{job.id}")
        document = services.blob_store.get(job.document_key)
        if job.media_type.startswith("image/"):
            # an image keeps its own pixel space: its highlights come back as a PNG of page 1
            body, media_type, suffix = annotate_image(document, result), "image/png", "png"
        else:
            body, media_type, suffix = annotate(document, result), "application/pdf", "pdf"
        filename = f"{job.download_stem()}.annotated.{suffix}"
        return Response(
            body,
            media_type=media_type,
            headers={"Content-Disposition": f'inline; filename="{filename}"'},
        )

    @delete(
        "/{job_id:str}",
        sync_to_thread=True,
        summary="Delete a job: its document, result, webhook record and job record",
        responses=problem_responses(*V1_PROBLEMS, "job_not_found"),
    )
    def delete_job(self, services: ServicesDep, tenant: TenantDep, job_id: JobId) -> None:
        job = owned_job(services, tenant, job_id)
        services.job_store.delete(job.id)  # first: a worker that picks it up now finds nothing
        keys = {
            job.document_key,
            job.result_key or "",
            result_key(job),
            webhook_key(job),
            decisions_key(job),
            f"{job.tenant}/{job.id}/review-links.json",  # review_links.review_links_key
        }
        for key in sorted(keys - {""}):
            services.blob_store.delete(key)
