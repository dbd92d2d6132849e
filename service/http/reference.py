"""The interactive API reference at ``/docs``: Swagger UI, served from this service.

The Swagger UI assets come from the ``swagger-ui-bundle-v2`` wheel (Swagger UI 5, which
reads OpenAPI 3.1), a dependency like any other: the installed service and its container
image hold them without a build step, nothing is vendored into this repository, and the
page needs no CDN — it works on a closed network.
"""

from __future__ import annotations

from typing import Any

from litestar.file_system import BaseLocalFileSystem
from litestar.openapi.plugins import JsonRenderPlugin, OpenAPIRenderPlugin, SwaggerRenderPlugin
from litestar.router import Router
from litestar.static_files import create_static_files_router
from litestar.types import PathType
from litestar.types.file_types import FileInfo
from swagger_ui_bundle import swagger_ui_path

from service.http.conditional import REVALIDATE, revalidating
from service.http.headers import docs_headers
from service.http.problems import CATALOGUE

DOCS = "/docs"
ASSETS = f"{DOCS}/assets"

PLAYING = """
## Playing a table

1. `createTable`, then `takeSeat` for each seat: each answer carries that seat's bearer
   token (the last seat taken starts the game).
2. `getTable` with the seat's token: the view lists the seat's `legal_actions`, ready to
   send. Wait for the table to move with `If-None-Match` (the last `ETag`) and `?wait=30`.
3. `postAction` one of them — where an entry offers a card choice
   `{"from": [...], "min": m, "max": n}`, send the cards picked — with `If-Match` (the
   view's `ETag`) and an `Idempotency-Key`. After a 409 or 412, read the table again.
4. Until the view's `status` is `finished`. `cardroom bot` does exactly this.
"""


def render_plugins() -> list[OpenAPIRenderPlugin]:
    """Swagger UI at ``/docs`` (the first plugin serves the root); JSON at ``openapi.json``."""
    swagger = SwaggerRenderPlugin(
        js_url=f"{ASSETS}/swagger-ui-bundle.js",
        css_url=f"{ASSETS}/swagger-ui.css",
        standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{ASSETS}/favicon-32x32.png'>",
        path="/",
    )
    return [swagger, JsonRenderPlugin()]


class Assets(BaseLocalFileSystem):
    """The assets' directory, where a path no file can have is simply not found.

    The operating system refuses to look such paths up (a NUL byte, a name over 255
    bytes, a file used as a directory) with errors Litestar answers with a 500.
    """

    async def info(self, path: PathType, **kwargs: Any) -> FileInfo:
        try:
            return await super().info(path, **kwargs)
        except (ValueError, OSError) as exc:
            raise FileNotFoundError(str(path)) from exc


def docs_router() -> Router:
    """Where Litestar puts the pages of the render plugins (and the JSON document)."""
    return Router(
        DOCS,
        route_handlers=[],
        include_in_schema=False,
        after_request=docs_headers,
        dto=None,
        return_dto=None,
    )


def static_router(path: str, directory: PathType, name: str, **options: Any) -> Router:
    """The files of ``directory`` under ``path``, outside the API's document: a path no
    file can have is not found (:class:`Assets`), and each file is revalidated on use,
    answered 304 while unchanged (:mod:`service.http.conditional`)."""
    return create_static_files_router(
        path=path,
        directories=[directory],
        file_system=Assets(),
        include_in_schema=False,
        cache_control=REVALIDATE,
        middleware=[revalidating],
        name=name,
        **options,
    )


def assets_router() -> Router:
    return static_router(ASSETS, swagger_ui_path, "docs-assets")


def problem_table() -> str:
    """Every problem ``code`` with its status and meaning, as a Markdown table."""
    rows = [
        f"| `{code}` | {kind.status} | {kind.meaning} |"
        for code, kind in sorted(CATALOGUE.items(), key=lambda item: (item[1].status, item[0]))
    ]
    return "\n".join(["| code | status | meaning |", "|---|---|---|", *rows])
