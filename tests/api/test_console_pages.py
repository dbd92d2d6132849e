"""The console's pages and assets over HTTP (DESIGN 11): the same shell for every page,
a policy that admits only this origin, and the verification it offers the operator.
The pages themselves are tested in a browser, in tests/console/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all

PAGES = [
    "/console",
    "/console/tables/4f8c2d9e-0000-4000-8000-000000000000",
    "/console/tables/4f8c2d9e-0000-4000-8000-000000000000/replay",
    "/console/tournaments",
    "/console/tournaments/4f8c2d9e-0000-4000-8000-000000000000",
]


@pytest.mark.parametrize("path", PAGES)
async def test_every_console_page_is_the_shell_under_a_strict_policy(
    client: Any, path: str
) -> None:
    response = await client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/console/assets/app.js">' in response.text
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'self';" in policy  # no inline script, no other origin
    assert "frame-ancestors 'none'" in policy
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "http" not in response.text.replace("https://", "")  # nothing from elsewhere


@pytest.mark.parametrize(
    ("path", "status", "media"),
    [
        ("/console/assets/app.js", 200, "text/javascript"),
        ("/console/assets/console.css", 200, "text/css"),
        ("/console/assets/no-such.js", 404, "application/problem+json"),
        ("/console/assets/x%00", 404, "application/problem+json"),
    ],
)
async def test_console_assets_are_served_from_the_package(
    client: Any, path: str, status: int, media: str
) -> None:
    response = await client.get(path)
    assert response.status_code == status
    assert response.headers["content-type"].startswith(media)
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/console/assets/app.js", "/docs/assets/swagger-ui.css"])
async def test_static_files_are_revalidated_and_answered_304_while_unchanged(
    client: Any, path: str
) -> None:
    """Their names carry no version: a browser must ask each time, and is answered cheaply."""
    first = await client.get(path)
    assert first.headers["cache-control"] == "no-cache"
    tag = first.headers["etag"]
    for method, named in (("GET", f'"x", {tag}'), ("HEAD", tag), ("GET", f"W/{tag}")):
        again = await client.request(method, path, headers={"If-None-Match": named})
        assert again.status_code == 304
        assert again.content == b""
        assert again.headers["etag"] == tag
        assert again.headers["cache-control"] == "no-cache"
        assert "content-type" not in again.headers
    for other in ('"x"', tag[:-1] + '0"'):  # another file's, or an older version's
        changed = await client.get(path, headers={"If-None-Match": other})
        assert changed.status_code == 200
        assert changed.content == first.content


async def test_console_pages_are_not_api_operations(client: Any) -> None:
    document = ok(await client.get("/docs/openapi.json"))
    assert not [path for path in document["paths"] if path.startswith("/console")]


async def test_only_the_operator_or_director_verifies_a_tournament(client: Any) -> None:
    event = ok(
        await client.post(
            "/tournaments", json={"game": "forty-five", "name": "Check"}, headers=OPERATOR
        ),
        201,
    )
    path = f"/tournaments/{event['id']}/verification"
    assert (await client.get(path)).status_code == 401
    table = await new_table(client)
    tokens = await seat_all(client, table["id"], 4)
    assert (await client.get(path, headers=bearer(tokens[0]))).status_code == 403

    for headers in (OPERATOR, bearer(event["director_token"])):
        report = ok(await client.get(path, headers=headers))
        assert report["ok"] is True, report["report"]
        assert report["failure"] is None
        assert "RESULT: OK" in report["report"]
    missing = "/tournaments/4f8c2d9e-0000-4000-8000-000000000000/verification"
    assert (await client.get(missing, headers=OPERATOR)).status_code == 404
