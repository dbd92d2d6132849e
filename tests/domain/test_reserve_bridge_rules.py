"""Reserve Bridge: the rules of RULES 4 behind the worked example, one test per rule."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.bridge import rules
from domain.bridge.events import (
    BidStood,
    ContractSettled,
    DenominationChanged,
    RecontraCalled,
    SlamBidMade,
    StageDealt,
)
from domain.bridge.game import RESERVE_BRIDGE
from domain.bridge.state import BridgePlayedCard, Phase, State
from domain.cards import piquet_pack
from domain.commands import (
    Accept,
    Bid,
    Contra,
    Declare,
    Pass,
    Play,
    Recontra,
    Reserve,
    Stand,
    SupplyDeck,
)
from domain.common.structs import CompletedTrick
from domain.errors import RuleCode, RuleError
from domain.events import AuctionWon, BidMade, CardsDealt, DealerDrawn, DealThrownIn, Passed
from domain.protocol import SYSTEM
from tests.support.given import given
from tests.support.playout import Playout, act_all, refused

B, A = 0, 1  # seat 0 deals first: A, the non-dealer, is seat 1
PACK = piquet_pack()


def new_table(dealer: int = B) -> Playout:
    """A seated table dealt from the pack in reference order (any deal will do here)."""
    created = tables.create("rules", "reserve-bridge", 2, {}, first_dealer=dealer, decks=[PACK])
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    return playout


def bids_offered(playout: Playout, seat: int) -> list[int]:
    return [a.amount for a in tables.legal_actions(playout.table, seat) if isinstance(a, Bid)]


# --- the first dealer and the deal (RULES 0.4, 4.1, 4.2) --------------------------------


def test_highest_card_of_the_draw_deals_ace_high() -> None:
    """RULES 0.4: one card each from the 32-card pack; the highest rank deals."""
    state = RESERVE_BRIDGE.initial_state(2, None, None)
    deck = ("KS", "AC", *(c for c in PACK if c not in ("KS", "AC")))
    events = RESERVE_BRIDGE.decide(state, SupplyDeck(deck, "c", 1), SYSTEM)
    assert events == [DealerDrawn(shuffle=1, commitment="c", cards=["KS", "AC"], dealer=1)]


def test_tied_draw_draws_again() -> None:
    state = RESERVE_BRIDGE.initial_state(2, None, None)
    deck = ("QS", "QH", *(c for c in PACK if c not in ("QS", "QH")))
    drawn = RESERVE_BRIDGE.decide(state, SupplyDeck(deck, "c", 1), SYSTEM)
    assert drawn[0].dealer is None  # type: ignore[attr-defined]
    state = RESERVE_BRIDGE.evolve(state, drawn[0])
    assert state.phase is Phase.DRAW and state.drawing == (0, 1)


def test_stage_one_gives_ten_cards_each_and_keeps_twelve_face_down() -> None:
    """RULES 4.2: in twos, non-dealer first; the reference-order pack shows the pattern."""
    playout = new_table()
    state = playout.table.state
    assert state.hands[A] == ("7C", "8C", "JC", "QC", "7D", "8D", "JD", "QD", "7H", "8H")
    assert state.hands[B] == ("9C", "TC", "KC", "AC", "9D", "TD", "KD", "AD", "9H", "TH")
    assert state.stock == PACK[20:]


# --- the auction (RULES 4.3) ------------------------------------------------------------


def test_first_bid_of_the_auction_is_free() -> None:
    """RULES 4.3 [decision]: any bid from 6 to 50 opens the auction."""
    playout = new_table()
    assert tables.to_act(playout.table) == [A]
    assert bids_offered(playout, A) == list(range(6, 51))
    assert Pass() in tables.legal_actions(playout.table, A)


def test_rounds_one_and_two_exceed_the_opponent_by_at_most_five() -> None:
    """RULES 4.3: after A's 6, B may bid 7 to 11, or a slam bid."""
    playout = new_table()
    playout.act(A, Bid(amount=6))
    assert bids_offered(playout, B) == [7, 8, 9, 10, 11, 24, 30, 32, 40, 50]
    opened = given(playout.events)
    opened.when(Bid(amount=12), by=B).then_refused(RuleCode.BID_NOT_ALLOWED)
    opened.when(Bid(amount=6), by=B).then_refused(RuleCode.BID_TOO_LOW)


def test_bids_stay_between_six_and_fifty() -> None:
    dealt = given(new_table().events)
    dealt.when(Bid(amount=5), by=A).then_refused(RuleCode.BID_TOO_LOW)
    dealt.when(Bid(amount=51), by=A).then_refused(RuleCode.BID_NOT_ALLOWED)


def test_slam_bid_is_allowed_beyond_the_cap_at_any_time() -> None:
    """RULES 4.3: a grand slam in ♣♦ (30) over A's 6 in round 1; a stage follows."""
    playout = new_table()
    playout.act(A, Bid(amount=6))
    events = playout.act(B, Bid(amount=30))
    assert events[0] == SlamBidMade(seat=B, amount=30, cap=11)
    assert isinstance(events[1], StageDealt) and events[1].stage == 2


def test_each_player_calls_once_in_rounds_one_and_two_then_a_stage_is_dealt() -> None:
    """RULES 4.2: round 1 (A, B), two cards each, round 2 (A, B), two more each."""
    playout = new_table()
    events = act_all(playout, [(A, Bid(amount=6)), (B, Bid(amount=8))])
    assert [type(e) for e in events] == [BidMade, StageDealt]
    assert tables.to_act(playout.table) == [A]
    events = act_all(playout, [(A, Bid(amount=9)), (B, Bid(amount=10))])
    assert [type(e) for e in events] == [BidMade, StageDealt]
    assert [len(h) for h in playout.table.state.hands] == [14, 14]


def test_round_three_alternates_uncapped_until_one_player_passes() -> None:
    """RULES 4.3 [decision]: while both still bid in round 3, raises are not capped."""
    playout = new_table()
    act_all(
        playout, [(A, Bid(amount=6)), (B, Bid(amount=8)), (A, Bid(amount=9)), (B, Bid(amount=14))]
    )
    assert bids_offered(playout, A) == list(range(15, 51))
    playout.act(A, Bid(amount=27))
    assert tables.to_act(playout.table) == [B]
    playout.act(B, Bid(amount=28))
    given(playout.events).when(Pass(), by=A).then([Passed(seat=A), AuctionWon(seat=B, amount=28)])


def test_a_pass_in_round_three_after_the_opponents_bid_ends_the_auction() -> None:
    """RULES 4.2: round 3 ends when one passes; the bidder has already called."""
    playout = new_table()
    act_all(
        playout, [(A, Bid(amount=6)), (B, Bid(amount=8)), (A, Bid(amount=9)), (B, Bid(amount=14))]
    )
    playout.act(A, Bid(amount=15))
    given(playout.events).when(Pass(), by=B).then([Passed(seat=B), AuctionWon(seat=A, amount=15)])


def test_a_pass_is_final() -> None:
    """RULES 4.3: A passes in round 2 and never calls again; B calls alone."""
    playout = new_table()
    act_all(playout, [(A, Bid(amount=6)), (B, Bid(amount=8)), (A, Pass())])
    assert tables.to_act(playout.table) == [B]
    playout.act(B, Stand())
    assert tables.to_act(playout.table) == [B]  # round 3: B again, A never
    assert tables.legal_actions(playout.table, A) == []


def test_after_a_pass_the_other_raises_his_own_previous_bid_by_at_most_five_or_stands() -> None:
    """RULES 4.3: A 6, B passes; A may go to 11 in round 2, and stands at 6."""
    playout = new_table()
    act_all(playout, [(A, Bid(amount=6)), (B, Pass())])
    offered = tables.legal_actions(playout.table, A)
    assert Pass() not in offered and offered[0] == Stand()
    assert bids_offered(playout, A) == [7, 8, 9, 10, 11, 24, 30, 32, 40, 50]
    assert refused(playout, A, Pass()) is RuleCode.NOT_ALLOWED_NOW
    events = playout.act(A, Stand())
    assert events[0] == BidStood(seat=A, amount=6)
    assert bids_offered(playout, A)[:5] == [7, 8, 9, 10, 11]  # still 6 + 5 in round 3
    events = playout.act(A, Bid(amount=11))
    assert events == [BidMade(seat=A, amount=11), AuctionWon(seat=A, amount=11)]


def test_the_survivor_calls_in_the_round_of_the_pass_too() -> None:
    """RULES 4.3: A passes first in round 1; B calls in round 1, then once per round."""
    playout = new_table()
    playout.act(A, Pass())
    assert tables.to_act(playout.table) == [B]
    assert bids_offered(playout, B) == list(range(6, 51))  # the first bid is free
    events = playout.act(B, Bid(amount=10))
    assert isinstance(events[-1], StageDealt)
    assert bids_offered(playout, B)[:5] == [11, 12, 13, 14, 15]
    playout.act(B, Bid(amount=15))
    events = playout.act(B, Stand())
    assert events == [BidStood(seat=B, amount=15), AuctionWon(seat=B, amount=15)]


def test_stand_is_only_for_a_bidder_whose_opponent_has_passed() -> None:
    playout = new_table()
    playout.act(A, Bid(amount=6))
    given(playout.events).when(Stand(), by=B).then_refused(RuleCode.NOT_ALLOWED_NOW)


def test_nobody_bidding_throws_the_deal_in_and_the_other_player_deals() -> None:
    """RULES 4.3 [decision] and 0.4."""
    playout = new_table()
    playout.act(A, Pass())
    events = playout.act(B, Pass())
    assert events == [Passed(seat=B), DealThrownIn(deal=1)]
    state = playout.table.state
    assert state.deal == 2 and state.dealer == A and state.phase is Phase.AUCTION
    assert tables.to_act(playout.table) == [B]  # B is now the non-dealer


# --- the contract (RULES 4.4) -----------------------------------------------------------


def won_auction(amount: int) -> Playout:
    """A opens with ``amount`` (free), B passes, A stands twice: A declares."""
    playout = new_table()
    act_all(playout, [(A, Bid(amount=amount)), (B, Pass()), (A, Stand()), (A, Stand())])
    assert playout.table.state.phase is Phase.DECLARE
    return playout


def declared(playout: Playout) -> list[str]:
    return [a.denomination for a in tables.legal_actions(playout.table, A)]  # type: ignore[union-attr]


def test_a_denomination_needing_more_than_five_odd_tricks_is_not_allowed() -> None:
    """RULES 4.4: 31 is six odd tricks in ♣♦, four in ♥♠ and no-trump or nullo."""
    playout = won_auction(31)
    assert declared(playout) == ["H", "S", "NT", "NULLO"]
    assert refused(playout, A, Declare(denomination="C")) is RuleCode.DENOMINATION_NOT_ALLOWED


def test_a_slam_value_bid_within_the_rules_may_be_played_anywhere_it_fits() -> None:
    """RULES 4.4: only a bid that *exceeded a cap* as a slam is bound to its slam."""
    assert declared(won_auction(24)) == ["C", "D", "H", "S", "NT", "NULLO"]


def test_contra_then_recontra() -> None:
    playout = won_auction(12)
    playout.act(A, Declare(denomination="NT"))
    assert tables.legal_actions(playout.table, B) == [Contra(), Accept()]
    playout.act(B, Contra())
    events = playout.act(A, Recontra())
    assert events[:2] == [
        RecontraCalled(seat=A),
        ContractSettled(seat=A, amount=12, denomination="NT", doubling="recontra", odd_tricks=2),
    ]
    assert playout.table.state.phase is Phase.RESERVE


def test_change_of_denomination_keeps_the_bid_and_the_contra_without_recontra() -> None:
    """RULES 4.4 [decision]: 20 in ♦ (4 odd tricks) contra'd, moved to no-trump (2)."""
    playout = won_auction(20)
    playout.act(A, Declare(denomination="D"))
    playout.act(B, Contra())
    offered = tables.legal_actions(playout.table, A)
    assert offered == [
        Recontra(),
        Accept(),
        *(Declare(denomination=d) for d in ["C", "H", "S", "NT", "NULLO"]),
    ]
    assert refused(playout, A, Declare(denomination="D")) is RuleCode.DENOMINATION_NOT_ALLOWED
    events = playout.act(A, Declare(denomination="NT"))
    assert events[:2] == [
        DenominationChanged(seat=A, denomination="NT", previous="D"),
        ContractSettled(seat=A, amount=20, denomination="NT", doubling="contra", odd_tricks=2),
    ]
    assert playout.table.state.phase is Phase.RESERVE


def test_no_contra_settles_the_contract_and_deals_the_last_two_cards_each() -> None:
    """RULES 4.2: named, not contra'd; the last stage makes 16 cards each."""
    playout = won_auction(12)
    playout.act(A, Declare(denomination="S"))
    events = playout.act(B, Accept())
    assert events[0] == ContractSettled(
        seat=A, amount=12, denomination="S", doubling="none", odd_tricks=2
    )
    assert isinstance(events[1], StageDealt) and events[1].stage == 4
    assert [len(h) for h in playout.table.state.hands] == [16, 16]
    assert tables.to_act(playout.table) == [0, 1]


def test_the_reserve_is_exactly_three_cards_of_the_hand() -> None:
    playout = won_auction(12)
    playout.act(A, Declare(denomination="S"))
    playout.act(B, Accept())
    hand = list(playout.table.state.hands[A])
    assert refused(playout, A, Reserve(cards=hand[:2])) is RuleCode.INVALID_DISCARD
    assert refused(playout, A, Reserve(cards=hand[:4])) is RuleCode.INVALID_DISCARD
    assert refused(playout, A, Reserve(cards=[hand[0]] * 3)) is RuleCode.INVALID_DISCARD
    other = playout.table.state.hands[B][0]
    assert refused(playout, A, Reserve(cards=[*hand[:2], other])) is RuleCode.INVALID_DISCARD
    playout.act(A, Reserve(cards=hand[:3]))
    assert tables.to_act(playout.table) == [B]
    assert len(playout.table.state.hands[A]) == 13


# --- play (RULES 4.5) -------------------------------------------------------------------


def playing(
    hands: dict[int, list[str]],
    reserves: dict[int, list[str]] | None = None,
    trick: tuple[tuple[int, str], ...] = (),
    done: int = 0,
    denomination: str = "S",
) -> State:
    """A deal in play with ``done`` tricks behind it (won by A) and ``trick`` on the table."""
    past = CompletedTrick(leader=A, winner=A, cards=())
    turn = 1 - trick[-1][0] if trick else A
    return State(
        phase=Phase.PLAY,
        dealer=B,
        deal=1,
        hands=(tuple(hands.get(0, [])), tuple(hands.get(1, []))),
        reserves=tuple(tuple((reserves or {}).get(s, [])) for s in (0, 1)),
        reserve_laid=(True, True),
        high_bid=6,
        high_bidder=A,
        denomination=denomination,
        turn=turn,
        trick=tuple(BridgePlayedCard(s, c) for s, c in trick),
        tricks=(past,) * done,
    )


def refusal(state: State, seat: int, card: str) -> RuleCode:
    with pytest.raises(RuleError) as error:
        RESERVE_BRIDGE.decide(state, Play(card=card), seat)
    return error.value.code


def test_the_leaders_second_card_must_follow_the_suit_led_too() -> None:
    """RULES 4.5: every card of a four-card trick follows the suit led when it can."""
    state = playing({A: ["KS", "7H"], B: ["8D"]}, trick=((A, "8S"), (B, "9S")))
    assert RESERVE_BRIDGE.legal_actions(state, A) == [Play(card="KS")]
    assert refusal(state, A, "7H") is RuleCode.MUST_FOLLOW_SUIT


def test_a_void_player_may_discard_and_need_not_trump() -> None:
    """RULES 4.5: no duty to beat or to trump."""
    state = playing({A: ["8S"], B: ["7H", "8D", "7S"]}, trick=((A, "AH"),))
    assert RESERVE_BRIDGE.legal_actions(state, B) == [Play(card="7H")]
    state = playing({A: ["8S"], B: ["8D", "7S"]}, trick=((A, "AH"),))
    assert RESERVE_BRIDGE.legal_actions(state, B) == [Play(card="8D"), Play(card="7S")]


def test_the_highest_card_of_a_four_card_trick_wins_whoever_played_it() -> None:
    """RULES 4.5 (and the seed): A leads, B, A, B — the highest card takes the trick."""
    assert rules.trick_winner([(A, "8S"), (B, "9S"), (A, "KS"), (B, "7S")], "D") == A
    assert rules.trick_winner([(A, "8S"), (B, "9S"), (A, "KS"), (B, "TD")], "D") == B
    assert rules.trick_winner([(A, "8S"), (B, "AH"), (A, "7S"), (B, "TD")], None) == A


def test_tricks_eight_to_ten_come_from_the_reserve_and_one_to_seven_from_the_hand() -> None:
    """RULES 4.5: a reserve card is not in play before trick 8, nor a hand card after."""
    state = playing({A: ["KS"]}, {A: ["AS", "7D", "8D"]}, done=6)
    assert refusal(state, A, "AS") is RuleCode.CARD_NOT_HELD
    assert RESERVE_BRIDGE.legal_actions(state, A) == [Play(card="KS")]
    state = playing({}, {A: ["AS", "7D", "8D"], B: ["QS", "9D"]}, done=7)
    assert RESERVE_BRIDGE.legal_actions(state, A) == [
        Play(card="AS"),
        Play(card="7D"),
        Play(card="8D"),
    ]


def test_seventh_and_later_tricks_have_two_cards() -> None:
    assert [rules.trick_size(n) for n in range(1, 11)] == [4] * 6 + [2] * 4


# --- honours (RULES 4.7) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "denomination", "expected"),
    [
        pytest.param("TD 9D 8D 7D AS", "D", ("run", 4, 15), id="run of four below the ace"),
        pytest.param("AD KD QD JD TD", "D", ("run", 5, 30), id="run of five"),
        pytest.param("AH KH QH JH TH 9H", "H", ("run", 6, 45), id="run of six"),
        pytest.param("KC QC JC TC 9C 8C 7C", "C", ("run", 7, 60), id="run of seven"),
        pytest.param("AS KS QS JS TS 9S 8S 7S", "S", ("run", 8, 75), id="the whole suit"),
        pytest.param("AD KD QD TD 9D 8D", "D", None, id="two runs of three are nothing"),
        pytest.param("AS AH AD 7C", "NT", ("aces", 3, 30), id="three aces in no-trump"),
        pytest.param("AS AH AD AC", "NT", ("aces", 4, 40), id="four aces in no-trump"),
        pytest.param("7S 7H 7D AS", "NULLO", ("sevens", 3, 30), id="three sevens in nullo"),
        pytest.param("7S 7H 7D 7C", "NULLO", ("sevens", 4, 40), id="four sevens in nullo"),
        pytest.param("AS AH AD AC", "NULLO", None, id="aces count nothing in nullo"),
        pytest.param("AS AH 7D 7C", "NT", None, id="two aces are nothing"),
    ],
)
def test_honours(cards: str, denomination: str, expected: object) -> None:
    """RULES 4.7: runs of trumps from any card; aces in no-trump; sevens in nullo."""
    assert rules.honours(cards.split(), denomination) == expected


# --- hidden information (RULES 0.6, 4.2, 4.5) -------------------------------------------


def test_hands_the_undealt_rest_and_reserves_are_hidden_from_all_but_owner_and_operator() -> None:
    """RULES 0.6: each seat sees its own cards; reserves stay face down until played."""
    playout = won_auction(12)
    playout.act(A, Declare(denomination="S"))
    playout.act(B, Accept())
    reserve = list(playout.table.state.hands[A][:3])
    playout.act(A, Reserve(cards=reserve))
    dealt = next(e for e in playout.events if isinstance(e, CardsDealt))
    laid = playout.events[-1]
    stage = next(e for e in playout.events if isinstance(e, StageDealt))
    for audience in (B, "spectator"):
        assert RESERVE_BRIDGE.redact(laid, audience).cards is None  # type: ignore[attr-defined]
        assert RESERVE_BRIDGE.redact(dealt, audience).rest is None  # type: ignore[attr-defined]
        assert RESERVE_BRIDGE.redact(dealt, audience).hands[A] is None  # type: ignore[attr-defined]
        assert RESERVE_BRIDGE.redact(stage, audience).hands[A] is None  # type: ignore[attr-defined]
        view = tables.view(playout.table, audience)
        assert view.hands is None and view.reserves is None  # type: ignore[attr-defined]
        assert view.reserve_sizes == [0, 3]  # type: ignore[attr-defined]
    assert RESERVE_BRIDGE.redact(laid, A) == laid
    mine = tables.view(playout.table, A)
    assert mine.reserve == reserve and len(mine.hand or []) == 13  # type: ignore[attr-defined]
    operator = tables.view(playout.table, "operator")
    assert operator.reserves == [[], reserve]  # type: ignore[attr-defined]
    assert operator.undealt == []  # type: ignore[attr-defined]
    assert tables.view(playout.table, B).undealt is None  # type: ignore[attr-defined]
