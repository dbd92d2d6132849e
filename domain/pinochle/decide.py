"""Deciding Pinochle commands and listing legal actions: one small function per phase.

Every game id runs through here; the differences are the hooks of :mod:`.hooks`.
"""

from __future__ import annotations

from functools import partial

from domain.commands import (
    Bid,
    Bury,
    Concede,
    ExchangeDix,
    LegalAction,
    Meld,
    NameTrump,
    Pass,
    Play,
    PlayerCommand,
    SupplyDeck,
    TakeWidow,
)
from domain.common import turns
from domain.common.chance import decide_chance
from domain.errors import RuleCode, RuleError
from domain.events import Event, Passed
from domain.pinochle import auction, deal, play, soloist
from domain.pinochle.cards import DRAW_ORDER
from domain.pinochle.events import DixExchanged
from domain.pinochle.hooks import Hooks
from domain.pinochle.state import Phase, State
from domain.protocol import SYSTEM, Actor

ACTING = (Phase.AUCTION, Phase.WIDOW, Phase.PREPARE, Phase.DIX, Phase.MELD, Phase.PLAY)


def to_act(state: State) -> list[int]:
    """The seat the game waits on (opponents who may concede are not waited on)."""
    return turns.seat_to_act(state.phase, state.turn, ACTING)


def decide(
    rules: Hooks, state: State, command: PlayerCommand | SupplyDeck, actor: Actor
) -> list[Event]:
    if isinstance(command, SupplyDeck):
        # The lowest card deals in the Pinochle games (RULES 0.4): DRAW_ORDER runs 9 to A.
        deal_cards = partial(deal.deal, rules)
        return decide_chance(state, command, actor, state.seats, DRAW_ORDER, deal_cards)
    if state.phase is Phase.FINISHED:
        raise turns.game_over()
    if state.phase not in ACTING or state.turn is None or actor == SYSTEM:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, f"no seat acts during the {state.phase} phase")
    if actor not in state.active:
        raise RuleError(RuleCode.NOT_A_PLAYER, f"seat {actor} sits out this deal", seat=actor)
    if isinstance(command, Concede) and state.phase is Phase.PREPARE:
        return soloist.concede(rules, state, actor)  # the opponents need not wait their turn
    if actor != state.turn:
        raise RuleError(RuleCode.NOT_YOUR_TURN, f"seat {state.turn} is to act", to_act=[state.turn])
    return _on_turn(rules, state, command, actor)


def _on_turn(rules: Hooks, state: State, command: PlayerCommand, seat: int) -> list[Event]:
    match state.phase, command:
        case Phase.AUCTION, Pass():
            return auction.pass_(rules, state, seat)
        case Phase.AUCTION, Bid(amount=amount):
            return auction.bid(rules, state, seat, amount)
        case Phase.WIDOW, TakeWidow():
            return soloist.take_widow(state, seat)
        case Phase.WIDOW, Concede():
            return soloist.concede(rules, state, seat, widowless=True)
        case Phase.PREPARE, NameTrump(suit=suit):
            return soloist.name_trump(state, seat, suit)
        case Phase.PREPARE | Phase.MELD, Meld(melds=melds):
            return soloist.claim_melds(state, seat, melds)
        case Phase.PREPARE, Bury(cards=cards):
            return soloist.bury(state, seat, cards)
        case Phase.PREPARE, Play(card=card):
            soloist.check_ready_to_lead(state)
            return play.play(rules, state, seat, card)
        case Phase.DIX, Pass():
            return [Passed(seat=seat)]  # declines the exchange (or holds no dix)
        case Phase.DIX, ExchangeDix():
            return _exchange_dix(state, seat)
        case Phase.PLAY, Play(card=card):
            return play.play(rules, state, seat, card)
    raise turns.not_allowed(command, str(state.phase))


def _exchange_dix(state: State, seat: int) -> list[Event]:
    """3.B: the nine of trumps for the turn-up; the dealer takes the nine. The dealer may
    "exchange" a nine he holds himself: it scores, and nothing changes hands [decision]."""
    assert state.trump is not None and state.turn_up is not None and state.dealer is not None
    dix = "9" + state.trump
    if dix not in state.hands[seat]:
        raise RuleError(RuleCode.CARD_NOT_HELD, f"you hold no {dix} to exchange", card=dix)
    return [DixExchanged(seat=seat, dealer=state.dealer, dix=dix, card=state.turn_up)]


def legal_actions(rules: Hooks, state: State, seat: int) -> list[LegalAction]:
    if seat not in state.active or state.phase not in ACTING:
        return []
    if state.phase is Phase.PREPARE:
        return soloist.prepare_actions(rules, state, seat)
    if seat != state.turn:
        return []
    match state.phase:
        case Phase.AUCTION:
            return auction.actions(state)
        case Phase.WIDOW:
            return [TakeWidow(), Concede()]
        case Phase.DIX:
            # [decision] Every seat is asked in turn from the dealer's left, holder or not,
            # so a pass reveals nothing; the first holder who wants the exchange makes it.
            assert state.trump is not None
            holds_dix = "9" + state.trump in state.hands[seat]
            return [Pass(), ExchangeDix()] if holds_dix else [Pass()]
        case Phase.MELD:
            assert state.trump is not None
            return soloist.meld_offers(state.hands[seat], state.trump, state.dix_barred[seat])
        case Phase.PLAY:
            return play.actions(state, seat)
    return []
