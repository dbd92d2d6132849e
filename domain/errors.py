"""Typed rule errors with stable codes.

``decide`` raises :class:`RuleError` for every command the rules refuse. The code is part
of the API contract (it becomes the problem ``code`` and ``type``), so codes are only ever
added, never renamed. Each carries a one-line meaning that the API documents.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Generic, TypeVar


class RuleCode(StrEnum):
    NOT_YOUR_TURN = "not-your-turn"
    NOT_ALLOWED_NOW = "not-allowed-now"
    NOT_A_PLAYER = "not-a-player"
    GAME_OVER = "game-over"
    BID_TOO_LOW = "bid-too-low"
    BID_NOT_ALLOWED = "bid-not-allowed"
    CANNOT_HOLD = "cannot-hold"
    MUST_BID = "must-bid"
    CARD_NOT_HELD = "card-not-held"
    MUST_FOLLOW_SUIT = "must-follow-suit"
    MUST_PLAY_TRUMP = "must-play-trump"
    MUST_HEAD_TRICK = "must-head-trick"
    INVALID_DISCARD = "invalid-discard"
    INVALID_MELD = "invalid-meld"
    INVALID_OPTIONS = "invalid-options"
    INVALID_DECK = "invalid-deck"
    SEAT_TAKEN = "seat-taken"
    NO_SUCH_SEAT = "no-such-seat"
    DENOMINATION_NOT_ALLOWED = "denomination-not-allowed"
    TABLE_PAUSED = "table-paused"
    TABLE_ABORTED = "table-aborted"
    CLOCK_EXPIRED = "clock-expired"
    NO_SIDES = "no-sides"
    NOT_PAUSED = "not-paused"
    TABLE_EXPIRED = "table-expired"


MEANINGS: dict[RuleCode, str] = {
    RuleCode.NOT_YOUR_TURN: "Another seat is to act; this seat must wait its turn.",
    RuleCode.NOT_ALLOWED_NOW: "That kind of command is not part of the game at this point.",
    RuleCode.NOT_A_PLAYER: "This seat takes no part in the current deal (it sits out).",
    RuleCode.GAME_OVER: "The game has ended; no further commands are accepted.",
    RuleCode.BID_TOO_LOW: "A bid must be higher than the current high bid (or its minimum).",
    RuleCode.BID_NOT_ALLOWED: "The amount is not a bid this game or this seat may make.",
    RuleCode.CANNOT_HOLD: "Only the dealer may hold, and only a bid made by another seat.",
    RuleCode.MUST_BID: "The rules oblige this seat to bid (a stuck dealer); it may not pass.",
    RuleCode.CARD_NOT_HELD: "The seat does not hold that card (or holds fewer copies).",
    RuleCode.MUST_FOLLOW_SUIT: "The seat can follow the suit led and must do so.",
    RuleCode.MUST_PLAY_TRUMP: "The rules require a trump from this seat on this trick.",
    RuleCode.MUST_HEAD_TRICK: "The seat must beat the highest card of the trick if it can.",
    RuleCode.INVALID_DISCARD: "The cards chosen to discard, bury or set aside are not allowed.",
    RuleCode.INVALID_MELD: "The meld claim is not a set of melds the seat's cards make.",
    RuleCode.INVALID_OPTIONS: "An option is unknown or has a value the game does not accept.",
    RuleCode.INVALID_DECK: "A supplied deck is not exactly the game's pack.",
    RuleCode.SEAT_TAKEN: "Somebody already sits in that seat.",
    RuleCode.NO_SUCH_SEAT: "The table has no seat with that number.",
    RuleCode.DENOMINATION_NOT_ALLOWED: (
        "The contract cannot be played in that denomination (too many odd tricks, a slam"
        " bid outside its slam, or no change to make)."
    ),
    RuleCode.TABLE_PAUSED: "The operator paused the table: clocks stand still, commands wait.",
    RuleCode.TABLE_ABORTED: "The operator aborted the table; it takes no further command.",
    RuleCode.CLOCK_EXPIRED: (
        "The seat's time for this turn and its bank are spent: the clock acts for it."
    ),
    RuleCode.NO_SIDES: "Only a game of two sides can be resigned; this one has more.",
    RuleCode.NOT_PAUSED: "The table is not paused, so there is nothing to resume.",
    RuleCode.TABLE_EXPIRED: (
        "Nobody filled the table's seats in time: it expired and takes no seat or command."
    ),
}


C = TypeVar("C", bound=StrEnum)


class CodedError(Exception, Generic[C]):
    """A refusal with a stable ``code`` of its vocabulary (the rules', a tournament's);
    ``context`` carries the input and the position."""

    def __init__(self, code: C, message: str, **context: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.context = context


class RuleError(CodedError[RuleCode]):
    """A command the rules refuse."""

    def __repr__(self) -> str:
        return f"RuleError({self.code.value!r}, {self.message!r})"
