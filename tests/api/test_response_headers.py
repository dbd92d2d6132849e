"""Headers every response carries, whatever answered it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import new_table


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/healthz", 200),
        ("GET", "/tables", 200),
        ("GET", "/tables?limit=0", 400),
        ("GET", "/no-such-route", 404),
        ("GET", "/tables/not-a-uuid", 404),
        ("DELETE", "/tables", 405),
        ("OPTIONS", "/tables", 204),
        ("POST", "/tables", 415),
        ("GET", "/docs", 200),
        ("GET", "/docs/openapi.json", 200),
        ("GET", "/docs/assets/swagger-ui.css", 200),
        ("GET", "/docs/assets/x%00", 404),
        ("GET", "/metrics", 200),
    ],
)
async def test_every_response_says_nosniff(
    client: Any, method: str, path: str, status: int
) -> None:
    response = await client.request(method, path, content=b"x")
    assert response.status_code == status, response.text
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_a_not_modified_answer_says_nosniff(client: Any) -> None:
    table = await new_table(client)
    first = await client.get(f"/tables/{table['id']}")
    again = await client.get(
        f"/tables/{table['id']}", headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["x-content-type-options"] == "nosniff"
