"""The Litestar application: its routes, dependencies, hooks and error handlers wired
together. What each part does lives in its own module: ``lifespan`` (resources and
workers), ``errors`` (problem rendering), ``hooks`` (strict bodies, OPTIONS),
``access`` (request ids, CORS, the request log) and ``document`` (the OpenAPI document)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import NotFoundException

from service.http.access import RequestEdge
from service.http.audit import AuditController
from service.http.auth import provide_caller
from service.http.callers import token_holder
from service.http.command_path import command_path
from service.http.console import console_assets_router, console_router
from service.http.cors import Cors
from service.http.deadline import deadline_middleware
from service.http.docs import StrictStructSchemaPlugin, TaggedUnionSchemaPlugin
from service.http.document import finish, openapi_config
from service.http.games import GameController
from service.http.headers import nosniff, revalidated
from service.http.hooks import allowed_methods, before_request, on_no_route, parameter_rules
from service.http.interventions import InterventionController
from service.http.lifespan import Migrate, lifespan
from service.http.limits import MAX_BODY_BYTES
from service.http.live import stream_table, stream_tournament
from service.http.ops import healthz, readyz
from service.http.ops import metrics as metrics_endpoint
from service.http.problems import EXCEPTION_HANDLERS
from service.http.reference import assets_router
from service.http.request_metrics import request_metrics_middleware
from service.http.rounds import RoundController
from service.http.tables import TableController
from service.http.throttle import rate_limit_fields
from service.http.tournaments import TournamentController
from service.http.view_path import view_path
from service.logs import stamp_request_ids
from service.settings import Settings

# What the lifespan put in the app's state, given to handlers by name (each handler
# declares the type it expects).
SHARED = (
    "service",
    "tournaments",
    "pool",
    "redis",
    "hub",
    "watcher",
    "settings",
    "read_side",
    "replicas",
)


def _shared(name: str) -> Provide:
    def provide(state: State) -> Any:
        return state[name]

    return Provide(provide, sync_to_thread=False)


def create_app(settings: Settings, *, migrate: Migrate = "at-start") -> Litestar:
    """The app for ``settings``; the database URL must be set (the CLI embeds one if not).
    ``migrate``: how pending migrations are applied at startup (``cardroom serve``
    applies them itself before it starts serving, see
    :func:`service.tools.supervisor.worker_app`)."""
    app = Litestar(
        route_handlers=[
            TableController,
            InterventionController,
            TournamentController,
            RoundController,
            AuditController,
            GameController,
            token_holder,
            stream_table,
            stream_tournament,
            healthz,
            readyz,
            metrics_endpoint,
            assets_router(),
            console_router(),
            console_assets_router(),
        ],
        lifespan=[lifespan(settings, migrate=migrate)],
        dependencies={
            "caller": Provide(provide_caller),
            **{name: _shared(name) for name in SHARED},
        },
        exception_handlers={**EXCEPTION_HANDLERS, NotFoundException: on_no_route},
        # The metrics are outermost, so that they count the 503 or 408 the deadline
        # answers for a request it cuts short. The short ways of the command and the view
        # are the innermost: inside the deadline and the metrics, after routing.
        middleware=[
            request_metrics_middleware,
            deadline_middleware(settings.request_seconds),
            command_path,
            view_path,
        ],
        before_request=before_request,
        before_send=[nosniff, revalidated, rate_limit_fields],
        request_max_body_size=MAX_BODY_BYTES,
        openapi_config=openapi_config(),
        plugins=[TaggedUnionSchemaPlugin(), StrictStructSchemaPlugin()],
        debug=False,
        # Logging is the process's (service.logs), not Litestar's: its default
        # configuration would take over the root logger.
        logging_config=None,
    )
    app.state.allowed_methods = allowed_methods(app)
    stamp_request_ids()
    app.asgi_handler = RequestEdge(
        app.asgi_handler, Cors(settings.cors_origins) if settings.cors_origins else None
    )
    finish(app.openapi_schema)
    app.state.parameter_rules = parameter_rules(app.openapi_schema)
    return app
