"""The OpenAPI document as committed in ``api_spec/openapi.json`` (a test checks drift)."""

from __future__ import annotations

import json
from typing import Any

from service.http.app import create_app
from service.settings import Settings


def spec() -> dict[str, Any]:
    # Building the document needs no database: the app is never started.
    app = create_app(
        Settings(database_url="postgresql:///unused", redis_url=None, operator_token="-")
    )
    document: dict[str, Any] = app.openapi_schema.to_schema()
    return document


def render_spec() -> str:
    # Sorted keys: Litestar builds some maps from sets, and the file must be stable.
    return json.dumps(spec(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
