"""The OpenAPI document: its description, and the corrections Litestar's output needs."""

from __future__ import annotations

from typing import Any

from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import (
    Components,
    License,
    OpenAPI,
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Reference,
    Schema,
    SecurityScheme,
    Server,
)

from domain import RULES_ENGINE_VERSION
from service.http.examples import attach as attach_examples
from service.http.problems import PROBLEM_JSON
from service.http.reference import PLAYING, docs_router, problem_table, render_plugins

API_VERSION = "1.4.0"  # the README's changelog says what each version changed

DESCRIPTION = f"""\
Cardroom hosts auction card games over a REST API, event-sourced: every bid, exchange
and play is an append-only event. Rules engine {RULES_ENGINE_VERSION}.

The rules of every game, with every table option and its default, are the rulebook in
the repository: `docs/rules/` (start at `docs/rules/index.md`). How the service is built
is `docs/design.md`.

{PLAYING}
## Problem types

Errors are RFC 9457 `application/problem+json` documents whose `code` names the cause;
a problem's `type` is `https://cardroom.dev/problems/` followed by its `code`.

{problem_table()}
"""


def _problemize(openapi: Any) -> None:
    """Litestar documents its own 400s as plain JSON; ours are problem documents."""
    ref = Reference("#/components/schemas/Problem")
    for item in openapi.paths.values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            for status, response in (operation.responses or {}).items() if operation else ():
                if not isinstance(response, OpenAPIResponse) or not status.startswith("4"):
                    continue
                if response.content and "application/json" in response.content:
                    response.content = {PROBLEM_JSON: OpenAPIMediaType(schema=ref)}


def _tidy_parameters(openapi: Any) -> None:
    """An optional query or header parameter is absent, never JSON ``null``: drop the
    ``null`` branch Litestar gives ``X | None`` parameters, or clients send "null"."""
    for item in openapi.paths.values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            for parameter in (operation.parameters or []) if operation else ():
                schema = getattr(parameter, "schema", None)
                if not isinstance(schema, Schema) or not schema.one_of:
                    continue
                kept = [
                    s
                    for s in schema.one_of
                    if not (isinstance(s, Schema) and s.type == OpenAPIType.NULL)
                ]
                if len(kept) == 1 and isinstance(kept[0], Schema) and kept[0].type is not None:
                    schema.type = kept[0].type
                    schema.one_of = None


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Cardroom",
        version=API_VERSION,
        description=DESCRIPTION,
        license=License(name="MIT", identifier="MIT"),
        path="/docs",
        openapi_router=docs_router(),
        render_plugins=render_plugins(),
        servers=[Server(url="/", description="this server")],
        components=Components(
            security_schemes={
                "bearer": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A seat token from takeSeat, or the operator token.",
                )
            }
        ),
    )


def finish(openapi: OpenAPI) -> None:
    """Problem documents for every 4xx, parameters without ``null``, and the examples."""
    _problemize(openapi)
    _tidy_parameters(openapi)
    attach_examples(openapi)
