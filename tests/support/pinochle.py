"""Pinochle test support: a biased random player, and the count-aware knowledge checks.

The pack holds two copies of every card, so the shared set-based leak check
(:func:`tests.support.invariants.assert_only_known`) cannot see a leak of the *second*
copy of a card the audience already knows. Two count-aware checks close that gap:

- **Views: indistinguishability.** A view may depend only on what its audience may know.
  So the cards the audience cannot locate — the other hands, the widow until it is turned
  up, the burial for anyone but the soloist — are shuffled among those same places (each
  place keeping its size) and the view must come out byte-identical. Any trace of a
  hidden copy's whereabouts (which seat, the widow, the burial; one copy or both) would
  differ after the shuffle. Public facts the view shows (claims, "trumps buried") are
  recorded in the state as facts, so they survive the shuffle as they should.
- **Events: the redaction policy, counted.** Each event kind may show an audience only
  a fixed multiset: ``cards_dealt`` the audience's own hand, ``cards_buried`` the burial
  to the soloist alone, and the public events what they carry. Any other event kind must
  show no card. Multisets are compared, so one extra copy of a card fails.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
from msgspec.structs import replace

from domain import table as tables
from domain.commands import LegalAction, MeldClaim
from domain.events import (
    CardPlayed,
    CardsDealt,
    DealerDrawn,
    Event,
    TrickWon,
)
from domain.pinochle.events import (
    CardsBuried,
    DixExchanged,
    MeldsClaimed,
    TrumpTurnedUp,
    WidowTurnedUp,
)
from domain.pinochle.melds import exposure
from domain.pinochle.state import Phase, State
from domain.protocol import Audience
from domain.table import Table
from tests.support.invariants import CARD_TEXT, cards_in
from tests.support.playout import Playout

_encode = msgspec.json.encode


# --- a random player that finishes games ----------------------------------------------------


def pick_pinochle(actions: list[dict[str, Any]], rng: random.Random, pass_rate: float = 0.6) -> int:
    """Any legal action, biased so that deals get played and games end.

    Mostly: pass or make the lowest bid; take the widow; name trump, then claim (usually
    the offered best claim) and bury, then lead; exchange a dix; claim the best melds.
    Now and then: revise, concede, claim a random sub-claim.
    """
    kinds = [a["type"] for a in actions]
    if len(actions) == 1:
        return 0

    def first(kind: str) -> int:
        return kinds.index(kind)

    def some(kind: str) -> int:
        return rng.choice([i for i, k in enumerate(kinds) if k == kind])

    def claim() -> int:
        if rng.random() < 0.75:
            return first("meld")  # the best claim, ready to send, comes first
        return some("meld")

    if "bid" in kinds:
        if "pass" in kinds and rng.random() < pass_rate:
            return first("pass")
        return first("bid") if rng.random() < 0.8 else some("bid")
    if "take_widow" in kinds:
        return first("take_widow") if rng.random() < 0.9 else first("concede")
    if "exchange_dix" in kinds:
        return first("exchange_dix") if rng.random() < 0.8 else first("pass")
    if "name_trump" in kinds:  # the soloist before his first lead
        if "meld" not in kinds:
            return (
                some("name_trump")
                if rng.random() < 0.97 or "concede" not in kinds
                else first("concede")
            )
        if "play" in kinds:
            roll = rng.random()
            if roll < 0.9:
                return some("play")
            if roll < 0.93 and "concede" in kinds:
                return first("concede")
            return rng.randrange(len(actions))
        return first("bury") if "bury" in kinds and rng.random() < 0.5 else claim()
    if kinds and set(kinds) == {"meld"}:
        return claim()
    return rng.randrange(len(actions))


class PinochlePlayout(Playout):
    """A playout whose opponents sometimes concede to the soloist before his first lead."""

    def __init__(self, created: Event, seed: int, concede_rate: float = 0.02) -> None:
        super().__init__(created, seed)
        self.concede_rate = concede_rate

    def choose_seat(self) -> int:
        state: State = self.table.state
        if state.phase is Phase.PREPARE and self.rng.random() < self.concede_rate:
            willing = [s for s in state.opponents if tables.legal_actions(self.table, s)]
            if willing:
                return self.rng.choice(willing)
        return super().choose_seat()

    def pick(self, actions: list[LegalAction]) -> LegalAction:
        return actions[pick_pinochle(msgspec.to_builtins(actions), self.rng)]


# --- knowledge: which cards each audience may see ----------------------------------------------


def claim_cards(melds: list[MeldClaim]) -> Counter[str]:
    return exposure(melds)


def shown(event: Event) -> Counter[str]:
    """The cards an event shows, each copy once (a meld claim shows a card used in two
    classes once)."""
    if isinstance(event, MeldsClaimed):
        return claim_cards(event.melds)
    return cards_in(event)


def allowed(event: Event, audience: Audience) -> Counter[str] | None:
    """The most an event may show ``audience`` (None: anything it carries — public)."""
    match event:
        case CardsDealt(hands=hands):
            own = hands[audience] if isinstance(audience, int) else None
            return Counter(own or ())
        case CardsBuried(seat=seat, cards=cards):
            return Counter(cards or ()) if seat == audience else Counter()
        case (
            DealerDrawn()
            | WidowTurnedUp()
            | MeldsClaimed()
            | TrumpTurnedUp()
            | DixExchanged()
            | CardPlayed()
            | TrickWon()
        ):
            return None
    return Counter()


def codes_in(obj: Any) -> set[str]:
    """The card codes anywhere in ``obj`` (the set-based check needs no counts)."""
    return {m.decode() for m in CARD_TEXT.findall(_encode(obj))}


def check_event_redaction(event: Event, seen: Event, audience: Audience) -> None:
    """The redacted ``seen`` shows ``audience`` no more copies than the policy allows."""
    limit = allowed(event, audience)
    if limit is None:
        return
    extra = shown(seen) - limit
    assert not extra, f"{type(event).__name__} shows {audience} hidden cards: {sorted(extra)}"


class Knowledge:
    """Card codes each audience has legitimately seen this deal (for the set-based check)."""

    def __init__(self, audiences: list[Audience]) -> None:
        self.known: dict[Audience, set[str]] = {a: set() for a in audiences}

    def learn(self, event: Event) -> set[str]:
        """Update with ``event``; the cards public for this event alone (the dealer draw)."""
        public: set[str] = set()
        match event:
            case CardsDealt(hands=hands):
                for audience, known in self.known.items():
                    known.clear()
                    if isinstance(audience, int):
                        known.update(hands[audience] or ())
            case CardsBuried(seat=seat, cards=cards):
                if seat in self.known:
                    self.known[seat].update(cards or ())
            case DealerDrawn(cards=cards):
                return {c for c in cards if c}
            case MeldsClaimed(melds=melds):
                public = set(claim_cards(melds))
            case _:
                public = set(cards_in(event))
        for known in self.known.values():
            known |= public
        return set()


# --- views: indistinguishability ---------------------------------------------------------------


def hidden_places(state: State, audience: Audience) -> list[tuple[str, int | None]]:
    """Where cards lie that ``audience`` cannot locate: other hands, the widow until it is
    turned up, the burial unless ``audience`` is the soloist."""
    places: list[tuple[str, int | None]] = [
        ("hand", s) for s in range(state.seats) if s != audience and state.hands[s]
    ]
    if state.widow and not state.widow_up:
        places.append(("widow", None))
    if state.buried and audience != state.soloist:
        places.append(("buried", None))
    return places


def shuffled_hidden(state: State, audience: Audience, rng: random.Random) -> State | None:
    """``state`` with the hidden cards dealt afresh among the hidden places (sizes kept)."""
    places = hidden_places(state, audience)
    slots: list[tuple[str, ...]] = []
    for kind, seat in places:
        if kind == "hand":
            assert seat is not None
            slots.append(state.hands[seat])
        else:
            slots.append(state.widow if kind == "widow" else state.buried)
    pool = [c for slot in slots for c in slot]
    if len(places) < 2 or len(set(pool)) < 2:
        return None  # nothing can move between places: the check would be vacuous
    rng.shuffle(pool)
    hands = list(state.hands)
    widow, buried = state.widow, state.buried
    start = 0
    for (kind, seat), slot in zip(places, slots, strict=True):
        cards = tuple(sorted(pool[start : start + len(slot)]))
        start += len(slot)
        if kind == "hand":
            assert seat is not None
            hands[seat] = cards
        elif kind == "widow":
            widow = cards
        else:
            buried = cards
    return replace(state, hands=tuple(hands), widow=widow, buried=buried)


def check_view_indistinguishable(table: Table[Any], audience: Audience, rng: random.Random) -> None:
    state = shuffled_hidden(table.state, audience, rng)
    if state is None:
        return
    before = _encode(tables.view(table, audience))
    after = _encode(tables.view(replace(table, state=state), audience))
    assert before == after, f"the view of {audience} depends on cards it may not see"


def cards_accounted_for(state: State, pack: tuple[str, ...]) -> None:
    """Hands, widow, burial, the trick and the tricks hold the whole pack, duplicates too."""
    if state.phase in (Phase.DRAW, Phase.DEAL, Phase.FINISHED):
        return
    cards = [c for hand in state.hands for c in hand]
    cards += [*(() if state.widow_up else state.widow), *state.buried]
    cards += [p.card for p in state.trick]
    cards += [p.card for trick in state.tricks for p in trick.cards]
    assert Counter(cards) == Counter(pack)
