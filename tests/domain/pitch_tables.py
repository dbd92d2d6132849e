"""Tables and deals shared by the Auction Pitch rule tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from msgspec.structs import replace

from domain import table as tables
from domain.cards import standard_pack
from domain.commands import Bid, Hold, Pass, Play
from domain.events import (
    Event,
    HandScored,
)
from tests.support.decks import packet_order, stack_deck
from tests.support.playout import Playout, act_all

Trick = list[tuple[int, str]]

# Options a Pitch table refuses (RULES 0: an option is one of RULES' named values): the
# rules tests and the API tests both try every one.
BAD_OPTIONS = [
    pytest.param({"low_point": "lowest"}, id="bad low_point"),
    pytest.param({"all_pass": "shoot"}, id="bad all_pass"),
    pytest.param({"setback_chip": "yes"}, id="setback_chip not a boolean"),
    pytest.param({"game_end": "lowest"}, id="bad game_end"),
    pytest.param({"kitty": True}, id="unknown option"),
]


def deal_table(
    hands: dict[int, list[str]],
    dealer: int,
    seats: int,
    options: dict[str, Any] | None = None,
    scores: Sequence[int] | None = None,
) -> Playout:
    """A seated table whose first deal gives ``hands``, the dealer and scores fixed."""
    deck = stack_deck(hands, packet_order(dealer, seats, (3, 3)), standard_pack())
    created = tables.create(
        "golden", "pitch", seats, options or {}, first_dealer=dealer, decks=[deck]
    )
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    if scores is not None:
        state = replace(playout.table.state, scores=tuple(scores))
        playout.table = replace(playout.table, state=state)
    return playout


def play_tricks(playout: Playout, tricks: Sequence[Trick]) -> list[Event]:
    return act_all(playout, [(seat, Play(card=card)) for trick in tricks for seat, card in trick])


def hands_of(tricks: Sequence[Trick]) -> dict[int, list[str]]:
    """The hands that ``tricks`` play out to the last card: each seat's cards, in order."""
    hands: dict[int, list[str]] = {}
    for seat, card in (play for trick in tricks for play in trick):
        hands.setdefault(seat, []).append(card)
    return hands


def only(events: list[Event], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, events
    return found[0]


def points(scored: HandScored) -> dict[str, int]:
    return {item.label: item.unit for item in scored.items}


# RULES 2.9, test case 1: four players, dealer 3; used by several tests.
DEALER_TAKES = {
    0: ["AH", "2C", "3S", "4S", "3D", "4D"],
    1: ["JH", "4H", "5S", "6S", "5D", "6D"],
    2: ["2H", "3C", "7S", "8S", "7D", "8D"],
    3: ["KH", "4C", "AS", "TS", "AD", "TD"],
}
DEALER_TAKES_AUCTION = [(0, Bid(amount=2)), (1, Pass()), (2, Bid(amount=3)), (3, Hold())]
DEALER_TAKES_TRICKS: list[Trick] = [
    [(3, "KH"), (0, "AH"), (1, "4H"), (2, "2H")],  # seat 1 keeps JH back
    [(0, "2C"), (1, "JH"), (2, "3C"), (3, "4C")],  # ... and wins a trick with it
    [(1, "5S"), (2, "7S"), (3, "AS"), (0, "3S")],
    [(3, "TS"), (0, "4S"), (1, "6S"), (2, "8S")],
    [(3, "AD"), (0, "3D"), (1, "5D"), (2, "7D")],
    [(3, "TD"), (0, "4D"), (1, "6D"), (2, "8D")],
]


def dealer_takes(options: dict[str, Any] | None = None) -> Playout:
    """RULES 2.9, test case 1, dealt: seat 3 deals to four seats; seat 0 bids first."""
    return deal_table(DEALER_TAKES, dealer=3, seats=4, options=options)
