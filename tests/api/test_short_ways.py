"""The short ways of the command and the view (service.http.command_path, view_path)
answer as their routes do.

Twin tables are dealt the same cards and seated alike; every request is sent to one
plainly and to the other with a query string (``by=route``), which a short way never
takes, so that the route answers it. The two answers must match, status, headers and
body (but for the table's id, the request id and the events' times), and a spy on the
routes' first hook tells which way each request went.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import msgspec
import pytest
from httpx import AsyncClient, Response
from litestar.testing import AsyncTestClient

from service.http import command_path, hooks, view_path
from service.http.app import create_app
from service.http.limits import MAX_BODY_BYTES
from service.settings import Settings
from service.tools.bench.plan import plan_game
from service.write.handler import etag
from tests.support.api import OPERATOR, bearer, ok
from tests.support.live import serving

_AT = re.compile(rb'"at":"[^"]*"')


class Twin(msgspec.Struct):
    table: str
    tokens: list[str]


class Ways:
    """Counts the requests each route's hook saw: those its short way passed on."""

    def __init__(self) -> None:
        self.routed = 0  # commands
        self.viewed = 0  # views


@pytest.fixture
def ways(monkeypatch: pytest.MonkeyPatch) -> Iterator[Ways]:
    ways = Ways()
    checked = hooks.single_headers  # the routes' first look at a request

    def counted(request: Any) -> None:
        template = request.scope["path_template"]
        ways.routed += template == command_path.ROUTE
        ways.viewed += template == view_path.ROUTE
        checked(request)

    monkeypatch.setattr(hooks, "single_headers", counted)
    yield ways


async def _twins(client: AsyncClient, seed: int) -> tuple[list[Twin], list[tuple[int, Any]]]:
    plan = plan_game("forty-five", 4, seed)
    twins = []
    for _ in range(2):
        table = ok(await client.post("/tables", json=plan.create, headers=OPERATOR), 201)["id"]
        tokens = [
            ok(await client.post(f"/tables/{table}/seats/{s}", json={"name": f"P{s}"}), 201)[
                "token"
            ]
            for s in range(4)
        ]
        twins.append(Twin(table, tokens))
    return twins, plan.steps


async def _first_move(client: AsyncClient, seed: int) -> tuple[list[Twin], int, bytes]:
    """Twin tables, the seat to act first and its planned command."""
    twins, steps = await _twins(client, seed)
    seat, command = steps[0]
    return twins, seat, msgspec.json.encode(command)


def _answer(response: Response, table: str) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    # The length follows the events' times, which msgspec writes without a fraction on a
    # whole second: it is checked against the body here, and the bodies are compared.
    if "content-length" in response.headers and response.request.method != "HEAD":
        assert int(response.headers["content-length"]) == len(response.content)
    headers = [
        (name, value)
        for name, value in response.headers.raw
        if name not in (b"x-request-id", b"ratelimit-reset", b"content-length")
    ]
    body = _AT.sub(b'"at":""', response.content.replace(table.encode(), b"<table>"))
    return response.status_code, headers, body


async def _both(
    client: AsyncClient,
    twins: list[Twin],
    seat: int,
    content: bytes,
    headers: dict[str, str] | None = None,
    *,
    address: Callable[[str], str] = lambda table: f"/tables/{table}/actions",
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """The same request to both twins (the second by the route); their common answer."""
    answers = []
    for twin, query in zip(twins, ("", "?by=route"), strict=True):
        sent = {"Content-Type": "application/json", **bearer(twin.tokens[seat]), **(headers or {})}
        url = address(twin.table) + query
        answers.append(_answer(await client.post(url, content=content, headers=sent), twin.table))
    assert answers[0] == answers[1]
    return answers[0]


async def test_ordinary_commands_take_the_short_way_and_answer_as_the_route(
    client: AsyncClient, ways: Ways
) -> None:
    twins, steps = await _twins(client, 41)
    for seat, command in steps[:12]:
        status, _, _ = await _both(client, twins, seat, msgspec.json.encode(command))
        assert status == 200
    assert ways.routed == 12  # the twin's only


async def test_refusals_on_the_short_way_are_the_routes_problems(
    client: AsyncClient, ways: Ways
) -> None:
    twins, seat, body = await _first_move(client, 42)
    other = (seat + 1) % 4
    refused = [
        await _both(client, twins, other, body),
        await _both(client, twins, seat, body, {"If-Match": '"1.s0"'}),  # a stale view
        await _both(client, twins, seat, body, {"Authorization": "Bearer nobody"}),
        await _both(client, twins, seat, body, {"Authorization": "Basic eA=="}),
        await _both(client, twins, seat, body, OPERATOR),  # the operator does not play
        await _both(client, twins, seat, b'{"type":"bid","amount":7}'),
    ]
    assert [(status, msgspec.json.decode(body)["code"]) for status, _, body in refused] == [
        (409, "not-your-turn"),
        (412, "precondition-failed"),
        (401, "unauthorized"),
        (401, "unauthorized"),
        (403, "wrong-seat"),
        (409, "bid-not-allowed"),
    ]
    assert ways.routed == len(refused)


async def test_if_match_and_idempotency_keys_take_the_short_way(
    client: AsyncClient, ways: Ways
) -> None:
    twins, seat, body = await _first_move(client, 43)
    views = [
        ok(await client.get(f"/tables/{t.table}", headers=bearer(t.tokens[seat]))) for t in twins
    ]
    assert views[0]["version"] == views[1]["version"]
    tag = etag(views[0]["version"], seat)
    first = await _both(client, twins, seat, body, {"If-Match": tag, "Idempotency-Key": "k-1"})
    again = await _both(client, twins, seat, body, {"If-Match": tag, "Idempotency-Key": "k-1"})
    assert first[0] == 200
    assert again == first  # the first answer, given again
    assert ways.routed == 2


@pytest.mark.parametrize(
    ("content", "headers", "status"),
    [
        (b'{"type":"bid","amount":25,"extra":1}', {}, 400),  # an unknown field
        (b'{"type":"bid","type":"bid","amount":25}', {}, 400),  # a key written twice
        (b"", {}, 400),
        (b"{", {}, 400),
        (b'{"type":"bid","amount":25}', {"Content-Type": "application/json; charset=UTF-8"}, 200),
        (b'{"type":"bid","amount":25}', {"Content-Type": "text/plain"}, 415),
        (b'{"type":"bid","amount":25}', {"Content-Encoding": "gzip"}, 415),
        (b'{"type":"bid","amount":25}', {"Idempotency-Key": "k" * 201}, 400),
    ],
)
async def test_requests_out_of_the_ordinary_are_passed_on_to_the_route(
    client: AsyncClient, ways: Ways, content: bytes, headers: dict[str, str], status: int
) -> None:
    twins, steps = await _twins(client, 44)
    # Seed 44 opens with seat 1 bidding 25 (the plan is seeded, so this never changes).
    assert steps[0] == (1, {"type": "bid", "amount": 25})
    answered = await _both(client, twins, 1, content, headers)
    assert answered[0] == status
    assert ways.routed == 2


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "application/json;charset=utf-8"]
)
async def test_json_with_its_charset_takes_the_short_way(
    client: AsyncClient, ways: Ways, content_type: str
) -> None:
    twins, seat, body = await _first_move(client, 48)
    status, _, _ = await _both(client, twins, seat, body, {"Content-Type": content_type})
    assert status == 200
    assert ways.routed == 1  # the twin's only


async def test_a_body_longer_than_its_content_length_is_the_routes_413(
    client: AsyncClient, ways: Ways
) -> None:
    """A server that does not hold the body to its Content-Length must not let a command
    in over the size limit: the bytes received are what counts."""
    twins, seat, body = await _first_move(client, 47)
    padded = body + b" " * MAX_BODY_BYTES
    answered = await _both(client, twins, seat, padded, {"Content-Length": str(len(body))})
    assert answered[0] == 413
    assert ways.routed == 2


async def test_an_integral_number_and_an_id_in_capitals_take_the_short_way(
    client: AsyncClient, ways: Ways
) -> None:
    """JSON Schema counts 25.0 as an integer, and the route reads the id as a UUID."""
    twins, steps = await _twins(client, 44)
    assert steps[0] == (1, {"type": "bid", "amount": 25})
    status, _, _ = await _both(
        client, twins, 1, b'{"type":"bid","amount":25.0}', address=_in_capitals
    )
    assert status == 200
    assert ways.routed == 1


async def test_the_short_way_counts_each_command_once_under_its_status(
    client: AsyncClient,
) -> None:
    twins, steps = await _twins(client, 45)
    twin = twins[0]
    before = {status: await _commands_counted(client, status) for status in (200, 409)}
    for seat, command in steps[:5]:
        await client.post(
            f"/tables/{twin.table}/actions", json=command, headers=bearer(twin.tokens[seat])
        )
    seat, command = steps[5]
    wrong = bearer(twin.tokens[(seat + 1) % 4])
    refused = await client.post(f"/tables/{twin.table}/actions", json=command, headers=wrong)
    assert refused.status_code == 409
    assert await _commands_counted(client, 200) == before[200] + 5
    assert await _commands_counted(client, 409) == before[409] + 1


def _in_capitals(table: str) -> str:
    return f"/tables/{table.upper()}/actions"


async def _commands_counted(client: AsyncClient, status: int) -> float:
    text = (await client.get("/metrics")).text
    line = re.search(
        r'^cardroom_requests_total\{[^}]*method="POST",path="/tables/\{table_id\}/actions",'
        rf'status_code="{status}"[^}}]*\}} ([0-9.e+]+)$',
        text,
        re.MULTILINE,
    )
    return float(line[1]) if line else 0.0


@pytest.fixture
async def limited(settings: Settings) -> AsyncIterator[AsyncClient]:
    """A client of an app whose seats may send two requests a minute."""
    narrow = msgspec.structs.replace(
        settings, rate_limits=True, rate_seat="2/60", redis_prefix=f"limited-{uuid.uuid4()}"
    )
    async with AsyncTestClient(create_app(narrow)) as client:
        yield client


async def test_the_rate_limit_counts_a_command_once_and_before_its_body(
    limited: AsyncClient, ways: Ways, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded = []

    def counted(body: bytes, annotation: Any) -> Any:
        decoded.append(body)
        return hooks.strictly(body, annotation)

    monkeypatch.setattr(command_path, "strictly", counted)
    twins, seat, body = await _first_move(limited, 46)
    other = (seat + 1) % 4
    unknown_field = b'{"type":"pass","extra":1}'
    answers = [
        await _both(limited, twins, other, unknown_field),  # passed on once admitted
        await _both(limited, twins, other, body),
        await _both(limited, twins, other, body),
        await _both(limited, twins, other, unknown_field),  # refused before it is read
    ]
    assert [status for status, _, _ in answers] == [400, 409, 429, 429]
    remaining = [dict(headers).get(b"ratelimit-remaining") for _, headers, _ in answers[:2]]
    assert remaining == [b"1", b"0"]
    assert ways.routed == 5  # the route's four, and the pass-on
    assert decoded == [unknown_field, body]  # the short way read no body it refused


# --- the view ----------------------------------------------------------------------------


async def _view_both(
    client: AsyncClient,
    twins: list[Twin],
    authorization: Callable[[Twin], dict[str, str]],
    headers: dict[str, str] | None = None,
    query: str = "",
    method: str = "GET",
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """The same view request to both twins (the second by the route)."""
    answers = []
    for twin, by in zip(twins, ("", "by=route"), strict=True):
        asked = "&".join(part for part in (query, by) if part)
        url = f"/tables/{twin.table}" + (f"?{asked}" if asked else "")
        sent = {**authorization(twin), **(headers or {})}
        response = await client.request(method, url, headers=sent)
        answers.append(_answer(response, twin.table))
    assert answers[0] == answers[1]
    return answers[0]


def _spectator(twin: Twin) -> dict[str, str]:
    return {}


def _operator(twin: Twin) -> dict[str, str]:
    return OPERATOR


def _seat(seat: int) -> Callable[[Twin], dict[str, str]]:
    return lambda twin: bearer(twin.tokens[seat])


async def test_views_and_their_304s_take_the_short_way_and_answer_as_the_route(
    client: AsyncClient, ways: Ways
) -> None:
    twins, seat, _ = await _first_move(client, 48)
    for audience in (_spectator, _operator, _seat(seat), _seat((seat + 1) % 4)):
        status, headers, _ = await _view_both(client, twins, audience)
        assert status == 200
        tag = dict(headers)[b"etag"].decode()
        assert (await _view_both(client, twins, audience, {"If-None-Match": tag}))[0] == 304
        stale = {"If-None-Match": '"1.spectator", "2.s0"'}
        assert (await _view_both(client, twins, audience, stale))[0] == 200
        assert (await _view_both(client, twins, audience, method="HEAD"))[0] == 200
    assert ways.viewed == 16  # the twin's only


async def test_refused_views_on_the_short_way_are_the_routes_problems(
    client: AsyncClient, ways: Ways
) -> None:
    twins, _, _ = await _first_move(client, 49)
    others, _ = await _twins(client, 50)
    refused = [
        await _view_both(client, twins, lambda twin: {"Authorization": "Bearer nobody"}),
        await _view_both(client, twins, lambda twin: {"Authorization": "Basic eA=="}),
        await _view_both(client, twins, lambda twin: bearer(others[0].tokens[0])),
    ]
    assert [(status, msgspec.json.decode(body)["code"]) for status, _, body in refused] == [
        (401, "unauthorized"),
        (401, "unauthorized"),
        (403, "wrong-seat"),
    ]
    assert ways.viewed == len(refused)


async def test_a_long_poll_on_the_short_way_wakes_with_the_next_version(
    settings: Settings, ways: Ways
) -> None:
    """Over a real socket: an in-process transport would serialise the poll and the
    command that wakes it."""
    app = create_app(settings)
    async with serving(app) as base, httpx.AsyncClient(base_url=base, timeout=60) as http:
        twins, seat, body = await _first_move(http, 51)
        polls = []
        for twin, by in zip(twins, ("", "&by=route"), strict=True):
            tag = (await http.get(f"/tables/{twin.table}")).headers["etag"]
            poll = asyncio.create_task(
                http.get(f"/tables/{twin.table}?wait=30{by}", headers={"If-None-Match": tag})
            )
            while app.state.watcher.waiting_for(twin.table) == 0:
                await asyncio.sleep(0.01)
            acted = await http.post(
                f"/tables/{twin.table}/actions",
                content=body,
                headers={"Content-Type": "application/json", **bearer(twin.tokens[seat])},
            )
            assert acted.status_code == 200
            polls.append(_answer(await asyncio.wait_for(poll, 10), twin.table))
    assert polls[0] == polls[1]
    assert polls[0][0] == 200
    assert ways.viewed == 1  # the route twin's poll; every other view took the short way


@pytest.mark.parametrize(
    "query",
    [
        "wait=0",
        "wait=61",
        "wait=1.5",
        "wait=%31",
        "wait=5&wait=5",
        "wait=+5",
        "wait=05",
        "wait=5;",
        "WAIT=5",
        "wait=1&",
        "a=1",
    ],
)
async def test_views_out_of_the_ordinary_are_passed_on_to_the_route(
    client: AsyncClient, ways: Ways, query: str
) -> None:
    twins, _, _ = await _first_move(client, 52)
    await _view_both(client, twins, _spectator, {"If-None-Match": '"1.spectator"'}, query)
    assert ways.viewed == 2


async def test_an_encoded_slash_after_the_id_is_the_routes_404(client: AsyncClient) -> None:
    twins, _, _ = await _first_move(client, 54)
    answers = [
        await client.get(f"/tables/{twin.table}%2F{by}")
        for twin, by in zip(twins, ("", "?by=route"), strict=True)
    ]
    assert [answer.status_code for answer in answers] == [404, 404]


async def test_the_rate_limit_counts_a_view_once_on_the_short_way(
    limited: AsyncClient, ways: Ways
) -> None:
    twins, seat, _ = await _first_move(limited, 55)
    answers = [await _view_both(limited, twins, _seat(seat)) for _ in range(3)]
    assert [status for status, _, _ in answers] == [200, 200, 429]
    remaining = [dict(headers).get(b"ratelimit-remaining") for _, headers, _ in answers[:2]]
    assert remaining == [b"1", b"0"]
    assert ways.viewed == 3  # the route twin's only
