"""Auction Pitch: the deal, the auction, play, the points of a deal and the options
(RULES 2.1–2.5), the rules beneath the test cases of RULES 2.9."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from domain import table as tables
from domain.cards import standard_pack, suit
from domain.commands import Bid, Hold, NameTrump, Pass, Play, SupplyDeck
from domain.common.structs import CompletedTrick
from domain.common.tricks import trick_winner
from domain.errors import RuleCode, RuleError
from domain.events import (
    AuctionWon,
    BidMade,
    CardsDealt,
    DealerDrawn,
    DealThrownIn,
    Event,
    HandScored,
    Passed,
    TrumpNamed,
)
from domain.pitch import PITCH, rules
from domain.pitch.scoring import score_deal, sole_highest
from domain.pitch.state import Phase, PitchOptions, PitchPlayedCard, State
from domain.protocol import SYSTEM
from tests.domain.pitch_tables import (
    BAD_OPTIONS,
    DEALER_TAKES,
    DEALER_TAKES_AUCTION,
    DEALER_TAKES_TRICKS,
    Trick,
    dealer_takes,
    only,
    play_tricks,
    points,
)
from tests.support.given import given
from tests.support.playout import Playout, act_all, refused

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
    playout = dealer_takes()
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
    playout = dealer_takes()
    assert refused(playout, 2, Bid(amount=2)) is RuleCode.NOT_YOUR_TURN


def test_a_bid_is_two_three_or_four_and_higher_than_the_high_bid() -> None:
    """RULES 2.4: a bid of 2, 3 or 4, higher than the current high bid."""
    playout = dealer_takes()
    assert refused(playout, 0, Bid(amount=1)) is RuleCode.BID_NOT_ALLOWED
    assert refused(playout, 0, Bid(amount=5)) is RuleCode.BID_NOT_ALLOWED
    playout.act(0, Bid(amount=3))
    assert tables.legal_actions(playout.table, 1) == [Pass(), Bid(amount=4)]
    assert refused(playout, 1, Bid(amount=3)) is RuleCode.BID_TOO_LOW
    assert refused(playout, 1, Bid(amount=2)) is RuleCode.BID_TOO_LOW


def test_only_the_dealer_may_take_the_bid() -> None:
    """RULES 2.4: taking the contract without raising is the dealer's privilege."""
    playout = dealer_takes()
    playout.act(0, Bid(amount=2))
    given(playout.events).when(Hold(), by=1).then_refused(RuleCode.CANNOT_HOLD)


def test_the_dealer_cannot_take_when_nobody_has_bid() -> None:
    """RULES 2.4: the dealer takes at the current high bid; with none there is nothing to take."""
    playout = dealer_takes()
    act_all(playout, [(0, Pass()), (1, Pass()), (2, Pass())])
    assert refused(playout, 3, Hold()) is RuleCode.CANNOT_HOLD


def test_everyone_passing_throws_the_deal_in_and_the_next_dealer_deals() -> None:
    """RULES 2.4, all_pass="redeal" (default) and RULES 0.4: the deal passes left."""
    playout = dealer_takes()
    events = act_all(playout, [(0, Pass()), (1, Pass()), (2, Pass()), (3, Pass())])
    assert events[-1] == DealThrownIn(deal=1)
    assert playout.table.state.deal == 2 and playout.table.state.dealer == 0
    assert tables.to_act(playout.table) == [1]


def test_a_stuck_dealer_must_bid_when_everyone_else_passes() -> None:
    """RULES 2.4, all_pass="stick_dealer": the dealer must bid at least 2."""
    playout = dealer_takes({"all_pass": "stick_dealer"})
    act_all(playout, [(0, Pass()), (1, Pass()), (2, Pass())])
    assert tables.legal_actions(playout.table, 3) == [Bid(amount=a) for a in (2, 3, 4)]
    stuck = given(playout.events)
    stuck.when(Pass(), by=3).then_refused(RuleCode.MUST_BID)
    stuck.when(Bid(amount=2), by=3).then([BidMade(seat=3, amount=2), AuctionWon(seat=3, amount=2)])


def test_a_stuck_dealer_may_pass_a_bid_made_by_another_seat() -> None:
    """RULES 2.4: the stuck dealer's duty applies only when every other seat passed."""
    playout = dealer_takes({"all_pass": "stick_dealer"})
    act_all(playout, [(0, Pass()), (1, Bid(amount=2)), (2, Pass())])
    given(playout.events).when(Pass(), by=3).then([Passed(seat=3), AuctionWon(seat=1, amount=2)])


# --- play (RULES 2.5) -------------------------------------------------------------------


def test_the_pitcher_may_lead_any_card_and_its_suit_becomes_trump() -> None:
    """RULES 2.5: the pitcher leads; the suit of that first card becomes trump."""
    playout = dealer_takes()
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
    playout = dealer_takes()
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
    assert sole_highest([10, 10, 3]) is None
    assert sole_highest([0, 4, 3]) == 1


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


@pytest.mark.parametrize("options", BAD_OPTIONS)
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
