"""Seeded random playouts of the four Pinochle games: 300 complete tables per game id.

Every playout holds the shared invariants (decide accepts exactly the legal actions, both
ways, on a sample of legal and illegal commands; replaying the events gives the same
table; no view or redacted event shows a card its audience may not see) and Pinochle's:
the pack is always all there, duplicates included; the leak checks are count-aware
(``tests.support.pinochle``); every played deal holds 250 points in tricks and last trick;
chips always sum to zero across the seats and the kitty, event by event; meld claims are
valid and no claimed card is buried; inactive seats hold nothing and may do nothing.

Cost (about 420,000 steps in all): every check runs after every step, except two. The
indistinguishability of views runs for one audience per step, drawn at random; decide
against legal actions runs at every step outside the card play and at half the plays.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import table as tables
from domain.cards import holds_all
from domain.commands import (
    Bid,
    Bury,
    Concede,
    ExchangeDix,
    Meld,
    MeldClaim,
    NameTrump,
    Pass,
    Play,
    PlayerCommand,
    TakeWidow,
)
from domain.events import CardsDealt, DealThrownIn, Event, GameWon, HandScored, TrickWon
from domain.pinochle.cards import DEAL_POINTS, LAST_TRICK, PACK, points
from domain.pinochle.events import CardsBuried, ChipsSettled, MeldsClaimed
from domain.pinochle.melds import best_claim, claim_choices, claim_points, exposure
from domain.pinochle.state import Phase, State
from domain.table import Table
from tests.support.invariants import (
    LeakChecks,
    audiences,
    check_decide_matches_legal_actions,
    check_replay,
)
from tests.support.pinochle import (
    Knowledge,
    PinochlePlayout,
    cards_accounted_for,
    check_event_redaction,
    check_view_indistinguishable,
    codes_in,
)
from tests.support.playout import played_out

GAMES = 300
PLAY_CHECK_RATE = 0.5

# Seat counts and options cycled through the seeds. Chips tables are kept to a few deals
# (the ``deals`` option); points tables play to their target.
TABLES: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "pinochle": [
        (3, {"deals": 3}),
        (4, {"deals": 2, "deal_packets": "4", "kitty_shortfall": "what_is_there"}),
        (5, {"deals": 3, "min_bid": 250, "roundhouse": True}),
        (4, {"deals": 3, "compulsory_opening": True, "must_head_plain": True}),
        (5, {"deals": 2, "kitty": False, "schedule": [{"bid": 300, "chips": 2}]}),
        (3, {"scoring": "points", "min_bid": 200}),
        (4, {"scoring": "points", "compulsory_opening": True}),
    ],
    "pinochle-three": [(3, {}), (3, {"must_head_plain": True})],
    "pinochle-four": [(4, {}), (4, {"must_head_plain": True})],
    "pinochle-widow": [
        (3, {}),
        (3, {"compulsory_opening": True, "deal_packets": "4"}),
        (3, {"min_bid": 200, "roundhouse": True, "must_head_plain": True}),
    ],
}
# The house rules (RULES 3.4, 3.5) on, in a few tables per game id: a short run, since
# they change only how melds score and which trumps may follow a trump.
HOUSE = {"double_melds": True, "must_overtrump": True}
HOUSE_GAMES = 10
HOUSE_TABLES: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "pinochle": [(4, {"deals": 2, **HOUSE}), (3, {"scoring": "points", **HOUSE})],
    "pinochle-three": [(3, HOUSE), (3, {"must_head_plain": True, **HOUSE})],
    "pinochle-four": [(4, HOUSE)],
    "pinochle-widow": [(3, HOUSE), (3, {"deal_packets": "4", "must_head_plain": True, **HOUSE})],
}


def candidates(state: State, rng: random.Random) -> list[PlayerCommand]:
    """A sample of commands, legal and illegal: a few of any kind, more for this phase."""
    anything: list[PlayerCommand] = [
        *(command() for command in (Pass, Concede, TakeWidow, ExchangeDix)),
        Bid(amount=rng.choice([200, 290, 300, 305, 310, 650, 660, 790, 800])),
        NameTrump(suit=rng.choice("SHCD")),
        Play(card=rng.choice(PACK)),
        Bury(cards=rng.sample(PACK, 3)),
    ]
    pool = rng.sample(anything, 2)
    seat = state.turn if state.turn is not None else state.soloist
    if seat is None or not state.hands[seat]:
        return pool
    hand = state.hands[seat]
    if state.phase in (Phase.PLAY, Phase.PREPARE):
        pool += [Play(card=rng.choice(hand)), Play(card=rng.choice(hand))]
    if state.phase in (Phase.PREPARE, Phase.MELD):
        pool += meld_candidates(state, seat, rng)
    if state.phase is Phase.PREPARE:
        cards = list(state.cards_of(seat))
        pool.append(Bury(cards=rng.sample(cards, rng.choice([2, 3, 3, 3, 4]))))
    return pool


def meld_candidates(state: State, seat: int, rng: random.Random) -> list[PlayerCommand]:
    """Valid and invalid claims: sub-claims (cards in any order), the best claim of the 18
    cards (buried ones too), a meld too many, the wrong suit's royal marriage."""
    hand, cards = state.hands[seat], state.cards_of(seat)
    trump = state.trump or rng.choice("SHCD")
    claims = claim_choices(hand, trump) or [[]]
    claim = rng.choice(claims)
    picked = rng.sample(claim, rng.randint(0, len(claim)))
    return [
        Meld(melds=[MeldClaim(kind=m.kind, cards=m.cards[::-1]) for m in picked]),
        Meld(melds=best_claim(cards, trump)),
        Meld(melds=[*best_claim(hand, trump), rng.choice(claim or [_royal(trump)])]),
        Meld(melds=[_royal(rng.choice("SHCD"))]),
    ]


def _royal(suit: str) -> MeldClaim:
    return MeldClaim(kind="royal_marriage", cards=["K" + suit, "Q" + suit])


def check_chips_sum_to_zero(state: State) -> None:
    if state.config.scoring == "chips":
        assert sum(state.scores) + state.kitty == 0


def check_inactive_seats(table: Table[Any]) -> None:
    state: State = table.state
    if state.phase in (Phase.DRAW, Phase.DEAL) or table.status != "playing":
        return
    for seat in range(state.seats):
        if seat not in state.active:
            assert state.hands[seat] == ()
            assert tables.legal_actions(table, seat) == []
            assert tables.view(table, seat).hand == []


def check_claims_and_burial(state: State) -> None:
    """Claims are valid for the trump and no claimed card is buried (RULES 3.3, 3A.4)."""
    for seat in state.active:
        claim = state.melds[seat]
        if claim is None or state.tricks or state.trick:
            continue
        assert holds_all(state.hands[seat], exposure(claim))


class Checked:
    """One playout with every invariant checked after each step."""

    def __init__(self, game: str, seed: int, choices: dict[str, list[Any]] = TABLES) -> None:
        seats, options = choices[game][seed % len(choices[game])]
        created = tables.create(f"t{seed}", game, seats, options)
        points_game = options.get("scoring") == "points"
        self.playout = PinochlePlayout(created, seed, concede_rate=0.6 if points_game else 0.03)
        self.rng = random.Random(seed)
        self.audiences = audiences(self.playout.table)
        self.leaks = LeakChecks(self.playout, Knowledge(self.audiences), codes_in)

    def run(self) -> list[Event]:
        playout = self.playout
        playout.seat_everyone()
        self.check_new_events()
        for _ in playout.steps():
            self.check_new_events()
            table = playout.table
            state: State = table.state
            cards_accounted_for(state, PACK)
            check_chips_sum_to_zero(state)
            check_inactive_seats(table)
            check_claims_and_burial(state)
            self.leaks.check_views()
            # the costliest view check: one audience per step, drawn at random
            check_view_indistinguishable(table, self.rng.choice(self.audiences), self.rng)
            # every bidding, widow, burial, dix and meld step; half the card plays, where the
            # same follow rules repeat (still some 50,000 checked plays per game id)
            if state.phase is not Phase.PLAY or self.rng.random() < PLAY_CHECK_RATE:
                check_decide_matches_legal_actions(table, candidates(state, self.rng), self.rng)
        assert playout.table.status == "finished"
        check_replay(playout.events, playout.table)
        return playout.events

    def check_new_events(self) -> None:
        self.leaks.check_new_events(
            lambda event, audience, seen, _: check_event_redaction(event, seen, audience)
        )


def check_deals(events: list[Event], game: str) -> None:
    """Each played deal holds 250 points in tricks, burial and last trick; every settlement
    adds up: chips to zero, a variant's items to its changes, a claim to its points."""
    taken = tricks = buried = 0
    double_melds = getattr(events[0], "options", {}).get("double_melds") is True
    for event in events:
        match event:
            case CardsDealt(hands=hands):
                taken, buried, tricks = 0, 0, max(len(h or ()) for h in hands)
            case CardsBuried(cards=cards):
                buried = points(cards or ())
            case TrickWon(cards=cards, trick=number):
                taken += points(cards)
                if number == tricks:
                    assert taken + buried + LAST_TRICK == DEAL_POINTS
            case HandScored(items=items, changes=changes) if game != "pinochle":
                by_unit = [0] * len(changes)
                for item in items:
                    by_unit[item.unit] += item.points
                assert by_unit == changes
            case ChipsSettled(changes=changes, kitty=kitty, scores=scores, kitty_total=total):
                assert sum(changes) + kitty == 0
                assert sum(scores) + total == 0
            case MeldsClaimed(melds=melds, points=claimed):
                assert claim_points(melds, double_melds) == claimed


def check_ending(events: list[Event], game: str) -> None:
    created = events[0]
    options = getattr(created, "options", {})
    won = next(e for e in reversed(events) if isinstance(e, GameWon))
    deals = sum(isinstance(e, CardsDealt) for e in events)
    if game == "pinochle" and options.get("scoring") == "chips":
        assert deals == options["deals"]
        assert sum(won.scores) >= -(len(won.scores) - 1)  # at most the odd chips stay
    else:
        assert all(won.scores[w] >= 1000 for w in won.winners)
    thrown = sum(isinstance(e, DealThrownIn) for e in events)
    assert thrown <= deals


@pytest.mark.slow
@pytest.mark.parametrize("game", list(TABLES))
def test_three_hundred_random_tables_hold_every_invariant(game: str) -> None:
    for seed in range(GAMES):
        events = Checked(game, seed).run()
        check_deals(events, game)
        check_ending(events, game)


@pytest.mark.slow
@pytest.mark.parametrize("game", list(HOUSE_TABLES))
def test_random_tables_with_the_house_rules_hold_every_invariant(game: str) -> None:
    """RULES 3.4, 3.5: decide still accepts exactly the legal actions, claims score doubles."""
    for seed in range(HOUSE_GAMES):
        events = Checked(game, seed, HOUSE_TABLES).run()
        check_deals(events, game)
        check_ending(events, game)


@pytest.mark.parametrize("game", list(TABLES))
def test_replaying_a_game_is_deterministic(game: str) -> None:
    """The same seed gives the same events: playouts can be replayed from a failing seed."""
    seats, options = TABLES[game][0]
    first = played_out(PinochlePlayout(tables.create("t", game, seats, options), 11))
    second = played_out(PinochlePlayout(tables.create("t", game, seats, options), 11))
    assert first == second
