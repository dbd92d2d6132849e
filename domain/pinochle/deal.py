"""The deal: who sits in, and the packets dealt to them (RULES 3A.1, 3A.2, 3.B, 3.D)."""

from __future__ import annotations

from domain.commands import SupplyDeck
from domain.common.chance import deal_packets
from domain.common.tricks import clockwise_from, left_of
from domain.events import Event
from domain.pinochle.events import TrumpTurnedUp
from domain.pinochle.hooks import Hooks
from domain.pinochle.state import State


def sitting_in(seats: int, dealer: int) -> tuple[int, ...]:
    """3A.1: three active seats from the dealer's left. Four seats: the dealer sits out;
    five: the dealer and the player second to his left [decision, after Hoyle]."""
    out = {dealer, left_of(dealer, seats, 2)} if seats == 5 else {dealer}
    if seats == 3:
        out = set()
    return tuple(seat for seat in everyone(seats, dealer) if seat not in out)


def everyone(seats: int, dealer: int) -> tuple[int, ...]:
    """Every seat, from the dealer's left (the dealer last)."""
    return tuple(clockwise_from(left_of(dealer, seats), seats))


def deal(rules: Hooks, state: State, command: SupplyDeck) -> list[Event]:
    """Packets to the active seats from the dealer's left, the widow after the first round.

    The turn-up games deal every card; the dealer's last card is turned up (RULES 3.B).
    """
    dealer = state.dealer
    assert dealer is not None
    dealt = deal_packets(
        command,
        state,
        seats=state.seats,
        order=rules.active_seats(state.seats, dealer),
        packets=state.config.packets,
        widow=state.config.widow,
    )
    events: list[Event] = [dealt]
    if state.deal == 0:
        events += rules.first_deal(state)
    if not rules.auction:
        dealers = dealt.hands[dealer]
        assert dealers is not None
        events.append(TrumpTurnedUp(seat=dealer, card=dealers[-1]))
    return events
