"""The pages' static files (``static/``): their text, the URL that names their version, their
response.

The review page and the upload page each serve their own files, on their own routes (the review
link's page and the upload page have no API key), and both serve ``values.js``: how a field's
value is written for a person, used by ``review.js`` and ``upload.js`` alike. A URL carries
``?v=`` and a hash of the file, so a browser never keeps a copy older than the running service.

Both pages are ``static/page.html`` (one head: the page's stylesheet, ``values.js`` and its
script, no referrer) around their own body, ``static/{page}.html``: see :func:`render_page`.

Every static file's route is made by :func:`asset_route`: the review page's files are served
twice (under ``/v1`` with the API key, at the root for pages opened with a review link), the
upload page's once, and the three differ only in their files, cache scope, tags and the
problems they name.

No ``from __future__ import annotations`` here: the route's parameter description is made at
run time, so its annotation must be an object, not a name Litestar would look up later.
"""

import hashlib
from collections.abc import Mapping, Sequence
from functools import cache
from html import escape
from importlib.resources import files
from string import Template
from typing import Annotated

from litestar import Response, get
from litestar.enums import MediaType
from litestar.handlers import HTTPRouteHandler
from litestar.params import PathParameter

from evidex.service.problems import ApiError, problem_responses

__all__ = ["asset_route", "asset_url", "render_page", "serve_asset", "static_text"]


@cache
def static_text(name: str) -> str:
    return files("evidex.service").joinpath("static", name).read_text(encoding="utf-8")


@cache
def _version(name: str) -> str:
    return hashlib.sha256(static_text(name).encode()).hexdigest()[:12]


def asset_url(base: str, name: str) -> str:
    """Where a page loads ``name`` from its route ``base``, with the file's version."""
    return f"{base}/{name}?v={_version(name)}"


def render_page(page: str, page_title: str, assets: Mapping[str, str], **fields: object) -> str:
    """``static/{page}.html`` filled with ``fields`` (escaped by the caller) inside the pages'
    head; ``page_title`` is escaped here, ``assets`` holds the URLs of ``{page}.css``,
    ``values.js`` and ``{page}.js``."""
    return Template(static_text("page.html")).substitute(
        title=escape(page_title),
        css=escape(assets[f"{page}.css"]),
        values_js=escape(assets["values.js"]),
        js=escape(assets[f"{page}.js"]),
        body=Template(static_text(f"{page}.html")).substitute(fields),
    )


def serve_asset(name: str, served: Mapping[str, str], cache: str, page: str) -> Response[str]:
    """The file ``name`` if ``served`` (file name -> media type) holds it, else ``not_found``
    (no other file of the folder); ``cache`` is its Cache-Control scope, ``page`` whose it is."""
    if name not in served:
        raise ApiError("not_found", f"no {page} asset {name!r}")
    headers = {"Cache-Control": f"{cache}, max-age=86400", "X-Content-Type-Options": "nosniff"}
    return Response(static_text(name), media_type=served[name], headers=headers)


def asset_route(
    path: str,
    served: Mapping[str, str],
    page: str,
    *,
    cache: str,
    tags: Sequence[str],
    problems: Sequence[str],
) -> HTTPRouteHandler:
    """``GET {path}/{name}``: the page's static file ``name`` (:func:`serve_asset`); ``problems``
    are the route's own problem codes besides ``not_found``."""
    names = list(served)
    listed = ", ".join(names)
    one_of = f"{', '.join(names[:-1])} or {names[-1]}"

    @get(
        f"{path}/{{name:str}}",
        sync_to_thread=False,
        media_type=MediaType.TEXT,
        summary=f"A static file of the {page} ({listed})",
        tags=list(tags),
        responses=problem_responses(*problems, "not_found"),
    )
    def asset(name: Annotated[str, PathParameter(description=one_of)]) -> Response[str]:
        return serve_asset(name, served, cache, page)

    return asset
