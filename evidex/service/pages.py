"""What the service's HTML pages share: their headers, their response, where the app is mounted.

The pages are the review page (under ``/v1``, and opened with a review link), a review link's
"expired" page and the upload page. Each is answered by :func:`html_page`, so all go out under
one strict Content-Security-Policy (:data:`CSP`): scripts and styles only from this app's
routes, requests only to this origin, no framing, no referrer, never cached. A page names its
own routes from :func:`root_path`, so it works as well when the app is mounted under a path.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.enums import MediaType

__all__ = ["CSP", "PAGE_HEADERS", "html_page", "root_path"]

CSP = (
    "default-src 'none'; img-src 'self' data:; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def html_page(html: str, status_code: int | None = None) -> Response[str]:
    """``html`` as a page, under :data:`PAGE_HEADERS`; ``status_code`` the route's by default."""
    return Response(html, status_code=status_code, media_type=MediaType.HTML, headers=PAGE_HEADERS)


def root_path(request: Request[Any, Any, Any]) -> str:
    """The path the app is mounted under, without a trailing slash (empty at the host's root)."""
    return str(request.scope.get("root_path", "")).rstrip("/")
