"""Bounds on what a server process holds open (service.http.holds): a client over its
bound gets its newest long-poll or stream held by giving up its oldest, which answers at
once; a process holding its most answers 503 ``server-busy``.

A real ``cardroom serve`` (one process: the bounds are each process's own) with small
bounds. The waits below are bounds on how long an answer may take, never sleeps: every
long-poll asks for 60 s, so an answer within ``PROMPT`` seconds is an early one."""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from domain.registry import GAMES
from domain.shuffle import shuffle
from service.http.auth import Caller
from service.http.holds import Holds
from service.http.problems import ApiProblem
from service.http.throttle import trusted_networks
from service.tools.bench.harness import Server, running_server
from tests.support import services
from tests.support.api import bearer, ok, random_action, seat_all

PER_TOKEN = 2
PER_ADDRESS = 2
PER_PROCESS = 5
PROMPT = 10  # seconds: far below the 60 s each long-poll asks for
SEND_TIMEOUT = 2  # seconds a connection's writes may wait for its client to read


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    env = {
        "CARDROOM_HELD_PER_TOKEN": str(PER_TOKEN),
        "CARDROOM_HELD_PER_ADDRESS": str(PER_ADDRESS),
        "CARDROOM_HELD_PER_PROCESS": str(PER_PROCESS),
        "CARDROOM_SEND_TIMEOUT_SECONDS": str(SEND_TIMEOUT),
    }
    with running_server(services.fresh_database("held_"), services.redis_url(), 1, env) as running:
        yield running


async def metric(base: str, name: str) -> float:
    async with httpx.AsyncClient(base_url=base) as client:
        text = (await client.get("/metrics")).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    )


async def until(holds: Callable[[], Awaitable[bool]], why: str) -> None:
    deadline = time.monotonic() + PROMPT
    while not await holds():
        assert time.monotonic() < deadline, why
        await asyncio.sleep(0.05)


async def held_now(base: str, count: int) -> None:
    async def held() -> bool:
        return await metric(base, "cardroom_held_requests") == count

    await until(held, f"the process never held {count}")


async def long_poll(base: str, path: str, tag: str, headers: dict[str, str]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base, timeout=90) as client:
        return await client.get(f"{path}?wait=60", headers={"If-None-Match": tag, **headers})


async def stream(base: str, path: str, headers: dict[str, str]) -> bytes:
    """The stream's whole body, to its end."""
    async with (
        httpx.AsyncClient(base_url=base, timeout=90) as client,
        client.stream("GET", f"{path}/stream?timeout=120", headers=headers) as response,
    ):
        assert response.status_code == 200
        return b"".join([chunk async for chunk in response.aiter_bytes()])


async def started_table(base: str) -> tuple[str, list[str]]:
    async with httpx.AsyncClient(base_url=base) as client:
        table = ok(await client.post("/tables", json={"game": "pitch", "seats": 2}), 201)
        return f"/tables/{table['id']}", await seat_all(client, table["id"], 2)


async def move(client: httpx.AsyncClient, path: str, tokens: list[str]) -> None:
    """One move, by whichever seat is to act."""
    for token in tokens:
        if ok(await client.get(path, headers=bearer(token)))["legal_actions"]:
            await random_action(client, path.removeprefix("/tables/"), token, random.Random(1))
            return
    raise AssertionError("no seat is to act")


async def test_a_tokens_newest_long_poll_takes_the_place_of_its_oldest(server: Server) -> None:
    base = server.base
    path, tokens = await started_table(base)
    seat = bearer(tokens[0])
    async with httpx.AsyncClient(base_url=base) as client:
        tag = (await client.get(path, headers=seat)).headers["etag"]

    polls = []
    for held in range(1, PER_TOKEN + 2):
        polls.append(asyncio.create_task(long_poll(base, path, tag, seat)))
        if held <= PER_TOKEN:
            await held_now(base, held)
    oldest = await asyncio.wait_for(polls[0], PROMPT)  # answered early, as it was
    assert oldest.status_code == 304
    assert oldest.headers["etag"] == tag
    await held_now(base, PER_TOKEN)
    assert not any(poll.done() for poll in polls[1:])
    assert await metric(base, "cardroom_held_superseded_total") == 1

    # The other seat's token has places of its own, and a move wakes the held polls.
    other = bearer(tokens[1])
    async with httpx.AsyncClient(base_url=base) as client:
        other_tag = (await client.get(path, headers=other)).headers["etag"]
        watching = asyncio.create_task(long_poll(base, path, other_tag, other))
        await held_now(base, PER_TOKEN + 1)
        await move(client, path, tokens)
    for answer in await asyncio.wait_for(asyncio.gather(*polls[1:], watching), PROMPT):
        assert answer.status_code == 200
        assert answer.headers["etag"] not in (tag, other_tag)
    await held_now(base, 0)


async def test_an_address_without_a_token_keeps_its_newest_streams(server: Server) -> None:
    base = server.base
    path, tokens = await started_table(base)
    streams = []
    for held in range(1, PER_ADDRESS + 2):
        streams.append(asyncio.create_task(stream(base, path, {})))
        if held <= PER_ADDRESS:
            await held_now(base, held)
    ended = await asyncio.wait_for(streams[0], PROMPT)  # the oldest ended early
    assert ended.startswith(b"id: 1\r\n")  # after its catch-up
    await held_now(base, PER_ADDRESS)
    assert not any(s.done() for s in streams[1:])

    # The operator has no bound of its own, but counts towards the process's.
    as_operator = bearer(server.operator)
    operator = [
        asyncio.create_task(stream(base, path, as_operator))
        for _ in range(PER_PROCESS - PER_ADDRESS)
    ]
    await held_now(base, PER_PROCESS)
    # Refused: a seat that holds nothing yet (were it this address, over its own bound,
    # the request would take the address's oldest place instead).
    seat = bearer(tokens[0])
    async with httpx.AsyncClient(base_url=base) as client:
        seat_tag = (await client.get(path, headers=seat)).headers["etag"]
        busy = await client.get(f"{path}?wait=60", headers={"If-None-Match": seat_tag, **seat})
        refused_stream = await client.get(f"{path}/stream", headers=as_operator)
    for refused in (busy, refused_stream):
        assert refused.status_code == 503
        assert refused.json()["code"] == "server-busy"
        assert int(refused.headers["retry-after"]) >= 1
    assert await metric(base, "cardroom_held_refused_total") == 2
    assert not any(s.done() for s in [*streams[1:], *operator])

    # A place given back is a place to take.
    operator[0].cancel()
    await asyncio.gather(operator[0], return_exceptions=True)
    await held_now(base, PER_PROCESS - 1)
    async with httpx.AsyncClient(base_url=base) as client:
        operator_tag = (await client.get(path, headers=as_operator)).headers["etag"]
    poll = asyncio.create_task(long_poll(base, path, operator_tag, as_operator))
    await held_now(base, PER_PROCESS)
    assert not any(s.done() for s in [poll, *streams[1:], *operator[1:]])
    for task in [poll, *streams[1:], *operator[1:]]:
        task.cancel()
    await asyncio.gather(poll, *streams, *operator, return_exceptions=True)
    await held_now(base, 0)


async def test_streams_opened_together_are_counted_as_they_open(server: Server) -> None:
    """Each stream counted only once its answer began: a burst all passed the process's
    bound before any of them was counted."""
    base = server.base
    path, _ = await started_table(base)
    as_operator = bearer(server.operator)  # no bound of its own: only the process's

    async def opened() -> int:
        async with (
            httpx.AsyncClient(base_url=base, timeout=30) as client,
            client.stream("GET", f"{path}/stream?timeout=5", headers=as_operator) as answer,
        ):
            if answer.status_code == 200:
                await held_now(base, PER_PROCESS)  # every place taken: let go after
            return answer.status_code

    statuses = await asyncio.gather(*(opened() for _ in range(PER_PROCESS + 3)))
    assert sorted(statuses) == [200] * PER_PROCESS + [503] * 3
    await held_now(base, 0)


def scope(peer: str, forwarded: str | None = None) -> dict[str, Any]:
    headers = [(b"x-forwarded-for", forwarded.encode())] if forwarded else []
    return {"client": (peer, 40000), "headers": headers}


def unread_stream(base: str, path: str, token: str) -> socket.socket:
    """A stream asked for with a 1 s ``timeout`` by a client that reads none of it, on a
    socket whose receive window is as small as the system allows."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    sock.connect((host, int(port)))
    head = (
        f"GET {path}/stream?timeout=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n"
    )
    sock.sendall(head.encode())
    return sock


def closed(sock: socket.socket) -> bool:
    """Whether the server closed the connection: what it sent, read to its end or reset."""
    sock.settimeout(PROMPT)
    try:
        while sock.recv(1 << 16):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


async def test_a_stream_whose_client_reads_nothing_gives_its_place_back(server: Server) -> None:
    """The operator's stream of a table dealt 500 decks catches up with 130 KB at once,
    more than the socket's buffers take: its next write waited for a client that never
    read, and the stream held its place (and a task) past its timeout, for as long as the
    socket stayed open. Its connection is now closed once its writes have waited
    ``SEND_TIMEOUT`` seconds, and the place given back."""
    pack = GAMES["pitch"].pack
    decks = [{"deck": list(shuffle(pack, bytes([i % 256, i // 256]) * 16))} for i in range(500)]
    async with httpx.AsyncClient(base_url=server.base) as client:
        body = {"game": "pitch", "seats": 2, "deals": decks}
        table = ok(await client.post("/tables", json=body, headers=bearer(server.operator)), 201)
    sock = unread_stream(server.base, f"/tables/{table['id']}", server.operator)
    try:
        await held_now(server.base, 1)
        await asyncio.sleep(1.5)  # past the stream's own timeout: still held, as it waits
        assert await metric(server.base, "cardroom_held_requests") == 1
        await held_now(server.base, 0)
        assert await asyncio.to_thread(closed, sock)
    finally:
        sock.close()


def test_places_are_counted_by_token_by_address_and_not_for_the_operator() -> None:
    holds = Holds(1, 1, 0, trusted_networks(["10.0.0.0/8"]))
    seat = Caller("seat", table="t", seat=0, epoch=0)
    same_seat_next_epoch = Caller("seat", table="t", seat=0, epoch=1)
    with (
        holds.place(scope("10.1.1.1", "203.0.113.5"), None) as behind_proxy,
        holds.place(scope("203.0.113.6"), None) as other_address,
        holds.place(scope("203.0.113.5"), seat) as seat_place,
        holds.place(scope("203.0.113.5"), same_seat_next_epoch) as next_epoch,
        holds.place(scope("203.0.113.5"), Caller("operator")),
        holds.place(scope("203.0.113.5"), Caller("operator")),
    ):
        # So far each client holds one: no place was given up.
        assert not any(h.superseded for h in (behind_proxy, other_address, seat_place, next_epoch))
        with holds.place(scope("203.0.113.5"), None) as newest:  # the proxied client again
            assert behind_proxy.superseded
            assert not newest.superseded
        with holds.place(scope("198.51.100.1"), seat):
            assert seat_place.superseded
            assert not next_epoch.superseded
        assert holds.held == 6
    assert holds.held == 0


def test_a_full_process_refuses_before_it_holds_anything() -> None:
    holds = Holds(0, 0, 1)
    with holds.place(scope("203.0.113.5"), None) as first:
        with pytest.raises(ApiProblem) as refused, holds.place(scope("203.0.113.6"), None):
            pass
        assert refused.value.code == "server-busy"
        assert not first.superseded
        assert holds.held == 1
    with holds.place(scope("203.0.113.6"), None):
        assert holds.held == 1


def test_a_full_process_still_lets_a_client_take_its_own_oldest_place() -> None:
    """A phone back behind its dead polls gets in even while the process is full."""
    holds = Holds(1, 1, 1)
    with holds.place(scope("203.0.113.5"), None) as dead:
        with holds.place(scope("203.0.113.5"), None) as back:
            assert dead.superseded and not back.superseded
        with pytest.raises(ApiProblem), holds.place(scope("203.0.113.6"), None):
            pass


def test_a_director_like_the_operator_has_no_bound_of_its_own() -> None:
    """A director follows every table of an event: pages over a bound would take each
    other's places for ever."""
    holds = Holds(1, 1, 0)
    director = Caller("director", tournament="t")
    with (
        holds.place(scope("203.0.113.5"), director) as first,
        holds.place(scope("203.0.113.5"), director) as second,
    ):
        assert not first.superseded and not second.superseded
