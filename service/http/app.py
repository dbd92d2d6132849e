"""The Litestar application: wiring, lifespan, error rendering and the OpenAPI document."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, cast

import anyio
import msgspec
import psycopg
from litestar import Litestar, Request, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import (
    Components,
    License,
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Reference,
    Schema,
    SecurityScheme,
    Server,
)
from litestar.params import HeaderParameter
from litestar.plugins.prometheus import PrometheusConfig
from litestar.routes import HTTPRoute
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from redis.asyncio import Redis

from domain import RULES_ENGINE_VERSION
from domain.errors import RuleError
from service import metrics
from service.http.audit import AuditController
from service.http.auth import Authenticator, Caller
from service.http.docs import StrictStructSchemaPlugin, TaggedUnionSchemaPlugin
from service.http.examples import attach as attach_examples
from service.http.live import stream_table
from service.http.ops import healthz, readyz
from service.http.ops import metrics as metrics_endpoint
from service.http.problems import PROBLEM_JSON, ApiProblem, problem
from service.http.reference import PLAYING, assets_router, problem_table, render_plugins
from service.http.tables import TableController
from service.http.tournaments import TournamentController
from service.read.models import ReadSide
from service.read.watch import TableWatcher
from service.settings import Settings
from service.workers.projector import Projector
from service.workers.relay import Relay
from service.write.commands import TableService, rule_error_context
from service.write.migrate import migrate
from service.write.store import EventStore, Notifier

API_VERSION = "1.1.0"  # the README's changelog says what each version changed
log = logging.getLogger("cardroom")

DESCRIPTION = f"""\
Cardroom hosts auction card games over a REST API, event-sourced: every bid, exchange
and play is an append-only event. Rules engine {RULES_ENGINE_VERSION}.

{PLAYING}
## Problem types

Errors are RFC 9457 `application/problem+json` documents whose `code` names the cause;
a problem's `type` is `https://cardroom.dev/problems/` followed by its `code`.

{problem_table()}
"""


def _problem_response(
    request: Request[Any, Any, Any],
    code: str,
    detail: str | None,
    *,
    headers: dict[str, str] | None = None,
    errors: list[dict[str, Any]] | None = None,
    context: dict[str, Any] | None = None,
) -> Response[Any]:
    body = problem(code, detail, instance=request.url.path, errors=errors, context=context)
    return Response(body, status_code=body.status, media_type=PROBLEM_JSON, headers=headers)


def on_api_problem(request: Request[Any, Any, Any], exc: ApiProblem) -> Response[Any]:
    return _problem_response(
        request, exc.code, exc.detail, headers=exc.headers, context=exc.context
    )


def on_rule_error(request: Request[Any, Any, Any], exc: RuleError) -> Response[Any]:
    metrics.COMMANDS.labels(outcome=exc.code.value).inc()
    return _problem_response(request, exc.code.value, exc.message, context=rule_error_context(exc))


_HTTP_CODES = {
    400: "malformed-request",
    401: "unauthorized",
    404: "not-found",
    405: "method-not-allowed",
}


# Body validation names the offending field; table settings get their own codes.
_FIELD_CODES = {
    "options": "invalid-options",
    "seats": "invalid-options",
    "first_dealer": "invalid-options",
    "deals": "invalid-deck",
}


def _validation_code(errors: list[dict[str, Any]]) -> str | None:
    for error in errors:
        key = str(error.get("key", ""))
        message = str(error.get("message", ""))
        for field, code in _FIELD_CODES.items():
            if key.split(".")[0].split("[")[0] == field or f"`$.{field}" in message:
                return code
    return None


def on_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    errors = None
    code = None
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list):
        errors = [e for e in exc.extra if isinstance(e, dict)]
        code = _validation_code(errors)
    code = code or _HTTP_CODES.get(exc.status_code)
    detail = exc.detail
    if errors:
        # The generic "Validation failed" says less than the first error it carries.
        first = errors[0]
        where = first.get("key")
        detail = f"{where}: {first.get('message')}" if where else str(first.get("message"))
    if code is None:
        code = "internal-error" if exc.status_code >= 500 else "malformed-request"
    if isinstance(exc, NotFoundException):
        detail = "no such route"
    return _problem_response(request, code, detail, headers=exc.headers, errors=errors)


def _integral(value: Any) -> Any:
    """JSON Schema counts 3.0 as an integer; msgspec's strict mode does not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


_AT_PATH = re.compile(r" - at `\$\.?(?P<path>[^`]*)`$")


async def strict_body(request: Request[Any, Any, Any]) -> None:
    """Validate JSON bodies as strictly as the document states them.

    Litestar converts bodies leniently (``"24"`` or ``24.0`` for an integer, ``0`` for
    ``false``); a client generated from the spec must not come to depend on that, so the
    body is first decoded strictly against the handler's declared type.
    """
    field = request.route_handler.parsed_data_field
    if field is None:
        return
    try:
        document = _integral(msgspec.json.decode(await request.body()))
        msgspec.convert(document, field.annotation, strict=True)
    except msgspec.ValidationError as exc:
        message = str(exc)
        found = _AT_PATH.search(message)
        key = found["path"] if found else "data"
        raise ValidationException(
            detail="the body does not match the schema",
            extra=[{"message": _AT_PATH.sub("", message), "key": key, "source": "body"}],
        ) from exc
    except msgspec.DecodeError:
        return  # Litestar reports malformed JSON itself


def on_unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.warning("database unavailable: %s", exc)
    return _problem_response(request, "unavailable", "the database is not reachable")


def on_unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return _problem_response(request, "internal-error", "unexpected error")


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


def _complete_allow_headers(app: Litestar) -> None:
    """Litestar builds the automatic OPTIONS answer with the first handler of a path and
    keeps it when more handlers join that path (``/tables`` has GET and POST), so its
    ``Allow`` lists too few methods. Point each one at its route's final methods."""
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        handler = route.route_handler_map.get("OPTIONS", (None, None))[0]
        if handler is None or handler.handler_name != "options_handler":
            continue
        allow = ", ".join(sorted(route.methods))

        def answer(scope: Any, allow: str = allow) -> Response[None]:
            return Response(None, status_code=204, headers={"Allow": allow})

        handler._fn = cast(Any, answer)  # a sync handler, as the one it replaces


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Cardroom",
        version=API_VERSION,
        description=DESCRIPTION,
        license=License(name="MIT", identifier="MIT"),
        path="/docs",
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


async def provide_caller(
    request: Request[Any, Any, Any],
    authorization: Annotated[
        str | None, HeaderParameter(name="Authorization", include_in_schema=False)
    ] = None,
) -> Caller:
    auth: Authenticator = request.app.state.auth
    return await auth.identify(authorization)


def provide_service(state: State) -> TableService:
    service: TableService = state.service
    return service


def provide_pool(state: State) -> AsyncConnectionPool[Any]:
    pool: AsyncConnectionPool[Any] = state.pool
    return pool


def provide_redis(state: State) -> Redis:
    redis: Redis = state.redis
    return redis


def provide_watcher(state: State) -> TableWatcher:
    watcher: TableWatcher = state.watcher
    return watcher


def provide_read_side(state: State) -> ReadSide:
    read_side: ReadSide = state.read_side
    return read_side


def provide_settings(state: State) -> Settings:
    settings: Settings = state.settings
    return settings


def create_app(settings: Settings) -> Litestar:
    """The app for ``settings``; the database URL must be set (the CLI embeds one if not)."""
    assert settings.database_url, "the CLI starts an embedded Postgres when none is configured"
    database_url = settings.database_url

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(migrate, database_url)
        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            database_url,
            min_size=settings.pool_min,
            max_size=settings.pool_max,
            open=False,
            kwargs={"autocommit": True},
        )
        await pool.open()
        redis = Redis.from_url(settings.redis_url or "redis://127.0.0.1:6379/0")
        notifier = Notifier(pool)
        notifier.start()
        store = EventStore(pool, notifier)
        watcher = TableWatcher(database_url)
        await watcher.start()
        app.state.update(
            read_side=ReadSide(pool),
            pool=pool,
            redis=redis,
            store=store,
            watcher=watcher,
            settings=settings,
            service=TableService(store),
            auth=Authenticator(store, settings.operator_token),
        )
        stop = asyncio.Event()
        background = []
        if settings.relay:
            relay = Relay(store, redis, settings.redis_prefix, database_url, watcher)
            background.append(asyncio.create_task(relay.run(stop), name="cardroom-relay"))
        if settings.projector:
            projector = Projector(pool)
            background.append(
                asyncio.create_task(projector.run(stop, watcher), name="cardroom-projector")
            )
        try:
            yield
        finally:
            stop.set()
            await asyncio.gather(*background)
            await notifier.stop()
            await watcher.stop()
            await redis.aclose()
            await pool.close()

    prometheus = PrometheusConfig(app_name="cardroom", prefix="cardroom", group_path=True)
    app = Litestar(
        route_handlers=[
            TableController,
            TournamentController,
            AuditController,
            stream_table,
            healthz,
            readyz,
            metrics_endpoint,
            assets_router(),
        ],
        lifespan=[lifespan],
        dependencies={
            "caller": Provide(provide_caller),
            "service": Provide(provide_service, sync_to_thread=False),
            "pool": Provide(provide_pool, sync_to_thread=False),
            "redis": Provide(provide_redis, sync_to_thread=False),
            "watcher": Provide(provide_watcher, sync_to_thread=False),
            "settings": Provide(provide_settings, sync_to_thread=False),
            "read_side": Provide(provide_read_side, sync_to_thread=False),
        },
        exception_handlers={
            ApiProblem: on_api_problem,
            RuleError: on_rule_error,
            HTTPException: on_http_exception,
            PoolTimeout: on_unavailable,
            psycopg.OperationalError: on_unavailable,
            Exception: on_unexpected,
        },
        middleware=[prometheus.middleware],
        before_request=strict_body,
        openapi_config=openapi_config(),
        plugins=[TaggedUnionSchemaPlugin(), StrictStructSchemaPlugin()],
        debug=False,
    )
    _problemize(app.openapi_schema)
    _tidy_parameters(app.openapi_schema)
    attach_examples(app.openapi_schema)
    _complete_allow_headers(app)
    return app
