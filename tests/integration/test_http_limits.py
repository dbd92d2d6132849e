"""The limits on loose input, through a real ``cardroom serve`` (uvicorn and httptools)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from service.tools.bench.harness import running_server
from tests.support import services

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(services.fresh_database("limits_"), services.redis_url()) as found:
        yield found.base


async def test_a_streamed_body_over_1_mib_is_refused_with_413(base: str) -> None:
    """Without Content-Length (chunked) the limit counts the bytes as they arrive."""
    body = b'{"game": "forty-five", "seats": 4}' + b" " * MiB

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        response = await client.post(
            "/tables", content=chunks(), headers={"content-type": "application/json"}
        )
        assert "content-length" not in response.request.headers
        assert response.status_code == 413, response.text
        assert response.json()["code"] == "payload-too-large"
        tables = (await client.get("/tables")).json()["tables"]
        assert tables == [], "the refused body created a table"


def test_the_server_does_not_name_itself(base: str) -> None:
    """No ``server: uvicorn`` header; the security headers come through uvicorn too."""
    for path in ("/healthz", "/no-such-route", "/docs"):
        response = httpx.get(f"{base}{path}", timeout=10)
        assert "server" not in response.headers, (path, response.headers)
        assert response.headers["x-content-type-options"] == "nosniff", path
    assert httpx.get(f"{base}/docs", timeout=10).headers["x-frame-options"] == "DENY"
