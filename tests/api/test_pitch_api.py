"""Auction Pitch over HTTP: whole games at every table size, with no hidden card leaking.

Every view and event a seat or spectator receives during the game is kept with its
version; at the end the operator's unredacted event feed says what each audience could
legitimately know at each version (its own hand of the current deal and the cards played
so far), and every kept document is checked against it.
"""

from __future__ import annotations

import random
import re
from typing import Any

import msgspec
import psycopg
import pytest
from httpx import AsyncClient, Response

from tests.domain.pitch_tables import BAD_OPTIONS
from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all
from tests.support.playout import choose, pick_index

CARD = re.compile(rb'"([2-9TJQKA][CDHS])"')
Audience = int | str


def shown(document: Any) -> set[bytes]:
    """Card codes in a JSON document (raw bytes, or a value re-encoded as JSON)."""
    raw = document if isinstance(document, bytes) else msgspec.json.encode(document)
    return set(CARD.findall(raw))


class Received:
    """Everything non-operator audiences were sent: (audience, version, cards shown)."""

    def __init__(self) -> None:
        self.documents: list[tuple[Audience, int, set[bytes], str]] = []

    def view(self, audience: Audience, response: Response) -> dict[str, Any]:
        view = ok(response)
        self.documents.append((audience, view["version"], shown(response.content), "view"))
        return view  # type: ignore[no-any-return]

    def events(self, audience: Audience, records: list[dict[str, Any]]) -> None:
        for record in records:
            event = record["event"]
            if event["type"] == "seed_revealed":
                assert event["seed"] is None, "a seed recomputes the undealt cards"
            self.documents.append((audience, record["version"], shown(event), event["type"]))


async def all_events(client: AsyncClient, table_id: str, headers: dict[str, str]) -> list[Any]:
    records: list[Any] = []
    while True:
        page = ok(
            await client.get(
                f"/tables/{table_id}/events",
                params={"after": records[-1]["version"] if records else 0, "limit": 1000},
                headers=headers,
            )
        )
        if not page["events"]:
            return records
        records.extend(page["events"])


def knowledge(
    operator_events: list[dict[str, Any]], seats: int
) -> dict[int, dict[Audience, set[bytes]]]:
    """Per version, the cards each audience may see: its hand of the deal and the cards
    played so far (plus, at a dealer draw, the cards drawn face up)."""
    known: dict[Audience, set[bytes]] = {a: set() for a in [*range(seats), "spectator"]}
    by_version: dict[int, dict[Audience, set[bytes]]] = {}
    for record in operator_events:
        event = record["event"]
        public_now: set[bytes] = set()
        if event["type"] == "cards_dealt":
            for audience in known:
                own = event["hands"][audience] if isinstance(audience, int) else []
                known[audience] = {c.encode() for c in own}
        elif event["type"] == "card_played":
            for cards in known.values():
                cards.add(event["card"].encode())
        elif event["type"] == "dealer_drawn":
            public_now = {c.encode() for c in event["cards"] if c}
        by_version[record["version"]] = {a: cards | public_now for a, cards in known.items()}
    return by_version


async def play_checked_game(client: AsyncClient, seats: int, rng: random.Random) -> dict[str, Any]:
    table_id = (await new_table(client, "pitch", seats))["id"]
    tokens = await seat_all(client, table_id, seats)
    received = Received()
    view = received.view("spectator", await client.get(f"/tables/{table_id}"))
    while view["status"] != "finished":
        seat = view["to_act"][0]
        mine = received.view(
            seat, await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat]))
        )
        actions = mine["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        answer = ok(
            await client.post(
                f"/tables/{table_id}/actions", json=command, headers=bearer(tokens[seat])
            )
        )
        received.events(seat, answer["events"])
        view = received.view(
            seat, await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat]))
        )
        other = rng.randrange(seats)
        received.view(other, await client.get(f"/tables/{table_id}", headers=bearer(tokens[other])))
        if view["pitcher"] is not None:
            assert view["bid"] is not None and view["high_bidder"] == view["pitcher"]

    operator_events = await all_events(client, table_id, OPERATOR)
    assert operator_events[-1]["version"] == view["version"]
    for seat in range(seats):
        received.events(seat, await all_events(client, table_id, bearer(tokens[seat])))
    received.events("spectator", await all_events(client, table_id, {}))
    allowed = knowledge(operator_events, seats)
    for audience, version, cards, what in received.documents:
        extra = cards - allowed[version][audience]
        assert not extra, f"{what} at version {version} shows {sorted(extra)} to {audience}"
    dealt = [r["event"] for r in operator_events if r["event"]["type"] == "cards_dealt"]
    assert all(len(e["rest"]) == 52 - 6 * seats for e in dealt)
    return view


@pytest.mark.parametrize("seats", range(2, 8))
async def test_a_whole_pitch_game_over_http_leaks_no_hidden_card(
    client: AsyncClient, seats: int
) -> None:
    """RULES 2.2 and 0.6: seats see their own hand and the cards played, never the undealt
    cards or another seat's hand, in views and event feeds alike."""
    final = await play_checked_game(client, seats, random.Random(seats))
    assert final["status"] == "finished" and len(final["winners"]) == 1
    winner = final["winners"][0]
    smudge = final["pitcher"] == winner and final["bid"] == 4
    assert final["scores"][winner] >= 7 or smudge
    assert final["chips"] is not None and sum(final["chips"]) == 0
    assert final["chips"][final["winners"][0]] > 0


# --- options are validated when a table is created -------------------------------------


def count_tables(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM tables").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("options", BAD_OPTIONS)
async def test_a_bad_or_unknown_option_is_refused_and_creates_nothing(
    client: AsyncClient, database_url: str, options: dict[str, Any]
) -> None:
    before = count_tables(database_url)
    response = await client.post("/tables", json={"game": "pitch", "seats": 4, "options": options})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["code"] == "invalid-options"
    assert next(iter(options)) in problem["detail"]
    assert count_tables(database_url) == before


async def test_every_option_value_is_accepted_and_shown_in_the_view(client: AsyncClient) -> None:
    options = {
        "low_point": "won",
        "all_pass": "stick_dealer",
        "setback_chip": True,
        "game_end": "highest",
    }
    view = await new_table(client, "pitch", 5, options=options)
    assert view["options"] == options
