"""A mobile player between rounds (DESIGN 14, ``/me``; a round's status): the answer
carries an ETag, comes back 304 while it is current, and with ``?wait=`` a parked
request answers as soon as what it shows changes — the next round paired, the seat's
token revoked, the round's last table ended. Over a real socket: an in-process
transport would serialise the poll and the request that wakes it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import httpx
import pytest
from litestar import Litestar

from service.http import polls
from service.http.app import create_app
from service.settings import Settings
from tests.support.api import OPERATOR, bearer, ok
from tests.support.live import serving
from tests.support.refusals import assert_problem


class Served(NamedTuple):
    app: Litestar  # its watcher shows where a poll is parked
    http: httpx.AsyncClient


@pytest.fixture(scope="module")
async def served(settings: Settings) -> AsyncIterator[Served]:
    app = create_app(settings)
    async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=90) as http:
        yield Served(app, http)


@pytest.fixture(autouse=True)
def notified_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A parked poll reads again only when notified: without the notification it would
    sleep through its whole wait and answer 304, so a 200 proves the wake."""
    monkeypatch.setattr(polls, "RECHECK_SECONDS", 600.0)


async def swiss_of_two(http: httpx.AsyncClient) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    body = {"game": "reserve-bridge", "name": "Poll night", "format": "swiss", "rounds": 1}
    event = ok(await http.post("/tournaments", json=body, headers=OPERATOR), 201)
    director = bearer(event["director_token"])
    entries = [
        ok(
            await http.post(
                f"/tournaments/{event['id']}/entries", json={"name": name}, headers=director
            ),
            201,
        )
        for name in ("Ann", "Bob")
    ]
    return event, entries


async def parked(app: Litestar, stream: str, poll: asyncio.Task[httpx.Response]) -> None:
    """Until ``poll`` waits on ``stream`` in the process (a table id or tournament:<id>)."""
    while app.state.watcher.waiting_for(stream) == 0:
        assert not poll.done(), poll.result().text
        await asyncio.sleep(0.01)


async def test_me_is_304_while_unchanged_and_its_tag_moves_with_the_round(served: Served) -> None:
    http = served.http
    event, (ann, _) = await swiss_of_two(http)
    me = f"/tournaments/{event['id']}/me"
    first = await http.get(me, headers=bearer(ann["token"]))
    assert first.status_code == 200 and first.json()["round"] == 0
    tag = first.headers["etag"]
    assert first.headers["cache-control"] == "private, no-cache"
    assert first.headers["vary"] == "Authorization"
    again = await http.get(me, headers={**bearer(ann["token"]), "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == tag
    ok(
        await http.post(
            f"/tournaments/{event['id']}/rounds", headers=bearer(event["director_token"])
        ),
        201,
    )
    moved = await http.get(me, headers={**bearer(ann["token"]), "If-None-Match": tag})
    assert moved.status_code == 200 and moved.json()["round"] == 1
    assert moved.headers["etag"] != tag


async def test_a_parked_me_answers_when_the_round_is_paired(
    served: Served,
) -> None:
    http = served.http
    event, (ann, _) = await swiss_of_two(http)
    me = f"/tournaments/{event['id']}/me"
    tag = (await http.get(me, headers=bearer(ann["token"]))).headers["etag"]
    poll = asyncio.create_task(
        http.get(f"{me}?wait=60", headers={**bearer(ann["token"]), "If-None-Match": tag})
    )
    await parked(served.app, f"tournament:{event['id']}", poll)
    paired = ok(
        await http.post(
            f"/tournaments/{event['id']}/rounds", headers=bearer(event["director_token"])
        ),
        201,
    )
    answer = await asyncio.wait_for(poll, 60)
    assert answer.status_code == 200, answer.text
    seat = answer.json()
    assert seat["round"] == 1 and seat["table"] == paired["tables"][0]["table"]
    view = ok(await http.get(f"/tables/{seat['table']}", headers=bearer(seat["token"])))
    assert view["you"] == seat["seat"]


async def test_a_parked_me_answers_when_the_director_hands_the_seat_on(
    served: Served,
) -> None:
    http = served.http
    event, (ann, _) = await swiss_of_two(http)
    director = bearer(event["director_token"])
    ok(await http.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    me = f"/tournaments/{event['id']}/me"
    before = await http.get(me, headers=bearer(ann["token"]))
    seat = before.json()
    assert seat["token"] is not None
    poll = asyncio.create_task(
        http.get(
            f"{me}?wait=60",
            headers={**bearer(ann["token"]), "If-None-Match": before.headers["etag"]},
        )
    )
    await parked(served.app, seat["table"], poll)
    replace = f"/tables/{seat['table']}/seats/{seat['seat']}/replace"
    ok(await http.post(replace, json={"name": "Ann's sister"}, headers=director))
    answer = await asyncio.wait_for(poll, 60)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {**seat, "token": None}, "the same seat, and no revoked token"


async def test_a_parked_round_answers_when_its_last_table_ends(
    served: Served,
) -> None:
    http = served.http
    event, (ann, _) = await swiss_of_two(http)
    ok(
        await http.post(
            f"/tournaments/{event['id']}/rounds", headers=bearer(event["director_token"])
        ),
        201,
    )
    path = f"/tournaments/{event['id']}/rounds/1"
    playing = await http.get(path)
    assert playing.status_code == 200 and playing.json()["status"] == "playing"
    assert playing.headers["cache-control"] == "no-cache"
    unchanged = await http.get(path, headers={"If-None-Match": playing.headers["etag"]})
    assert unchanged.status_code == 304
    poll = asyncio.create_task(
        http.get(f"{path}?wait=60", headers={"If-None-Match": playing.headers["etag"]})
    )
    await parked(served.app, f"tournament:{event['id']}", poll)
    seat = ok(await http.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    resign = {"type": "resign"}
    ok(
        await http.post(
            f"/tables/{seat['table']}/actions", json=resign, headers=bearer(seat["token"])
        )
    )
    answer = await asyncio.wait_for(poll, 60)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "finished"


async def test_a_poll_of_a_round_not_paired_is_refused_at_once(
    served: Served,
) -> None:
    http = served.http
    event, _ = await swiss_of_two(http)
    path = f"/tournaments/{event['id']}/rounds/1?wait=60"
    refused = await asyncio.wait_for(http.get(path, headers={"If-None-Match": "*"}), 10)
    assert_problem(refused, 404, "no-such-round")
    bad = await http.get(f"/tournaments/{event['id']}/rounds/1?wait=0")
    assert bad.status_code == 400


async def test_a_computer_entrys_parked_me_reads_nothing_until_something_changes(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A computer's seat has no token to follow, so its table is not waited on: it was
    waited on at version 0, which every commit at the table passed, and the poll read
    again and again for its whole wait (thousands of reads a second)."""
    http = served.http
    body = {"game": "reserve-bridge", "name": "Robo night", "format": "swiss", "rounds": 1}
    event = ok(await http.post("/tournaments", json=body, headers=OPERATOR), 201)
    director = bearer(event["director_token"])
    entries = f"/tournaments/{event['id']}/entries"
    computer = {"name": "Robo", "computer": True}
    robo = ok(await http.post(entries, json=computer, headers=director), 201)
    ok(await http.post(entries, json={"name": "Ann"}, headers=director), 201)
    paired = ok(await http.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    table = paired["tables"][0]["table"]
    while served.app.state.watcher.versions.get(table, 0) == 0:  # its commits are heard
        await asyncio.sleep(0.01)
    me = f"/tournaments/{event['id']}/me"
    tag = (await http.get(me, headers=bearer(robo["token"]))).headers["etag"]
    service = served.app.state.tournaments
    reads = 0
    seat_of = service.seat_of

    async def counted(*args: Any) -> Any:
        nonlocal reads
        reads += 1
        return await seat_of(*args)

    monkeypatch.setattr(service, "seat_of", counted)
    answer = await http.get(f"{me}?wait=1", headers={**bearer(robo["token"]), "If-None-Match": tag})
    assert answer.status_code == 304
    # The first read, and one again for each of the tournament's own later commits (the
    # worker that opens the round's tables may still be at it): a few, not thousands.
    assert reads <= 3, f"{reads} reads for one parked poll"


async def test_a_poll_naming_any_answer_is_answered_at_once(served: Served) -> None:
    """``If-None-Match: *`` names every answer, so no change can end a wait on it: the 304
    comes at once rather than after ``wait`` seconds (or after a change that would not
    alter it)."""
    http = served.http
    event, (ann, _) = await swiss_of_two(http)
    me = f"/tournaments/{event['id']}/me?wait=60"
    polled = await asyncio.wait_for(
        http.get(me, headers={**bearer(ann["token"]), "If-None-Match": "*"}), 10
    )
    assert polled.status_code == 304 and polled.headers["etag"]
