"""Accepting a document: check it, store it, record the job, enqueue it — exactly once.

Checks run cheapest first, and each failure names what the client should change: the schema
(``schema_invalid``; over :data:`MAX_SCHEMA_BYTES` before it is even parsed), the options
(``options_invalid``; over :data:`MAX_OPTIONS_BYTES` likewise, then each field's own bound in
:class:`~evidex.workers.jobs.JobOptions`; ``webhook_not_allowed`` by the webhook
sender's own allowlist rule, :func:`evidex.workers.webhooks.check_allowed`), the size
(``file_too_large``), empty (``document_empty``), the format read from the bytes — PDF, PNG,
JPEG or TIFF, and the same as the file's extension when it has one (``unsupported_media_type``:
a PNG named ``.pdf`` is refused); last, the file is opened, without extracting anything
(:func:`evidex.extractors.parse.probe.probe`: ``pdf_encrypted``, ``pdf_corrupt``,
``pdf_no_pages``, ``too_many_pages``, a page selection outside the document), so the API rejects
up front what no parser can read while scans, which the ``auto`` parser reads by OCR, go through.

The document is stored under ``{tenant}/{job_id}/document``: the job id is random and the tenant
name is validated at settings load, so nothing a client sends ever becomes part of a path. The
client's filename is kept, sanitised, as metadata only.

Idempotency: with an ``Idempotency-Key`` the job store's atomic ``create`` returns the tenant's
first job for that key; this request's blob is then removed, nothing is enqueued, and the caller
gets that job (``created=False``). The same key with a different document, schema or options is
``idempotency_conflict`` (409). If enqueueing fails, the job and its document are removed again
(``queue_unavailable``, 503), so a retry with the same key starts afresh; when the job store
cannot be reached the document is removed too (``store_unavailable``, 503): nothing is half-written.
Both answer ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from pydantic import PydanticUserError, ValidationError

from evidex.extractors.document import parse_pages
from evidex.extractors.parse.probe import Probe, probe
from evidex.extractors.plan.calls import check_window
from evidex.extractors.plan.context import ContextBudget, ContextTooSmall
from evidex.schemas import MAX_SCHEMA_BYTES, SchemaDef, SchemaInvalid, get_schema
from evidex.schemas.validation import first_problem
from evidex.service.problems import ApiError
from evidex.service.services import Services
from evidex.workers.jobs import Job, JobOptions, new_job_id
from evidex.workers.shared import custom_schema
from evidex.workers.webhooks import check_allowed

__all__ = [
    "Submission",
    "read_options",
    "read_schema",
    "safe_filename",
    "submit",
]

log = logging.getLogger(__name__)
_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
MAX_OPTIONS_BYTES = 16 * 1024  # every JobOptions field at its longest, written plainly: < 4 KiB
_PAGE_RANGE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


@dataclass(frozen=True)
class Submission:
    """What the client sent, before any check."""

    data: bytes
    filename: str | None
    schema: str | None
    schema_json: str | None
    options: str | None
    idempotency_key: str | None


def safe_filename(name: str | None) -> str:
    """The last path component, without control characters, at most 200 characters."""
    base = re.split(r"[\\/]", name or "")[-1]
    cleaned = "".join(
        c for c in unicodedata.normalize("NFC", base) if unicodedata.category(c)[0] != "C"
    )
    cleaned = cleaned.strip().lstrip(".") or "document.pdf"
    return cleaned[:200]


def _size_over(text: str, limit: int) -> int | None:
    """The UTF-8 size of ``text`` when it is over ``limit`` bytes, else None (a text of more
    characters than ``limit`` is over without being encoded)."""
    size = len(text) if len(text) > limit else len(text.encode())
    return size if size > limit else None


def read_schema(
    name: str | None, schema_json: str | None
) -> tuple[SchemaDef, dict[str, Any] | None]:
    """A built-in schema by name, or a JSON Schema of plain values (kept for the worker)."""
    if (name is None) == (schema_json is None):
        raise ApiError("bad_request", "send exactly one of 'schema' (a name) or 'schema_json'")
    if name is not None:
        return get_schema(name), None
    size = _size_over(schema_json or "", MAX_SCHEMA_BYTES)
    if size is not None:
        raise SchemaInvalid(
            f"schema_json is {size} bytes; the limit is {MAX_SCHEMA_BYTES} bytes "
            "(256 KiB): send a smaller schema, e.g. without long descriptions or unused $defs"
        )
    try:
        raw = json.loads(schema_json or "")
    except json.JSONDecodeError as exc:
        raise SchemaInvalid(f"schema_json is not valid JSON: {exc}") from None
    except RecursionError:
        raise SchemaInvalid("schema_json is nested too deeply") from None
    try:
        schema = custom_schema(raw)  # built once per distinct schema, as in the worker
    except (TypeError, ValueError, AttributeError, RecursionError, PydanticUserError) as exc:
        # What schema_from_json does not catch itself (a non-object "$defs", a non-string
        # "description", property names Pydantic reserves) is still the client's schema.
        raise SchemaInvalid(f"schema_json cannot be used ({type(exc).__name__}: {exc})") from None
    return schema, raw


def read_options(raw: str | None, allowed_hosts: list[str]) -> JobOptions:
    if raw is None or not raw.strip():
        return JobOptions()
    size = _size_over(raw, MAX_OPTIONS_BYTES)
    if size is not None:
        raise ApiError(
            "options_invalid",
            f"options is {size} bytes; the limit is {MAX_OPTIONS_BYTES} bytes "
            "(see JobOptions in /schema for what it holds)",
        )
    try:
        options = JobOptions.model_validate_json(raw)
    except ValidationError as exc:
        raise ApiError(
            "options_invalid",
            f"options: {first_problem(exc, 'options')} (see JobOptions in /schema)",
        ) from None
    if options.webhook_url is not None:  # the worker checks again with the same rule when sending
        check_allowed(options.webhook_url, allowed_hosts)
    return options


def _check_page_count(spec: str, max_pages: int) -> None:
    """Refuse a selection naming more than ``max_pages`` pages, repeats counted, before anything
    expands it: ``"1-200,1-200,..."`` is expanded range by range, each page compared with every
    page already taken. A part that is not a page or a range is left to :func:`parse_pages`."""
    named = 0
    for part in spec.split(","):
        found = _PAGE_RANGE.fullmatch(part)
        if found is None:
            continue
        first, last = int(found[1]), int(found[2] or found[1])
        named += max(0, last - first + 1)
        if named > max_pages:
            raise ApiError(
                "options_invalid",
                f"options.pages names more than {max_pages} pages, repeats counted; the "
                f"service reads at most {max_pages} pages of a document: name each page once",
            )


def _check_document(data: bytes, filename: str, max_bytes: int, max_pages: int) -> Probe:
    """The media type and page count of a document some parser can read."""
    if len(data) > max_bytes:
        raise ApiError(
            "file_too_large", f"{filename} is {len(data)} bytes; the limit is {max_bytes} bytes"
        )
    found = probe(data, filename)
    if found.pages > max_pages:
        raise ApiError(
            "too_many_pages",
            f"{filename} has {found.pages} pages; the limit is {max_pages} pages",
        )
    return found


def submit(services: Services, tenant: str, sent: Submission) -> tuple[Job, bool]:
    """Check and accept ``sent``; the job and whether it was created (False: idempotent replay)."""
    settings = services.settings
    key = sent.idempotency_key
    if key is not None and not _IDEMPOTENCY_KEY.match(key):
        raise ApiError("bad_request", "Idempotency-Key must be 1-255 printable ASCII characters")
    filename = safe_filename(sent.filename)
    schema, custom = read_schema(sent.schema, sent.schema_json)
    options = read_options(sent.options, settings.webhook_allowed_hosts)
    if options.context_tokens is not None:
        try:
            check_window(schema, ContextBudget(options.context_tokens))
        except ContextTooSmall as exc:
            raise ApiError("options_invalid", f"options.context_tokens: {exc}") from None
    if options.pages is not None:
        _check_page_count(options.pages, settings.max_pages)
    found = _check_document(sent.data, filename, settings.max_upload_bytes, settings.max_pages)
    if options.pages is not None:
        try:
            parse_pages(options.pages, found.pages)
        except ValueError as exc:
            raise ApiError("options_invalid", f"options.pages: {exc}") from None

    job_id = new_job_id()
    job = Job(
        id=job_id,
        tenant=tenant,
        filename=filename,
        media_type=found.media_type,
        size=len(sent.data),
        sha256=hashlib.sha256(sent.data).hexdigest(),
        schema_name=schema.name,
        custom_schema=custom,
        options=options,
        document_key=f"{tenant}/{job_id}/document",
        idempotency_key=key,
    )
    services.blob_store.put(job.document_key, sent.data, found.media_type)
    try:
        stored = services.job_store.create(job)
    except BaseException:  # Redis is down (503 store_unavailable): keep no orphan document
        services.blob_store.delete(job.document_key)
        raise
    if stored.id != job.id:
        services.blob_store.delete(job.document_key)
        same = (stored.sha256, stored.schema_name, stored.custom_schema, stored.options) == (
            job.sha256,
            job.schema_name,
            job.custom_schema,
            job.options,
        )
        if not same:
            raise ApiError(
                "idempotency_conflict",
                f"Idempotency-Key {key!r} was used for job {stored.id} with a different "
                "document, schema or options; use a new key for a new job",
            )
        return stored, False
    try:
        services.enqueue(job.id)
    except Exception as exc:
        log.exception("cannot enqueue job %s", job.id)
        services.job_store.delete(job.id)
        services.blob_store.delete(job.document_key)
        raise ApiError(
            "queue_unavailable", "the job could not be queued; nothing was kept, retry shortly"
        ) from exc
    return job, True
