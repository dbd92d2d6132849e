"""Play of the hand (RULES 3A.6, 3.B): follow, trump when void, head the trick on a trump
lead (and, with ``must_head_plain``, on a plain lead; with ``must_overtrump``, when
trumping a trick already trumped, RULES 3.5); of two identical cards the first played wins.
The last trick ends the deal and the game's hook scores it."""

from __future__ import annotations

from domain.cards import suit
from domain.commands import LegalAction, Play
from domain.common import turns
from domain.common.tricks import trick_won
from domain.errors import RuleCode, RuleError
from domain.events import CardPlayed, Event
from domain.pinochle import cards as rules_of_play
from domain.pinochle.evolve import evolve
from domain.pinochle.hooks import Hooks
from domain.pinochle.state import State


def playable(state: State, seat: int) -> list[str]:
    assert state.trump is not None
    trick = [p.card for p in state.trick]
    config = state.config
    return rules_of_play.legal_plays(
        state.hands[seat], trick, state.trump, config.must_head_plain, config.must_overtrump
    )


def actions(state: State, seat: int) -> list[LegalAction]:
    return [Play(card=c) for c in playable(state, seat)]


def check_play(state: State, seat: int, card: str) -> None:
    turns.require_held(state.hands[seat], seat, card)
    if card in playable(state, seat):
        return
    assert state.trump is not None
    led = suit(state.trick[0].card)
    holds_led = any(suit(c) == led for c in state.hands[seat])
    if holds_led and suit(card) == led:
        raise RuleError(
            RuleCode.MUST_HEAD_TRICK, "play a higher card of the suit led: you hold one", card=card
        )
    if holds_led:
        raise RuleError(RuleCode.MUST_FOLLOW_SUIT, f"follow suit: you hold a {led}", card=card)
    if suit(card) == state.trump:
        raise RuleError(
            RuleCode.MUST_HEAD_TRICK,
            "play a trump higher than the trick's: you hold one",
            card=card,
        )
    raise RuleError(RuleCode.MUST_PLAY_TRUMP, "you are void in the suit led: trump", card=card)


def play(rules: Hooks, state: State, seat: int, card: str) -> list[Event]:
    check_play(state, seat, card)
    events: list[Event] = [CardPlayed(seat=seat, card=card)]
    state = evolve(rules, state, events[0])
    if len(state.trick) < len(state.active):
        return events
    assert state.trump is not None
    trump, led = state.trump, suit(state.trick[0].card)
    number = len(state.tricks) + 1
    won = trick_won(state.trick, number, lambda c: rules_of_play.power_in_trick(c, trump, led))
    events.append(won)
    state = evolve(rules, state, won)
    if not any(state.hands[s] for s in state.active):
        events.extend(rules.score_deal(state))
    return events
