"""The few places where the four Pinochle games differ, as one protocol (python-chess style).

The 3A machinery (deal, auction, soloist, play) calls these hooks; each game id is a class
that sets them (:mod:`domain.pinochle.game` for 3A, :mod:`domain.pinochle.variants`).
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from domain.events import Event
from domain.pinochle.state import State


class Hooks(Protocol):
    id: ClassVar[str]
    # An auction for a widow decides a soloist (3A, 3.C); otherwise the dealer's last card
    # is turned up for trump and the dix may be exchanged for it (3.B, 3.D).
    auction: ClassVar[bool]
    # The soloist may concede, or the opponents to him, before the first lead (3A.5).
    concessions: ClassVar[bool]
    # The opponents claim melds too, once the soloist's first lead fixes trump (3.C).
    opponents_meld: ClassVar[bool]

    def active_seats(self, seats: int, dealer: int) -> tuple[int, ...]:
        """The seats dealt in, in order from the dealer's left."""
        ...

    def first_deal(self, state: State) -> list[Event]:
        """Events owed at the first deal (the kitty's ante)."""
        ...

    def thrown_in(self, state: State) -> list[Event]:
        """Events after an all-pass deal has been thrown in (``state`` already between deals)."""
        ...

    def conceded(self, state: State, by_soloist: bool, widowless: bool = False) -> list[Event]:
        """The settlement of a deal conceded before the first lead."""
        ...

    def score_deal(self, state: State) -> list[Event]:
        """The settlement after the last trick, and the end of the game if it has come."""
        ...
