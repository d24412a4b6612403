"""The upload page: try a document from a browser, without writing code.

::

    GET /                        the page (HTML): API key, file, schema, options; public
    GET /upload-assets/{name}    upload.js, upload.css, values.js; public (static files)

The page itself holds nothing secret and does no work, so it needs no key; everything it does
goes through the ``/v1`` API with the bearer header, from ``upload.js``:

- ``POST /v1/schemas/explain`` shows how a pasted JSON Schema will be read (each leaf's kind and
  where it came from) before anything is sent, and stops a schema the API would refuse;
- ``POST /v1/jobs`` submits; ``GET /v1/jobs/{id}`` is polled (with its ETag) until the job ends;
- ``POST /v1/jobs/{id}/review-links`` makes the link into the review page: a browser cannot send
  a bearer header when it follows a link, a signed review link needs none.

The API key is kept in the tab's ``sessionStorage`` only (gone when the tab closes) and sent as
``Authorization: Bearer``; never in a cookie, a URL or the page. Every error the API answers is
shown as its problem's title and detail; a file over the upload limit is refused before it is
sent, in the words the API would use.

Names scripts rely on: the form fields ``api_key``, ``file`` and ``schema`` (a select whose
option values are the built-in schema names), and each result row's ``data-field`` (the field's
path) and ``data-status`` (its status). Served under the review page's Content-Security-Policy
(:mod:`evidex.service.pages`): scripts and styles from this app only, requests to this origin only.
"""

from __future__ import annotations

from html import escape
from typing import Any, get_args

from litestar import Controller, Request, Response, get
from litestar.enums import MediaType

from evidex.schemas import builtin_names, get_schema
from evidex.service.assets import asset_route, asset_url, render_page
from evidex.service.pages import html_page, root_path
from evidex.service.problems import PROBLEMS
from evidex.service.services import ServicesDep
from evidex.workers.jobs import JobOptions

__all__ = ["ASSETS", "UploadPage", "render_upload", "upload_assets"]

ASSETS = {
    "upload.js": "text/javascript",
    "upload.css": "text/css",
    "values.js": "text/javascript",
}
DEFAULT_SCHEMA = "invoice"


def _backends() -> list[str]:
    """The values of ``options.llm``, read from :class:`JobOptions` so the two cannot differ."""
    annotation = JobOptions.model_fields["llm"].annotation
    return [str(v) for arg in get_args(annotation) for v in get_args(arg) or ()]


def _option(value: str, text: str, selected: bool) -> str:
    chosen = " selected" if selected else ""
    return f'<option value="{escape(value)}"{chosen}>{escape(text)}</option>'


def render_upload(max_upload_bytes: int, root: str = "") -> str:
    """The page, with the built-in schemas, the backends and the upload limit filled in;
    ``root`` is the path the app is mounted under (empty at the host's root)."""
    names = builtin_names()
    default = DEFAULT_SCHEMA if DEFAULT_SCHEMA in names else names[0]
    schemas = "".join(
        _option(name, f"{name} — {get_schema(name).description}", name == default) for name in names
    )
    backends = _option("", "the service's default", True) + "".join(
        _option(name, name, False) for name in _backends()
    )
    assets = {name: asset_url(f"{root}/upload-assets", name) for name in ASSETS}
    return render_page(
        "upload",
        "evidex · extract a document",
        assets,
        root=escape(root),
        schemas=schemas,
        backends=backends,
        max_bytes=max_upload_bytes,
        max_mib=f"{max_upload_bytes / 2**20:.3g}",
        too_large=escape(PROBLEMS["file_too_large"].title),
    )


class UploadPage(Controller):
    """``GET /``: the page; public, like its static files (``upload_assets``)."""

    path = "/"
    tags = ("upload page",)

    @get(
        "/",
        sync_to_thread=False,
        media_type=MediaType.HTML,
        summary="The upload page: submit a document and see its fields (HTML)",
        description="For people: a form (API key, file, schema, options) that submits through "
        "POST /v1/jobs, shows the fields with their status and evidence, and links to the "
        "review page. The key stays in the browser tab's session storage.",
    )
    def page(self, request: Request[Any, Any, Any], services: ServicesDep) -> Response[str]:
        return html_page(render_upload(services.settings.max_upload_bytes, root_path(request)))


# The page's script and stylesheet; public, like the review page's.
upload_assets = asset_route(
    "/upload-assets",
    ASSETS,
    "upload page",
    cache="public",
    tags=["upload page"],
    problems=["bad_request"],
)
