"""Seeded random playouts of Auction Pitch for every table size and every option value.

For each table size from 2 to 7, 192 complete games: the seed's bits pick the options, so
each value of each option (``low_point``, ``all_pass``, ``setback_chip``, ``game_end``) is
played in 96 games per size while the other options vary. Every step checks the foundation's
invariants (decide accepts exactly the legal actions, no audience sees a card it may not,
the cards are all accounted for) and every deal the pitch ones (at most 4 points, the
game points captured equal those dealt); every game ends in a winner and a chip
settlement that sums to zero, and replays to the same state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
import pytest

from domain import table as tables
from domain.cards import standard_pack
from domain.commands import Bid, Exchange, Hold, NameTrump, Pass, Play, PlayerCommand
from domain.events import (
    CardPlayed,
    CardsDealt,
    DealerDrawn,
    Event,
    GameWon,
    HandScored,
    TrickWon,
    TrumpNamed,
)
from domain.pitch import rules
from domain.pitch.events import PitchChipsSettled
from domain.pitch.state import Phase, State
from domain.protocol import Audience
from tests.support.invariants import (
    CARD_TEXT,
    LeakChecks,
    audiences,
    check_decide_matches_legal_actions,
    check_replay,
)
from tests.support.playout import Playout, played_out

# 192 games per size, 12 times the 2**4 combinations of the four options' values.
GAMES_PER_VALUE = 96
PACK = standard_pack()
encode = msgspec.json.encode
SORTED_PACK = sorted(PACK)
OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "low_point": ("dealt", "won"),
    "all_pass": ("redeal", "stick_dealer"),
    "setback_chip": (False, True),
    "game_end": ("rules", "highest"),
}


def options_for(seed: int) -> dict[str, Any]:
    """Bit ``i`` of the seed picks the value of option ``i``: 2**4 seeds cover them all."""
    return {name: values[(seed >> i) & 1] for i, (name, values) in enumerate(OPTION_VALUES.items())}


def candidates(state: State, rng: random.Random) -> list[PlayerCommand]:
    """A sample of commands, legal and illegal, for the seat to act.

    The commands of the current phase are tried every step; one command of another phase
    or of another game (always refused) is drawn at random, to keep the check quick.
    """
    bid = Bid(amount=rng.choice([0, 1, 2, 3, 4, 5]))
    auction: list[PlayerCommand] = [Pass(), Hold(), bid]
    foreign: list[PlayerCommand] = [
        NameTrump(suit=rng.choice("CDHS")),
        Exchange(discard=[rng.choice(PACK)]),
    ]
    pool: list[PlayerCommand] = [Play(card=rng.choice(PACK))]
    if state.phase is Phase.AUCTION:
        return [*pool, *auction, rng.choice(foreign)]
    if state.turn is not None and state.hands[state.turn]:
        pool.append(Play(card=rng.choice(state.hands[state.turn])))
    return [*pool, rng.choice([*auction, *foreign])]


def check_cards_accounted_for(state: State) -> None:
    """Hands, the undealt rest, the trick and the tricks hold the pack, each card once."""
    if state.deal == 0 or state.phase is Phase.DEAL:
        return
    cards = [c for hand in state.hands for c in hand]
    cards += [*state.undealt, *(p.card for p in state.trick)]
    cards += [p.card for trick in state.tricks for p in trick.cards]
    assert sorted(cards) == SORTED_PACK


class Knowledge:
    """What each audience has legitimately seen of the current deal.

    A seat knows its own hand and every card played; a spectator only the cards played.
    Nobody but the operator ever learns an undealt card or another seat's hand. Every
    card of the pitch pack is unique, so sets of card codes (as JSON bytes) will do.
    """

    def __init__(self, table_audiences: list[Audience]) -> None:
        self.known: dict[Audience, set[bytes]] = {a: set() for a in table_audiences}

    def learn(self, event: Event) -> set[bytes]:
        """Update with ``event``; cards public for this event alone (the dealer draw)."""
        match event:
            case CardsDealt(hands=hands):
                for audience, known in self.known.items():
                    known.clear()
                    if isinstance(audience, int):
                        known.update(c.encode() for c in hands[audience] or [])
            case CardPlayed(card=card):
                for known in self.known.values():
                    known.add(card.encode())
            case DealerDrawn(cards=cards):
                return {c.encode() for c in cards if c}
        return set()


def shown(obj: Any) -> set[bytes]:
    """Every card code in the JSON form of ``obj``: what a client would receive."""
    return set(CARD_TEXT.findall(encode(obj)))


class DealChecks:
    """The per-deal pitch invariants, fed with the operator's (unredacted) events.

    High, Low and Jack are recomputed from the hands as dealt (not from the tricks the
    scoring reads), so the two views of "in play" must agree.
    """

    def __init__(self, low_point: str) -> None:
        self.low_point = low_point
        self.hands: list[list[str]] = []
        self.trump: str | None = None
        self.captured = 0
        self.tricks = 0

    def see(self, event: Event) -> None:
        match event:
            case CardsDealt(hands=hands):
                self.hands = [list(h or []) for h in hands]
                assert all(len(h) == rules.HAND_SIZE for h in self.hands)
                self.trump, self.captured, self.tricks = None, 0, 0
            case TrumpNamed(suit=trump):
                self.trump = trump
            case TrickWon(cards=cards):
                self.captured += rules.game_points(cards)
                self.tricks += 1
            case HandScored():
                self.check_scored(event)

    def check_scored(self, scored: HandScored) -> None:
        assert self.tricks == rules.TRICKS
        assert sum(item.points for item in scored.items) <= 4
        assert self.captured == sum(rules.game_points(h) for h in self.hands)
        points = {item.label: item.unit for item in scored.items}
        assert list(points) == [p for p in ("high", "low", "jack", "game") if p in points]
        trumps = {c: seat for seat, h in enumerate(self.hands) for c in h if c[1] == self.trump}
        ordered = sorted(trumps, key=rules.power)
        assert points["high"] == trumps[ordered[-1]]
        if self.low_point == "dealt":
            assert points["low"] == trumps[ordered[0]]
        assert ("jack" in points) == (f"J{self.trump}" in trumps)
        contract = scored.contract
        assert contract is not None
        won = sum(item.points for item in scored.items if item.unit == contract.seat)
        assert contract.made == (won >= contract.amount)
        assert scored.changes[contract.seat] == (won if contract.made else -contract.amount)


def play_one_checked_game(seats: int, seed: int) -> dict[str, Any]:
    options = options_for(seed)
    created = tables.create(f"t{seed}", "pitch", seats, options)
    playout = Playout(created, seed * 10 + seats)
    rng = random.Random(seed)
    leaks = LeakChecks(playout, Knowledge(audiences(playout.table)), shown)
    deal_checks = DealChecks(options["low_point"])

    def check_new_events() -> None:
        for event in leaks.check_new_events():
            deal_checks.see(event)
            if isinstance(event, CardsDealt):
                # The operator alone sees the undealt rest; the leak checks prove it.
                undealt = tables.view(playout.table, "operator").undealt
                assert undealt == list(playout.table.state.undealt) == event.rest

    playout.seat_everyone()
    check_new_events()
    for _ in playout.steps():
        check_new_events()
        table = playout.table
        check_cards_accounted_for(table.state)
        leaks.check_views()
        # Every step checks the seat to act; the idle seats (whose every command must be
        # refused) are sampled, one a step, to keep thousands of games quick.
        acting = tables.to_act(table)
        idle = rng.randrange(seats)
        check_decide_matches_legal_actions(
            table, candidates(table.state, rng), rng, {*acting, idle}
        )

    assert playout.table.status == "finished"
    won = next(e for e in playout.events if isinstance(e, GameWon))
    settled = next(e for e in playout.events if isinstance(e, PitchChipsSettled))
    assert won.winners == [settled.winner]
    assert sum(settled.chips) == 0 and settled.chips[settled.winner] > 0
    if options["game_end"] == "highest":  # RULES 2.10: alone at the top, at 7 or more
        best = won.scores[settled.winner]
        assert best >= rules.TARGET and sorted(won.scores)[-2] < best
    check_replay(playout.events, playout.table)
    return options


def run_games(seats: int) -> Counter[tuple[str, Any]]:
    played: Counter[tuple[str, Any]] = Counter()
    for seed in range(2 * GAMES_PER_VALUE):
        options = play_one_checked_game(seats, seed)
        played.update(options.items())
    return played


@pytest.mark.slow
@pytest.mark.parametrize("seats", range(2, 8))
def test_random_games_hold_every_invariant_for_each_option_value(seats: int) -> None:
    played = run_games(seats)
    for name, values in OPTION_VALUES.items():
        for value in values:
            assert played[name, value] >= GAMES_PER_VALUE, (name, value)


@pytest.mark.parametrize("seats", [2, 7])
def test_replaying_a_game_is_deterministic(seats: int) -> None:
    """The same seed gives the same events: a failing seed can be replayed exactly."""
    first = played_out(Playout(tables.create("t", "pitch", seats, options_for(5)), 11))
    second = played_out(Playout(tables.create("t", "pitch", seats, options_for(5)), 11))
    assert first == second
