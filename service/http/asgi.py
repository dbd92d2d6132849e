"""ASGI entry point for process managers:
``uvicorn service.http.asgi:app_factory --factory --no-server-header --no-access-log``
(as `cardroom serve`). The process logs as the settings say (:mod:`service.logs`)."""

from __future__ import annotations

from litestar import Litestar

from service import logs
from service.http.app import create_app
from service.settings import from_env


def app_factory() -> Litestar:
    settings = from_env()
    logs.configure(settings)
    return create_app(settings)
