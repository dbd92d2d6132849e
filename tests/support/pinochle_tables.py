"""Golden-test tables for Pinochle: stacked deals, a quick auction, a deal played out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain import RULES_ENGINE_VERSION
from domain import table as tables
from domain.commands import Bid, LegalAction, Meld, MeldOffer, Pass, Play
from domain.events import Event, HandScored
from domain.pinochle.cards import PACK
from domain.pinochle.deal import everyone, sitting_in
from domain.pinochle.events import ChipsSettled
from domain.pinochle.state import State
from tests.support.decks import WIDOW, active_packet_order, stack_deck
from tests.support.playout import Playout

PACKETS = {"pinochle-three": (4, 4, 4, 4), "pinochle-four": (3, 3, 3, 3)}


def deal_table(
    hands: dict[int, Sequence[str]],
    widow: Sequence[str] = (),
    *,
    game: str = "pinochle",
    seats: int = 3,
    dealer: int = 2,
    options: dict[str, Any] | None = None,
    engine: str = RULES_ENGINE_VERSION,
) -> Playout:
    """A seated table whose first deal gives ``hands`` (and ``widow``); the dealer fixed;
    created under rules engine ``engine``.

    Cards not named fill the deck in pack order; later deals are shuffled.
    """
    options = options or {}
    if game in PACKETS:
        order = active_packet_order(everyone(seats, dealer), PACKETS[game])
    else:
        packets = (3, 3, 3, 3, 3) if options.get("deal_packets", "3") == "3" else (4, 4, 4, 3)
        order = active_packet_order(sitting_in(seats, dealer), packets, widow=3)
    deck = stack_deck({**hands, WIDOW: widow}, order, PACK)
    created = tables.create("golden", game, seats, options, first_dealer=dealer, decks=[deck])
    created = msgspec.structs.replace(created, rules_version=engine)
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    return playout


def state_of(playout: Playout) -> State:
    state = playout.table.state
    assert isinstance(state, State)
    return state


def win_auction(playout: Playout, soloist: int, amount: int = 300) -> list[Event]:
    """``soloist`` bids ``amount`` when his turn comes; everyone else passes."""
    events: list[Event] = []
    while state_of(playout).soloist is None:
        seat = tables.to_act(playout.table)[0]
        command = Bid(amount=amount) if seat == soloist else Pass()
        events = playout.act(seat, command)
    return events


def play_out_deal(playout: Playout) -> list[Event]:
    """Play the first legal card (or claim the best melds) for whoever is to act, until the
    deal is settled; the events of the deal from here on."""
    events: list[Event] = []
    deal = state_of(playout).deal
    while state_of(playout).deal == deal and playout.table.status == "playing":
        seat = tables.to_act(playout.table)[0]
        actions = tables.legal_actions(playout.table, seat)
        plays = [a for a in actions if isinstance(a, Play)]
        events += playout.act(seat, plays[0] if plays else best_meld(actions))
    return events


def best_meld(actions: list[LegalAction]) -> Meld:
    """The ready-to-send best claim, which legal actions offer first among the melds."""
    offer = next(a for a in actions if isinstance(a, MeldOffer))
    assert isinstance(offer.melds, list)
    return Meld(melds=offer.melds)


def settlement(events: list[Event]) -> HandScored | ChipsSettled:
    """The deal's settlement among ``events`` (the ante aside)."""
    found = [
        e
        for e in events
        if isinstance(e, HandScored) or (isinstance(e, ChipsSettled) and e.reason != "ante")
    ]
    return found[0]
