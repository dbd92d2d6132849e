"""Tables opened for a tournament by hand are recorded in its stream (``table_opened``),
in the same transaction as the table itself, so that its export's completeness can be
checked: a table left out is missed by name. Streams begun before that (API 1.11) verify
as they did."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import psycopg
from httpx import AsyncClient

from service.audit.render import render_tournament
from service.audit.tournament_verify import verify_tournament_lines
from tests.support.api import OPERATOR, bearer, ok
from tests.support.audit import document_of, lines_of, rechain_tournament
from tests.support.refusals import assert_problem, stored
from tests.support.tournaments import open_event


async def export_lines(client: AsyncClient, tournament: str) -> list[dict[str, Any]]:
    answer = await client.get(f"/tournaments/{tournament}/export", headers=OPERATOR)
    assert answer.status_code == 200, answer.text
    return lines_of(answer.content)


async def test_a_table_opened_through_create_table_is_recorded_and_exported(
    client: AsyncClient,
) -> None:
    event = await open_event(client, "pitch")
    body = {"game": "pitch", "seats": 3, "tournament": event["id"]}
    table = ok(await client.post("/tables", json=body, headers=OPERATOR), 201)["id"]
    lines = await export_lines(client, event["id"])
    assert lines[0]["tables"] == [table]
    kinds = [line["data"]["type"] for line in lines if line["type"] == "tournament_event"]
    assert kinds == ["tournament_created", "table_opened"]
    report = verify_tournament_lines(document_of(lines).splitlines())
    assert report.ok, render_tournament(report)


async def test_a_table_opened_through_create_table_plays_by_the_tournaments_options(
    client: AsyncClient, database_url: str
) -> None:
    """Every table of a tournament plays by its house rules: left out, ``options`` are
    the tournament's (not the game's defaults); named, they must be the same ones."""
    house = {"low_point": "won", "setback_chip": True}
    event = await open_event(client, "pitch", options=house)
    body = {"game": "pitch", "seats": 3, "tournament": event["id"]}
    table = ok(await client.post("/tables", json=body, headers=OPERATOR), 201)
    assert {k: table["options"][k] for k in house} == house
    same = ok(await client.post("/tables", json={**body, "options": house}, headers=OPERATOR), 201)
    assert same["options"] == table["options"]
    before = await stored(database_url, event["id"])
    for other in ({}, {"game_end": "highest"}, {**house, "low_point": "dealt"}):
        response = await client.post("/tables", json={**body, "options": other}, headers=OPERATOR)
        assert_problem(response, 400, "invalid-options")
        assert "options of its own" in response.json()["detail"]
    assert await stored(database_url, event["id"]) == before


async def test_a_finished_tournament_opens_no_table_and_records_nothing(
    client: AsyncClient, database_url: str
) -> None:
    event = await open_event(client, "pitch")
    ok(await client.post(f"/tournaments/{event['id']}/finish", headers=OPERATOR))
    # Counted for this tournament alone: other tests' computers play on meanwhile.
    before = await stored(database_url, event["id"])
    body = {"game": "pitch", "seats": 3, "tournament": event["id"]}
    response = await client.post("/tables", json=body, headers=OPERATOR)
    assert_problem(response, 409, "tournament-finished")
    assert await stored(database_url, event["id"]) == before


async def test_a_stream_begun_before_openings_were_recorded_verifies_as_before(
    client: AsyncClient,
) -> None:
    """A tournament created before API 1.11 has no ``tables_recorded`` and no
    ``table_opened``: its export verifies, each table it carries checked, and the report
    says that one left out could not be told."""
    event = await open_event(client, "pitch")
    body = {"players": ["Ann", "Bob", "Cy"]}
    path = f"/tournaments/{event['id']}/tables"
    table = ok(await client.post(path, json=body, headers=OPERATOR), 201)["table"]["id"]
    lines = await export_lines(client, event["id"])
    old = []
    for line in lines:
        if line["type"] == "tournament_event":
            if line["data"]["type"] == "table_opened":
                continue
            if line["data"]["type"] == "tournament_created":
                data = {k: v for k, v in line["data"].items() if k != "tables_recorded"}
                line = {**line, "data": data}
        old.append(line)
    document = rechain_tournament(document_of(old))
    report = verify_tournament_lines(document.splitlines())
    assert report.ok, render_tournament(report)
    assert list(report.tables) == [table]
    assert any("could not be told" in note for note in report.notes)


async def test_the_table_and_its_opening_commit_together(
    client: AsyncClient, database_url: str
) -> None:
    """Every table of the tournament has its ``table_opened``, and every ``table_opened``
    its table: neither is stored without the other."""
    event = await open_event(client, "pitch")
    for players in (["A", "B", "C"], ["D", "E", "F"]):
        path = f"/tournaments/{event['id']}/tables"
        ok(await client.post(path, json={"players": players}, headers=OPERATOR), 201)
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        cur = await conn.execute(
            "SELECT data->>'table' FROM tournament_events"
            " WHERE tournament_id = %s AND type = 'table_opened' ORDER BY version",
            (event["id"],),
        )
        recorded = [row[0] for row in await cur.fetchall()]
        cur = await conn.execute(
            "SELECT id::text FROM tables WHERE tournament = %s ORDER BY created_at", (event["id"],)
        )
        tables = [row[0] for row in await cur.fetchall()]
    assert len(recorded) == 2 and sorted(recorded) == sorted(tables)


async def test_a_retry_with_the_key_gets_the_same_table_and_tokens(
    client: AsyncClient, database_url: str
) -> None:
    """The operator's answer carries the tokens to hand out: lost, a retry with the same
    key gets it again, the table as it opened and the same tokens, and opens nothing."""
    event = await open_event(client, "pitch")
    path = f"/tournaments/{event['id']}/tables"
    headers = {**OPERATOR, "Idempotency-Key": "open-table-1"}
    body = {"players": ["Ann", "Bob", "Cy"]}
    first = await client.post(path, json=body, headers=headers)
    assert first.status_code == 201, first.text
    before = await stored(database_url, event["id"])  # others' computers play on
    again = await client.post(path, json=body, headers=headers)
    assert again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    assert await stored(database_url, event["id"]) == before
    table = first.json()["table"]["id"]
    for seat in first.json()["seats"]:
        view = ok(await client.get(f"/tables/{table}", headers=bearer(seat["token"])))
        assert view["you"] == seat["seat"]
    other = await client.post(path, json={"players": ["Di", "Ed", "Flo"]}, headers=headers)
    assert_problem(other, 422, "idempotency-key-reused")
    assert await stored(database_url, event["id"]) == before


async def test_a_room_of_tables_opened_at_once_all_open(client: AsyncClient) -> None:
    """Each opening moves the tournament's stream: sent at once, they take turns (and
    retry a collision with another process) instead of failing with a conflict."""
    event = await open_event(client, "pitch")
    path = f"/tournaments/{event['id']}/tables"

    async def open_one(n: int) -> Any:
        players = [f"P{n}a", f"P{n}b", f"P{n}c"]
        return await client.post(path, json={"players": players}, headers=OPERATOR)

    answers = await asyncio.gather(*(open_one(n) for n in range(12)))
    assert [a.status_code for a in answers] == [201] * 12
    lines = await export_lines(client, event["id"])
    assert sorted(lines[0]["tables"]) == sorted(a.json()["table"]["id"] for a in answers)


async def test_an_export_listing_its_tables_out_of_order_is_refused_as_such(
    client: AsyncClient,
) -> None:
    event = await open_event(client, "pitch")
    path = f"/tournaments/{event['id']}/tables"
    for players in (["A", "B", "C"], ["D", "E", "F"]):
        ok(await client.post(path, json={"players": players}, headers=OPERATOR), 201)
    header, *rest = await export_lines(client, event["id"])
    swapped = {**header, "tables": header["tables"][::-1]}
    report = verify_tournament_lines(document_of([swapped, *rest]).splitlines())
    assert report.failure is not None
    assert "once each and in order" in report.failure.message


async def test_the_director_opens_its_tournaments_tables_and_no_other(
    client: AsyncClient, database_url: str
) -> None:
    """The director acts as the operator for its tournament (DESIGN 14): it opens that
    tournament's tables, by either route, each recorded in its stream; another
    tournament's director is refused and nothing is stored."""
    event = await open_event(client, "pitch")
    director = bearer(event["director_token"])
    path = f"/tournaments/{event['id']}/tables"
    by_hand = ok(await client.post(path, json={"players": ["A", "B", "C"]}, headers=director), 201)
    assert by_hand["table"]["hands"] is not None  # the director reads it as the operator does
    body = {"game": "pitch", "seats": 3, "tournament": event["id"]}
    created = ok(await client.post("/tables", json=body, headers=director), 201)
    lines = await export_lines(client, event["id"])
    assert lines[0]["tables"] == [by_hand["table"]["id"], created["id"]]
    opened = [line for line in lines if line.get("data", {}).get("type") == "table_opened"]
    assert [line["actor"] for line in opened] == ["director", "director"]
    report = verify_tournament_lines(document_of(lines).splitlines())
    assert report.ok, render_tournament(report)

    other = bearer((await open_event(client, "pitch"))["director_token"])
    before = await stored(database_url, event["id"])
    refused = await client.post(path, json={"players": ["D", "E", "F"]}, headers=other)
    assert_problem(refused, 403, "operator-only")
    assert_problem(await client.post("/tables", json=body, headers=other), 403, "operator-only")
    assert await stored(database_url, event["id"]) == before


async def test_the_verifier_recomputes_the_published_players_and_partnerships(
    client: AsyncClient,
) -> None:
    """An open tournament records no results of its own: its standings are the read
    model's players and partnerships, and the report recomputes exactly those rows from
    the tables' events, a table still in play counting for nobody."""
    event = await open_event(client, "forty-five")
    path = f"/tournaments/{event['id']}/tables"
    names = (["Ann", "Bob", "Cy", "Di"], ["Ed", "Flo", "Gus", "Hal"], ["Ann", "Flo", "Cy", "Hal"])
    opened = [
        ok(await client.post(path, json={"players": n}, headers=OPERATOR), 201) for n in names
    ]
    for table, seat in ((opened[0], 0), (opened[1], 1)):
        resign = bearer(table["seats"][seat]["token"])
        url = f"/tables/{table['table']['id']}/actions"
        ok(await client.post(url, json={"type": "resign"}, headers=resign))
    published = await standings_counting(client, event["id"], finished=2)
    report = verify_tournament_lines(
        document_of(await export_lines(client, event["id"])).splitlines()
    )
    assert report.ok, render_tournament(report)
    assert msgspec.to_builtins(report.players) == published["players"]
    assert msgspec.to_builtins(report.partnerships) == published["partnerships"]
    assert {p["name"]: p["played"] for p in published["players"]}["Ann"] == 1
    assert len(published["partnerships"]) == 4
    text = render_tournament(report)
    assert "\nplayers\n" in text and "\npartnerships\n" in text
    assert "  Ann & Cy  played 1  won 0  score 0" in text


async def standings_counting(client: AsyncClient, tournament: str, finished: int) -> Any:
    """The published standings once the read model has ``finished`` tables ended."""
    for _ in range(200):
        page = ok(await client.get(f"/tournaments/{tournament}/standings", headers=OPERATOR))
        tables = page["standings"]["tables"].values()
        if sum(1 for table in tables if table["finished"]) == finished:
            return page["standings"]
        await asyncio.sleep(0.05)
    raise AssertionError(f"the standings never counted {finished} finished tables")
