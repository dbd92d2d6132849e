"""Operations that take a body, for the tests of refused input (DESIGN 12)."""

from __future__ import annotations

from typing import Any, NamedTuple

import psycopg
from httpx import Response

from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all

JSON = {"content-type": "application/json"}


class Target(NamedTuple):
    """An operation that takes a body, and a body it accepts as it is."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]


async def make_targets(client: Any) -> dict[str, Target]:
    """Each operation that takes a body, at a resource where its body is accepted."""
    waiting = await new_table(client)
    playing = await new_table(client)
    tokens = await seat_all(client, playing["id"], 4)
    first = ok(await client.get(f"/tables/{playing['id']}"))["to_act"][0]
    tournament = ok(
        await client.post(
            "/tournaments", json={"game": "forty-five", "name": "Spring"}, headers=OPERATOR
        ),
        201,
    )
    swiss = ok(
        await client.post(
            "/tournaments",
            json={"game": "reserve-bridge", "name": "Autumn", "format": "swiss", "rounds": 2},
            headers=OPERATOR,
        ),
        201,
    )
    return {
        "createTable": Target("/tables", {"game": "forty-five", "seats": 4}, {}),
        "takeSeat": Target(f"/tables/{waiting['id']}/seats/0", {"name": "Ann"}, {}),
        "postAction": Target(
            f"/tables/{playing['id']}/actions", {"type": "pass"}, bearer(tokens[first])
        ),
        "createTournament": Target(
            "/tournaments", {"game": "forty-five", "name": "Summer"}, OPERATOR
        ),
        "createTournamentTable": Target(
            f"/tournaments/{tournament['id']}/tables",
            {"players": ["Ann", "Bob", "Cy", "Di"]},
            OPERATOR,
        ),
        "replaceSeat": Target(
            f"/tables/{playing['id']}/seats/{first}/replace", {"name": "Eve"}, OPERATOR
        ),
        "abortTable": Target(f"/tables/{playing['id']}/abort", {"reason": "closing"}, OPERATOR),
        "addEntry": Target(
            f"/tournaments/{swiss['id']}/entries", {"name": "Ann"}, bearer(swiss["director_token"])
        ),
    }


OPERATIONS = [
    "createTable",
    "takeSeat",
    "postAction",
    "createTournament",
    "createTournamentTable",
    "replaceSeat",
    "abortTable",
    "addEntry",
]


# Who writes without a request: the service's chance and clock steps, the computer, the
# clock's autoplay, retention. A request's own batch is never recorded for one of them.
_BY_REQUEST = (
    "actor <> 'system' AND actor <> 'clock' AND actor <> 'retention'"
    " AND actor NOT LIKE 'computer:%%' AND actor NOT LIKE 'clock:%%'"
)


async def stored(
    database_url: str, tournament: str | None = None, *, by_requests: bool = False
) -> tuple[int, ...]:
    """How many events, tables, seat tokens, tournaments and tournament events (with
    entry tokens) the store holds; with ``tournament``, all but the tournaments counted
    for that tournament alone (its tables' events and tokens, its stream, its entries),
    so that the computers and round keepers of other tests' tournaments may go on. With
    ``by_requests``, the events counted are those a request caused, so that the clocks
    and computers of other tests' tables may go on."""
    if tournament is None:
        of_tables = tables = own = ""
    else:
        tables = " WHERE tournament = %(t)s"
        of_tables = f" WHERE table_id IN (SELECT id FROM tables{tables})"
        own = " WHERE tournament_id = %(t)s::uuid"
    of_events = of_tables
    if by_requests:
        of_events = f"{of_tables} AND {_BY_REQUEST}" if of_tables else f" WHERE {_BY_REQUEST}"
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        cur = await conn.execute(
            f"SELECT (SELECT count(*) FROM events{of_events}),"
            f" (SELECT count(*) FROM tables{tables}),"
            f" (SELECT count(*) FROM seat_tokens{of_tables}),"
            " (SELECT count(*) FROM tournaments),"
            f" (SELECT count(*) FROM tournament_events{own}),"
            f" (SELECT count(*) FROM entry_tokens{own})",
            {"t": tournament},
        )
        row = await cur.fetchone()
    assert row is not None
    return tuple(int(n) for n in row)


def assert_problem(response: Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = response.json()
    assert problem["status"] == status and problem["code"] == code, problem
    assert problem["type"].endswith("/" + code)
    return problem


async def send(
    client: Any, target: Target, content: bytes | Any, headers: dict[str, str | None]
) -> Response:
    """POST ``content`` to ``target`` with its headers and these (``None``: left out)."""
    sent = {**target.headers, **{k: v for k, v in headers.items() if v is not None}}
    return await client.post(target.path, content=content, headers=sent)  # type: ignore[no-any-return]


async def assert_token_replaced(
    client: Any, table_id: str, old: str, new: str, command: dict[str, Any]
) -> dict[str, Any]:
    """A replaced seat's ``old`` token is refused, for its view and for ``command``; the
    ``new`` one shows the seat its view, which is returned."""
    path = f"/tables/{table_id}"
    assert_problem(await client.get(path, headers=bearer(old)), 401, "unauthorized")
    refused = await client.post(f"{path}/actions", json=command, headers=bearer(old))
    assert_problem(refused, 401, "unauthorized")
    view: dict[str, Any] = ok(await client.get(path, headers=bearer(new)))
    return view
