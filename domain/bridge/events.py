"""Events only Reserve Bridge records. THIS IS THE STORAGE FORMAT — version with care.

The shared events of :mod:`domain.events` carry the rest: ``dealer_drawn``, ``cards_dealt``
(stage 1, with the deal's undealt rest hidden in ``rest``), ``bid_made``, ``passed``,
``auction_won``, ``deal_thrown_in``, ``card_played``, ``trick_won``, ``hand_scored`` and
``game_won``.
"""

from __future__ import annotations

from typing import Literal

from domain.cards import Card
from domain.events import Event, SeatAmount, SeatEvent


class StageDealt(Event, frozen=True, tag="stage_dealt"):
    """Two more cards to each player from the deal's one shuffle (stages 2-4, RULES 4.2)."""

    deal: int
    stage: int
    hands: list[list[Card] | None]


class SlamBidMade(SeatAmount, frozen=True, tag="slam_bid_made"):
    """A slam bid beyond the ``cap`` that applied: it may only be played as that slam."""

    cap: int


class BidStood(SeatAmount, frozen=True, tag="bid_stood"):
    """The opponent having passed, the player kept his ``amount`` for this round."""


class DenominationNamed(SeatEvent, frozen=True, tag="denomination_named"):
    denomination: str


class ContraCalled(SeatEvent, frozen=True, tag="contra_called"): ...


class RecontraCalled(SeatEvent, frozen=True, tag="recontra_called"): ...


class DenominationChanged(SeatEvent, frozen=True, tag="denomination_changed"):
    """After a contra the declarer moved to another denomination; the contra stands."""

    denomination: str
    previous: str


class ContractSettled(SeatAmount, frozen=True, tag="contract_settled"):
    """The contract to be played: ``seat`` is the declarer."""

    denomination: str
    doubling: Literal["none", "contra", "recontra"]
    odd_tricks: int


class HonoursAnnounced(SeatEvent, frozen=True, tag="honours_announced"):
    """Honours held once the deal is complete (RULES 4.7), scored above the line.

    Only the kind and count are announced, never the cards: the reserve is laid after
    this, and naming the cards would expose some of them [decision].
    """

    kind: Literal["run", "aces", "sevens"]
    count: int
    points: int


class ReserveLaid(SeatEvent, frozen=True, tag="reserve_laid"):
    """Three cards face down; ``cards`` is seen by their owner and the operator only."""

    cards: list[Card] | None = None


class PartieWon(SeatEvent, frozen=True, tag="partie_won"):
    """20 or more below the line in the current partie; ``parties`` won so far per seat."""

    parties: list[int]


class RubberWon(SeatEvent, frozen=True, tag="rubber_won"):
    """The second partie ends the rubber and the table (RULES 4.8).

    ``totals`` are every point each player scored; ``difference`` is the higher total
    less the lower, the result of the table.
    """

    parties: list[int]
    totals: list[int]
    difference: int
