"""Seeded random playouts of Auction Forty-Five: 300 games to 120, legal actions only."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain import table as tables
from domain.cards import standard_pack
from domain.commands import Bid, Exchange, Hold, NameTrump, Pass, Play, PlayerCommand
from domain.events import HandScored
from domain.fortyfive.state import Phase, State
from tests.support.invariants import (
    LeakChecks,
    audiences,
    cards_in,
    check_decide_matches_legal_actions,
    check_replay,
)
from tests.support.knowledge import Knowledge
from tests.support.playout import Playout, played_out

GAMES = 300
PACK = standard_pack()


def candidates(state: State, rng: random.Random) -> list[PlayerCommand]:
    """A sample of commands, legal and illegal, for the current phase and beyond."""
    pool: list[PlayerCommand] = [Pass(), Hold(), Bid(amount=rng.choice([0, 5, 7, 20, 30, 35]))]
    pool += [NameTrump(suit=rng.choice("CDHS")), Play(card=rng.choice(PACK))]
    seat_hand = list(state.hands[state.turn]) if state.turn is not None else []
    if seat_hand:
        pool.append(Play(card=rng.choice(seat_hand)))
        pool.append(Exchange(discard=rng.sample(seat_hand, rng.randint(0, len(seat_hand)))))
    pool.append(Exchange(discard=rng.sample(PACK, rng.randint(1, 6))))
    return pool


def check_cards_accounted_for(state: State) -> None:
    """Hands, stock, discards, the trick and the tricks hold the whole pack, once each."""
    if state.deal == 0 or state.phase is Phase.DEAL:
        return
    cards = [c for hand in state.hands for c in hand]
    cards += [*state.stock, *state.discarded, *(p.card for p in state.trick)]
    cards += [p.card for trick in state.tricks for p in trick.cards]
    assert Counter(cards) == Counter(PACK)


@pytest.mark.slow
def test_three_hundred_random_games_hold_every_invariant() -> None:
    for seed in range(GAMES):
        play_one_checked_game(seed)


def play_one_checked_game(seed: int) -> None:
    created = tables.create(f"t{seed}", "forty-five", 4, {})
    playout = Playout(created, seed)
    rng = random.Random(seed)
    leaks = LeakChecks(playout, Knowledge(audiences(playout.table)), cards_in)

    playout.seat_everyone()
    leaks.check_new_events()
    for _ in playout.steps():
        leaks.check_new_events()
        state = playout.table.state
        check_cards_accounted_for(state)
        leaks.check_views()
        check_decide_matches_legal_actions(playout.table, candidates(state, rng), rng)

    scored = [e for e in playout.events if isinstance(e, HandScored)]
    for hand in scored:
        assert sum(item.points for item in hand.items) in (25, 30)
    assert playout.table.status == "finished"
    assert max(scored[-1].scores) >= 120
    check_replay(playout.events, playout.table)


@pytest.mark.parametrize("seed", [7, 8])
def test_replaying_a_game_is_deterministic(seed: int) -> None:
    """The same seed gives the same events: playouts can be replayed from a failing seed."""
    first = played_out(Playout(tables.create("t", "forty-five", 4, {}), seed))
    second = played_out(Playout(tables.create("t", "forty-five", 4, {}), seed))
    assert first == second
