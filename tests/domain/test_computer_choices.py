"""Golden positions for the computer players: on a hand-built deal, the obviously right call
or card (DESIGN 10). Each table is dealt from a stacked operator deck and driven to the
position with explicit commands; only the command under test comes from the computer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain import computer
from domain import table as tables
from domain.cards import piquet_pack, standard_pack
from domain.commands import (
    Accept,
    Bid,
    Bury,
    Contra,
    Declare,
    Exchange,
    Meld,
    MeldOffer,
    NameTrump,
    Pass,
    Play,
    Reserve,
    Stand,
)
from tests.domain.pitch_tables import deal_table as pitch_table
from tests.support.decks import cards as hand
from tests.support.decks import forty_five_order, reserve_bridge_order, stack_deck
from tests.support.pinochle_tables import deal_table as pinochle_table
from tests.support.playout import Playout

# --- Auction Forty-Five: dealer 3, so seat 0 speaks first and seat 1 leads to seat 0's bid.

WEAK_45 = ["2C", "3D", "4H", "6C", "7D"]


def forty_five(hands: dict[int, Sequence[str]]) -> Playout:
    deck = stack_deck(hands, forty_five_order(3), standard_pack())
    created = tables.create("golden", "forty-five", 4, {}, first_dealer=3, decks=[deck])
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    return playout


def forty_five_in_play(hands: dict[int, Sequence[str]], trick: list[tuple[int, str]]) -> Playout:
    """Seat 0 bids 15 and names spades, nobody exchanges, then ``trick`` is played."""
    playout = forty_five(hands)
    for seat in range(4):
        playout.act(seat, Bid(amount=15) if seat == 0 else Pass())
    playout.act(0, NameTrump(suit="S"))
    for seat in range(4):
        playout.act(seat, Exchange(discard=[]))
    for seat, card in trick:
        playout.act(seat, Play(card=card))
    return playout


def test_forty_five_bids_a_hand_of_top_trumps_and_passes_a_hand_of_nothing() -> None:
    strong = forty_five({0: ["5S", "JS", "AH", "AS", "KS"]})
    assert isinstance(computer.choose(strong.table, 0), Bid)
    weak = forty_five({0: WEAK_45})
    assert computer.choose(weak.table, 0) == Pass()


def test_forty_five_names_the_suit_of_its_trumps() -> None:
    playout = forty_five({0: ["JD", "KD", "7D", "AH", "2C"]})
    for seat in range(4):
        playout.act(seat, Bid(amount=10) if seat == 0 else Pass())
    assert computer.choose(playout.table, 0) == NameTrump(suit="D")


def test_forty_five_exchange_keeps_trumps_and_kings_and_throws_the_rest() -> None:
    playout = forty_five({0: ["5S", "JS", "KH", "2D", "3C"]})
    for seat in range(4):
        playout.act(seat, Bid(amount=15) if seat == 0 else Pass())
    playout.act(0, NameTrump(suit="S"))
    assert computer.choose(playout.table, 0) == Exchange(discard=["2D", "3C"])


HANDS_45: dict[int, Sequence[str]] = {
    0: ["QH", "2H", "5S", "3C", "4D"],
    1: ["7H", "8C", "9C", "TC", "6D"],
    2: ["KH", "3D", "4C", "5C", "6C"],
    3: ["9H", "7C", "8D", "9D", "TD"],
}


def test_forty_five_follows_low_when_its_partner_is_winning() -> None:
    # Seat 2 (seat 0's partner) holds the trick with the king, the top plain heart.
    playout = forty_five_in_play(HANDS_45, [(1, "7H"), (2, "KH"), (3, "9H")])
    assert computer.choose(playout.table, 0) == Play(card="2H")


def test_forty_five_wins_as_cheaply_as_it_can_when_last_to_play() -> None:
    hands = {**HANDS_45, 2: ["3D", "4C", "5C", "6C", "2S"]}  # no heart to follow with
    playout = forty_five_in_play(hands, [(1, "7H"), (2, "3D"), (3, "9H")])
    # QH beats 9H; the 5S would win too, but wastes the best trump there is.
    assert computer.choose(playout.table, 0) == Play(card="QH")


# --- Auction Pitch: four seats, dealer 3, seat 0 bids first ------------------------------


def test_pitch_bids_a_hand_with_high_low_and_jack_and_passes_rubbish() -> None:
    strong = pitch_table({0: ["AS", "KS", "JS", "2S", "9D", "4C"]}, dealer=3, seats=4)
    call = computer.choose(strong.table, 0)
    assert isinstance(call, Bid) and call.amount >= 3
    weak = pitch_table({0: ["3C", "7D", "8H", "9S", "5C", "6D"]}, dealer=3, seats=4)
    assert computer.choose(weak.table, 0) == Pass()


def test_pitcher_leads_the_ace_of_his_long_suit() -> None:
    playout = pitch_table({0: ["AS", "KS", "JS", "2S", "9D", "4C"]}, dealer=3, seats=4)
    for seat in range(4):
        playout.act(seat, Bid(amount=2) if seat == 0 else Pass())
    assert computer.choose(playout.table, 0) == Play(card="AS")


def test_pitch_keeps_its_jack_out_of_a_trick_the_ace_has_won() -> None:
    hands = {
        0: ["AS", "KS", "9D", "4C", "5C", "6C"],
        1: ["JS", "3S", "TD", "8D", "7H", "2C"],
    }
    playout = pitch_table(hands, dealer=3, seats=4)
    for seat in range(4):
        playout.act(seat, Bid(amount=2) if seat == 0 else Pass())
    playout.act(0, Play(card="AS"))  # spades are trump: seat 1 must play one
    assert computer.choose(playout.table, 1) == Play(card="3S")


# --- Pinochle (3A): three seats, dealer 2, seat 0 opens ---------------------------------

STRONG_PINOCHLE = hand("AS TS KS QS JS 9S AS TS AH AC AD KH QH KD JD")
WEAK_PINOCHLE = hand("9S JS 9H JH QH 9C JC QC 9D JD TD 9H 9C JC 9D")


def test_pinochle_bids_a_flush_with_aces_around_and_passes_scraps() -> None:
    strong = pinochle_table({0: STRONG_PINOCHLE})
    assert computer.choose(strong.table, 0) == Bid(amount=300)
    weak = pinochle_table({0: WEAK_PINOCHLE})
    assert computer.choose(weak.table, 0) == Pass()


def test_pinochle_soloist_names_trump_claims_and_buries_neither_trumps_aces_nor_melds() -> None:
    playout = pinochle_table({0: STRONG_PINOCHLE}, widow=["QC", "9H", "TC"])
    for seat in range(3):
        playout.act(seat, Bid(amount=300) if seat == 0 else Pass())
    trump = computer.choose(playout.table, 0)
    assert trump == NameTrump(suit="S")
    playout.act(0, trump)
    claim = computer.choose(playout.table, 0)
    offers = [a for a in tables.legal_actions(playout.table, 0) if isinstance(a, MeldOffer)]
    assert isinstance(offers[0].melds, list)
    assert claim == Meld(melds=offers[0].melds)  # the best claim: flush, aces around, ...
    playout.act(0, claim)
    burial = computer.choose(playout.table, 0)
    assert isinstance(burial, Bury)
    melded = {c for meld in claim.melds for c in meld.cards}
    assert not any(c[1] == "S" or c[0] == "A" or c in melded for c in burial.cards)


def test_pinochle_defender_smears_a_ten_on_its_partners_winning_ace() -> None:
    # Seat 2 holds neither hearts nor trumps, so any card may go on the partner's ace.
    hands: dict[int, Sequence[str]] = {
        0: hand("AS TS KS QS JS 9S 9H KH QH JS 9S QS KC QD KD"),
        1: hand("AH TH TH JH JH 9H QH AS TS KS AC JD 9D AD TD"),
        2: hand("TC 9C 9C JC JC QC QC KC AC AD TD KD QD JD 9D"),
    }
    playout = pinochle_table(hands, widow=["KH", "AH", "TC"])
    for seat in range(3):
        playout.act(seat, Bid(amount=300) if seat == 0 else Pass())
    playout.act(0, NameTrump(suit="S"))
    playout.act(0, Meld(melds=[]))
    playout.act(0, Bury(cards=["KC", "QD", "KD"]))
    playout.act(0, Play(card="9H"))
    playout.act(1, Play(card="AH"))  # the partner's ace holds: nobody is left to play
    # Ten points on the partner's trick; the aces, which win tricks of their own, are kept.
    assert computer.choose(playout.table, 2) == Play(card="TC")


# --- Reserve Bridge: the deal of RULES 4.9 (B deals; A is the non-dealer) ----------------

B, A = 0, 1
STAGES: dict[int, Sequence[str]] = {
    A: hand("JS TS 7S QH JH 9H KD QC TC 9C AS 8C JD KC KS 8S"),
    B: hand("QS 9S KH TH QD TD 9D 7D AC 7C AD 8H AH JC 8D 7H"),
}


def bridge(hands: Mapping[int, Sequence[str]] | None = None) -> Playout:
    deck = stack_deck(dict(hands or STAGES), reserve_bridge_order(B), piquet_pack())
    created = tables.create("golden", "reserve-bridge", 2, {}, first_dealer=B, decks=[deck])
    playout = Playout(created, seed=0)
    playout.seat_everyone()
    return playout


def test_reserve_bridge_bids_a_long_strong_suit_and_passes_a_middling_hand() -> None:
    strong = {A: hand("AS KS QS JS TS 9S AH AD AC KH")}
    call = computer.choose(bridge(strong).table, A)
    assert isinstance(call, Bid) and call.amount >= 16  # two odd tricks in spades at least
    middling = {A: hand("KC QD JH TS 9C 8D 7H 9S QC JD")}
    assert computer.choose(bridge(middling).table, A) == Pass()


def test_reserve_bridge_bids_nullo_on_a_hand_of_sevens_and_eights() -> None:
    """Nothing above a nine: no trick contract, but a safe nullo (10 a trick under five)."""
    low = {A: hand("7C 8C 7D 8D 7H 8H 9C 9D 7S 8S")}
    playout = bridge(low)
    call = computer.choose(playout.table, A)
    assert isinstance(call, Bid) and call.amount >= 10
    playout.act(A, call)
    playout.act(B, Pass())
    for _ in range(2):  # A survives: he stands in rounds 2 and 3
        playout.act(A, Stand())
    assert computer.choose(playout.table, A) == Declare(denomination="NULLO")


def to_the_play() -> Playout:
    """RULES 4.9's contract: B at 24 in diamonds, no contra; both reserves as laid there."""
    playout = bridge()
    for seat, amount in [(A, 6), (B, 8), (A, 9), (B, 14)]:
        playout.act(seat, Bid(amount=amount))
    playout.act(A, Pass())
    playout.act(B, Bid(amount=24))
    return playout


def test_reserve_bridge_declarer_names_his_long_suit_and_keeps_top_trumps_in_reserve() -> None:
    playout = to_the_play()
    assert computer.choose(playout.table, B) == Declare(denomination="D")
    playout.act(B, Declare(denomination="D"))
    playout.act(A, Accept())
    reserve = computer.choose(playout.table, B)
    assert isinstance(reserve, Reserve)
    assert sorted(reserve.cards) == ["AD", "QD", "TD"]


def test_reserve_bridge_last_to_play_wins_with_its_cheapest_trump() -> None:
    playout = to_the_play()
    playout.act(B, Declare(denomination="D"))
    playout.act(A, Accept())
    playout.act(A, Reserve(cards=["AS", "KD", "JD"]))
    playout.act(B, Reserve(cards=["QS", "AD", "QD"]))
    for seat, card in [(A, "8S"), (B, "9S"), (A, "KS")]:
        playout.act(seat, Play(card=card))
    # B has no spade left in hand and A no trump in hand: any diamond wins, the 7 is enough.
    assert computer.choose(playout.table, B) == Play(card="7D")


def test_reserve_bridge_defender_contras_a_slam_it_expects_to_break() -> None:
    """RULES 4.9: A contras B's small slam in diamonds, holding KD JD and side strength."""
    playout = to_the_play()
    playout.act(B, Declare(denomination="D"))
    assert computer.choose(playout.table, A) == Contra()
