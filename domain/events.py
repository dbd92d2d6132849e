"""Events shared by the table and by every game.

THIS IS THE STORAGE FORMAT — version with care. Events are stored as their ``type`` tag
and their fields; a field may be added only with a default, never retyped or removed. A
breaking change is a new tag. Each tag has one shape across all games, so exports and the
event feed are one tagged union (a test checks that no two games disagree on a tag).

Fields that can hold hidden cards are optional: ``redact`` (per game) replaces what an
audience may not see with ``None`` and leaves everything else as stored.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

import msgspec

from domain.cards import Card


class Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    """Base of every event; the ``type`` tag names the fact, in the past tense."""


class SeatEvent(Event, frozen=True):
    """Base of the events about one ``seat``, which is their first field; never stored
    under its own tag (a field added here would change every such event)."""

    seat: int


class SeatAmount(SeatEvent, frozen=True):
    """Base of the events that give a ``seat`` an ``amount`` (a bid, a hold, a contract)."""

    amount: int


# --- the table --------------------------------------------------------------------------


class ClockSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A table's clock (DESIGN 10): each turn ``action_seconds``, then a bank of
    ``bank_seconds`` per seat for the whole game; when both are spent the turn expires
    and ``on_timeout`` says what happens."""

    action_seconds: int
    bank_seconds: int
    on_timeout: Literal["autoplay", "forfeit"] = "autoplay"


class TableCreated(Event, frozen=True, tag="table_created"):
    table: str
    game: str
    seats: int
    options: dict[str, Any]
    rules_version: str
    first_dealer: int | None = None
    tournament: str | None = None
    supplied_decks: int = 0
    # Operator-supplied deck orders are future deals: only the operator ever sees them.
    decks: list[list[Card]] | None = None
    clock: ClockSettings | None = None
    # A timed tournament round (DESIGN 14): past this instant the table ends once the
    # deal in progress is over.
    ends_at: datetime | None = None


class SeatTaken(Event, frozen=True, tag="seat_taken", omit_defaults=True):
    """A seat filled. ``computer``: the computer plays it (left out when false, so a
    player's seat is stored as it always was)."""

    seat: int
    name: str
    computer: bool = False


class SeedRevealed(Event, frozen=True, tag="seed_revealed"):
    """A shuffle's secret, appended once the cards it produced are out of play.

    ``seed`` is the hex seed behind the shuffle's commitment, or ``None`` when the deck
    was supplied by the operator (its commitment is to the deck itself) or redacted.
    """

    shuffle: int
    supplied: bool = False
    seed: str | None = None


# --- dealing ----------------------------------------------------------------------------


class ChanceEvent(Event, frozen=True):
    """The answer to a chance step: a fresh deck, numbered ``shuffle`` within the table.

    ``commitment`` is ``sha256(seed)`` (or of the supplied deck); the seed follows in a
    ``seed_revealed`` event once the cards are out of play (DESIGN 5).
    """

    shuffle: int
    commitment: str

    kind: ClassVar[str] = "deal"


class DealerDrawn(ChanceEvent, frozen=True, tag="dealer_drawn"):
    """One card face up to each seat still drawing; ``dealer`` is None on a tie."""

    cards: list[Card | None]
    dealer: int | None

    kind: ClassVar[str] = "draw"


class CardsDealt(ChanceEvent, frozen=True, tag="cards_dealt"):
    """A deal: every seat's hand (hidden but for the audience's own) and the rest."""

    deal: int
    dealer: int
    hands: list[list[Card] | None]
    rest: list[Card] | None = None


class DealThrownIn(Event, frozen=True, tag="deal_thrown_in"):
    deal: int


# --- the auction ------------------------------------------------------------------------


class BidMade(SeatAmount, frozen=True, tag="bid_made"): ...


class Passed(SeatEvent, frozen=True, tag="passed"): ...


class Held(SeatAmount, frozen=True, tag="held"):
    """The dealer took the current high bid at the same amount."""


class AuctionWon(SeatAmount, frozen=True, tag="auction_won"): ...


class TrumpNamed(SeatEvent, frozen=True, tag="trump_named"):
    suit: str


class CardsExchanged(SeatEvent, frozen=True, tag="cards_exchanged"):
    """The count is public; the cards only to the seat that exchanged."""

    count: int
    discard: list[Card] | None = None
    drawn: list[Card] | None = None


# --- play -------------------------------------------------------------------------------


class CardPlayed(SeatEvent, frozen=True, tag="card_played"):
    card: Card


class TrickWon(SeatEvent, frozen=True, tag="trick_won"):
    trick: int
    cards: list[Card]


# --- scoring ----------------------------------------------------------------------------


class Contract(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: int
    amount: int
    made: bool


class ScoreItem(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line of a deal's score: ``unit`` is a side or a seat, as the game scores."""

    unit: int
    label: str
    points: int


class HandScored(Event, frozen=True, tag="hand_scored"):
    """A deal's result: itemised points, the change per unit and the running scores."""

    deal: int
    items: list[ScoreItem]
    changes: list[int]
    scores: list[int]
    contract: Contract | None = None


class GameWon(Event, frozen=True, tag="game_won"):
    winners: list[int]
    scores: list[int]


# --- liveness: clocks, absent players, leaving and ending (DESIGN 10) --------------------
# Instants are UTC with millisecond precision, passed in on the command that caused the
# event: the domain never reads a clock.


class ClockSet(Event, frozen=True, tag="clock_set"):
    """The clocks after a change: when each seat's turn began (``None``: not on the
    clock), each seat's bank left in milliseconds, and when the seat to act expires
    (engines before 1.4.0: the round's end instead, in a timed round ending sooner)."""

    since: list[datetime | None]
    banks: list[int]
    deadline: datetime | None
    moved: int | None = None  # the seat whose player moved after an expiry: its run ends


class ClockExpired(SeatEvent, frozen=True, tag="clock_expired"):
    """The seat spent its turn's time and its bank; ``in_a_row`` counts its expiries
    without a move of its own in between."""

    in_a_row: int


class SeatMarkedAbsent(SeatEvent, frozen=True, tag="seat_marked_absent"):
    """The computer plays the seat on every turn until its player comes back."""


class SeatReturned(SeatEvent, frozen=True, tag="seat_returned"):
    """The absent seat's player sent a command: the computer stops playing it."""


class SeatLeft(SeatEvent, frozen=True, tag="seat_left"):
    """The seat's player left for good: its token stops working, the computer plays the
    seat until somebody takes it over (``seat_taken``)."""


class SeatReplaced(SeatEvent, frozen=True, tag="seat_replaced"):
    """The operator gave the seat to another player (or to the computer): the old token
    stops working."""

    name: str
    computer: bool = False


class SideLost(SeatEvent, frozen=True):
    """Base of the ends in which ``seat``'s side (``losers``) loses and the other wins."""

    winners: list[int]
    losers: list[int]


class GameResigned(SideLost, frozen=True, tag="game_resigned"):
    """``seat`` resigned: its side (``losers``) loses the game, the other side wins."""


class GameForfeited(SideLost, frozen=True, tag="game_forfeited"):
    """``seat``'s clock expired on a table that forfeits: its side loses."""


class TimeCalled(Event, frozen=True, tag="time_called"):
    """The table's round is out of time (its ``ends_at`` passed): the deal in progress is
    played out, and the game ends before the next one. Recorded by the timekeeper."""


class GameTimed(Event, frozen=True, tag="game_timed"):
    """The game ended on time (after ``time_called``): the side ahead (``winners``) wins;
    level at the top is a draw, with nobody in ``winners`` or ``losers``."""

    winners: list[int]
    losers: list[int]
    scores: list[int]


class TableAborted(Event, frozen=True, tag="table_aborted"):
    """The operator stopped the table; it counts nowhere."""

    reason: str


class TableExpired(Event, frozen=True, tag="table_expired"):
    """Nobody filled the table's seats in time (24 hours by default): it takes no seat
    and no command any more. Recorded by the service's retention (actor ``retention``);
    the table and its events stay."""


class TablePaused(Event, frozen=True, tag="table_paused"):
    at: datetime


class TableResumed(Event, frozen=True, tag="table_resumed"):
    at: datetime
