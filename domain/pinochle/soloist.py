"""The soloist's turn between auction and play (RULES 3A.3–3A.5), and meld claims.

He turns the widow up (or, a compulsory opener left at the minimum, may concede first),
names trump, claims melds and buries three cards, revising any of them until his first
lead. Claimed cards cannot be buried, and buried cards cannot be claimed. Before his lead
he may concede, or both opponents may concede to him.

Decisions where RULES is silent:
- Trump comes first: melds and burial need it. A claim is only valid for its trump, so a
  change of trump drops the claim, and the burial's "holds trumps" is announced afresh.
- His first ``play`` is the moment revisions end; it needs trump, an explicit claim
  (``[]`` claims nothing, so no lead forfeits melds by accident) and the burial.
- The opponents may concede once trump is named (they concede to a known contract); a
  concession is final. The game does not wait for them: ``to_act`` is the soloist alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.cards import holds_all, suit
from domain.commands import (
    BuryChoice,
    CardChoice,
    Concede,
    LegalAction,
    MeldChoice,
    MeldClaim,
    MeldOffer,
    NameTrump,
    Play,
)
from domain.errors import RuleCode, RuleError
from domain.events import Event, TrumpNamed
from domain.pinochle import melds as meld_rules
from domain.pinochle.auction import turn_up_widow
from domain.pinochle.cards import sorted_cards
from domain.pinochle.events import CardsBuried, DealConceded, MeldsClaimed
from domain.pinochle.hooks import Hooks
from domain.pinochle.state import State

BURY = 3


def claimed(state: State, seat: int) -> Counter[str]:
    return meld_rules.exposure(state.melds[seat] or ())


def buriable(state: State) -> list[str]:
    """The soloist's 18 cards less the cards his claim shows (each copy once)."""
    assert state.soloist is not None
    rest = Counter(state.cards_of(state.soloist)) - claimed(state, state.soloist)
    return list(sorted_cards(rest.elements()))


def missing_before_lead(state: State) -> list[str]:
    assert state.soloist is not None
    missing = []
    if state.trump is None:
        missing.append("trump")
    if state.melds[state.soloist] is None:
        missing.append("melds")
    if len(state.buried) != BURY:
        missing.append("burial")
    return missing


# --- legal actions ------------------------------------------------------------------------


def meld_offers(hand: Sequence[str], trump: str, barred_dix: int = 0) -> list[LegalAction]:
    """The best claim ready to send, then one choice per maximal claim (melds module)."""
    best = meld_rules.best_claim(hand, trump, barred_dix)
    offers: list[LegalAction] = [MeldOffer(melds=best)]
    for claim in meld_rules.claim_choices(hand, trump, barred_dix):
        offers.append(MeldOffer(melds=MeldChoice(from_=claim, min=0, max=len(claim))))
    return offers


def prepare_actions(rules: Hooks, state: State, seat: int) -> list[LegalAction]:
    if seat != state.soloist:
        if rules.concessions and state.trump is not None and seat not in state.conceded:
            return [Concede()]
        return []
    actions: list[LegalAction] = [NameTrump(suit=s) for s in "SHCD" if s != state.trump]
    if state.trump is not None:
        actions += meld_offers(state.hands[seat], state.trump)
        free = buriable(state)
        # A claim may show all but one or two of his 18 cards: then he must claim less
        # before he can bury, and no burial is on offer.
        if len(free) >= BURY:
            actions.append(BuryChoice(cards=CardChoice(from_=free, min=BURY, max=BURY)))
    if rules.concessions:
        actions.append(Concede())
    if not missing_before_lead(state):
        actions += [Play(card=c) for c in sorted_cards(set(state.hands[seat]))]
    return actions


# --- deciding -----------------------------------------------------------------------------


def take_widow(state: State, seat: int) -> list[Event]:
    return [turn_up_widow(state, seat)]


def name_trump(state: State, seat: int, trump: str) -> list[Event]:
    if trump == state.trump:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, f"{trump} is already trump", suit=trump)
    events: list[Event] = [TrumpNamed(seat=seat, suit=trump)]
    if state.buried:
        # The burial stands; whether it holds trumps is announced afresh for the new trump.
        events.append(_burial(seat, list(state.buried), trump))
    return events


def claim_melds(state: State, seat: int, melds: Sequence[MeldClaim]) -> list[Event]:
    if state.trump is None:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "name trump before claiming melds")
    claim = meld_rules.check_claim(melds, state.hands[seat], state.trump, state.dix_barred[seat])
    points = meld_rules.claim_points(claim, state.config.double_melds)
    return [MeldsClaimed(seat=seat, melds=claim, points=points)]


def bury(state: State, seat: int, cards: Sequence[str]) -> list[Event]:
    if state.trump is None:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "name trump before burying")
    if len(cards) != BURY:
        raise RuleError(RuleCode.INVALID_DISCARD, "bury exactly three cards", count=len(cards))
    if not holds_all(state.cards_of(seat), cards):
        raise RuleError(RuleCode.CARD_NOT_HELD, "bury only cards you hold", cards=list(cards))
    if not holds_all(buriable(state), cards):
        raise RuleError(
            RuleCode.INVALID_DISCARD,
            "a card used in a claimed meld cannot be buried",
            cards=list(cards),
        )
    return [_burial(seat, list(cards), state.trump)]


def _burial(seat: int, cards: list[str], trump: str) -> CardsBuried:
    trumps = any(suit(c) == trump for c in cards)
    return CardsBuried(seat=seat, count=len(cards), trumps=trumps, cards=sorted(cards))


def concede(rules: Hooks, state: State, seat: int, widowless: bool = False) -> list[Event]:
    if not rules.concessions:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "this game has no concessions")
    events: list[Event] = [DealConceded(seat=seat)]
    if seat == state.soloist:
        return events + rules.conceded(state, by_soloist=True, widowless=widowless)
    if state.trump is None:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "concede once the soloist has named trump")
    if seat in state.conceded:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "you have already conceded")
    if len(state.conceded) + 1 < len(state.opponents):
        return events
    return events + rules.conceded(state, by_soloist=False)


def check_ready_to_lead(state: State) -> None:
    missing = missing_before_lead(state)
    if missing:
        raise RuleError(
            RuleCode.NOT_ALLOWED_NOW,
            f"before the first lead: {', '.join(missing)} still to do",
            missing=missing,
        )
