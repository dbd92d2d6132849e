"""ASGI entry point, for the worker processes of ``cardroom serve --workers N`` and for
process managers:
``uvicorn service.http.asgi:app_factory --factory --no-server-header --no-access-log``.
The process logs as the settings say (:mod:`service.logs`).

uvicorn's command line cannot name the HTTP protocol of :mod:`service.http.protocol`, so
served that way the request head has no limits (DESIGN 12): prefer ``cardroom serve``.
"""

from __future__ import annotations

from litestar import Litestar

from service import logs
from service.http.app import create_app
from service.http.lifespan import Migrate
from service.settings import from_env


def app_factory(migrate: Migrate = "at-start") -> Litestar:
    settings = from_env()
    logs.configure(settings)
    return create_app(settings, migrate=migrate)
