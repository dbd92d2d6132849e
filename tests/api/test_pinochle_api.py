"""Pinochle over HTTP: whole tables for 3, 4 and 5 seats and every variant, and what each
seat may see (RULES 0.6: the widow until turned up, the burial, inactive seats)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from httpx import AsyncClient

from domain.pinochle.cards import PACK
from tests.domain.test_pinochle_rules import HAND_130
from tests.support.api import bearer, new_table, ok, play_to_end, seat_all
from tests.support.decks import WIDOW, active_packet_order, stack_deck
from tests.support.pinochle import pick_pinochle


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [
        pytest.param("pinochle", 3, {"deals": 2}, id="pinochle 3 seats"),
        pytest.param("pinochle", 4, {"deals": 2, "deal_packets": "4"}, id="pinochle 4 seats"),
        pytest.param(
            "pinochle", 5, {"deals": 2, "compulsory_opening": True}, id="pinochle 5 seats"
        ),
        pytest.param("pinochle-three", 3, {}, id="pinochle-three"),
        pytest.param("pinochle-four", 4, {}, id="pinochle-four"),
        pytest.param("pinochle-widow", 3, {}, id="pinochle-widow"),
    ],
)
async def test_a_whole_table_over_http(
    client: AsyncClient, game: str, seats: int, options: dict[str, Any]
) -> None:
    table = await new_table(client, game, seats, options=options)
    tokens = await seat_all(client, table["id"], seats)
    final = await play_to_end(client, table["id"], tokens, random.Random(3), pick=pick_pinochle)
    assert final["status"] == "finished" and final["game"] == game
    assert final["winners"]
    page = ok(await client.get(f"/tables/{table['id']}/events?limit=1000"))
    assert page["events"][0]["event"]["type"] == "table_created"
    if final["scoring"] == "chips":
        assert sum(final["scores"]) + (final["kitty"] or 0) == 0
    else:
        assert max(final["scores"]) >= 1000


@pytest.mark.parametrize(
    ("game", "options"),
    [
        pytest.param(
            "pinochle",
            {
                "scoring": "chips",
                "schedule": [{"bid": 250, "chips": 1}, {"bid": 400, "chips": 4}],
                "kitty": True,
                "kitty_shortfall": "what_is_there",
                "deals": 6,
                "min_bid": 250,
                "roundhouse": True,
                "compulsory_opening": True,
                "deal_packets": "4",
                "must_head_plain": True,
                "double_melds": True,
                "must_overtrump": True,
            },
            id="pinochle",
        ),
        pytest.param(
            "pinochle-widow",
            {
                "min_bid": 200,
                "roundhouse": False,
                "compulsory_opening": True,
                "deal_packets": "3",
                "must_head_plain": True,
                "double_melds": False,
                "must_overtrump": True,
            },
            id="pinochle-widow",
        ),
        pytest.param(
            "pinochle-four",
            {"must_head_plain": True, "double_melds": True, "must_overtrump": False},
            id="pinochle-four",
        ),
    ],
)
async def test_every_option_is_shown_in_every_seats_view(
    client: AsyncClient, game: str, options: dict[str, Any]
) -> None:
    """A seat can read the house rules it plays by from the table itself."""
    table = await new_table(client, game, 4 if game == "pinochle-four" else 3, options=options)
    assert table["options"] == options
    tokens = await seat_all(client, table["id"], len(table["seats"]))
    for token in tokens:
        view = ok(await client.get(f"/tables/{table['id']}", headers=bearer(token)))
        assert view["options"] == options


async def test_unknown_or_bad_options_are_refused(client: AsyncClient) -> None:
    for game, options in [
        ("pinochle", {"min_bid": 310}),
        ("pinochle", {"scoring": "points", "deals": 3}),
        ("pinochle", {"kitty": False, "kitty_shortfall": "opponents"}),
        ("pinochle-three", {"min_bid": 250}),
        ("pinochle-widow", {"scoring": "chips"}),
        ("pinochle", {"double_melds": "yes"}),
        ("pinochle-three", {"must_overtrump": 1}),
        ("pinochle-widow", {"double_melds": None}),
    ]:
        response = await client.post("/tables", json={"game": game, "seats": 3, "options": options})
        assert response.status_code == 400, options
        assert response.json()["code"] == "invalid-options"


async def test_widow_and_burial_stay_hidden_and_sitting_out_shows_nothing(
    client: AsyncClient,
) -> None:
    """Four seats, seat 3 deals and sits out; seat 0 wins the auction, buries, leads."""
    hand = HAND_130
    widow = ["KH", "JH", "TC"]
    deck = stack_deck({0: hand, WIDOW: widow}, active_packet_order((0, 1, 2), (3,) * 5, 3), PACK)
    table = await new_table(
        client, "pinochle", 4, options={"deals": 1}, first_dealer=3, deals=[{"deck": deck}]
    )
    tid = table["id"]
    tokens = await seat_all(client, tid, 4)

    async def view(seat: int) -> dict[str, Any]:
        return ok(await client.get(f"/tables/{tid}", headers=bearer(tokens[seat])))  # type: ignore[no-any-return]

    async def act(seat: int, command: dict[str, Any]) -> dict[str, Any]:
        answer = await client.post(
            f"/tables/{tid}/actions", json=command, headers=bearer(tokens[seat])
        )
        return ok(answer)  # type: ignore[no-any-return]

    sitting_out = await view(3)
    assert sitting_out["hand"] == [] and sitting_out["legal_actions"] == []
    assert sitting_out["active"] == [0, 1, 2]
    refused = await client.post(
        f"/tables/{tid}/actions", json={"type": "pass"}, headers=bearer(tokens[3])
    )
    assert refused.status_code == 409 and refused.json()["code"] == "not-a-player"
    for seat in (1, 3):
        assert (await view(seat))["widow"] is None
        events = ok(await client.get(f"/tables/{tid}/events", headers=bearer(tokens[seat])))
        dealt = next(e["event"] for e in events["events"] if e["event"]["type"] == "cards_dealt")
        assert dealt["rest"] is None
        assert [h is not None for h in dealt["hands"]] == [s == seat for s in range(4)]

    await act(0, {"type": "bid", "amount": 300})
    await act(1, {"type": "pass"})
    await act(2, {"type": "pass"})
    assert (await view(3))["widow"] == widow
    await act(0, {"type": "name_trump", "suit": "S"})
    mine = await view(0)
    best = next(a for a in mine["legal_actions"] if a["type"] == "meld")
    assert best["type"] == "meld" and isinstance(best["melds"], list)
    assert (
        sum(
            {"royal_marriage": 40, "marriage": 20, "queens_around": 60, "dix": 10}[m["kind"]]
            for m in best["melds"]
        )
        == 150
    )
    await act(0, best)
    await act(0, {"type": "bury", "cards": ["TS", "TC", "JS"]})
    for seat in (1, 3):
        seen = await view(seat)
        assert seen["buried"] is None and seen["trumps_buried"] is True
        events = ok(await client.get(f"/tables/{tid}/events", headers=bearer(tokens[seat])))
        buried = [e["event"] for e in events["events"] if e["event"]["type"] == "cards_buried"]
        assert buried == [
            {"type": "cards_buried", "seat": 0, "count": 3, "trumps": True, "cards": None}
        ]
    assert sorted((await view(0))["buried"]) == ["JS", "TC", "TS"]
    await act(0, {"type": "play", "card": "AH"})
    assert (await view(0))["phase"] == "play"
