"""A stop (SIGTERM) of ``cardroom serve --workers 2`` lets its long-polls and event streams
go at once, with ``Connection: close``, instead of holding them for the grace period
(``CARDROOM_SHUTDOWN_SECONDS``, 30 s here) and then cutting them off with an error in
the log. The test's limits (``LET_GO`` seconds) are bounds on a wait, never a sleep."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.tools.bench.harness import running_server
from tests.support import services
from tests.support.server_log import logged_errors

Stopping = tuple[str, str, str, "tempfile._TemporaryFileWrapper[str]"]
GRACE = 30  # seconds uvicorn would wait for open requests before cutting them off
LET_GO = 10  # seconds within which every long-poll and stream must have let go
POLLS = 6
STREAMS = 2


async def requests_of(client: httpx.AsyncClient, metric: str, path: str, **labels: str) -> float:
    """A request metric's samples for ``path`` (and ``labels``) summed over all workers."""
    text = (await client.get("/metrics")).text
    wanted = {"path": path, **labels}
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == metric and wanted.items() <= sample.labels.items()
    )


async def requests_in_progress(client: httpx.AsyncClient, path: str) -> float:
    """Requests of ``path`` in progress over all workers (the scrape's own is not one)."""
    return await requests_of(client, "cardroom_requests_in_progress", path)


async def until(holds: Callable[[], Awaitable[bool]], why: str) -> None:
    """Until ``holds()`` is true, looked at every 50 ms; failing with ``why`` after LET_GO."""
    deadline = time.monotonic() + LET_GO
    while not await holds():
        assert time.monotonic() < deadline, why
        await asyncio.sleep(0.05)


async def polling(
    client: httpx.AsyncClient, count_is: Callable[[float], bool], path: str = "/tables/{table_id}"
) -> bool:
    """Whether the requests of ``path`` in progress (the long-polls of the table route)
    number as ``count_is`` wants."""
    return count_is(await requests_in_progress(client, path))


async def long_poll(base: str, path: str, tag: str) -> httpx.Response:
    # A client of its own: a connection of its own, taken by whichever worker accepts it.
    async with httpx.AsyncClient(base_url=base, timeout=GRACE + 30) as client:
        return await client.get(f"{path}?wait=60", headers={"If-None-Match": tag})


async def stream(base: str, path: str, opened: asyncio.Event) -> bytes:
    """The whole body of one stream, from its first bytes to its end (its headers went
    out before the stop, so they say keep-alive; the connection closes after it)."""
    async with (
        httpx.AsyncClient(base_url=base, timeout=GRACE + 30) as client,
        client.stream("GET", f"{path}/stream") as response,
    ):
        body = b""
        async for chunk in response.aiter_bytes():
            body += chunk
            opened.set()
        return body


@pytest.fixture
async def seated_table() -> AsyncIterator[
    tuple[str, str, str, tempfile._TemporaryFileWrapper[str]]
]:
    """A started two-seat pitch table on a server of its own: the server's base URL and
    pid, the table's path, and the server's output (its log)."""
    env = {"CARDROOM_SHUTDOWN_SECONDS": str(GRACE), "CARDROOM_LOG_LEVEL": "info"}
    with (
        tempfile.NamedTemporaryFile("w+", encoding="utf-8") as output,
        running_server(
            services.fresh_database("stop_"),
            services.redis_url(),
            workers=2,
            extra_env=env,
            output=output,
        ) as server,
    ):
        async with httpx.AsyncClient(base_url=server.base) as client:
            table = (await client.post("/tables", json={"game": "pitch", "seats": 2})).json()
            for seat in (0, 1):
                joined = await client.post(
                    f"/tables/{table['id']}/seats/{seat}", json={"name": "x"}
                )
                assert joined.status_code == 201, joined.text
        yield server.base, str(server.pid), f"/tables/{table['id']}", output


async def test_a_stop_answers_open_long_polls_and_ends_streams_at_once(
    seated_table: Stopping,
) -> None:
    base, pid, path, output = seated_table
    async with httpx.AsyncClient(base_url=base) as client:
        view = await client.get(path)
        tag = view.headers["etag"]
        polls = [asyncio.create_task(long_poll(base, path, tag)) for _ in range(POLLS)]
        opened = [asyncio.Event() for _ in range(STREAMS)]
        streams = [asyncio.create_task(stream(base, path, o)) for o in opened]
        await until(lambda: polling(client, lambda n: n == POLLS), "the long-polls never arrived")
        await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), LET_GO)

    stopped_at = time.monotonic()
    os.kill(int(pid), signal.SIGTERM)
    answers = await asyncio.wait_for(asyncio.gather(*polls), LET_GO)
    ended = await asyncio.wait_for(asyncio.gather(*streams), LET_GO)
    let_go = time.monotonic() - stopped_at

    for answer in answers:
        assert answer.status_code == 304, answer.text  # the table has not moved
        assert answer.headers["etag"] == tag
        assert answer.headers["connection"] == "close"
    for body in ended:
        assert body.startswith(b"id: 1\r\n")  # the catch-up, before the stop
    assert let_go < LET_GO
    # Nothing was cut off: uvicorn logs no cancelled task, the app no error.
    assert logged_errors(output) == []


async def test_a_long_poll_lets_go_as_soon_as_its_client_hangs_up(
    seated_table: Stopping,
) -> None:
    """A phone that goes away mid-poll leaves nothing parked: its request ends with the
    connection, not at the end of its ``wait``, without reading the table for an answer
    nobody gets (recorded as 499, "client closed request"), and a stop after it has
    nothing to wait for."""
    base, pid, path, output = seated_table
    async with httpx.AsyncClient(base_url=base) as client:
        tag = (await client.get(path)).headers["etag"]
        polls = [asyncio.create_task(long_poll(base, path, tag)) for _ in range(POLLS)]
        await until(lambda: polling(client, lambda n: n == POLLS), "the long-polls never arrived")

        for poll in polls:  # each client closes its connection, its poll unanswered
            poll.cancel()
        await asyncio.gather(*polls, return_exceptions=True)
        await until(
            lambda: polling(client, lambda n: n == 0), "the long-polls outlived their clients"
        )
        closed = await requests_of(
            client, "cardroom_requests_total", "/tables/{table_id}", status_code="499"
        )
        assert closed == POLLS

    process = psutil.Process(int(pid))
    os.kill(int(pid), signal.SIGTERM)

    async def exited() -> bool:  # and not yet reaped by its parent
        return process.status() == psutil.STATUS_ZOMBIE

    # Nothing in flight: no grace period to wait out.
    await until(exited, "the stop waited for requests no one awaits")
    assert logged_errors(output) == []


async def test_a_request_the_grace_period_cuts_off_is_answered_with_a_problem() -> None:
    """A request still in flight when the grace period ends (here a body that stops
    halfway, with a grace of 1 s) is cancelled by uvicorn, which would answer a plain-text
    500. The client is told instead that the server stopped: ``503 server-stopping``,
    with ``Retry-After``, its request id, on a connection that closes."""
    env = {"CARDROOM_SHUTDOWN_SECONDS": "1"}
    with running_server(services.fresh_database("stop_"), services.redis_url(), 1, env) as server:
        host, port = server.base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"POST /tables HTTP/1.1\r\nHost: cardroom\r\nContent-Type: application/json\r\n"
            b'Content-Length: 40\r\n\r\n{"game": '
        )
        await writer.drain()
        async with httpx.AsyncClient(base_url=server.base) as client:
            await until(
                lambda: polling(client, lambda n: n == 1, "/tables"),
                "the half-sent request never arrived",
            )
        os.kill(server.pid, signal.SIGTERM)
        answer = await asyncio.wait_for(reader.read(), LET_GO)  # to the connection's end
        writer.close()

    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines)}
    assert status == "HTTP/1.1 503 Service Unavailable", answer
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert headers["retry-after"] == "1"
    assert headers["x-request-id"]
    problem = json.loads(body)
    assert problem["code"] == "server-stopping"
    assert problem["status"] == 503
    assert problem["instance"] == "/tables"
