"""Reserve Bridge over HTTP: a whole rubber between two seat clients, reserves kept hidden.

The operator supplies the decks so that the rubber is short and repeatable: every deal
gives the non-dealer all the aces, kings, queens and jacks, so he wins every trick at
no-trump whatever either side plays. Each client acts only on its own view; after every
command the opponent's and a spectator's view and event feed are read, and none may show
a reserve card that has not been played.
"""

from __future__ import annotations

import random
import re
from typing import Any

from httpx import AsyncClient

from domain.cards import piquet_pack
from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all
from tests.support.decks import reserve_bridge_order, stack_deck

CARD = re.compile(r'"([2-9TJQKA][CDHS])"')
HONOURS = "AKQJ"


def strong_deck() -> list[str]:
    """The non-dealer (whoever deals) gets every A, K, Q and J; the dealer the rest."""
    pack = piquet_pack()
    strong = [c for c in pack if c[0] in HONOURS]
    weak = [c for c in pack if c[0] not in HONOURS]
    return stack_deck({1: strong, 0: weak}, reserve_bridge_order(0), pack)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A seat's command from its own view: the strong hand bids 20 at no-trump."""
    actions = view["legal_actions"]
    kinds = {a["type"]: a for a in actions}
    strong = sum(c[0] in HONOURS for c in view["hand"]) >= len(view["hand"]) // 2
    match view["phase"]:
        case "auction":
            if strong and {"type": "bid", "amount": 20} in actions:
                return {"type": "bid", "amount": 20}
            return kinds.get("stand") or kinds["pass"]
        case "declare":
            return {"type": "declare", "denomination": "NT"}
        case "contra":
            return rng.choice(actions)  # type: ignore[no-any-return]
        case "recontra":
            return rng.choice([kinds["recontra"], kinds["accept"]])  # type: ignore[no-any-return]
        case "reserve":
            choice = kinds["reserve"]["cards"]
            return {"type": "reserve", "cards": rng.sample(choice["from"], choice["min"])}
    return rng.choice(actions)  # type: ignore[no-any-return]


class Watcher:
    """Reads one audience's view and new events; fails on any unplayed reserve card."""

    def __init__(self, client: AsyncClient, table_id: str, headers: dict[str, str]) -> None:
        self.client, self.table_id, self.headers = client, table_id, headers
        self.after = 0

    async def look(self, hidden: set[str]) -> dict[str, Any]:
        view = await self.client.get(f"/tables/{self.table_id}", headers=self.headers)
        page = await self.client.get(
            f"/tables/{self.table_id}/events", params={"after": self.after}, headers=self.headers
        )
        for response in (view, page):
            assert response.status_code == 200, response.text
            leaked = set(CARD.findall(response.text)) & hidden
            assert not leaked, f"reserve cards shown before they are played: {sorted(leaked)}"
        self.after = page.json()["version"]
        return view.json()  # type: ignore[no-any-return]


async def test_a_whole_rubber_over_http_never_shows_a_reserve_card_early(client) -> None:
    table = await new_table(
        client,
        "reserve-bridge",
        2,
        first_dealer=0,
        deals=[{"deck": strong_deck()} for _ in range(3)],
    )
    table_id = table["id"]
    tokens = await seat_all(client, table_id, 2)
    rng = random.Random(3)
    reserves: dict[int, set[str]] = {0: set(), 1: set()}
    played: set[str] = set()
    spectator = Watcher(client, table_id, {})
    opponents = {seat: Watcher(client, table_id, bearer(tokens[1 - seat])) for seat in (0, 1)}
    view = await spectator.look(set())
    laid = 0
    for _ in range(500):
        if view["status"] == "finished":
            break
        seat = view["to_act"][0]
        mine = ok(await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
        command = choose(mine, rng)
        answer = ok(
            await client.post(
                f"/tables/{table_id}/actions", json=command, headers=bearer(tokens[seat])
            )
        )
        if command["type"] == "reserve":
            reserves[seat] = set(command["cards"])
            assert answer["table"]["reserve"] == command["cards"]
            laid += 1
        for record in answer["events"]:
            event = record["event"]
            if event["type"] == "card_played":
                played.add(event["card"])
            if event["type"] == "cards_dealt":
                played.clear()
                reserves = {0: set(), 1: set()}
        await opponents[seat].look(reserves[seat] - played)
        view = await spectator.look((reserves[0] | reserves[1]) - played)
    assert view["status"] == "finished"
    assert laid == 6  # three deals, two reserves each

    # A's trick every deal: partie to seat 1, to seat 0, then seat 1's rubber at 2-1.
    sheet = view["sheet"]
    assert sheet["parties"] == [1, 2]
    assert view["winners"] == [1] and view["difference"] == abs(
        sheet["totals"][0] - sheet["totals"][1]
    )
    events = ok(await client.get(f"/tables/{table_id}/events", headers=OPERATOR))["events"]
    types = [e["event"]["type"] for e in events]
    assert types.count("hand_scored") == 3
    assert types[-5:] == ["hand_scored", "partie_won", "rubber_won", "game_won", "seed_revealed"]
