"""Building operator decks that deal chosen hands, for golden tests."""

from __future__ import annotations

from collections.abc import Sequence


def cards(codes: str) -> list[str]:
    """Cards written as one string, e.g. ``cards("AS TS KS")``."""
    return codes.split()


def stack_deck(
    hands: dict[int, Sequence[str]], order: Sequence[int], pack: Sequence[str]
) -> list[str]:
    """A deck, top card first, whose dealing ``order`` (a seat per card) gives ``hands``.

    Cards named in no hand fill the rest of the deck in pack order.
    """
    wanted = {seat: list(cards) for seat, cards in hands.items()}
    used = [c for cards in hands.values() for c in cards]
    spare = list(pack)
    for card in used:
        spare.remove(card)
    deck = []
    for seat in order:
        deck.append(wanted[seat].pop(0) if wanted.get(seat) else spare.pop(0))
    assert not any(wanted.values()), "the dealing order does not reach every chosen card"
    return deck + spare


def forty_five_order(dealer: int) -> list[int]:
    """Seats in dealing order: 3 each then 2 each from the dealer's left (RULES 1.2)."""
    seats = [(dealer + 1 + i) % 4 for i in range(4)]
    return [s for s in seats for _ in range(3)] + [s for s in seats for _ in range(2)]


def packet_order(dealer: int, seats: int, packets: Sequence[int]) -> list[int]:
    """Seats in dealing order when each round gives every seat a packet, from the dealer's
    left: ``packet_order(3, 4, (3, 3))`` is Pitch's 3 + 3 at four seats (RULES 2.2)."""
    order = [(dealer + 1 + i) % seats for i in range(seats)]
    return [seat for size in packets for seat in order for _ in range(size)]


def reserve_bridge_order(dealer: int) -> list[int]:
    """Seats in dealing order: twos, non-dealer first; 10, 2, 2, 2 each (RULES 4.2)."""
    pair = [1 - dealer, 1 - dealer, dealer, dealer]
    return pair * 5 + pair * 3


WIDOW = -1  # a pseudo-seat for the widow in dealing orders


def active_packet_order(active: Sequence[int], packets: Sequence[int], widow: int = 0) -> list[int]:
    """Targets in dealing order: a packet to each seat of ``active`` per round, and after
    the first round ``widow`` cards to the widow (:data:`WIDOW`) — RULES 3A.2, 3.B."""
    order: list[int] = []
    for round_no, packet in enumerate(packets):
        order += [seat for seat in active for _ in range(packet)]
        if round_no == 0:
            order += [WIDOW] * widow
    return order
