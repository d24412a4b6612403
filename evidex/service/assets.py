"""The pages' static files (``static/``): their text, the URL that names their version, their
response.

The review page and the upload page each serve their own files, on their own routes (the review
link's page and the upload page have no API key), and both serve ``values.js``: how a field's
value is written for a person, used by ``review.js`` and ``upload.js`` alike. A URL carries
``?v=`` and a hash of the file, so a browser never keeps a copy older than the running service.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cache
from importlib.resources import files

from litestar import Response

from evidex.service.problems import ApiError

__all__ = ["asset_url", "serve_asset", "static_text"]


@cache
def static_text(name: str) -> str:
    return files("evidex.service").joinpath("static", name).read_text(encoding="utf-8")


@cache
def _version(name: str) -> str:
    return hashlib.sha256(static_text(name).encode()).hexdigest()[:12]


def asset_url(base: str, name: str) -> str:
    """Where a page loads ``name`` from its route ``base``, with the file's version."""
    return f"{base}/{name}?v={_version(name)}"


def serve_asset(name: str, served: Mapping[str, str], cache: str, page: str) -> Response[str]:
    """The file ``name`` if ``served`` (file name -> media type) holds it, else ``not_found``
    (no other file of the folder); ``cache`` is its Cache-Control scope, ``page`` whose it is."""
    if name not in served:
        raise ApiError("not_found", f"no {page} asset {name!r}")
    headers = {"Cache-Control": f"{cache}, max-age=86400", "X-Content-Type-Options": "nosniff"}
    return Response(static_text(name), media_type=served[name], headers=headers)
