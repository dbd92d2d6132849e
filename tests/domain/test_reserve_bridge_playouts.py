"""Seeded random playouts of Reserve Bridge: 300 rubbers, legal actions only.

Each step checks that ``decide`` accepts exactly ``legal_actions`` (on a sample of legal
and illegal commands), that every card is accounted for, and that no view or redacted
event shows a card its audience has not seen — in particular no reserve card before it
is played. Each deal must have ten tricks (six of four cards, four of two) and the score
sheet must total its entries; each rubber must end with a player on two parties.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from domain import table as tables
from domain.bridge import rules
from domain.bridge.auction import window
from domain.bridge.events import ReserveLaid, RubberWon
from domain.bridge.game import RESERVE_BRIDGE
from domain.bridge.scoring import PARTIES_TO_WIN
from domain.bridge.state import Phase, State
from domain.cards import piquet_pack
from domain.commands import (
    Accept,
    Bid,
    Contra,
    Declare,
    Exchange,
    LegalAction,
    NameTrump,
    Pass,
    Play,
    PlayerCommand,
    Recontra,
    Reserve,
    Stand,
)
from domain.events import CardsDealt, Event, GameWon, HandScored, TrickWon
from domain.protocol import Audience
from tests.support.invariants import (
    LeakChecks,
    audiences,
    cards_in,
    check_decide_matches_legal_actions,
    check_replay,
)
from tests.support.knowledge import Knowledge
from tests.support.playout import Playout, played_out

RUBBERS = 300
PACK = piquet_pack()
DENOMINATIONS = ("C", "D", "H", "S", "NT", "NULLO")


class BridgePlayout(Playout):
    """Random legal play, biased so that auctions stay low and declarers make contracts.

    Unbiased play bids high, names any denomination and throws tricks away, so rubbers
    last forty deals; this keeps them near ten while every kind of call still occurs.
    """

    def pick(self, actions: list[LegalAction]) -> LegalAction:
        rng, state = self.rng, self.table.state
        if rng.random() < (0.03 if state.phase is Phase.AUCTION else 0.1):
            return rng.choice(actions)
        match state.phase:
            case Phase.AUCTION:
                return _auction_call(state, actions, rng)
            case Phase.DECLARE:
                return _best_denomination(state, actions)
            case Phase.PLAY:
                return _play(state, actions)
        return rng.choice(actions)


HONOUR_POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}
PARTIE_BID = 20


def _auction_call(state: State, actions: list[LegalAction], rng: random.Random) -> LegalAction:
    """Bid the minimum with a better than average hand, else pass or stand."""
    assert state.turn is not None
    hand = state.hands[state.turn]
    points = sum(HONOUR_POINTS.get(c[0], 0) for c in hand)
    longest = max(sum(c[1] == s for c in hand) for s in "CDHS")
    strong = points + longest > 1.6 * len(hand) + rng.randint(-2, 2)
    bids = [a for a in actions if isinstance(a, Bid)]
    if strong and bids:
        # Sometimes straight to a partie's worth (20), as far as the cap allows.
        reach = [b for b in bids if b.amount <= PARTIE_BID]
        return reach[-1] if reach and rng.random() < 0.4 else bids[0]
    return next((a for a in actions if isinstance(a, Pass | Stand)), rng.choice(actions))


def _best_denomination(state: State, actions: list[LegalAction]) -> LegalAction:
    """The denomination needing fewest odd tricks, the longest trump suit breaking ties."""
    assert state.turn is not None
    hand = state.hands[state.turn]

    def merit(action: LegalAction) -> int:
        assert isinstance(action, Declare)
        d = action.denomination
        length = sum(c[1] == d for c in hand) if d in "CDHS" else 4
        return length - 3 * rules.odd_tricks_needed(state.high_bid, d)

    return max(actions, key=merit)


def _play(state: State, actions: list[LegalAction]) -> LegalAction:
    """The declarer takes the trick as cheaply as he can; the defender plays low.

    In nullo the roles turn round: the defender tries to hand the declarer tricks.
    """
    trump = rules.trump_of(state.denomination)
    cards = [a.card for a in actions if isinstance(a, Play)]

    def cheapness(card: str) -> tuple[bool, int]:
        return card[1] == trump, rules.POWER[card[0]]

    cards.sort(key=cheapness)
    attacking = (state.turn == state.high_bidder) != (state.denomination == "NULLO")
    if not attacking or not state.trick:
        return Play(card=cards[0] if not attacking else cards[-1])
    plays = [(p.seat, p.card) for p in state.trick]
    if rules.trick_winner(plays, trump) == state.turn:
        return Play(card=cards[0])  # already winning: keep the good cards
    seat = state.turn
    assert seat is not None
    winning = [c for c in cards if rules.trick_winner([*plays, (seat, c)], trump) == seat]
    return Play(card=(winning or cards)[0])


def candidates(state: State, rng: random.Random) -> list[PlayerCommand]:
    """Commands, legal and illegal: the edges of the current phase and a few from others."""
    anywhere: list[PlayerCommand] = [
        Pass(),
        Stand(),
        Contra(),
        Recontra(),
        Accept(),
        Bid(amount=rng.choice([5, 6, 24, 32, 51])),
        Declare(denomination=rng.choice(DENOMINATIONS)),
        Play(card=rng.choice(PACK)),
        Reserve(cards=rng.sample(PACK, 3)),
        NameTrump(suit="S"),
        Exchange(discard=[]),
    ]
    pool = rng.sample(anywhere, 4)
    match state.phase:
        case Phase.AUCTION if state.turn is not None:
            edge = window(state, state.turn)
            top = edge.cap if edge.cap is not None else rules.MAX_BID
            amounts = {edge.low - 1, edge.low, top, top + 1, rng.choice(sorted(rules.SLAM_BIDS))}
            pool += [Pass(), Stand(), *(Bid(amount=a) for a in amounts)]
        case Phase.DECLARE | Phase.RECONTRA:
            pool += [Declare(denomination=d) for d in DENOMINATIONS]
        case Phase.RESERVE:
            for seat in (0, 1):
                hand = list(state.hands[seat])
                size = rng.choice([2, 3, 3, 4])
                pool.append(Reserve(cards=rng.sample(hand, min(size, len(hand)))))
        case Phase.PLAY:
            for seat in (0, 1):
                for cards in (state.hands[seat], state.reserves[seat]):
                    if cards:
                        pool.append(Play(card=rng.choice(cards)))
    return pool


def unplayed_reserves_of_others(state: State, audience: Audience) -> set[str]:
    return {c for seat in (0, 1) if seat != audience for c in state.reserves[seat]}


def check_cards_accounted_for(state: State) -> None:
    """Hands, reserves, the undealt rest, the trick and the tricks: the pack, once each."""
    if state.phase in (Phase.DRAW, Phase.DEAL, Phase.FINISHED):
        return
    cards = [c for part in (*state.hands, *state.reserves, state.stock) for c in part]
    cards += [p.card for p in state.trick]
    cards += [p.card for trick in state.tricks for p in trick.cards]
    assert Counter(cards) == Counter(PACK)
    dealt = sum(rules.STAGES[: state.stage])
    for seat in (0, 1):
        held = len(state.hands[seat]) + len(state.reserves[seat])
        assert held == dealt - _played_by(state, seat)


def _played_by(state: State, seat: int) -> int:
    played = [p for t in state.tricks for p in t.cards] + list(state.trick)
    return sum(p.seat == seat for p in played)


def check_deals_and_sheet(events: list[Event]) -> None:
    """Ten tricks a deal, of 4×6 then 2×4 cards; each total is the sum of the entries."""
    tricks: list[TrickWon] = []
    running = [0, 0]
    for event in events:
        match event:
            case CardsDealt():
                tricks = []
            case TrickWon():
                tricks.append(event)
            case HandScored():
                assert [len(t.cards) for t in tricks] == [4] * 6 + [2] * 4
                assert [t.trick for t in tricks] == list(range(1, 11))
                for item in event.items:
                    running[item.unit] += item.points
                changes = [sum(i.points for i in event.items if i.unit == s) for s in (0, 1)]
                assert event.changes == changes
                assert event.scores == running


@pytest.mark.slow
def test_three_hundred_random_rubbers_hold_every_invariant() -> None:
    seen: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    for seed in range(RUBBERS):
        events = play_one_checked_rubber(seed)
        seen.update(type(e).__name__ for e in events)
        labels.update(i.label for e in events if isinstance(e, HandScored) for i in e.items)
    # The playouts reach every event and every kind of score-sheet entry.
    assert {t.__name__ for t in RESERVE_BRIDGE.event_types} <= seen.keys()
    assert set(SHEET_LABELS) <= labels.keys()


SHEET_LABELS = (
    "below:contract",
    "above:honours",
    "above:slam",
    "above:contra",
    "above:recontra",
    "above:penalty",
    "above:rubber",
)


def play_one_checked_rubber(seed: int) -> list[Event]:
    created = tables.create(f"t{seed}", "reserve-bridge", 2, {})
    playout = BridgePlayout(created, seed)
    rng = random.Random(seed)
    leaks = LeakChecks(playout, Knowledge(audiences(playout.table)), cards_in)

    def check_unplayed_reserves_hidden(audience: Audience, shown: Counter[str]) -> None:
        state = playout.table.state
        assert not shown.keys() & unplayed_reserves_of_others(state, audience)

    def check_reserves_hidden(
        event: Event, audience: Audience, seen: Event, shown: Counter[str]
    ) -> None:
        if isinstance(event, ReserveLaid) and event.seat != audience:
            assert not shown, f"a reserve shown to {audience}"
        check_unplayed_reserves_hidden(audience, shown)

    playout.seat_everyone()
    leaks.check_new_events(check_reserves_hidden)
    for _ in playout.steps():
        leaks.check_new_events(check_reserves_hidden)
        state = playout.table.state
        check_cards_accounted_for(state)
        leaks.check_views(check_unplayed_reserves_hidden)
        check_decide_matches_legal_actions(playout.table, candidates(state, rng), rng)

    assert playout.table.status == "finished"
    check_deals_and_sheet(playout.events)
    final: Any = tables.view(playout.table, "spectator")
    rubber = next(e for e in playout.events if isinstance(e, RubberWon))
    game = next(e for e in reversed(playout.events) if isinstance(e, GameWon))
    assert max(final.sheet.parties) == PARTIES_TO_WIN
    assert final.sheet.totals == game.scores == rubber.totals
    assert [sum(col[s] for col in final.sheet.below) + final.sheet.above[s] for s in (0, 1)] == (
        final.sheet.totals
    )
    assert final.difference == rubber.difference == abs(game.scores[0] - game.scores[1])
    check_replay(playout.events, playout.table)
    return playout.events


@pytest.mark.parametrize("seed", [7, 8])
def test_replaying_a_rubber_is_deterministic(seed: int) -> None:
    """The same seed gives the same events: playouts can be replayed from a failing seed."""
    first = played_out(BridgePlayout(tables.create("t", "reserve-bridge", 2, {}), seed))
    second = played_out(BridgePlayout(tables.create("t", "reserve-bridge", 2, {}), seed))
    assert first == second
