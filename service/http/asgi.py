"""ASGI entry point for process managers:
``uvicorn service.http.asgi:app_factory --factory --no-server-header`` (as `cardroom serve`)."""

from __future__ import annotations

from litestar import Litestar

from service.http.app import create_app
from service.settings import from_env


def app_factory() -> Litestar:
    return create_app(from_env())
