"""Settling Auction Pinochle (RULES 3A.6–3A.8): chips with the schedule, spades, bete and
double bete, inactive seats, the kitty and its shortfall, the table's end; and points."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from domain.common.structs import CompletedTrick
from domain.events import Event, GameWon, HandScored
from domain.pinochle import PINOCHLE
from domain.pinochle.deal import sitting_in
from domain.pinochle.events import ChipsSettled
from domain.pinochle.state import Phase, State


def deal_over(
    *,
    bid: int = 300,
    trump: str = "C",
    made: bool = True,
    seats: int = 3,
    options: dict[str, Any] | None = None,
    kitty: int | None = None,
    scores: list[int] | None = None,
    deal: int = 1,
) -> State:
    """A finished deal: soloist 0 took every trick (made) or none with nothing melded; the
    table as the game sets it up with the last seat dealing."""
    dealer = seats - 1
    table = PINOCHLE.initial_state(
        seats, msgspec.convert(options or {}, PINOCHLE.options_type), dealer
    )
    active = sitting_in(seats, dealer)
    ante = 3 if table.config.kitty and table.config.scoring == "chips" else 0
    winner = 0 if made else active[1]
    taken = [0] * seats
    taken[winner] = 240
    return replace(
        table,
        phase=Phase.PLAY,
        deal=deal,
        active=active,
        soloist=0,
        high_bid=bid,
        high_bidder=0,
        trump=trump,
        melds=((),) + (None,) * (seats - 1),
        meld_points=(bid if made else 0,) + (0,) * (seats - 1),
        tricks=(CompletedTrick(leader=0, winner=winner, cards=()),),
        taken=tuple(taken),
        scores=tuple(scores if scores is not None else [-ante] * seats),
        kitty=kitty if kitty is not None else ante * seats,
    )


def chips(events: list[Event]) -> ChipsSettled:
    settled = events[0]
    assert isinstance(settled, ChipsSettled)
    assert sum(settled.changes) + settled.kitty == 0
    assert sum(settled.scores) + settled.kitty_total == 0
    return settled


@pytest.mark.parametrize(
    ("bid", "trump", "made", "changes"),
    [
        pytest.param(300, "C", True, [6, -3, -3], id="made 300: 3 chips from each"),
        pytest.param(300, "S", True, [12, -6, -6], id="spades trump doubles"),
        pytest.param(300, "C", False, [-12, 6, 6], id="played and lost: double bete"),
        pytest.param(300, "S", False, [-24, 12, 12], id="double bete in spades"),
        pytest.param(250, "H", True, [4, -2, -2], id="250-290 pays 2"),
        pytest.param(200, "D", True, [2, -1, -1], id="200-240 pays 1"),
        pytest.param(600, "D", True, [60, -30, -30], id="600 and up pays 30 (kitty aside)"),
    ],
)
def test_schedule_spades_and_bete(bid: int, trump: str, made: bool, changes: list[int]) -> None:
    """RULES 3A.7, with the kitty off to isolate the seats."""
    settled = chips(
        PINOCHLE.score_deal(
            deal_over(bid=bid, trump=trump, made=made, options={"kitty": False, "min_bid": 200})
        )
    )
    assert settled.changes == changes
    assert settled.reason == ("made" if made else "set")


def test_count_is_melds_cards_buried_and_last_trick() -> None:
    """RULES 3A.6: made when melds + trick points + burial + last trick reach the bid."""
    state = deal_over(bid=500, made=True)
    settled = chips(PINOCHLE.score_deal(state))
    labels = {item.label: item.points for item in settled.count}
    assert labels == {"melds": 500, "cards": 240, "last_trick": 10}
    assert settled.contract is not None and settled.contract.made


def test_the_soloist_concedes_a_single_bete() -> None:
    """RULES 3A.7: conceded: the unit to each other seat, once."""
    settled = chips(PINOCHLE.conceded(deal_over(options={"kitty": False}), by_soloist=True))
    assert settled.reason == "conceded" and settled.changes == [-6, 3, 3]


@pytest.mark.parametrize(
    ("seats", "changes"),
    [
        pytest.param(4, [9, -3, -3, -3], id="four seats: the dealer pays too"),
        pytest.param(5, [12, -3, -3, -3, -3], id="five seats: both sitting out pay"),
    ],
)
def test_every_seat_at_the_table_settles(seats: int, changes: list[int]) -> None:
    """RULES 3A.7: received from every other seat, active and inactive."""
    settled = chips(PINOCHLE.score_deal(deal_over(seats=seats, options={"kitty": False})))
    assert settled.changes == changes


def test_from_350_the_kitty_pays_like_a_seat() -> None:
    """RULES 3A.8: a made 350 (5 chips) collects 5 from each seat and 5 from the kitty."""
    settled = chips(PINOCHLE.score_deal(deal_over(bid=350, trump="H")))
    assert settled.changes == [15, -5, -5] and settled.kitty == -5
    assert settled.kitty_total == 4


def test_from_350_a_lost_bid_pays_the_kitty_too() -> None:
    settled = chips(PINOCHLE.score_deal(deal_over(bid=350, trump="H", made=False)))
    assert settled.changes == [-30, 10, 10] and settled.kitty == 10


def test_below_350_the_kitty_is_left_alone() -> None:
    settled = chips(PINOCHLE.score_deal(deal_over(bid=340, trump="H")))
    assert settled.kitty == 0


def test_a_short_kitty_is_made_up_by_the_opponents() -> None:
    """RULES 3A.8: 400 in spades is 20; the kitty holds 9; the two opponents pay the other
    11 equally, the odd chip from the one on the soloist's left [decision]."""
    settled = chips(PINOCHLE.score_deal(deal_over(bid=400, trump="S")))
    assert settled.kitty == -9
    assert settled.changes == [40 + 9 + 11, -20 - 6, -20 - 5]


def test_a_short_kitty_pays_what_is_there_with_that_option() -> None:
    options = {"kitty_shortfall": "what_is_there"}
    settled = chips(PINOCHLE.score_deal(deal_over(bid=400, trump="S", options=options)))
    assert settled.changes == [49, -20, -20] and settled.kitty_total == 0


def test_a_table_driven_schedule() -> None:
    options = {"schedule": [{"bid": 300, "chips": 7}, {"bid": 400, "chips": 9}], "kitty": False}
    assert chips(PINOCHLE.score_deal(deal_over(options=options))).changes == [14, -7, -7]
    big = deal_over(bid=450, options=options)
    assert chips(PINOCHLE.score_deal(big)).changes == [18, -9, -9]


def test_the_table_ends_after_its_deals_and_shares_the_kitty() -> None:
    """RULES 3A.7, 3A.8: after ``deals`` deals the kitty is shared equally; chips that do
    not divide stay in it [decision]."""
    state = deal_over(options={"deals": 2}, deal=2, kitty=10, scores=[-4, -3, -3])
    events = PINOCHLE.score_deal(state)
    made, shared, won = events
    assert isinstance(made, ChipsSettled) and made.changes == [6, -3, -3]
    assert isinstance(shared, ChipsSettled) and shared.reason == "kitty_shared"
    assert shared.changes == [3, 3, 3] and shared.kitty_total == 1
    assert won == GameWon(winners=[0], scores=[5, -3, -3])


def test_the_table_goes_on_before_its_last_deal() -> None:
    events = PINOCHLE.score_deal(deal_over(options={"deals": 2}, deal=1))
    assert len(events) == 1


@pytest.mark.parametrize(
    ("made", "conceded_by", "change"),
    [
        pytest.param(True, None, 300, id="made: +bid"),
        pytest.param(False, None, -600, id="played and lost: -2 x bid"),
        pytest.param(False, "soloist", -300, id="conceded: -bid"),
        pytest.param(False, "opponents", 300, id="conceded to him: +bid"),
    ],
)
def test_points_scoring(made: bool, conceded_by: str | None, change: int) -> None:
    """RULES 3A.7 points."""
    state = deal_over(made=made, options={"scoring": "points"}, scores=[0, 0, 0])
    if conceded_by is None:
        events = PINOCHLE.score_deal(state)
    else:
        events = PINOCHLE.conceded(state, by_soloist=conceded_by == "soloist")
    scored = events[0]
    assert isinstance(scored, HandScored)
    assert scored.changes == [change, 0, 0]


def test_points_game_is_won_at_1000() -> None:
    state = deal_over(made=True, options={"scoring": "points"}, scores=[700, 900, 0])
    events = PINOCHLE.score_deal(state)
    assert events[-1] == GameWon(winners=[0], scores=[1000, 900, 0])
