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
from service.settings import from_env


def app_factory() -> Litestar:
    settings = from_env()
    logs.configure(settings)
    return create_app(settings)


def served_app_factory() -> Litestar:
    """The app of a worker of ``cardroom serve --workers N``, which applied the migrations
    before starting any worker. A worker started later, to replace one that died, may
    meet a database that is down just then: it starts without it and answers 503 until
    it is back. Applying migrations at its start, it would fail to start, and uvicorn's
    supervisor, which takes a worker that fails to start for a broken app, would stop
    the whole server, the healthy workers with it."""
    settings = from_env()
    logs.configure(settings)
    return create_app(settings, migrate=False)
