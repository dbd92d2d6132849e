"""Events only Auction Pitch records. THIS IS THE STORAGE FORMAT — version with care."""

from __future__ import annotations

from domain.events import Event


class PitchChipsSettled(Event, frozen=True, tag="pitch_chips_settled"):
    """The chip settlement at the end of a game (RULES 2.8).

    ``chips[seat]`` is what the seat receives (positive: the winner) or pays (negative);
    they sum to zero. ``setbacks[seat]`` counts the times the seat was set back, which
    the ``setback_chip`` option charges for.
    """

    winner: int
    chips: list[int]
    setbacks: list[int]
