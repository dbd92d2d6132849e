"""The Pinochle variants (RULES 3.B, 3.C, 3.D): the turn-up and the dix exchange,
everyone melding, no trick no meld, the target of 1000 and its rises, and Widow Pinochle's
soloist counted first."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain import table as tables
from domain.commands import Bid, Bury, Concede, ExchangeDix, Meld, MeldOffer, NameTrump, Pass, Play
from domain.common.structs import CompletedTrick
from domain.errors import RuleCode, RuleError
from domain.events import CardsDealt, Event, GameWon, HandScored
from domain.pinochle import PINOCHLE_FOUR, PINOCHLE_THREE, PINOCHLE_WIDOW
from domain.pinochle.deal import everyone
from domain.pinochle.events import DixExchanged, TargetRaised, TrumpTurnedUp
from domain.pinochle.melds import make
from domain.pinochle.options import Config
from domain.pinochle.state import Phase, State
from tests.support.decks import cards
from tests.support.given import given
from tests.support.pinochle_tables import (
    best_meld,
    deal_table,
    play_out_deal,
    settlement,
    state_of,
    win_auction,
)
from tests.support.playout import Playout

# Seat 2 deals; seat 2's last card (the 48th) is turned up: KH, so hearts are trump.
THREE_HANDS = {
    0: cards("9H AS AS TS TS KS KS QS QS JS JS 9S 9S AC AC TC"),
    1: cards("9H TD TD KD KD QD QD JD JD 9D 9D AD AD TC KC KC"),
    2: cards("AH AH TH TH QH QH JH JH 9C 9C QC QC JC JC KH KH"),
}


def three_hand(hands: dict[int, list[str]] | None = None, **options: object) -> Playout:
    return deal_table(hands or THREE_HANDS, game="pinochle-three", options=dict(options))


def act_in_turn(playout: Playout, *commands: object) -> list[Event]:
    events: list[Event] = []
    for command in commands:
        seat = tables.to_act(playout.table)[0]
        events = playout.act(seat, command)  # type: ignore[arg-type]
    return events


# --- the deal and the turn-up (RULES 3.B, 3.D) -------------------------------------------------


def test_sixteen_each_and_the_dealers_last_card_turned_up_for_trump() -> None:
    """RULES 3.B: packets of four; the last card, the dealer's, is turned up."""
    playout = three_hand()
    dealt = next(e for e in playout.events if isinstance(e, CardsDealt))
    assert [len(h or ()) for h in dealt.hands] == [16, 16, 16]
    assert playout.events[-1] == TrumpTurnedUp(seat=2, card="KH")
    assert state_of(playout).trump == "H"
    for audience in (0, 1, "spectator"):
        assert tables.view(playout.table, audience).turn_up == "KH"  # type: ignore[attr-defined]


def test_four_hand_deals_twelve_each_in_threes() -> None:
    """RULES 3.D: four seats, twelve cards each in packets of three."""
    playout = deal_table({}, game="pinochle-four", seats=4, dealer=3)
    dealt = next(e for e in playout.events if isinstance(e, CardsDealt))
    assert [len(h or ()) for h in dealt.hands] == [12] * 4
    pack = PINOCHLE_FOUR.pack  # nothing stacked: the deck is in pack order
    assert dealt.hands[0] == [c for r in range(4) for c in pack[12 * r : 12 * r + 3]]
    assert playout.events[-1] == TrumpTurnedUp(seat=3, card=pack[47])


# --- the dix exchange (RULES 3.B) -----------------------------------------------------------


def test_the_first_dix_holder_from_the_dealers_left_may_exchange() -> None:
    """RULES 3.B: the nine of trumps for the turn-up; the dealer takes the dix."""
    playout = three_hand()
    assert tables.legal_actions(playout.table, 0) == [Pass(), ExchangeDix()]
    events = playout.act(0, ExchangeDix())
    assert events == [DixExchanged(seat=0, dealer=2, dix="9H", card="KH")]
    state = state_of(playout)
    assert "KH" in state.hands[0] and "9H" not in state.hands[0]
    assert "9H" in state.hands[2] and state.hands[2].count("KH") == 1
    assert state.phase is Phase.MELD and state.dix_bonus == (10, 0, 0)


def test_a_declined_exchange_passes_to_the_next_holder() -> None:
    """[decision] Everyone is asked in turn, so a pass reveals nothing; the first holder
    who wants it exchanges."""
    playout = three_hand()
    playout.act(0, Pass())
    assert tables.legal_actions(playout.table, 1) == [Pass(), ExchangeDix()]
    playout.act(1, ExchangeDix())
    assert state_of(playout).dix_exchanged_by == 1


def test_a_seat_without_the_dix_can_only_pass() -> None:
    hands = {seat: list(cards) for seat, cards in THREE_HANDS.items()}
    hands[0][0], hands[2][0] = hands[2][0], hands[0][0]  # seat 0's 9H for the dealer's AH
    playout = three_hand(hands)
    assert tables.legal_actions(playout.table, 0) == [Pass()]
    given(playout.events).when(ExchangeDix(), by=0).then_refused(RuleCode.CARD_NOT_HELD)


def test_the_exchanged_dix_cannot_be_melded_again() -> None:
    """RULES 3.B: the dealer holds the exchanged nine but may not claim it as a dix."""
    playout = three_hand()
    playout.act(0, ExchangeDix())
    playout.act(0, best_meld(tables.legal_actions(playout.table, 0)))
    playout.act(1, best_meld(tables.legal_actions(playout.table, 1)))
    dealer_claim = best_meld(tables.legal_actions(playout.table, 2))
    assert "dix" not in [m.kind for m in dealer_claim.melds]
    with pytest.raises(RuleError):
        playout.act(2, Meld(melds=[make("dix", "H")]))


def test_a_turned_up_nine_scores_for_the_dealer() -> None:
    """RULES 3.B [decision]: a 9 turned up is the dealer's dix: 10 to him, no exchange."""
    hands = {seat: list(cards) for seat, cards in THREE_HANDS.items()}
    hands[2][8], hands[2][-1] = hands[2][-1], hands[2][8]  # a 9C comes last
    playout = three_hand(hands)
    assert playout.events[-1] == TrumpTurnedUp(seat=2, card="9C")
    state = state_of(playout)
    assert state.phase is Phase.MELD and state.dix_bonus == (0, 0, 10)


# --- melds and play (RULES 3.B) ---------------------------------------------------------------


def test_everyone_melds_in_turn_then_eldest_leads() -> None:
    playout = three_hand()
    playout.act(0, Pass())
    playout.act(1, Pass())
    playout.act(2, Pass())
    for seat in (0, 1, 2):
        assert tables.to_act(playout.table) == [seat]
        actions = tables.legal_actions(playout.table, seat)
        assert actions and all(isinstance(a, MeldOffer) for a in actions)
        playout.act(seat, best_meld(actions))
    assert state_of(playout).phase is Phase.PLAY
    assert tables.to_act(playout.table) == [0]
    assert all(claim is not None for claim in state_of(playout).melds)


def test_a_whole_deal_scores_melds_and_card_points() -> None:
    playout = three_hand()
    act_in_turn(playout, Pass(), Pass(), Pass())
    scored = settlement(play_out_deal(playout))
    assert isinstance(scored, HandScored)
    card_points = sum(i.points for i in scored.items if i.label in ("cards", "last_trick"))
    assert card_points == 250


def three_hand_over(
    winners: Sequence[int],
    melds: Sequence[int],
    scores: Sequence[int] = (0, 0, 0),
    dix: Sequence[int] = (0, 0, 0),
    target: int = 1000,
    soloist: int | None = None,
    bid: int = 0,
) -> State:
    """A finished three-seat deal: trick winners in order, meld points per seat."""
    taken = [0, 0, 0]
    for winner in winners:
        taken[winner] += 240 // len(winners)
    return State(
        phase=Phase.PLAY,
        config=Config(),
        seats=3,
        dealer=2,
        deal=1,
        active=everyone(3, 2),
        hands=((), (), ()),
        trump="S",
        soloist=soloist,
        high_bid=bid,
        melds=((), (), ()),
        meld_points=tuple(melds),
        dix_bonus=tuple(dix),
        tricks=tuple(CompletedTrick(leader=w, winner=w, cards=()) for w in winners),
        taken=tuple(taken),
        scores=tuple(scores),
        target=target,
    )


def test_a_player_who_wins_no_trick_loses_his_melds() -> None:
    """RULES 3.B: no trick, no melds (nor the exchanged dix's 10)."""
    state = three_hand_over(winners=[0, 1, 0], melds=[100, 60, 80], dix=[0, 10, 10])
    scored = PINOCHLE_THREE.score_deal(state)[0]
    assert isinstance(scored, HandScored)
    assert scored.changes == [100 + 160 + 10, 60 + 10 + 80, 0]


def test_the_first_to_1000_wins() -> None:
    state = three_hand_over(winners=[0, 1, 0], melds=[0, 0, 0], scores=[900, 500, 990])
    events = PINOCHLE_THREE.score_deal(state)
    assert events[-1] == GameWon(winners=[0], scores=[1070, 580, 990])


def test_two_reaching_1000_on_one_deal_raise_the_target_by_250() -> None:
    """RULES 3.B: each time two or more reach it on one deal, the target rises by 250."""
    state = three_hand_over(winners=[0, 1, 0], melds=[0, 0, 0], scores=[900, 950, 0])
    events = PINOCHLE_THREE.score_deal(state)
    assert events[-1] == TargetRaised(target=1250)
    later = three_hand_over(winners=[1], melds=[0, 0, 0], scores=[1100, 1100, 0], target=1250)
    events = PINOCHLE_THREE.score_deal(later)
    assert events[-1] == GameWon(winners=[1], scores=[1100, 1350, 0])


# --- Widow Pinochle (RULES 3.C) ---------------------------------------------------------------


def widow_table() -> Playout:
    playout = deal_table({}, game="pinochle-widow")
    win_auction(playout, 0)
    return playout


def test_widow_pinochle_has_no_concessions() -> None:
    """[decision] Nothing to concede: a failed bid scores zero."""
    playout = widow_table()
    playout.act(0, NameTrump(suit="S"))
    assert Concede() not in tables.legal_actions(playout.table, 0)
    assert tables.legal_actions(playout.table, 1) == []
    with pytest.raises(RuleError):
        playout.act(1, Concede())


def test_the_opponents_meld_once_the_soloists_lead_fixes_trump() -> None:
    """RULES 3.C: each opponent also claims melds, in turn from the soloist's left."""
    playout = widow_table()
    playout.act(0, NameTrump(suit="S"))
    playout.act(0, Meld(melds=[]))
    hand = state_of(playout).hands[0]
    playout.act(0, Bury(cards=list(hand[:3])))
    lead = next(a for a in tables.legal_actions(playout.table, 0) if isinstance(a, Play))
    playout.act(0, lead)
    assert state_of(playout).phase is Phase.MELD
    for seat in (1, 2):
        assert tables.to_act(playout.table) == [seat]
        playout.act(seat, best_meld(tables.legal_actions(playout.table, seat)))
    assert state_of(playout).phase is Phase.PLAY and tables.to_act(playout.table) == [1]
    assert all(claim is not None for claim in state_of(playout).melds)


@pytest.mark.parametrize(
    ("made", "changes"),
    [
        pytest.param(True, [300, 60 + 120 + 10, 0], id="made: the bid; opponents their points"),
        pytest.param(False, [0, 60 + 120 + 10, 0], id="set: zero; opponents their points"),
    ],
)
def test_widow_scoring(made: bool, changes: list[int]) -> None:
    """RULES 3.C: the soloist scores his bid or nothing; an opponent without a trick
    loses his melds."""
    state = three_hand_over(
        winners=[0, 1],
        melds=[300 if made else 0, 60, 80],
        soloist=0,
        bid=300,
    )
    scored = PINOCHLE_WIDOW.score_deal(state)[0]
    assert isinstance(scored, HandScored)
    assert scored.changes == changes


def test_the_soloist_is_counted_first() -> None:
    """RULES 3.C: he wins on reaching the target even if an opponent is higher."""
    state = three_hand_over(
        winners=[0, 1], melds=[300, 200, 0], scores=[800, 900, 0], soloist=0, bid=300
    )
    events = PINOCHLE_WIDOW.score_deal(state)
    won = events[-1]
    assert isinstance(won, GameWon) and won.winners == [0] and won.scores[1] > won.scores[0]


def test_both_opponents_reaching_raise_the_target_one_wins_alone() -> None:
    """RULES 3.C: both opponents (not the soloist) reach it: +250; one alone wins."""
    both = three_hand_over(
        winners=[1, 2], melds=[0, 0, 0], scores=[0, 900, 900], soloist=0, bid=300
    )
    assert PINOCHLE_WIDOW.score_deal(both)[-1] == TargetRaised(target=1250)
    one = three_hand_over(winners=[1, 2], melds=[0, 0, 0], scores=[0, 900, 500], soloist=0, bid=300)
    won = PINOCHLE_WIDOW.score_deal(one)[-1]
    assert isinstance(won, GameWon) and won.winners == [1]


def test_widow_pinochle_bids_like_auction_pinochle() -> None:
    playout = deal_table({}, game="pinochle-widow")
    bids = [a.amount for a in tables.legal_actions(playout.table, 0) if isinstance(a, Bid)]
    assert bids == list(range(300, 651, 10))
