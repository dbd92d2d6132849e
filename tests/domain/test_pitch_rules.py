"""Auction Pitch: the test cases of RULES 2.9 and the rules they rest on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from msgspec.structs import replace

from domain import table as tables
from domain.cards import standard_pack, suit
from domain.commands import Bid, Hold, NameTrump, Pass, Play, PlayerCommand, SupplyDeck
from domain.errors import RuleCode, RuleError
from domain.events import (
    AuctionWon,
    CardsDealt,
    DealerDrawn,
    DealThrownIn,
    Event,
    GameWon,
    HandScored,
    Held,
    ScoreItem,
    TrickWon,
    TrumpNamed,
)
from domain.pitch import PITCH, rules
from domain.pitch.events import PitchChipsSettled
from domain.pitch.scoring import game_point_winner, score_deal, settle
from domain.pitch.state import CompletedTrick, Phase, PitchOptions, PitchPlayedCard, State
from domain.protocol import SYSTEM
from domain.tricks import trick_winner
from tests.support.decks import packet_order, stack_deck
from tests.support.playout import Playout

Trick = list[tuple[int, str]]


def deal_table(
    hands: dict[int, list[str]],
    dealer: int,
    seats: int,
    options: dict[str, Any] | None = None,
    scores: Sequence[int] | None = None,
) -> Playout:
    """A seated table whose first deal gives ``hands``, the dealer and scores fixed."""
    deck = stack_deck(hands, packet_order(dealer, seats, (3, 3)), standard_pack())
    created = tables.create(
        "golden", "pitch", seats, options or {}, first_dealer=dealer, decks=[deck]
    )
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    if scores is not None:
        state = replace(playout.table.state, scores=tuple(scores))
        playout.table = replace(playout.table, state=state)
    return playout


def act_all(playout: Playout, calls: Sequence[tuple[int, PlayerCommand]]) -> list[Event]:
    """Each seat's command in turn; the events of the last one."""
    events: list[Event] = []
    for seat, command in calls:
        events = playout.act(seat, command)
    return events


def play_tricks(playout: Playout, tricks: Sequence[Trick]) -> list[Event]:
    return act_all(playout, [(seat, Play(card=card)) for trick in tricks for seat, card in trick])


def refused(playout: Playout, seat: int, command: PlayerCommand) -> RuleCode:
    with pytest.raises(RuleError) as error:
        playout.act(seat, command)
    assert not any(
        isinstance(a, type(command)) and a == command
        for a in tables.legal_actions(playout.table, seat)
    )
    return error.value.code


def only(events: list[Event], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, events
    return found[0]


def points(scored: HandScored) -> dict[str, int]:
    return {item.label: item.unit for item in scored.items}


# --- RULES 2.9, test case 1: four players, the dealer takes 3 and is set back -----------

DEALER_TAKES = {
    0: ["AH", "2C", "3S", "4S", "3D", "4D"],
    1: ["JH", "4H", "5S", "6S", "5D", "6D"],
    2: ["2H", "3C", "7S", "8S", "7D", "8D"],
    3: ["KH", "4C", "AS", "TS", "AD", "TD"],
}
DEALER_TAKES_AUCTION = [(0, Bid(amount=2)), (1, Pass()), (2, Bid(amount=3)), (3, Hold())]
DEALER_TAKES_TRICKS: list[Trick] = [
    [(3, "KH"), (0, "AH"), (1, "4H"), (2, "2H")],  # seat 1 keeps JH back
    [(0, "2C"), (1, "JH"), (2, "3C"), (3, "4C")],  # ... and wins a trick with it
    [(1, "5S"), (2, "7S"), (3, "AS"), (0, "3S")],
    [(3, "TS"), (0, "4S"), (1, "6S"), (2, "8S")],
    [(3, "AD"), (0, "3D"), (1, "5D"), (2, "7D")],
    [(3, "TD"), (0, "4D"), (1, "6D"), (2, "8D")],
]


def test_dealer_takes_the_bid_and_is_set_back_while_high_low_and_jack_go_elsewhere() -> None:
    """RULES 2.9: dealer 3 takes at 3 and pitches KH; AH seat 0, JH and 4H seat 1, 2H
    seat 2; seat 1 keeps JH back and wins a trick with it; seat 3 wins Game.
    Seat 0 +1 (High), seat 2 +1 (Low, dealt), seat 1 +1 (Jack), seat 3 made 1 of 3: −3."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
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
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4, options={"low_point": "won"})
    act_all(playout, DEALER_TAKES_AUCTION)
    scored = only(play_tricks(playout, DEALER_TAKES_TRICKS), HandScored)
    assert points(scored) == {"high": 0, "low": 0, "jack": 1, "game": 3}
    assert scored.changes == [2, 1, 0, -3]


def test_views_show_scores_pitcher_bid_and_trump_and_hide_other_hands() -> None:
    """RULES 2.2 and 0.6: undealt cards and other hands reach the operator only."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
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

PITCHER_REACHES_SEVEN = {
    2: ["3H", "JH", "TC", "AS", "TS", "9C"],
    0: ["AH", "4C", "5C", "6C", "7C", "8C"],
    1: ["2H", "4D", "5D", "6D", "7D", "8D"],
}


def test_pitcher_who_makes_his_bid_and_reaches_seven_wins_whatever_the_others_reach() -> None:
    """RULES 2.9: before the deal 6, 6, 5; seat 2 pitches for 2 and wins Jack and Game;
    seat 0 High, seat 1 Low: all reach 7, but seat 2 made his bid and wins."""
    playout = deal_table(PITCHER_REACHES_SEVEN, dealer=1, seats=3, scores=[6, 6, 5])
    act_all(playout, [(2, Bid(amount=2)), (0, Pass()), (1, Pass())])
    events = play_tricks(
        playout,
        [
            [(2, "3H"), (0, "AH"), (1, "2H")],
            [(0, "4C"), (1, "4D"), (2, "JH")],  # seat 2 trumps although he holds clubs
            [(2, "TC"), (0, "5C"), (1, "5D")],
            [(2, "AS"), (0, "6C"), (1, "6D")],
            [(2, "TS"), (0, "7C"), (1, "7D")],
            [(2, "9C"), (0, "8C"), (1, "8D")],
        ],
    )
    scored = only(events, HandScored)
    assert points(scored) == {"high": 0, "low": 1, "jack": 2, "game": 2}
    assert scored.scores == [7, 7, 7]
    assert only(events, GameWon) == GameWon(winners=[2], scores=[7, 7, 7])
    assert only(events, PitchChipsSettled).chips == [-1, -1, 2]
    assert playout.table.status == "finished"


SET_BACK_PITCHER = {
    2: ["2H", "3C", "2D", "3D", "2S", "4D"],
    0: ["AH", "4C", "5C", "6C", "7C", "8C"],
    1: ["3H", "JH", "TD", "AD", "TS", "9D"],
}


def test_after_a_set_back_points_count_in_the_order_high_low_jack_game() -> None:
    """RULES 2.9: the pitcher is set back; seat 0 gets High (→7), seat 1 Jack (→7) and
    Game (→8): seat 0 reaches 7 first in the counting order and wins."""
    playout = deal_table(SET_BACK_PITCHER, dealer=1, seats=3, scores=[6, 6, 0])
    act_all(playout, [(2, Bid(amount=2)), (0, Pass()), (1, Pass())])
    events = play_tricks(
        playout,
        [
            [(2, "2H"), (0, "AH"), (1, "3H")],
            [(0, "4C"), (1, "JH"), (2, "3C")],
            [(1, "TD"), (2, "2D"), (0, "5C")],
            [(1, "AD"), (2, "3D"), (0, "6C")],
            [(1, "TS"), (2, "2S"), (0, "7C")],
            [(1, "9D"), (2, "4D"), (0, "8C")],
        ],
    )
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


def smudge(before: list[int], bid: int = 4) -> tuple[Playout, list[Event]]:
    playout = deal_table(SMUDGE, dealer=0, seats=2, scores=before)
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
    assert refused(playout, 0, Hold()) is RuleCode.CANNOT_HOLD
    assert refused(playout, 0, Bid(amount=4)) is RuleCode.BID_TOO_LOW
    assert playout.act(0, Pass())[-1] == AuctionWon(seat=1, amount=4)


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


# --- the deal (RULES 0.4, 2.2) ----------------------------------------------------------


def test_highest_card_deals_and_tied_seats_draw_again() -> None:
    """RULES 0.4: aces high; only the tied seats draw again."""
    state = PITCH.initial_state(3, PitchOptions(), None)
    deck = ("AS", "AH", "KC", *(c for c in standard_pack() if c not in {"AS", "AH", "KC"}))
    tie = only(PITCH.decide(state, SupplyDeck(deck=deck, commitment="c", shuffle=1), SYSTEM), Event)
    assert tie == DealerDrawn(shuffle=1, commitment="c", cards=["AS", "AH", "KC"], dealer=None)
    state = PITCH.evolve(state, tie)
    again = PITCH.decide(
        state, SupplyDeck(deck=("3C", "KD", *deck[2:]), commitment="d", shuffle=2), SYSTEM
    )
    assert again == [DealerDrawn(shuffle=2, commitment="d", cards=["3C", "KD", None], dealer=1)]


def test_three_then_three_from_the_dealers_left_and_the_rest_is_out_of_play() -> None:
    """RULES 2.2: 3 at a time until each has 6; undealt cards are never shown."""
    deck = list(standard_pack())
    created = tables.create("t", "pitch", 3, {}, first_dealer=1, decks=[deck])
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    dealt = only(playout.events, CardsDealt)
    assert dealt.hands[2] == deck[0:3] + deck[9:12]  # seat 2 sits left of the dealer
    assert dealt.hands[0] == deck[3:6] + deck[12:15]
    assert dealt.hands[1] == deck[6:9] + deck[15:18]
    assert dealt.rest == deck[18:]
    seen = tables.redact(PITCH, dealt, 0)
    assert isinstance(seen, CardsDealt)
    assert seen.hands == [dealt.hands[0], None, None] and seen.rest is None
    spectator = tables.redact(PITCH, dealt, "spectator")
    assert isinstance(spectator, CardsDealt)
    assert spectator.hands == [None, None, None] and spectator.rest is None


# --- the auction (RULES 2.4) ------------------------------------------------------------


def test_each_seat_calls_once_from_the_dealers_left_and_the_dealers_call_ends_it() -> None:
    """RULES 2.4: one round, from the dealer's left; the dealer calls last."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    turns = []
    for seat, command in [(0, Bid(amount=2)), (1, Bid(amount=3)), (2, Pass()), (3, Pass())]:
        turns.extend(tables.to_act(playout.table))
        events = playout.act(seat, command)
    assert turns == [0, 1, 2, 3]
    assert events[-1] == AuctionWon(seat=1, amount=3)
    assert playout.table.state.phase is Phase.PLAY
    assert refused(playout, 0, Bid(amount=4)) is RuleCode.NOT_YOUR_TURN


def test_calls_out_of_turn_are_refused() -> None:
    """RULES 0.5 and 2.4: the auction starts left of the dealer."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    assert refused(playout, 2, Bid(amount=2)) is RuleCode.NOT_YOUR_TURN


def test_a_bid_is_two_three_or_four_and_higher_than_the_high_bid() -> None:
    """RULES 2.4: a bid of 2, 3 or 4, higher than the current high bid."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    assert refused(playout, 0, Bid(amount=1)) is RuleCode.BID_NOT_ALLOWED
    assert refused(playout, 0, Bid(amount=5)) is RuleCode.BID_NOT_ALLOWED
    playout.act(0, Bid(amount=3))
    assert tables.legal_actions(playout.table, 1) == [Pass(), Bid(amount=4)]
    assert refused(playout, 1, Bid(amount=3)) is RuleCode.BID_TOO_LOW
    assert refused(playout, 1, Bid(amount=2)) is RuleCode.BID_TOO_LOW


def test_only_the_dealer_may_take_the_bid() -> None:
    """RULES 2.4: taking the contract without raising is the dealer's privilege."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    playout.act(0, Bid(amount=2))
    assert refused(playout, 1, Hold()) is RuleCode.CANNOT_HOLD


def test_the_dealer_cannot_take_when_nobody_has_bid() -> None:
    """RULES 2.4: the dealer takes at the current high bid; with none there is nothing to take."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    act_all(playout, [(0, Pass()), (1, Pass()), (2, Pass())])
    assert refused(playout, 3, Hold()) is RuleCode.CANNOT_HOLD


def test_everyone_passing_throws_the_deal_in_and_the_next_dealer_deals() -> None:
    """RULES 2.4, all_pass="redeal" (default) and RULES 0.4: the deal passes left."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    events = act_all(playout, [(0, Pass()), (1, Pass()), (2, Pass()), (3, Pass())])
    assert events[-1] == DealThrownIn(deal=1)
    assert playout.table.state.deal == 2 and playout.table.state.dealer == 0
    assert tables.to_act(playout.table) == [1]


def test_a_stuck_dealer_must_bid_when_everyone_else_passes() -> None:
    """RULES 2.4, all_pass="stick_dealer": the dealer must bid at least 2."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4, options={"all_pass": "stick_dealer"})
    act_all(playout, [(0, Pass()), (1, Pass()), (2, Pass())])
    assert tables.legal_actions(playout.table, 3) == [Bid(amount=a) for a in (2, 3, 4)]
    assert refused(playout, 3, Pass()) is RuleCode.MUST_BID
    assert playout.act(3, Bid(amount=2))[-1] == AuctionWon(seat=3, amount=2)


def test_a_stuck_dealer_may_pass_a_bid_made_by_another_seat() -> None:
    """RULES 2.4: the stuck dealer's duty applies only when every other seat passed."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4, options={"all_pass": "stick_dealer"})
    events = act_all(playout, [(0, Pass()), (1, Bid(amount=2)), (2, Pass()), (3, Pass())])
    assert events[-1] == AuctionWon(seat=1, amount=2)


# --- play (RULES 2.5) -------------------------------------------------------------------


def test_the_pitcher_may_lead_any_card_and_its_suit_becomes_trump() -> None:
    """RULES 2.5: the pitcher leads; the suit of that first card becomes trump."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    act_all(playout, DEALER_TAKES_AUCTION)
    assert tables.legal_actions(playout.table, 3) == [Play(card=c) for c in DEALER_TAKES[3]]
    events = playout.act(3, Play(card="AS"))
    assert TrumpNamed(seat=3, suit="S") in events
    assert playout.table.state.trump == "S"
    assert refused(playout, 0, NameTrump(suit="H")) is RuleCode.NOT_ALLOWED_NOW


def test_on_a_trump_lead_a_player_holding_trump_must_play_one() -> None:
    """RULES 2.5: on every trump lead each player must play a trump if able."""
    assert rules.legal_plays(["2H", "3S", "4C"], "KH", "H") == ["2H"]
    assert rules.legal_plays(["3S", "4C"], "KH", "H") == ["3S", "4C"]


def test_on_a_plain_lead_a_player_may_follow_suit_or_trump_at_will() -> None:
    """RULES 2.5: follow suit or trump, at will; another plain suit is not allowed."""
    assert rules.legal_plays(["2D", "3S", "4H"], "KS", "H") == ["3S", "4H"]


def test_a_player_void_in_the_suit_led_may_play_anything() -> None:
    """RULES 2.5: a player void in the suit led may play anything."""
    assert rules.legal_plays(["2D", "4H", "5C"], "KS", "H") == ["2D", "4H", "5C"]


def test_a_plain_card_of_another_suit_is_refused_while_one_can_follow() -> None:
    """RULES 2.5 and 0.5: seat 2 holds 3C on a club lead and may not play 7S."""
    playout = deal_table(DEALER_TAKES, dealer=3, seats=4)
    act_all(playout, DEALER_TAKES_AUCTION)
    play_tricks(playout, [DEALER_TAKES_TRICKS[0], DEALER_TAKES_TRICKS[1][:2]])
    assert refused(playout, 2, Play(card="7S")) is RuleCode.MUST_FOLLOW_SUIT
    assert refused(playout, 2, Play(card="AS")) is RuleCode.CARD_NOT_HELD


def test_the_highest_trump_wins_else_the_highest_card_of_the_suit_led_aces_high() -> None:
    """RULES 0.7 and 2.1."""

    def winner(plays: Trick, trump: str) -> int:
        led = suit(plays[0][1])
        return trick_winner(plays, lambda c: rules.power_in_trick(c, trump, led))

    assert winner([(0, "KS"), (1, "AS"), (2, "2H")], "H") == 2
    assert winner([(0, "KS"), (1, "AS"), (2, "AD")], "H") == 1
    assert winner([(0, "2H"), (1, "AS"), (2, "3H")], "H") == 2


# --- the points of a deal (RULES 2.3) ---------------------------------------------------


def scored_deal(
    tricks: Sequence[Trick], pitcher: int = 0, bid: int = 2, **options: Any
) -> HandScored:
    """Score six played tricks (winners by the trick rules) with two seats, hearts trump."""
    completed = []
    for plays in tricks:
        led = suit(plays[0][1])
        won_by = trick_winner(plays, lambda c, led=led: rules.power_in_trick(c, "H", led))
        cards = tuple(PitchPlayedCard(seat, card) for seat, card in plays)
        completed.append(CompletedTrick(leader=plays[0][0], winner=won_by, cards=cards))
    state = State(
        phase=Phase.PLAY,
        seats=2,
        options=PitchOptions(**options),
        dealer=1,
        deal=1,
        hands=((), ()),
        high_bid=bid,
        high_bidder=pitcher,
        pitcher=pitcher,
        trump="H",
        tricks=tuple(completed),
        scores=(0, 0),
        setbacks=(0, 0),
    )
    return only(score_deal(state), HandScored)


# Hearts trump; only 5H and KH dealt (AH, 2H and JH undealt); 10 game points each.
FEW_TRUMPS: list[Trick] = [
    [(0, "5H"), (1, "3C")],
    [(0, "TS"), (1, "4S")],
    [(0, "5D"), (1, "TD")],
    [(1, "KH"), (0, "7C")],
    [(1, "8C"), (0, "KC")],
    [(0, "2S"), (1, "3S")],
]


def test_high_and_low_count_only_trumps_in_play() -> None:
    """RULES 2.3: the undealt AH and 2H are out of play: KH is High and 5H Low."""
    assert points(scored_deal(FEW_TRUMPS))["high"] == 1
    assert points(scored_deal(FEW_TRUMPS))["low"] == 0


def test_jack_scores_nobody_when_the_trump_jack_was_not_dealt() -> None:
    """RULES 2.3: Jack: nobody if the trump jack was not dealt."""
    assert "jack" not in points(scored_deal(FEW_TRUMPS))


def test_a_tie_for_most_game_points_gives_game_to_nobody() -> None:
    """RULES 2.3: seats 0 and 1 both capture 10 + 3 game points."""
    assert "game" not in points(scored_deal(FEW_TRUMPS))
    assert game_point_winner([10, 10, 3]) is None
    assert game_point_winner([0, 4, 3]) == 1


def test_a_single_trump_in_play_is_both_high_and_low() -> None:
    """RULES 2.3: with 5H the only trump dealt, its holder scores High and Low."""
    plain = [("TS", "4S"), ("5D", "4D"), ("7C", "6C"), ("9C", "8C"), ("2S", "AD")]
    tricks = [[(0, "5H"), (1, "3C")], *[[(0, c), (1, d)] for c, d in plain]]
    assert points(scored_deal(tricks)) == {"high": 0, "low": 0, "game": 0}


def test_game_points_are_ten_four_three_two_one_for_t_a_k_q_j() -> None:
    """RULES 2.3: T=10, A=4, K=3, Q=2, J=1, all suits; other ranks nothing."""
    assert rules.game_points(["TS", "AD", "KC", "QH", "JS", "9S", "2D"]) == 20


def test_a_pitcher_short_of_his_bid_is_set_back_by_it() -> None:
    """RULES 2.6: seat 0 bid 3 and won Low only: −3; seat 1 keeps his High."""
    scored = scored_deal(FEW_TRUMPS, bid=3)
    assert scored.changes == [-3, 1]
    assert scored.contract is not None and not scored.contract.made


# --- options (RULES 2.3, 2.4, 2.8) ------------------------------------------------------


def test_options_default_to_the_seed_rules() -> None:
    """RULES 2.3, 2.4, 2.8: low_point dealt, all_pass redeal, setback_chip off."""
    created = tables.create("t", "pitch", 4, {})
    assert created.options == {"low_point": "dealt", "all_pass": "redeal", "setback_chip": False}


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"low_point": "lowest"}, id="bad low_point"),
        pytest.param({"all_pass": "shoot"}, id="bad all_pass"),
        pytest.param({"setback_chip": "yes"}, id="setback_chip not a boolean"),
        pytest.param({"kitty": True}, id="unknown option"),
    ],
)
def test_unknown_options_and_bad_values_are_refused(options: dict[str, Any]) -> None:
    """RULES 0: an option is one of RULES' named values, or the table is not created."""
    with pytest.raises(RuleError) as error:
        tables.create("t", "pitch", 4, options)
    assert error.value.code is RuleCode.INVALID_OPTIONS


@pytest.mark.parametrize("seats", [1, 8])
def test_pitch_seats_two_to_seven(seats: int) -> None:
    """RULES 2.1: 2–7 seats."""
    with pytest.raises(RuleError) as error:
        tables.create("t", "pitch", seats, {})
    assert error.value.code is RuleCode.INVALID_OPTIONS
