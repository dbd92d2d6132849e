"""The browser console at ``/console`` (DESIGN 11): pages for watching, replaying and
playing tables and following tournaments, served by the service itself.

Every page is the same small HTML shell; its script module reads the path and draws the
page from the public API, with the caller's own token (a seat's from the page's
fragment, the operator's from a form), so a page shows exactly what the API gives that
audience. The assets are plain JavaScript modules and CSS shipped in this package: no
build step, no CDN, nothing fetched from another origin.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from litestar import Response, get
from litestar.router import Router

from service.http.reference import static_router

CONSOLE = "/console"
ASSETS_DIR = Path(str(files(__package__) / "assets"))

# Scripts, styles, images and requests from this origin only; no inline script or style
# attribute, no framing, no plugin, forms post back here. The cards are SVG built with
# DOM calls, which the policy does not restrict.
POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


def console_headers(response: Response[Any]) -> Response[Any]:
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Frame-Options"] = "DENY"
    # A seat's token sits in the fragment, which browsers never send; no referrer either.
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _shell() -> Response[bytes]:
    page = (ASSETS_DIR / "index.html").read_bytes()
    return Response(page, media_type="text/html", headers={"Cache-Control": "no-cache"})


@get(["/", "/tables/{table_id:str}", "/tables/{table_id:str}/replay"], sync_to_thread=False)
def table_pages() -> Response[bytes]:
    """The tables list, a table (spectator, seat or operator) and its replay: one page,
    whose script reads the table's id from the path."""
    return _shell()


@get(["/tournaments", "/tournaments/{tournament_id:str}"], sync_to_thread=False)
def tournament_pages() -> Response[bytes]:
    """The tournaments list and one tournament."""
    return _shell()


def console_router() -> Router:
    return Router(
        CONSOLE,
        route_handlers=[table_pages, tournament_pages],
        include_in_schema=False,
        after_request=console_headers,
    )


def console_assets_router() -> Router:
    return static_router(
        f"{CONSOLE}/assets", ASSETS_DIR, "console-assets", after_request=console_headers
    )
