"""The deck behind a deal still in play, taken back from the cards it dealt.

An exported deal whose seed is not revealed yet cannot be recomputed from its seed, but
every game takes its cards from the top of the deck by position alone (RULES 0.3, 0.4):
which card lands in which hand never depends on the cards. So the cards dealt give the
deck back, and the rules can then deal that deck again — producing the whole dealing
batch (a turned-up trump, an ante, a deal thrown in), event for event, for the verifier
to compare with the export. What stays unchecked is only whether the deck is the one the
hidden seed shuffles.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain import table as tables
from domain.cards import same_cards
from domain.events import CardsDealt, ChanceEvent, DealerDrawn
from domain.table import Table
from service.audit.entries import Mismatch


def deck_behind(
    table: Table[Any], dealt: ChanceEvent, pack: tuple[str, ...], version: int
) -> tuple[str, ...]:
    """A deck of ``pack`` that ``table``'s rules deal as ``dealt`` (exported at
    ``version``); :class:`Mismatch` when no deck does."""
    if isinstance(dealt, DealerDrawn):
        deck = _drawn(table, dealt, pack, version)
    elif isinstance(dealt, CardsDealt):
        deck = _dealt(table, dealt, pack, version)
    else:
        raise Mismatch(version, f"{type(dealt).__name__} deals no cards to take a deck from")
    if not same_cards(deck, pack):
        raise Mismatch(version, "the cards dealt are not exactly the pack")
    return deck


def _drawn(
    table: Table[Any], drawn: DealerDrawn, pack: tuple[str, ...], version: int
) -> tuple[str, ...]:
    """The draw gives one card from the top to each drawing seat in seat order; the rest of
    the deck is never seen, so any order of the remaining cards deals the same (a card
    drawn that is not the pack's leaves a deck that is not the pack either)."""
    drawing: tuple[int, ...] = table.state.drawing
    cards = [drawn.cards[seat] if seat < len(drawn.cards) else None for seat in drawing]
    shown = [card for card in cards if card is not None]
    if len(shown) != len(drawing):
        raise Mismatch(
            version, f"seats {list(drawing)} draw, and the export leaves one without a card"
        )
    left = Counter(pack)
    left.subtract(shown)
    return (*shown, *left.elements())


def _dealt(
    table: Table[Any], dealt: CardsDealt, pack: tuple[str, ...], version: int
) -> tuple[str, ...]:
    """Deal a deck of position marks ("0", "1", …) as the rules would: where each mark
    lands is where the card at that position of the real deck went."""
    marks = tuple(str(position) for position in range(len(pack)))
    probe = tables.supply(table, marks, dealt.commitment)[0]
    assert isinstance(probe, CardsDealt)
    (hands, aside), (their_hands, their_aside) = _shape(probe), _shape(dealt)
    if (hands, aside) != (their_hands, their_aside):
        raise Mismatch(
            version,
            f"the rules deal hands of {hands} cards with {aside} aside;"
            f" the export has {their_hands} with {their_aside}",
        )
    deck = [""] * len(pack)
    for mark, card in zip(_cards(probe), _cards(dealt), strict=True):
        deck[int(mark)] = card
    return tuple(deck)


def _shape(dealt: CardsDealt) -> tuple[list[int], int]:
    return [len(hand or ()) for hand in dealt.hands], len(dealt.rest or ())


def _cards(dealt: CardsDealt) -> list[str]:
    return [card for hand in dealt.hands for card in hand or ()] + list(dealt.rest or ())
