"""Auction Pitch: the test cases of RULES 2.9 and the worked examples of 2.10 (golden tests)."""

from __future__ import annotations

import msgspec

from domain import table as tables
from domain.commands import Bid, Hold, Pass, Play
from domain.errors import RuleCode
from domain.events import (
    AuctionWon,
    Event,
    GameWon,
    HandScored,
    Held,
    Passed,
    ScoreItem,
    TrickWon,
    TrumpNamed,
)
from domain.pitch.events import PitchChipsSettled
from domain.pitch.scoring import settle
from tests.domain.pitch_tables import (
    DEALER_TAKES,
    DEALER_TAKES_AUCTION,
    DEALER_TAKES_TRICKS,
    Trick,
    deal_table,
    dealer_takes,
    hands_of,
    only,
    play_tricks,
    points,
)
from tests.support.given import given
from tests.support.playout import Playout, act_all, refused

# --- RULES 2.9, test case 1: four players, the dealer takes 3 and is set back -----------


def test_dealer_takes_the_bid_and_is_set_back_while_high_low_and_jack_go_elsewhere() -> None:
    """RULES 2.9: dealer 3 takes at 3 and pitches KH; AH seat 0, JH and 4H seat 1, 2H
    seat 2; seat 1 keeps JH back and wins a trick with it; seat 3 wins Game.
    Seat 0 +1 (High), seat 2 +1 (Low, dealt), seat 1 +1 (Jack), seat 3 made 1 of 3: −3."""
    playout = dealer_takes()
    events = act_all(playout, DEALER_TAKES_AUCTION)
    assert events == [Held(seat=3, amount=3), AuctionWon(seat=3, amount=3)]
    assert tables.to_act(playout.table) == [3]  # the pitcher leads

    events = playout.act(3, Play(card="KH"))
    assert TrumpNamed(seat=3, suit="H") in events
    playout.act(0, Play(card="AH"))
    # On the trump lead seat 1 must play a trump, and may choose the 4 over the jack.
    assert tables.legal_actions(playout.table, 1) == [Play(card="JH"), Play(card="4H")]
    assert refused(playout, 1, Play(card="5S")) is RuleCode.MUST_PLAY_TRUMP
    events = play_tricks(playout, [DEALER_TAKES_TRICKS[0][2:], *DEALER_TAKES_TRICKS[1:]])

    winners = [e.seat for e in playout.events if isinstance(e, TrickWon)]
    assert winners == [0, 1, 3, 3, 3, 3]
    scored = only(events, HandScored)
    assert scored.items == [
        ScoreItem(unit=0, label="high", points=1),
        ScoreItem(unit=2, label="low", points=1),
        ScoreItem(unit=1, label="jack", points=1),
        ScoreItem(unit=3, label="game", points=1),
    ]
    assert scored.contract is not None and not scored.contract.made
    assert scored.changes == [1, 1, 1, -3]
    assert scored.scores == [1, 1, 1, -3]
    assert playout.table.state.setbacks == (0, 0, 0, 1)


def test_low_won_goes_to_whoever_captures_the_lowest_trump() -> None:
    """RULES 2.3, option low_point="won": seat 0 captured 2H in the first trick."""
    playout = dealer_takes({"low_point": "won"})
    act_all(playout, DEALER_TAKES_AUCTION)
    scored = only(play_tricks(playout, DEALER_TAKES_TRICKS), HandScored)
    assert points(scored) == {"high": 0, "low": 0, "jack": 1, "game": 3}
    assert scored.changes == [2, 1, 0, -3]


def test_views_show_scores_pitcher_bid_and_trump_and_hide_other_hands() -> None:
    """RULES 2.2 and 0.6: undealt cards and other hands reach the operator only."""
    playout = dealer_takes()
    act_all(playout, DEALER_TAKES_AUCTION)
    playout.act(3, Play(card="KH"))
    seat = tables.view(playout.table, 1)
    assert (seat.pitcher, seat.bid, seat.trump) == (3, 3, "H")  # type: ignore[attr-defined]
    assert seat.hand == DEALER_TAKES[1] and seat.hands is None
    assert seat.undealt is None  # type: ignore[attr-defined]
    spectator = tables.view(playout.table, "spectator")
    assert spectator.hand is None and spectator.hands is None
    operator = tables.view(playout.table, "operator")
    assert operator.undealt is not None and len(operator.undealt) == 52 - 24  # type: ignore[attr-defined]
    assert operator.hands is not None and operator.hands[0] == DEALER_TAKES[0]
    play_tricks(playout, [DEALER_TAKES_TRICKS[0][1:], *DEALER_TAKES_TRICKS[1:]])
    assert tables.view(playout.table, "spectator").scores == [1, 1, 1, -3]


# --- RULES 2.9, test cases 2 and 3: the winning order -----------------------------------

# Both deals of this section: three seats, seat 1 deals, seat 2 pitches for 2 and the
# others pass; each seat is dealt the cards it plays in the six tricks.
PITCH_FOR_TWO = [(2, Bid(amount=2)), (0, Pass()), (1, Pass())]
PITCHER_REACHES_SEVEN: list[Trick] = [
    [(2, "3H"), (0, "AH"), (1, "2H")],
    [(0, "4C"), (1, "4D"), (2, "JH")],  # seat 2 trumps although he holds clubs
    [(2, "TC"), (0, "5C"), (1, "5D")],
    [(2, "AS"), (0, "6C"), (1, "6D")],
    [(2, "TS"), (0, "7C"), (1, "7D")],
    [(2, "9C"), (0, "8C"), (1, "8D")],
]


def pitched_for_two(
    tricks: list[Trick], before: list[int], options: dict[str, str] | None = None
) -> tuple[Playout, list[Event]]:
    """The deal that ``tricks`` play out, from the scores ``before``; the table and the
    events of the last card."""
    playout = deal_table(hands_of(tricks), dealer=1, seats=3, options=options, scores=before)
    act_all(playout, PITCH_FOR_TWO)
    return playout, play_tricks(playout, tricks)


def test_pitcher_who_makes_his_bid_and_reaches_seven_wins_whatever_the_others_reach() -> None:
    """RULES 2.9: before the deal 6, 6, 5; seat 2 pitches for 2 and wins Jack and Game;
    seat 0 High, seat 1 Low: all reach 7, but seat 2 made his bid and wins."""
    playout, events = pitched_for_two(PITCHER_REACHES_SEVEN, [6, 6, 5])
    scored = only(events, HandScored)
    assert points(scored) == {"high": 0, "low": 1, "jack": 2, "game": 2}
    assert scored.scores == [7, 7, 7]
    assert only(events, GameWon) == GameWon(winners=[2], scores=[7, 7, 7])
    assert only(events, PitchChipsSettled).chips == [-1, -1, 2]
    assert playout.table.status == "finished"


SET_BACK_PITCHER: list[Trick] = [
    [(2, "2H"), (0, "AH"), (1, "3H")],
    [(0, "4C"), (1, "JH"), (2, "3C")],
    [(1, "TD"), (2, "2D"), (0, "5C")],
    [(1, "AD"), (2, "3D"), (0, "6C")],
    [(1, "TS"), (2, "2S"), (0, "7C")],
    [(1, "9D"), (2, "4D"), (0, "8C")],
]


def test_after_a_set_back_points_count_in_the_order_high_low_jack_game() -> None:
    """RULES 2.9: the pitcher is set back; seat 0 gets High (→7), seat 1 Jack (→7) and
    Game (→8): seat 0 reaches 7 first in the counting order and wins."""
    _, events = pitched_for_two(SET_BACK_PITCHER, [6, 6, 0])
    scored = only(events, HandScored)
    assert points(scored) == {"high": 0, "low": 2, "jack": 1, "game": 1}
    assert scored.changes == [1, 2, -2]
    assert only(events, GameWon) == GameWon(winners=[0], scores=[7, 8, -2])
    settled = only(events, PitchChipsSettled)
    assert settled == PitchChipsSettled(winner=0, chips=[3, -1, -2], setbacks=[0, 0, 1])


# --- RULES 2.9, test case 4: the smudge -------------------------------------------------

SMUDGE = {1: ["AH", "JH", "2H", "TS", "TD", "TC"], 0: ["3C", "4C", "5C", "6C", "7C", "8C"]}
SMUDGE_TRICKS: list[Trick] = [
    [(1, card), (0, other)] for card, other in zip(SMUDGE[1], SMUDGE[0], strict=True)
]


def smudge(
    before: list[int], bid: int = 4, options: dict[str, str] | None = None
) -> tuple[Playout, list[Event]]:
    playout = deal_table(SMUDGE, dealer=0, seats=2, options=options, scores=before)
    playout.act(1, Bid(amount=bid))
    playout.act(0, Pass())
    return playout, play_tricks(playout, SMUDGE_TRICKS)


def test_smudge_from_three_with_all_four_points_wins_at_once() -> None:
    """RULES 2.9: smudge from 3, all four won → wins at once."""
    playout, events = smudge([5, 3])
    assert points(only(events, HandScored)) == {"high": 1, "low": 1, "jack": 1, "game": 1}
    assert only(events, GameWon) == GameWon(winners=[1], scores=[5, 7])
    assert playout.table.status == "finished"


def test_smudge_from_zero_wins_at_once_short_of_seven() -> None:
    """RULES 2.7: a made smudge wins at once, not only by reaching 7."""
    playout, events = smudge([6, 0])
    assert only(events, GameWon) == GameWon(winners=[1], scores=[6, 4])
    assert playout.table.status == "finished"
    assert only(events, PitchChipsSettled).chips == [-1, 1]


def test_smudge_from_a_negative_score_only_scores_four() -> None:
    """RULES 2.9: smudge from −2 → score +2, play on."""
    playout, events = smudge([3, -2])
    assert only(events, HandScored).scores == [3, 2]
    assert not any(isinstance(e, GameWon) for e in events)
    assert playout.table.status == "playing"
    assert playout.table.state.deal == 2 and playout.table.state.dealer == 1


def test_all_four_points_on_a_bid_of_three_score_four_but_do_not_win_at_once() -> None:
    """RULES 2.6: the pitcher reaches (not equals) his bid and scores every point won."""
    playout, events = smudge([0, 0], bid=3)
    assert only(events, HandScored).changes == [0, 4]
    assert playout.table.status == "playing"


def test_dealer_cannot_take_a_smudge() -> None:
    """RULES 2.4: a smudge cannot be taken; nobody can outbid it."""
    playout = deal_table(SMUDGE, dealer=0, seats=2)
    playout.act(1, Bid(amount=4))
    assert tables.legal_actions(playout.table, 0) == [Pass()]
    smudge_bid = given(playout.events)
    smudge_bid.when(Hold(), by=0).then_refused(RuleCode.CANNOT_HOLD)
    smudge_bid.when(Bid(amount=4), by=0).then_refused(RuleCode.BID_TOO_LOW)
    smudge_bid.when(Pass(), by=0).then([Passed(seat=0), AuctionWon(seat=1, amount=4)])


# --- RULES 2.9, test case 5: the chips --------------------------------------------------


def test_winner_collects_one_chip_above_zero_and_two_at_zero_or_below() -> None:
    """RULES 2.9: winner's settlement against scores 5, 0, −3: they pay 1, 2, 2."""
    chips = settle(0, [7, 5, 0, -3], [0, 1, 2, 0], setback_chip=False)
    assert chips == [5, -1, -2, -2]


def test_setback_chip_charges_one_more_chip_per_set_back() -> None:
    """RULES 2.8, option setback_chip; [decision] the winner's own set-backs cost nothing."""
    chips = settle(0, [7, 5, 0, -3], [3, 1, 2, 0], setback_chip=True)
    assert chips == [8, -2, -4, -2]
    assert sum(chips) == 0


# --- RULES 2.10, option game_end="highest": the worked examples ----------------------------

HIGHEST = {"game_end": "highest"}


def test_with_highest_a_tie_at_the_top_plays_another_deal() -> None:
    """RULES 2.10: 6, 6, 5 become 7, 7, 7: a tie at the top, nobody wins, deal again."""
    _, events = pitched_for_two(PITCHER_REACHES_SEVEN, [6, 6, 5], HIGHEST)
    assert only(events, HandScored).scores == [7, 7, 7]
    assert not any(isinstance(e, GameWon | PitchChipsSettled) for e in events)


def test_with_highest_the_deal_after_a_tie_is_won_by_the_highest_score() -> None:
    """RULES 2.10: from 7, 7, 7 the same deal ends 8, 8, 9: seat 2 alone is highest."""
    _, events = pitched_for_two(PITCHER_REACHES_SEVEN, [7, 7, 7], HIGHEST)
    assert only(events, GameWon) == GameWon(winners=[2], scores=[8, 8, 9])
    assert only(events, PitchChipsSettled).chips == [-1, -1, 2]


def test_with_highest_the_highest_score_wins_not_the_first_counted() -> None:
    """RULES 2.10: 6, 6, 0, the pitcher set back: seat 0 reaches 7 with High, seat 1 8
    with Jack and Game; seat 1 wins (under "rules" seat 0 would)."""
    _, events = pitched_for_two(SET_BACK_PITCHER, [6, 6, 0], HIGHEST)
    assert only(events, GameWon) == GameWon(winners=[1], scores=[7, 8, -2])
    settled = only(events, PitchChipsSettled)
    assert settled == PitchChipsSettled(winner=1, chips=[-1, 3, -2], setbacks=[0, 0, 1])


def test_with_highest_a_smudge_wins_only_by_the_highest_score_at_seven() -> None:
    """RULES 2.10 [decision]: a smudge from 3 against 5 ends 5, 7 and wins on the score;
    from 0 against 6 it ends 6, 4 and play goes on (no win at once)."""
    playout, events = smudge([5, 3], options=HIGHEST)
    assert only(events, GameWon) == GameWon(winners=[1], scores=[5, 7])
    playout, events = smudge([6, 0], options=HIGHEST)
    assert only(events, HandScored).scores == [6, 4]
    assert not any(isinstance(e, GameWon) for e in events)
    assert playout.table.status == "playing"


def test_game_end_rules_is_the_default_and_is_recorded_only_when_chosen() -> None:
    """RULES 2.10: left out, the table records the options it always did, and its view
    names the default it plays by; chosen, it is recorded and shown like any option."""
    default = {"low_point": "dealt", "all_pass": "redeal", "setback_chip": False}
    in_force = {**default, "game_end": "rules"}
    for options, recorded, shown in [
        ({}, default, in_force),
        (HIGHEST, {**default, **HIGHEST}, {**default, **HIGHEST}),
    ]:
        created = tables.create("t", "pitch", 3, options)
        assert created.options == recorded
        view = tables.view(tables.start(created), "spectator")
        assert msgspec.to_builtins(view.options) == shown  # type: ignore[attr-defined]
    _, events = pitched_for_two(PITCHER_REACHES_SEVEN, [6, 6, 5], {"game_end": "rules"})
    assert only(events, GameWon).winners == [2]
