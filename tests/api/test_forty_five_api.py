"""Auction Forty-Five over HTTP: four seat clients play a whole game to 120."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import msgspec

from domain import table as tables
from domain.cards import standard_pack
from domain.commands import SupplyDeck
from domain.events import CardsDealt, DealerDrawn, Event, SeedRevealed
from domain.fortyfive.state import Phase, State
from domain.protocol import Audience
from domain.registry import GAMES
from domain.shuffle import shuffle
from service.write.codec import event_decoder
from tests.support.api import OPERATOR, bearer, new_table, ok, seat_all
from tests.support.invariants import assert_only_known, cards_in
from tests.support.knowledge import Knowledge
from tests.support.playout import choose, pick_index

decode_event = event_decoder("forty-five").decode


async def event_records(
    client: Any, table_id: str, headers: dict[str, str], after: int = 0
) -> list[dict[str, Any]]:
    """Every event after ``after``, page by page, as the caller may see them."""
    records: list[dict[str, Any]] = []
    while True:
        url = f"/tables/{table_id}/events?after={after}&limit=200"
        page = ok(await client.get(url, headers=headers))
        records += page["events"]
        if not page["events"] or records[-1]["version"] == page["version"]:
            return records
        after = records[-1]["version"]


async def operator_events(client: Any, table_id: str, after: int = 0) -> list[Event]:
    records = await event_records(client, table_id, OPERATOR, after)
    return [decode_event(msgspec.json.encode(r["event"])) for r in records]


class Audit:
    """Follows the operator's event feed and checks every audience's view against it."""

    def __init__(self, client: Any, table_id: str, tokens: list[str]) -> None:
        self.client = client
        self.table_id = table_id
        self.headers: dict[Audience, dict[str, str]] = {
            **{seat: bearer(t) for seat, t in enumerate(tokens)},
            "spectator": {},
        }
        self.knowledge = Knowledge(list(self.headers))
        self.events: list[Event] = []
        # What each audience knew just after each version, for events seen later.
        self.known_at: dict[int, dict[Audience, Counter[str]]] = {}

    async def catch_up(self) -> None:
        for event in await operator_events(self.client, self.table_id, len(self.events)):
            self.events.append(event)
            public_now = self.knowledge.learn(event)
            self.known_at[len(self.events)] = {
                a: known + public_now for a, known in self.knowledge.known.items()
            }

    def check_view(self, audience: Audience, view: dict[str, Any]) -> None:
        known = self.knowledge.known[audience]
        assert_only_known(cards_in(view), known, f"the view of {audience}")

    def check_events(self, audience: Audience, records: list[dict[str, Any]]) -> None:
        for record in records:
            known = self.known_at[record["version"]][audience]
            assert_only_known(cards_in(record["event"]), known, f"{record} to {audience}")


async def test_four_seat_clients_play_a_whole_game_and_replay_matches(client: Any) -> None:
    """Legal actions only; the operator's final view equals a fresh replay of the events."""
    rng = random.Random(45)
    table = await new_table(client)
    table_id = table["id"]
    tokens = await seat_all(client, table_id, 4)
    audit = Audit(client, table_id, tokens)
    view = ok(await client.get(f"/tables/{table_id}"))
    while view["status"] != "finished":
        await audit.catch_up()
        audit.check_view("spectator", ok(await client.get(f"/tables/{table_id}")))
        seat = view["to_act"][0]
        mine = ok(await client.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
        audit.check_view(seat, mine)
        actions = mine["legal_actions"]
        command = choose(actions[pick_index(actions, rng)], rng)
        answer = ok(
            await client.post(
                f"/tables/{table_id}/actions", json=command, headers=bearer(tokens[seat])
            )
        )
        await audit.catch_up()
        audit.check_events(seat, answer["events"])
        audit.check_view(seat, answer["table"])
        view = answer["table"]
    assert max(view["scores"]) >= 120

    replayed = tables.fold(await operator_events(client, table_id))
    final = ok(await client.get(f"/tables/{table_id}", headers=OPERATOR))
    assert msgspec.to_builtins(tables.view(replayed, "operator")) == final

    for audience, headers in audit.headers.items():
        await check_event_feed_hides_cards(client, table_id, audience, headers)


async def check_event_feed_hides_cards(
    client: Any, table_id: str, audience: Audience, headers: dict[str, str]
) -> None:
    """Walk the audience's own feed beside the operator's: nothing unseen shows."""
    truth = await operator_events(client, table_id)
    records = await event_records(client, table_id, headers)
    assert [r["version"] for r in records] == list(range(1, len(truth) + 1))
    knowledge = Knowledge([audience])
    for event, record in zip(truth, records, strict=True):
        public_now = knowledge.learn(event)
        shown = cards_in(record["event"])
        known = knowledge.known[audience] + public_now
        assert_only_known(shown, known, f"{record} to {audience}")
        if record["event"]["type"] == "seed_revealed":
            assert record["event"]["seed"] is None


async def test_every_deal_commitment_matches_its_revealed_seed(client: Any) -> None:
    """DESIGN 5: sha256(seed) is the commitment, and the seed's deck deals the hands."""
    rng = random.Random(7)
    table = await new_table(client)
    tokens = await seat_all(client, table["id"], 4)
    for _ in range(40):  # enough commands to finish a deal or two
        view = ok(await client.get(f"/tables/{table['id']}"))
        seat = view["to_act"][0]
        mine = ok(await client.get(f"/tables/{table['id']}", headers=bearer(tokens[seat])))
        command = choose(mine["legal_actions"][pick_index(mine["legal_actions"], rng)], rng)
        await client.post(
            f"/tables/{table['id']}/actions", json=command, headers=bearer(tokens[seat])
        )
    history = await operator_events(client, table["id"])
    seeds = {e.shuffle: e.seed for e in history if isinstance(e, SeedRevealed)}
    deals = [e for e in history if isinstance(e, CardsDealt)]
    draws = [e for e in history if isinstance(e, DealerDrawn)]
    assert draws and len(deals) >= 2 and len(seeds) >= 2
    for chance in [*draws, *deals]:
        seed = seeds.get(chance.shuffle)
        if seed is None:
            continue  # the deal still in play keeps its seed secret
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == chance.commitment
        if isinstance(chance, CardsDealt):
            deck = shuffle(standard_pack(), bytes.fromhex(seed))
            state = State(phase=Phase.DEAL, dealer=chance.dealer, deal=chance.deal - 1)
            supply = SupplyDeck(deck=deck, commitment=chance.commitment, shuffle=chance.shuffle)
            assert GAMES["forty-five"].decide(state, supply, "system") == [chance]


async def test_operator_supplied_decks_are_dealt_in_order_and_committed(client: Any) -> None:
    decks = [list(shuffle(standard_pack(), bytes([i]) * 32)) for i in range(2)]
    table = await new_table(client, first_dealer=3, deals=[{"deck": d} for d in decks])
    assert table["dealer"] == 3
    await seat_all(client, table["id"], 4)
    history = await operator_events(client, table["id"])
    dealt = next(e for e in history if isinstance(e, CardsDealt))
    assert dealt.hands[0] == decks[0][0:3] + decks[0][12:14]  # seat 0 is left of dealer 3
    assert dealt.commitment == hashlib.sha256(" ".join(decks[0]).encode()).hexdigest()
