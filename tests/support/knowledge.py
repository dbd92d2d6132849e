"""What each audience has legitimately seen of the current deal, for leak checks."""

from __future__ import annotations

from collections import Counter

from domain.bridge.events import StageDealt
from domain.events import CardPlayed, CardsDealt, CardsExchanged, DealerDrawn, Event
from domain.protocol import Audience


class Knowledge:
    """What each audience has legitimately seen of the current deal."""

    def __init__(self, table_audiences: list[Audience]) -> None:
        self.known: dict[Audience, Counter[str]] = {a: Counter() for a in table_audiences}

    def learn(self, event: Event) -> Counter[str]:
        """Update with ``event``; cards public for this event alone (the dealer draw)."""
        for audience, known in self.known.items():
            match event:
                case CardsDealt(hands=hands):
                    known.clear()
                    if isinstance(audience, int):
                        known.update(hands[audience] or [])
                case CardsExchanged(seat=seat, drawn=drawn) if seat == audience:
                    known.update(drawn or [])
                case StageDealt(hands=hands) if isinstance(audience, int):
                    known.update(hands[audience] or [])  # Reserve Bridge's later stages
                case CardPlayed(card=card):
                    known[card] += 1
        if isinstance(event, DealerDrawn):
            return Counter(c for c in event.cards if c)
        return Counter()
