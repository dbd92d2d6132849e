"""Duplicate deals: a tournament's decks are dealt at each of its tables, and the report
compares, deal by deal, how each table bid, played and scored the same cards."""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from typing import Any

import msgspec
import psycopg
import pytest
from httpx import AsyncClient
from litestar import Litestar

from domain.cards import pinochle_pack
from domain.events import CardsDealt, DealThrownIn, Event, HandScored
from domain.registry import GAMES
from service.audit.render import render_tournament
from service.audit.tournament_verify import verify_tournament_lines
from service.audit.verify import verify_lines
from service.http.app import create_app
from service.settings import Settings
from service.write.codec import event_decoder
from service.write.handler import etag
from tests.support.api import OPERATOR, bearer, ok
from tests.support.audit import Player, document_of, export, lines_of, new_game, play
from tests.support.live import serving
from tests.support.refusals import assert_problem, stored
from tests.support.tournaments import enter, finished, open_event

CARD = re.compile(r'"[2-9TJQKA][CDHS]"')


def shuffled_decks(game: str, count: int, seed: int) -> list[list[str]]:
    pack = list(GAMES[game].pack)
    rng = random.Random(seed)
    return [rng.sample(pack, len(pack)) for _ in range(count)]


def commitment(deck: list[str]) -> str:
    return hashlib.sha256(" ".join(deck).encode()).hexdigest()


def events_of(document: bytes) -> list[Event]:
    header, *lines = lines_of(document)
    decode = event_decoder(header["game"]).decode
    return [decode(msgspec.json.encode(line["data"])) for line in lines]


def deal_results(events: list[Event]) -> list[dict[str, Any]]:
    """Each deal of a table as its events tell it, independently of the report's code."""
    deals: list[dict[str, Any]] = []
    for version, event in enumerate(events, start=1):
        if isinstance(event, CardsDealt):
            deals.append(
                {
                    "version": version,
                    "dealer": event.dealer,
                    "hands": event.hands,
                    "outcome": "in_play",
                    "contract": None,
                    "changes": [],
                    "scores": [],
                }
            )
        elif isinstance(event, DealThrownIn):
            deals[-1]["outcome"] = "thrown_in"
        elif isinstance(event, HandScored):
            deals[-1].update(
                outcome="scored",
                contract=msgspec.to_builtins(event.contract),
                changes=event.changes,
                scores=event.scores,
            )
    return deals


async def open_tournament(
    client: AsyncClient, game: str, decks: list[list[str]], first_dealer: int
) -> str:
    body = {
        "game": game,
        "name": f"{game} duplicate",
        "first_dealer": first_dealer,
        "deals": [{"deck": deck} for deck in decks],
    }
    return ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]  # type: ignore[no-any-return]


async def test_an_open_tournaments_tables_dealt_its_decks_are_closed_to_spectators(
    client: AsyncClient,
) -> None:
    """Every table the operator opens plays the same decks: watching one would show the
    players of another their cards."""
    tournament = await open_tournament(client, "pitch", shuffled_decks("pitch", 1, seed=5), 0)
    body = {"players": ["Ann", "Bob", "Cy"]}
    opened = await client.post(f"/tournaments/{tournament}/tables", json=body, headers=OPERATOR)
    path = f"/tables/{ok(opened, 201)['table']['id']}"
    for read in ("", "/events", "/scoresheet"):
        assert_problem(await client.get(f"{path}{read}"), 401, "unauthorized")
        ok(await client.get(f"{path}{read}", headers=OPERATOR))


async def test_a_spectators_long_poll_of_a_closed_table_is_refused_before_it_waits(
    settings: Settings,
) -> None:
    """A poll that parked first and was refused only when the table moved (or its wait
    ran out) would tell a spectator when a closed table's players act. Over a real
    socket, so that the guard can end a poll that parks for its full minute."""
    app = create_app(settings)
    async with serving(app) as base, AsyncClient(base_url=base, timeout=90) as http:
        decks = shuffled_decks("pitch", 1, seed=7)
        tournament = await open_tournament(http, "pitch", decks, 0)
        body = {"players": ["Ann", "Bob", "Cy"]}
        opened = await http.post(f"/tournaments/{tournament}/tables", json=body, headers=OPERATOR)
        table = ok(opened, 201)["table"]["id"]
        version = ok(await http.get(f"/tables/{table}", headers=OPERATOR))["version"]
        for tag in ("*", etag(version, "spectator")):
            for way in ("", "&by=route"):  # the view's short way, and the route
                poll = http.get(f"/tables/{table}?wait=60{way}", headers={"If-None-Match": tag})
                assert_problem(await asyncio.wait_for(poll, 20), 401, "unauthorized")
                assert app.state.watcher.waiting_for(table) == 0


async def test_an_open_tournament_finishes_once_its_tables_end_and_then_opens_them_to_all(
    client: AsyncClient, database_url: str
) -> None:
    tournament = await open_tournament(client, "pitch", shuffled_decks("pitch", 1, seed=6), 0)
    tables = f"/tournaments/{tournament}/tables"
    body = {"players": ["Ann", "Bob", "Cy"]}
    opened = await client.post(tables, json=body, headers=OPERATOR)
    table = ok(opened, 201)["table"]["id"]
    assert opened.headers["location"] == f"/tables/{table}"
    finish = f"/tournaments/{tournament}/finish"
    before = (await stored(database_url))[1:]  # computers play on elsewhere
    assert_problem(await client.post(finish, headers=OPERATOR), 409, "tables-in-play")
    assert (await stored(database_url))[1:] == before
    assert_problem(await client.get(f"/tables/{table}"), 401, "unauthorized")
    await operator_sees_table(client, tournament, table)
    standings = f"/tournaments/{tournament}/standings"
    assert not ok(await client.get(standings))["standings"]["tables"], "shown to anyone"

    ok(await client.post(f"/tables/{table}/abort", json={"reason": "void"}, headers=OPERATOR))
    done = ok(await client.post(finish, headers=OPERATOR))
    assert done["status"] == "finished"
    assert ok(await client.get(f"/tournaments/{tournament}"))["status"] == "finished"
    ok(await client.get(f"/tables/{table}"))  # a finished event's tables are anyone's to watch
    before = (await stored(database_url))[1:]  # computers play on elsewhere
    assert_problem(
        await client.post(tables, json=body, headers=OPERATOR), 409, "tournament-finished"
    )
    assert_problem(await client.post(finish, headers=OPERATOR), 409, "tournament-finished")
    assert (await stored(database_url))[1:] == before


async def operator_sees_table(client: AsyncClient, tournament: str, table: str) -> None:
    """Once the read model has the table (it follows the store)."""
    standings = f"/tournaments/{tournament}/standings"
    for _ in range(100):
        if table in ok(await client.get(standings, headers=OPERATOR))["standings"]["tables"]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the standings never showed the table to the operator")


@pytest.mark.parametrize(
    "deal",
    [
        {"deck": "PACK", "\u0000": ["x"]},  # an unknown field, named with a NUL
        {"deck": "PACK", "note": ["\u0000"]},
        {"cards": "PACK"},  # no deck
        {"deck": ["\u0000"]},
    ],
    ids=["nul-field", "unknown-field", "no-deck", "nul-card"],
)
async def test_a_tables_own_deals_take_decks_alone_and_refuse_the_rest(
    client: AsyncClient, database_url: str, deal: dict[str, Any]
) -> None:
    """400 and nothing stored: a deal is ``{"deck": [...]}`` and nothing more, which the
    stored command would otherwise keep for good (a NUL even failed the write with 500)."""
    body = {"game": "pitch", "name": "Open night"}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    pack = shuffled_decks("pitch", 1, seed=3)[0]
    sent = {k: pack if v == "PACK" else v for k, v in deal.items()}
    before = await stored(database_url, tournament)
    refused = await client.post(
        f"/tournaments/{tournament}/tables",
        json={"players": ["Ann", "Bob"], "deals": [sent]},
        headers=OPERATOR,
    )
    assert_problem(refused, 400, "invalid-deck")
    assert await stored(database_url, tournament) == before


@pytest.mark.parametrize("dealt", [True, False], ids=["table-dealt-decks", "shuffled"])
async def test_an_open_tournaments_standings_hide_tables_dealt_decks_while_they_play(
    client: AsyncClient, dealt: bool
) -> None:
    """Decks given to one table (not the tournament) share deals as much as the
    tournament's do; a tournament of shuffled tables shows its standings to anyone."""
    body = {"game": "pitch", "name": "Open night"}
    tournament = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)["id"]
    table_body: dict[str, Any] = {"players": ["Ann", "Bob", "Cy"]}
    if dealt:
        table_body["deals"] = [{"deck": shuffled_decks("pitch", 1, seed=8)[0]}]
    opened = await client.post(
        f"/tournaments/{tournament}/tables", json=table_body, headers=OPERATOR
    )
    table = ok(opened, 201)["table"]["id"]
    await operator_sees_table(client, tournament, table)
    shown = ok(await client.get(f"/tournaments/{tournament}/standings"))["standings"]
    assert (table in shown["tables"]) is not dealt


@pytest.mark.parametrize(
    ("game", "seats"),
    [pytest.param("forty-five", 4, id="partnerships"), pytest.param("pitch", 3, id="individual")],
)
async def test_every_table_plays_the_tournament_decks_and_the_report_compares_them(
    client: AsyncClient, app: Litestar, game: str, seats: int
) -> None:
    decks = shuffled_decks(game, 2, seed=seats)
    tournament = await open_tournament(client, game, decks, first_dealer=1)
    shown = await client.get(f"/tournaments/{tournament}")
    assert (shown.json()["duplicate_deals"], shown.json()["first_dealer"]) == (2, 1)
    assert not CARD.search(shown.text), "the public tournament shows a card of its decks"

    own = shuffled_decks(game, 1, seed=99)
    table_ids: list[str] = []
    for index, extra in enumerate([{}, {}, {"deals": [{"deck": own[0]}]}]):
        players = [f"{game[0]}{index}-{seat}" for seat in range(seats)]
        created = ok(
            await client.post(
                f"/tournaments/{tournament}/tables",
                json={"players": players, **extra},
                headers=OPERATOR,
            ),
            201,
        )
        table_id = created["table"]["id"]
        table_ids.append(table_id)
        player = Player(game, seats, {}, seed=index)
        await play(client, app.state.service, table_id, player, until=lambda t: t.deals >= 3)

    exports = [await export(client, t) for t in table_ids]
    for document in exports:
        assert verify_lines(document.splitlines()).ok
    created_events = [events_of(d)[0] for d in exports]
    assert [e.decks for e in created_events] == [decks, decks, own]  # type: ignore[attr-defined]
    assert all(e.first_dealer == 1 for e in created_events)  # type: ignore[attr-defined]
    results = [deal_results(events_of(d)) for d in exports]
    # The same deck, the same dealer: every seat got the same hand at both tables.
    for deal in (0, 1):
        assert results[0][deal]["hands"] == results[1][deal]["hands"]
    assert results[2][0]["hands"] != results[0][0]["hands"]

    report = ok(await client.get(f"/tournaments/{tournament}/deals", headers=OPERATOR))
    assert (report["tournament"], report["game"], report["decks"]) == (tournament, game, 2)
    expected = [
        (1, commitment(decks[0]), table_ids[:2]),
        (1, commitment(own[0]), table_ids[2:]),
        (2, commitment(decks[1]), table_ids[:2]),
    ]
    assert [
        (d["deal"], d["commitment"], [t["table"] for t in d["tables"]]) for d in report["deals"]
    ] == expected
    for deal in report["deals"]:
        for entry in deal["tables"]:
            index = table_ids.index(entry["table"])
            truth = results[index][deal["deal"] - 1]
            assert entry["players"] == [f"{game[0]}{index}-{s}" for s in range(seats)]
            for key in ("version", "dealer", "outcome", "contract", "changes", "scores"):
                assert entry[key] == truth[key], (key, entry, truth)
            if truth["contract"] is not None:
                assert entry["declarer"] == entry["players"][truth["contract"]["seat"]]
            assert entry["outcome"] in ("scored", "thrown_in")


async def test_the_deal_report_is_for_the_operator_only(client: AsyncClient) -> None:
    tournament = await open_tournament(client, "pitch", shuffled_decks("pitch", 1, 1), 0)
    created = ok(
        await client.post(
            f"/tournaments/{tournament}/tables", json={"players": ["A", "B"]}, headers=OPERATOR
        ),
        201,
    )
    url = f"/tournaments/{tournament}/deals"
    assert (await client.get(url)).status_code == 401
    as_seat = await client.get(url, headers=bearer(created["seats"][0]["token"]))
    assert as_seat.status_code == 403 and as_seat.json()["code"] == "operator-only"
    unknown = await client.get(
        "/tournaments/00000000-0000-4000-8000-000000000000/deals", headers=OPERATOR
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "tournament-not-found"
    report = ok(await client.get(url, headers=OPERATOR))
    assert [len(d["tables"]) for d in report["deals"]] == [1]  # dealt, not yet scored
    assert report["deals"][0]["tables"][0]["outcome"] == "in_play"


async def test_only_tournament_tables_get_the_tournament_decks(client: AsyncClient) -> None:
    """Decks go only to tables opened through the tournament: nobody may play them early.

    Joining a tournament from ``POST /tables`` takes the operator's token; even then the
    table does not receive the tournament's decks."""
    tournament = await open_tournament(client, "pitch", shuffled_decks("pitch", 1, 2), 0)
    body = {"game": "pitch", "seats": 2, "tournament": tournament}
    anonymous = await client.post("/tables", json=body)
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "unauthorized"
    table = ok(await client.post("/tables", json=body, headers=OPERATOR), 201)
    ok(await client.post(f"/tables/{table['id']}/seats/0", json={"name": "A"}), 201)
    ok(await client.post(f"/tables/{table['id']}/seats/1", json={"name": "B"}), 201)
    created = events_of(await export(client, table["id"]))[0]
    assert created.decks is None  # type: ignore[attr-defined]
    report = ok(await client.get(f"/tournaments/{tournament}/deals", headers=OPERATOR))
    assert report["deals"] == []


async def test_a_tournament_deck_that_is_not_the_pack_is_refused(
    client: AsyncClient, database_url: str
) -> None:
    def count() -> int:
        with psycopg.connect(database_url) as conn:
            row = conn.execute("SELECT count(*) FROM tournaments").fetchone()
        assert row is not None
        return int(row[0])

    before = count()
    wrong_copies = [c for c in pinochle_pack() if c != "9S"] + ["AS"]  # 48 cards, 3 AS
    short = list(GAMES["pitch"].pack)[:51]
    for game, deck in (("pinochle-three", wrong_copies), ("pitch", short)):
        body = {"game": game, "name": "bad", "deals": [{"deck": deck}]}
        refused = await client.post("/tournaments", json=body, headers=OPERATOR)
        assert refused.status_code == 400, refused.text
        assert refused.json()["code"] == "invalid-deck"
    assert count() == before


async def test_an_open_tournaments_export_holds_every_table_it_opened(
    client: AsyncClient,
) -> None:
    """An open tournament has no rounds: its tables are the ones the operator opened for
    it, each recorded in its stream (``table_opened``), and its export carries each of
    them, verified as the tournament's; one left out is missed by name."""
    tournament = await open_tournament(client, "pitch", shuffled_decks("pitch", 2, seed=8), 0)
    opened = []
    for players in (["Ann", "Bob", "Cy"], ["Di", "Ed", "Flo"]):
        body = {"players": players}
        made = await client.post(f"/tournaments/{tournament}/tables", json=body, headers=OPERATOR)
        opened.append(ok(made, 201)["table"]["id"])
    ok(await client.post(f"/tables/{opened[1]}/abort", json={"reason": "void"}, headers=OPERATOR))
    answer = await client.get(f"/tournaments/{tournament}/export", headers=OPERATOR)
    lines = lines_of(ok_bytes(answer))
    assert lines[0]["tables"] == opened
    report = verify_tournament_lines(document_of(lines).splitlines())
    assert report.ok, render_tournament(report)
    assert list(report.tables) == opened
    assert any("0 paired by its rounds, 2 opened by hand" in c for c in report.checks)
    stream = [line for line in lines if line["type"] == "tournament_event"]
    recorded = [e["data"]["table"] for e in stream if e["data"]["type"] == "table_opened"]
    assert recorded == opened
    # A table taken out, from the header's list too: its table_opened names it.
    exports = lines[1 + len(stream) :]
    second = next(i for i, line in enumerate(exports) if line.get("table") == opened[1])
    short = document_of([{**lines[0], "tables": opened[1:]}, *stream, *exports[second:]])
    missed = verify_tournament_lines(short.splitlines())
    assert missed.failure is not None and missed.failure.table == opened[0]
    assert "missing" in missed.failure.message

    casual, _, _ = await new_game(client, "pitch")
    stranger = lines_of(await export(client, casual))
    forged = [{**lines[0], "tables": [*opened, casual]}, *lines[1:], *stranger]
    report = verify_tournament_lines(document_of(forged).splitlines())
    assert report.failure is not None, "a casual table passed for the tournament's"
    assert report.failure.table == casual
    assert "not opened for this tournament" in report.failure.message


def ok_bytes(response: Any) -> bytes:
    assert response.status_code == 200, response.text
    return response.content  # type: ignore[no-any-return]


async def test_a_revoked_seats_long_poll_is_refused_before_it_waits(settings: Settings) -> None:
    """A seat that left holds the ETag of the version its leave made, which is the one
    this process last heard: the poll must not park before the token is checked, or
    the time of its 401 would tell the player who left when the table moved."""
    app = create_app(settings)
    async with serving(app) as base, AsyncClient(base_url=base, timeout=90) as http:
        decks = shuffled_decks("pitch", 1, seed=9)
        tournament = await open_tournament(http, "pitch", decks, 0)
        body = {"players": ["Ann", "Bob", "Cy"]}
        opened = ok(
            await http.post(f"/tournaments/{tournament}/tables", json=body, headers=OPERATOR), 201
        )
        table = opened["table"]["id"]
        seat = next(s for s in opened["seats"] if s["seat"] not in opened["table"]["to_act"])
        left = await http.post(
            f"/tables/{table}/actions", json={"type": "leave"}, headers=bearer(seat["token"])
        )
        tag = ok(left) and left.headers["etag"]
        for way in ("", "&by=route"):  # the view's short way, and the route
            headers = {**bearer(seat["token"]), "If-None-Match": tag}
            poll = http.get(f"/tables/{table}?wait=60{way}", headers=headers)
            assert_problem(await asyncio.wait_for(poll, 20), 401, "unauthorized")
            assert app.state.watcher.waiting_for(table) == 0
        # The computer plays the seat left: stop the table, or it would go on moving
        # while later tests count the store's events.
        ok(await http.post(f"/tables/{table}/abort", json={"reason": "done"}, headers=OPERATOR))


async def test_a_closed_table_is_listed_to_the_operator_and_its_director_only(
    client: AsyncClient,
) -> None:
    """Its version in the listing would tell a spectator when it moves, as a long-poll
    would; once the event and the table are over it is anyone's to list."""
    body = {
        "game": "pitch",
        "name": "listed",
        "deals": [{"deck": shuffled_decks("pitch", 1, 4)[0]}],
    }
    event = ok(await client.post("/tournaments", json=body, headers=OPERATOR), 201)
    opened = await client.post(
        f"/tournaments/{event['id']}/tables",
        json={"players": ["Ann", "Bob", "Cy"]},
        headers=OPERATOR,
    )
    table = ok(opened, 201)["table"]["id"]
    other = ok(
        await client.post("/tournaments", json={**body, "name": "other"}, headers=OPERATOR), 201
    )

    async def listed(headers: dict[str, str]) -> bool:
        page = ok(await client.get(f"/tables?tournament={event['id']}", headers=headers))
        return table in [t["id"] for t in page["tables"]]

    assert await listed(OPERATOR) and await listed(bearer(event["director_token"]))
    assert not await listed({}) and not await listed(bearer(other["director_token"]))
    ok(await client.post(f"/tables/{table}/abort", json={"reason": "void"}, headers=OPERATOR))
    assert not await listed({}), "the event is not over"
    ok(await client.post(f"/tournaments/{event['id']}/finish", headers=OPERATOR))
    assert await listed({})


async def test_the_last_rounds_result_opens_no_table_while_one_is_still_at_the_decks(
    client: AsyncClient,
) -> None:
    """The last round's result finishes an event in rounds on its own, while a table the
    operator opened by hand may still be dealt the same decks: a table at them that has
    ended stays closed, and unlisted, until that one ends too."""
    decks = [{"deck": deck} for deck in shuffled_decks("pitch", 1, seed=8)]
    event = await open_event(client, "pitch", format="swiss", rounds=1, first_dealer=0, deals=decks)
    ann = await enter(client, event, name="Ann")
    await enter(client, event, name="Bot", computer=True)
    tables = f"/tournaments/{event['id']}/tables"
    ended, playing = [
        ok(await client.post(tables, json={"players": [p, f"{p}2"]}, headers=OPERATOR), 201)
        for p in ("Cy", "Di")
    ]
    ended, playing = ended["table"]["id"], playing["table"]["id"]
    director = bearer(event["director_token"])
    ok(await client.post(f"/tournaments/{event['id']}/rounds", headers=director), 201)
    ok(await client.post(f"/tables/{ended}/abort", json={"reason": "void"}, headers=OPERATOR))
    me = ok(await client.get(f"/tournaments/{event['id']}/me", headers=bearer(ann["token"])))
    resign = {"type": "resign"}
    ok(
        await client.post(
            f"/tables/{me['table']}/actions", json=resign, headers=bearer(me["token"])
        )
    )
    assert (await finished(client, event["id"]))["status"] == "finished"

    async def listed() -> bool:
        page = ok(await client.get(f"/tables?tournament={event['id']}"))
        return ended in [t["id"] for t in page["tables"]]

    for read in ("", "/events", "/scoresheet"):
        assert_problem(await client.get(f"/tables/{ended}{read}"), 401, "unauthorized")
    assert not await listed()
    ok(await client.post(f"/tables/{playing}/abort", json={"reason": "void"}, headers=OPERATOR))
    for read in ("", "/events", "/scoresheet"):
        ok(await client.get(f"/tables/{ended}{read}"))
    assert await listed()
