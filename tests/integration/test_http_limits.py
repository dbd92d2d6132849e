"""The limits on loose input, through a real ``cardroom serve`` (uvicorn and httptools,
with the head limits of service.http.protocol; DESIGN 12)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.http import protocol
from service.http.protocol import MAX_HEAD_BYTES
from service.http.throttle import trusted_networks
from service.tools.bench.harness import running_server
from tests.support import services
from tests.support.api import bearer, new_table, ok, seat_all
from tests.support.heads import head
from tests.support.playout import choose
from tests.support.sse import messages

MiB = 1024 * 1024
# The header timeout of the server under test: short, so that nothing here waits 10 s.
TIMEOUT = 1.0
BODIES = 16  # request bodies received at once from one address (the default)
ORIGIN = b"https://app.example"  # a browser app's, allowed cross-origin


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(
        services.fresh_database("limits_"),
        services.redis_url(),
        extra_env={
            "CARDROOM_HEADER_TIMEOUT_SECONDS": str(TIMEOUT),
            "CARDROOM_BODIES_PER_ADDRESS": str(BODIES),
            "CARDROOM_CORS_ORIGINS": ORIGIN.decode(),
        },
    ) as found:
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


async def test_a_body_slower_than_the_request_deadline_is_still_served(base: str) -> None:
    """The request deadline (1.5 s) starts once the body is in: a phone on a slow network
    that takes longer to upload is answered, not refused as a database outage."""
    body = b'{"game": "forty-five", "seats": 4}'

    async def slowly() -> AsyncIterator[bytes]:
        yield body[:10]
        await asyncio.sleep(2.0)
        yield body[10:]

    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        response = await client.post(
            "/tables", content=slowly(), headers={"content-type": "application/json"}
        )
        assert response.status_code == 201, response.text


@pytest.mark.parametrize("key", ["dGhlIHNhbXBsZSBub25jZQ==", "not a key"])
def test_a_request_for_a_websocket_is_answered_by_the_app(base: str, key: str) -> None:
    """The API has none: the request is an ordinary GET, answered with the app's own
    headers, not by uvicorn in plain text."""
    upgrade = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": key,
    }
    for path, status in (("/tables", 200), ("/no-such-route", 404)):
        response = httpx.get(f"{base}{path}", headers=upgrade, timeout=10)
        assert response.status_code == status, response.text
        assert response.headers["x-request-id"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["content-type"].startswith(
            "application/json" if status == 200 else "application/problem+json"
        )


async def test_a_request_behind_an_upgrade_request_is_not_left_unanswered(base: str) -> None:
    """Nothing after a request to switch protocols is read on its connection: once that
    request is answered the connection closes, so the client knows to send the next one
    again, rather than wait on an open connection for an answer that never comes."""
    upgrade = b"Connection: Upgrade\r\nUpgrade: websocket\r\n"
    first = b"GET /tables HTTP/1.1\r\nHost: x\r\n" + upgrade + b"\r\n"
    behind = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(first + behind)
        status, _, _ = await asyncio.wait_for(read_response(reader), 10)
        assert status == 200
        assert await closed_by_server(reader, 5)
    finally:
        writer.close()


def test_the_server_does_not_name_itself(base: str) -> None:
    """No ``server: uvicorn`` header; the security headers come through uvicorn too."""
    for path in ("/healthz", "/no-such-route", "/docs"):
        response = httpx.get(f"{base}{path}", timeout=10)
        assert "server" not in response.headers, (path, response.headers)
        assert response.headers["x-content-type-options"] == "nosniff", path
    assert httpx.get(f"{base}/docs", timeout=10).headers["x-frame-options"] == "DENY"


# --- the request line and headers: 16 KiB, and 10 s (here TIMEOUT) to send them ----------


def assert_readable_by_the_page(headers: dict[str, str]) -> None:
    """A refusal made before the app sees the request still carries CORS's headers: a
    page of an allowed origin reads the problem and its ``Retry-After``."""
    assert headers["access-control-allow-origin"] == ORIGIN.decode()
    assert "retry-after" in headers["access-control-expose-headers"]  # names lowercased
    assert headers["vary"] == "origin"


def address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """One response: its status, headers (lowercased names) and body."""
    raw = await reader.readuntil(b"\r\n\r\n")
    line, *fields = raw.decode("latin-1").split("\r\n")[:-2]
    headers = dict(field.lower().split(": ", 1) for field in fields)
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return int(line.split()[1]), headers, body


async def closed_by_server(reader: asyncio.StreamReader, within: float) -> bool:
    """Whether the server closes the connection within ``within`` seconds."""
    try:
        async with asyncio.timeout(within):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


@pytest.mark.parametrize(
    "garbage",
    [b"NOT HTTP AT ALL\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"],
    ids=["request-line", "header"],
)
async def test_a_request_the_parser_cannot_read_gets_a_problem_and_is_closed(
    base: str, garbage: bytes
) -> None:
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(garbage)
        status, headers, body = await asyncio.wait_for(read_response(reader), 10)
        assert status == 400
        assert headers["content-type"] == "application/problem+json"
        assert json.loads(body)["code"] == "malformed-request"
        assert re.fullmatch(r"[0-9a-f]{16}", headers["x-request-id"])
        assert await closed_by_server(reader, 5)
    finally:
        writer.close()


@pytest.mark.parametrize("after", [b" ", b"BAD\r\n\r\n"], ids=["a-space", "a-bad-line"])
async def test_bytes_the_parser_cannot_read_after_a_request_do_not_hide_its_answer(
    base: str, after: bytes
) -> None:
    """The request before them was made (a table created): its answer comes first, whole,
    and then the connection closes. (Reserve Bridge: other tests here count pitch tables.)"""
    body = b'{"game": "reserve-bridge", "seats": 2}'
    head = b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    request = head + b"Content-Length: %d\r\n\r\n" % len(body) + body
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(request + after)
        status, _, answer = await asyncio.wait_for(read_response(reader), 10)
        assert status == 201, answer
        table = json.loads(answer)["id"]
        assert await closed_by_server(reader, 5)
    finally:
        writer.close()
    assert httpx.get(f"{base}/tables/{table}", timeout=10).status_code == 200


async def test_a_body_under_a_transfer_coding_other_than_chunked_is_refused(base: str) -> None:
    """The server undoes chunked alone: under "gzip, chunked" the bytes it read would not
    be the body sent (nor the one a proxy that undid the gzip saw)."""
    body = b'{"game": "reserve-bridge", "seats": 2}'
    head = b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(head + b"Transfer-Encoding: gzip, chunked\r\n\r\n" + chunked)
        status, headers, answer = await asyncio.wait_for(read_response(reader), 10)
    finally:
        writer.close()
    assert status == 415, answer
    assert json.loads(answer)["code"] == "unsupported-media-type"
    assert headers["accept-encoding"] == "identity"
    assert headers["accept-post"] == "application/json"


async def test_a_request_whose_own_chunked_body_is_unreadable_is_answered_at_once(
    base: str,
) -> None:
    """Unlike bytes after a whole request, a bad chunk of the request being read leaves
    its app waiting for a body that will not come: it is answered 400 there and then."""
    head = b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(head + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n")
        status, _, answer = await asyncio.wait_for(read_response(reader), 10)
        assert status == 400, answer
        assert json.loads(answer)["code"] == "malformed-request"
        assert await closed_by_server(reader, 5)
    finally:
        writer.close()


def created_tables(base: str, status: str) -> float:
    """How many ``POST /tables`` the server has counted under ``status``."""
    text = httpx.get(f"{base}/metrics", timeout=10).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "cardroom_requests_total"
        and sample.labels.get("path") == "/tables"
        and sample.labels.get("method") == "POST"
        and sample.labels.get("status_code") == status
    )


async def test_a_client_that_leaves_mid_body_is_counted_as_gone_not_as_an_error(
    base: str,
) -> None:
    """Anyone could otherwise raise the service's 5xx count (and its alerts) at will."""
    before = {status: created_tables(base, status) for status in ("499", "500")}
    _, writer = await asyncio.open_connection(*address(base))
    head = b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    writer.write(head + b'Content-Length: 100\r\n\r\n{"ga')
    await writer.drain()
    writer.close()
    await writer.wait_closed()
    for _ in range(200):
        if created_tables(base, "499") > before["499"]:
            break
        await asyncio.sleep(0.05)
    assert created_tables(base, "499") == before["499"] + 1
    assert created_tables(base, "500") == before["500"]


@pytest.mark.parametrize("many", [False, True], ids=["one-header", "many-headers"])
async def test_a_16_kib_head_is_served_twice_on_one_connection(base: str, many: bool) -> None:
    """The limit is each request's: a kept-alive connection carries any number of them."""
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        for _ in range(2):
            writer.write(head(MAX_HEAD_BYTES, many=many))
            status, _, body = await asyncio.wait_for(read_response(reader), 10)
            assert (status, json.loads(body)["status"]) == (200, "ok")
    finally:
        writer.close()


@pytest.mark.parametrize("many", [False, True], ids=["one-header", "many-headers"])
async def test_one_byte_past_16_kib_is_refused_with_431_and_closed(base: str, many: bool) -> None:
    reader, writer = await asyncio.open_connection(*address(base))
    started = time.monotonic()
    try:
        writer.write(head(MAX_HEAD_BYTES + 1, many=many))
        status, headers, body = await asyncio.wait_for(read_response(reader), 10)
        assert await closed_by_server(reader, TIMEOUT / 2)
    finally:
        writer.close()
    assert time.monotonic() - started < TIMEOUT / 2, "refused by the count, not the clock"
    assert status == 431
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert headers["x-content-type-options"] == "nosniff"
    assert re.fullmatch("[0-9a-f]{16}", headers["x-request-id"]), "a new id, like every answer"
    assert "server" not in headers
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (431, "headers-too-large")
    assert problem["type"] == "https://cardroom.dev/problems/headers-too-large"


@pytest.mark.parametrize(
    ("line_alone", "status", "code"),
    [(False, 431, "headers-too-large"), (True, 414, "uri-too-long")],
    ids=["headers", "request-line"],
)
async def test_a_pipelined_head_past_16_kib_is_refused_after_the_one_before(
    base: str, line_alone: bool, status: int, code: str
) -> None:
    """A head that starts in the same read as the end of the request before it: too long
    by its headers, or by its request line alone."""
    too_long = (long_target if line_alone else head)(MAX_HEAD_BYTES + 100)
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(head(200) + too_long)
        first, _, _ = await asyncio.wait_for(read_response(reader), 10)
        second, headers, body = await asyncio.wait_for(read_response(reader), 10)
        assert await closed_by_server(reader, TIMEOUT / 2)
    finally:
        writer.close()
    assert (first, second, json.loads(body)["code"]) == (200, status, code)
    assert re.fullmatch("[0-9a-f]{16}", headers["x-request-id"])


def long_target(size: int) -> bytes:
    """A ``GET /healthz`` whose request line alone takes ``size`` bytes (a long query)."""
    start, end = b"GET /healthz?pad=", b" HTTP/1.1\r\n"
    return start + b"a" * (size - len(start) - len(end)) + end + b"host: cardroom\r\n\r\n"


async def test_a_request_line_past_16_kib_alone_is_refused_with_414_and_closed(
    base: str,
) -> None:
    """RFC 9112 section 3: a request target longer than the server reads gets a 414; a
    head the headers make too long stays a 431."""
    await refused_and_closed(base, long_target(MAX_HEAD_BYTES + 1), 414, "uri-too-long")
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(long_target(MAX_HEAD_BYTES - 5))  # fits alone; its Host line does not
        status, _, body = await asyncio.wait_for(read_response(reader), 10)
    finally:
        writer.close()
    assert (status, json.loads(body)["code"]) == (431, "headers-too-large")


async def test_a_long_header_of_a_head_begun_behind_another_request_is_a_431(
    base: str,
) -> None:
    """The second head begins in the read that ends the first request and goes on in
    the next read: what comes first in that read is a header line, not a request line."""
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(head(200) + b"GET /healthz HTTP/1.1\r\nhost: cardroom\r\nx-pad: ")
        first, _, _ = await asyncio.wait_for(read_response(reader), 10)
        writer.write(b"a" * (MAX_HEAD_BYTES + 100) + b"\r\n\r\n")
        second, _, body = await asyncio.wait_for(read_response(reader), 10)
    finally:
        writer.close()
    assert (first, second, json.loads(body)["code"]) == (200, 431, "headers-too-large")


def chunked_post(path: str, body: bytes, trailer: bytes) -> bytes:
    """A POST whose JSON body comes as one chunk, then ``trailer`` as its trailer section."""
    head = f"POST {path} HTTP/1.1\r\nhost: cardroom\r\ncontent-type: application/json\r\n"
    framing = b"transfer-encoding: chunked\r\n\r\n%x\r\n" % len(body)
    return head.encode() + framing + body + b"\r\n0\r\n" + trailer + b"\r\n"


async def a_move(base: str) -> tuple[str, bytes, bytes, str]:
    """A seated table's path for commands, the authorization line of the seat to act, a
    legal command of it, and its view's ETag."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        table = await new_table(client)
        tokens = await seat_all(client, table["id"], 4)
        seat = ok(await client.get(f"/tables/{table['id']}"))["to_act"][0]
        mine = await client.get(f"/tables/{table['id']}", headers=bearer(tokens[seat]))
    command = json.dumps(choose(ok(mine)["legal_actions"][0], random.Random(1))).encode()
    authorization = f"authorization: Bearer {tokens[seat]}\r\n".encode()
    return f"/tables/{table['id']}/actions", authorization, command, mine.headers["etag"]


async def answer_to(base: str, request: bytes) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(request)
        status, _, body = await asyncio.wait_for(read_response(reader), 10)
        return status, body
    finally:
        writer.close()


async def test_a_trailer_field_is_never_read_as_a_header(base: str) -> None:
    """RFC 9110 6.5.1: trailer fields are not merged into the headers. An If-Match sent
    as a trailer, naming a version the table is not at, would refuse the command (412)."""
    path, authorization, command, _ = await a_move(base)
    request = chunked_post(path, command, b'if-match: "1.s0"\r\n')
    status, body = await answer_to(
        base, request.replace(b"content-type:", authorization + b"content-type:", 1)
    )
    assert status == 200, body


@pytest.mark.parametrize("name", [b"if-match", b"idempotency-key", b"content-type"])
async def test_a_header_the_service_reads_is_given_once(base: str, name: bytes) -> None:
    """On two lines the framework reads the first and passes over the other: here a
    stale If-Match then the current one, two keys, JSON then text."""
    path, authorization, command, current = await a_move(base)
    values = {
        b"if-match": [b'"1.s0"', current.encode()],
        b"idempotency-key": [b"a", b"b"],
        b"content-type": [b"application/json", b"text/plain"],
    }[name]
    lines = b"".join(name + b": " + value + b"\r\n" for value in values)
    if name != b"content-type":
        lines += b"content-type: application/json\r\n"
    head = f"POST {path} HTTP/1.1\r\nhost: cardroom\r\ncontent-length: {len(command)}\r\n"
    status, body = await answer_to(base, head.encode() + authorization + lines + b"\r\n" + command)
    assert status == 400, body
    assert json.loads(body)["code"] == "malformed-request"


async def test_a_trailer_section_past_the_limit_is_refused_with_413_and_closed(
    base: str,
) -> None:
    """What follows a head may take 2 MiB on the wire: a trailer line that goes past it,
    and has not ended, is answered 413 there, without waiting for its end."""
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        body = json.dumps({"game": "pitch", "seats": 2}).encode()
        # One write: the server's first read takes the head and much of the line with it,
        # and those bytes count as much as the ones read after.
        line = chunked_post("/tables", body, b"x-pad: ")[:-2]  # the line goes on
        line = line.replace(b"\r\n", b"\r\nOrigin: " + ORIGIN + b"\r\n", 1)
        writer.write(line + b"a" * (2 * MiB + 1))
        await writer.drain()
        status, headers, answer = await asyncio.wait_for(read_response(reader), 10)
        assert status == 413
        assert headers["content-type"] == "application/problem+json"
        assert json.loads(answer)["code"] == "payload-too-large"
        assert_readable_by_the_page(headers)
        assert await closed_by_server(reader, 5)
    finally:
        writer.close()
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        assert all(t["game"] != "pitch" for t in ok(await client.get("/tables"))["tables"])


async def test_a_64_mb_header_line_is_cut_off_while_others_are_served(base: str) -> None:
    """The parser never sees more than the limit; the other clients never wait for it."""
    slowest = 0.0
    sent = 0

    async def flood() -> float:
        nonlocal sent
        reader, writer = await asyncio.open_connection(*address(base))
        started = time.monotonic()
        writer.write(b"GET /healthz HTTP/1.1\r\nhost: cardroom\r\nx-big: ")
        chunk = b"a" * MiB
        try:
            while sent < 64 * MiB:
                writer.write(chunk)
                await writer.drain()
                sent += len(chunk)
        except ConnectionError:
            pass
        else:
            assert await closed_by_server(reader, 5)
        finally:
            writer.close()
        return time.monotonic() - started

    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        ok(await client.get("/healthz"))  # a kept-alive connection, opened before the flood
        flooding = asyncio.create_task(flood())
        while not flooding.done():
            started = time.monotonic()
            ok(await client.get("/healthz"))
            slowest = max(slowest, time.monotonic() - started)
        cut_off = await flooding
    assert cut_off < 1.0, f"the 64 MB header line was read for {cut_off:.2f} s"
    assert sent < 64 * MiB, "the server read the whole 64 MB"
    assert slowest < 0.5, f"/healthz took {slowest:.2f} s beside the flood"


async def test_a_client_that_stops_halfway_through_its_request_line_is_dropped(
    base: str,
) -> None:
    reader, writer = await asyncio.open_connection(*address(base))
    started = time.monotonic()
    try:
        writer.write(b"GET /heal")
        assert await closed_by_server(reader, TIMEOUT + 2)
    finally:
        writer.close()
    assert TIMEOUT - 0.1 <= time.monotonic() - started < TIMEOUT + 1


async def test_300_half_open_connections_are_all_closed_and_the_server_answers(
    base: str,
) -> None:
    """Silent, stopped in the request line, or in the headers; and a kept-alive connection
    whose second request stops halfway (the clock starts again with its first byte)."""
    partial = [b"", b"GET /table", b"GET /healthz HTTP/1.1\r\nhost: card"]
    connections = [await asyncio.open_connection(*address(base)) for _ in range(300)]
    started = time.monotonic()
    for i, (_, writer) in enumerate(connections):
        writer.write(partial[i % 3])
    reader, writer = await asyncio.open_connection(*address(base))
    writer.write(head(100))
    assert (await read_response(reader))[0] == 200
    writer.write(b"GET /healthz HTTP/1.1\r\nho")
    connections.append((reader, writer))
    try:
        closed = await asyncio.gather(
            *(closed_by_server(reader, TIMEOUT + 3) for reader, _ in connections)
        )
    finally:
        for _, writer in connections:
            writer.close()
    assert all(closed), f"{closed.count(False)} of {len(closed)} still open"
    assert time.monotonic() - started < TIMEOUT + 3
    async with httpx.AsyncClient(base_url=base, timeout=5) as client:
        assert ok(await client.get("/healthz"))["status"] == "ok"


async def test_the_clock_stops_with_the_headers_and_waits_for_each_request(base: str) -> None:
    """A long-poll and a stream outlive the header timeout, and so does a kept-alive
    connection between requests (uvicorn's keep-alive timeout, 5 s, governs there)."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        table = await new_table(client)
        path = f"/tables/{table['id']}"
        etag = (await client.get(path)).headers["etag"]
        started = time.monotonic()
        polled = await client.get(f"{path}?wait=2", headers={"if-none-match": etag})
        assert polled.status_code == 304
        assert time.monotonic() - started >= 1.9 > TIMEOUT

        async with client.stream("GET", f"{path}/stream") as stream:
            await asyncio.sleep(TIMEOUT * 1.5)
            ok(await client.post(f"{path}/seats/0", json={"name": "Ann"}), 201)
            async with asyncio.timeout(5):
                async for message in messages(stream):
                    if message.get("event") == "seat_taken":
                        break

    reader, writer = await asyncio.open_connection(*address(base))
    try:
        for _ in range(2):
            writer.write(head(100))
            assert (await asyncio.wait_for(read_response(reader), 5))[0] == 200
            await asyncio.sleep(TIMEOUT * 1.5)
    finally:
        writer.close()


async def test_an_encoded_slash_never_reaches_a_route(base: str) -> None:
    """``%2F`` is part of a path segment, not a separator: the server decodes it before
    routing, so a path with one is no route's."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        table = await new_table(client)
        ok(await client.get(f"/tables/{table['id']}/events"))
        for slash in ("%2F", "%2f"):
            response = await client.get(f"/tables/{table['id']}{slash}events")
            assert response.status_code == 404, slash
            assert response.json()["code"] == "not-found"


@pytest.mark.parametrize(
    ("request_head", "sent"),
    [
        (b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n", b"abc"),
        (b"POST /nope HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n", b"{"),
        (b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n", b""),
    ],
    ids=["415-then-part-of-the-body", "404-then-part-of-the-body", "413-then-nothing"],
)
async def test_a_request_answered_before_its_body_has_the_header_timeout_for_the_rest(
    base: str, request_head: bytes, sent: bytes
) -> None:
    """The service answers some requests without reading their bodies. Their rest may
    come, but within the header timeout of the answer: then the connection is closed,
    whether the rest came or not (uvicorn stopped its keep-alive clock at the rest's
    first byte, and the connection stayed open for good)."""
    length = 2 * MiB if sent == b"" else 10
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(request_head + b"Content-Length: %d\r\n\r\n" % length)
        status, _, _ = await asyncio.wait_for(read_response(reader), 5)
        assert status in (404, 413, 415)
        answered = time.monotonic()
        writer.write(sent)
        assert await closed_by_server(reader, TIMEOUT + 3)
        assert time.monotonic() - answered < TIMEOUT + 1
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("request_head", "status"),
    [
        (b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n", 415),
        (b"POST /nope HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n", 404),
        (b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n", 413),
    ],
    ids=["415", "404", "413"],
)
@pytest.mark.parametrize("length", [2 * MiB + 1, 3 * MiB])
async def test_an_early_answer_to_a_body_too_long_to_drain_says_the_connection_closes(
    base: str, request_head: bytes, status: int, length: int
) -> None:
    """A body declared longer than what may follow a head (2 MiB) cannot be read and
    dropped whole, so the connection closes after its early answer: the answer says so
    (``Connection: close``), or a client sends its next request, a move say, into a
    connection that closes unanswered."""
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(request_head + b"Content-Length: %d\r\n\r\n" % length)
        found, headers, _ = await asyncio.wait_for(read_response(reader), 5)
        assert found == status
        assert headers.get("connection") == "close"
    finally:
        writer.close()


async def test_an_early_answer_to_a_body_that_can_be_drained_keeps_the_connection(
    base: str,
) -> None:
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(
            b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (2 * MiB)
        )
        found, headers, _ = await asyncio.wait_for(read_response(reader), 5)
        assert found == 413 and "connection" not in headers
    finally:
        writer.close()


async def answered_early(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Send the head of a request with a 3-byte body the service answers without reading
    (415), and read that answer."""
    writer.write(
        b"POST /tables HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n"
    )
    assert (await asyncio.wait_for(read_response(reader), 5))[0] == 415


async def test_a_request_answered_early_whose_rest_comes_keeps_its_connection(
    base: str,
) -> None:
    """The rest of an early-answered request arrives whole: the connection serves the
    next request, then idles under the keep-alive clock, not for good."""
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        await answered_early(reader, writer)  # its rest, 3 bytes, still to come
        writer.write(b"abc")
        writer.write(head(100))
        assert (await asyncio.wait_for(read_response(reader), 5))[0] == 200
        assert await closed_by_server(reader, 5 + 3)  # uvicorn's keep-alive timeout, 5 s
    finally:
        writer.close()


async def test_a_long_poll_behind_an_early_answered_rest_is_not_cut_short(base: str) -> None:
    """The rest of an early-answered request and a long-poll in the same read: the poll
    waits out its ``wait`` (the keep-alive clock restarted by the rest used to close the
    connection under it at 5 s)."""
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        table = await new_table(client)
        etag = (await client.get(f"/tables/{table['id']}")).headers["etag"]
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        await answered_early(reader, writer)  # its rest, 3 bytes, still to come
        poll = (
            f"GET /tables/{table['id']}?wait=7 HTTP/1.1\r\nHost: x\r\nIf-None-Match: {etag}\r\n\r\n"
        ).encode()
        started = time.monotonic()
        writer.write(b"abc" + poll)
        status, _, _ = await asyncio.wait_for(read_response(reader), 12)
        assert status == 304 and time.monotonic() - started >= 6.5
    finally:
        writer.close()


async def test_an_address_sending_too_many_bodies_at_once_is_told_to_wait(base: str) -> None:
    """Bodies stalled short of their length each held up to 1 MiB for 30 s: one address
    within its rate budget held a gigabyte. Past ``BODIES`` at once, the next is refused
    as soon as its head is in, before any of its body is read."""
    body = json.dumps({"game": "pitch", "seats": 2}).encode().ljust(100)
    head_of = (
        b"POST /tables HTTP/1.1\r\nHost: cardroom\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    stalled = []
    for _ in range(BODIES):
        reader, writer = await asyncio.open_connection(*address(base))
        writer.write(head_of + body[:10])  # and the rest never comes, for now
        await writer.drain()
        stalled.append((reader, writer))
    async with httpx.AsyncClient(base_url=base) as client:
        # Counted as they arrive: the process has read every stalled head once a request
        # behind them on a connection of its own is answered.
        assert (await client.get("/games")).status_code == 200  # no body: not counted

        reader, writer = await asyncio.open_connection(*address(base))
        # Its head was read whole: its id is kept, and a page of its origin may read it.
        own_id = b"X-Request-ID: bodies-17\r\nOrigin: " + ORIGIN + b"\r\n"
        writer.write(head_of.replace(b"\r\n\r\n", b"\r\n" + own_id + b"\r\n") + body)
        await writer.drain()
        status, headers, problem = await asyncio.wait_for(read_response(reader), 10)
        assert status == 503, problem
        assert headers["retry-after"] == "1"
        assert headers["x-request-id"] == "bodies-17"
        assert json.loads(problem)["code"] == "too-many-bodies"
        assert_readable_by_the_page(headers)
        # Its body was read and dropped, as after any early answer: the connection goes on.
        writer.write(b"GET /games HTTP/1.1\r\nHost: cardroom\r\n\r\n")
        await writer.drain()
        assert (await asyncio.wait_for(read_response(reader), 10))[0] == 200
        writer.close()

        # One stalled body is sent whole: it is answered, and its place is free again.
        reader, writer = stalled.pop()
        writer.write(body[10:])
        await writer.drain()
        answered = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert answered.startswith(b"HTTP/1.1 201 "), answered
        writer.close()
        json_type = {"Content-Type": "application/json"}
        created = await client.post("/tables", content=body, headers=json_type)
        assert created.status_code == 201, created.text
    for _, writer in stalled:
        writer.close()


def test_a_trusted_proxy_on_a_dual_stack_socket_is_known_by_its_ipv4_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``serve --host ::`` takes IPv4 peers as ``::ffff:a.b.c.d``: a trusted proxy's
    bodies were counted, every client behind it sharing its 16."""
    networks = trusted_networks(["127.0.0.1"])
    monkeypatch.setattr(protocol, "_trusted", lambda: networks)
    assert protocol._trusted_peer("::ffff:127.0.0.1")
    assert protocol._trusted_peer("127.0.0.1")
    assert not protocol._trusted_peer("::ffff:127.0.0.2")


async def test_an_unknown_method_is_answered_501_by_the_server_and_closed(base: str) -> None:
    """RFC 9110 section 9.1: an unrecognised method gets a 501 problem, not the parser's
    plain 400."""
    request = b"BREW /healthz HTTP/1.1\r\nhost: cardroom\r\n\r\n"
    await refused_and_closed(base, request, 501, "method-not-implemented")


async def refused_and_closed(base: str, request: bytes, status: int, code: str) -> None:
    """``request`` sent on a connection of its own is answered with a ``status`` problem
    of ``code``, with its own request id, and the server closes the connection."""
    reader, writer = await asyncio.open_connection(*address(base))
    try:
        writer.write(request)
        answered, headers, body = await asyncio.wait_for(read_response(reader), 10)
        assert await closed_by_server(reader, TIMEOUT / 2)
    finally:
        writer.close()
    assert (answered, headers["connection"]) == (status, "close")
    assert headers["content-type"] == "application/problem+json"
    assert re.fullmatch("[0-9a-f]{16}", headers["x-request-id"])
    problem = json.loads(body)
    assert (problem["status"], problem["code"]) == (status, code)
