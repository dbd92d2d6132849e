"""The checks every game's ``decide`` makes before its phase logic, the checks its
auction and its play share, and their errors."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from domain.commands import PlayerCommand
from domain.errors import RuleCode, RuleError
from domain.protocol import SYSTEM, Actor


def require_system(actor: Actor) -> None:
    """Decks come from the service alone (the chance steps)."""
    if actor != SYSTEM:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "only the service supplies decks")


def seat_to_act(phase: str, turn: int | None, acting: Collection[str]) -> list[int]:
    """The seat whose ``turn`` it is, in a phase where one seat acts at a time; else none."""
    if phase in acting and turn is not None:
        return [turn]
    return []


def game_over() -> RuleError:
    return RuleError(RuleCode.GAME_OVER, "the game is over")


def acting_seat(phase: str, finished: bool, to_act: Sequence[int], actor: Actor) -> int:
    """``actor`` as the seat that acts now, or the refusal a real table would give."""
    if finished:
        raise game_over()
    if not to_act or actor == SYSTEM:
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, f"no seat acts during the {phase} phase")
    if actor not in to_act:
        waiting = " and ".join(str(s) for s in to_act)
        raise RuleError(RuleCode.NOT_YOUR_TURN, f"seat {waiting} to act", to_act=list(to_act))
    return actor


def not_allowed(command: PlayerCommand, phase: str) -> RuleError:
    """A command this game does not take in this phase."""
    return RuleError(
        RuleCode.NOT_ALLOWED_NOW,
        f"a {command.__struct_config__.tag} command is not allowed in the {phase} phase",
        phase=phase,
    )


def require_over(high_bid: int, amount: int) -> None:
    """A bid tops the high bid (Forty-Five and Pitch: a bid is never equalled)."""
    if amount <= high_bid:
        raise RuleError(RuleCode.BID_TOO_LOW, f"the high bid is {high_bid}", high_bid=high_bid)


def require_held(hand: Collection[str], seat: int, card: str) -> None:
    """A seat plays only a card in its hand."""
    if card not in hand:
        raise RuleError(RuleCode.CARD_NOT_HELD, f"seat {seat} does not hold {card}", card=card)
