"""HEAD (RFC 9110 §9.3.2) over a real socket: every GET resource answers HEAD with the
GET's status and headers and no body — a table's ETag and its 304, a stream's headers at
once — and every Allow that names GET names HEAD too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from litestar import Litestar

from service.http.app import create_app
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import new_table
from tests.support.live import serving


@pytest.fixture(scope="module")
def head_app() -> Litestar:
    return create_app(make_settings(services.fresh_database("head_")))


@pytest.fixture(scope="module")
async def http(head_app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    async with serving(head_app) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield client


@pytest.mark.parametrize("path", ["/games", "/tables", "/healthz", "/docs/openapi.json"])
async def test_head_answers_as_get_without_the_body(http: httpx.AsyncClient, path: str) -> None:
    got = await http.get(path)
    head = await http.head(path)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == got.headers["content-length"]


async def test_a_table_answers_head_with_its_etag_and_304_when_it_is_current(
    http: httpx.AsyncClient,
) -> None:
    table = await new_table(http)
    path = f"/tables/{table['id']}"
    tag = (await http.get(path)).headers["etag"]
    head = await http.head(path)
    assert (head.status_code, head.headers["etag"], head.content) == (200, tag, b"")
    still = await http.head(path, headers={"If-None-Match": tag})
    assert still.status_code == 304


async def test_a_stream_answers_head_with_its_headers_at_once(http: httpx.AsyncClient) -> None:
    table = await new_table(http)
    head = await asyncio.wait_for(http.head(f"/tables/{table['id']}/stream"), 5)
    assert head.status_code == 200
    assert head.headers["content-type"].startswith("text/event-stream")
    assert head.content == b""
    healthy = await http.get("/readyz")
    assert healthy.status_code == 200, "the stream's reads ended cleanly"


async def test_every_allow_that_names_get_names_head(http: httpx.AsyncClient) -> None:
    refused = await http.delete("/tables")
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET, HEAD, OPTIONS, POST"
    options = await http.options("/games")
    assert options.headers["allow"] == "GET, HEAD, OPTIONS"
