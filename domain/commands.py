"""The command vocabulary shared by every game (DESIGN 6).

A command is what a seat asks for; ``decide`` turns it into events or refuses it. Each
``type`` tag has one shape across all games, so clients see a single tagged union; a game
refuses the commands it does not use with ``not-allowed-now``.

Where a command picks a set of cards, ``legal_actions`` offers one entry whose card field
is a :class:`CardChoice` instead of a list (DESIGN 6).
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

import msgspec

from domain.cards import Card, Suit

Amount = Annotated[int, msgspec.Meta(ge=0, le=1000, description="Points bid.")]
CardList = Annotated[list[Card], msgspec.Meta(max_length=20)]


class Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    """Base of every command; the ``type`` tag names it."""


class Pass(Command, frozen=True, tag="pass"):
    """Pass in the auction; a pass is final for the deal where the rules say so."""


class Bid(Command, frozen=True, tag="bid"):
    """Bid ``amount`` points, higher than the current high bid."""

    amount: Amount


class Hold(Command, frozen=True, tag="hold"):
    """Dealer only: take the current high bid at the same amount."""


class NameTrump(Command, frozen=True, tag="name_trump"):
    """The auction winner names the trump suit."""

    suit: Suit


class Exchange(Command, frozen=True, tag="exchange"):
    """Discard these cards face down and draw as many from the stock."""

    discard: CardList


class Play(Command, frozen=True, tag="play"):
    """Play one card to the current trick."""

    card: Card


# --- contracts with a denomination (Reserve Bridge, RULES 4) -----------------------------

Denomination = Annotated[
    Literal["C", "D", "H", "S", "NT", "NULLO"],
    msgspec.Meta(description="A suit as trumps (C, D, H, S), no-trump (NT) or nullo (NULLO)."),
]


class Stand(Command, frozen=True, tag="stand"):
    """Keep your own bid for this round without raising (once the opponent has passed)."""


class Declare(Command, frozen=True, tag="declare"):
    """Name the contract's denomination; after a contra, change it (the bid is kept)."""

    denomination: Denomination


class Contra(Command, frozen=True, tag="contra"):
    """Double the declared contract."""


class Recontra(Command, frozen=True, tag="recontra"):
    """The declarer redoubles a contra'd contract."""


class Accept(Command, frozen=True, tag="accept"):
    """Let the contract stand as it is: no contra, or no answer to a contra."""


class Reserve(Command, frozen=True, tag="reserve"):
    """Lay these cards face down as your reserve."""

    cards: CardList


MeldKind = Literal[
    "flush",
    "royal_marriage",
    "marriage",
    "aces_around",
    "kings_around",
    "queens_around",
    "jacks_around",
    "pinochle",
    "dix",
]


class MeldClaim(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One meld: its kind and the cards that make it, e.g. ``royal_marriage`` ``KS QS``."""

    kind: MeldKind
    cards: Annotated[list[Card], msgspec.Meta(min_length=1, max_length=5)]


class Meld(Command, frozen=True, tag="meld"):
    """Claim these melds (replacing any earlier claim of this deal); ``[]`` claims none."""

    melds: Annotated[list[MeldClaim], msgspec.Meta(max_length=30)]


class Bury(Command, frozen=True, tag="bury"):
    """The soloist buries these cards face down (replacing any earlier burial)."""

    cards: CardList


class Concede(Command, frozen=True, tag="concede"):
    """Concede the deal: the soloist gives it up, or an opponent agrees to give it to him."""


class TakeWidow(Command, frozen=True, tag="take_widow"):
    """The soloist turns the widow up and takes it (when he may concede without it)."""


class ExchangeDix(Command, frozen=True, tag="exchange_dix"):
    """Give the nine of trumps for the turned-up trump card."""


# --- seat commands of every game (DESIGN 10): not offered in ``legal_actions`` -----------


class Leave(Command, frozen=True, tag="leave"):
    """Leave the table for good: the computer plays the seat until somebody takes it."""


class Resign(Command, frozen=True, tag="resign"):
    """Two-sided games: give the game to the other side."""


class Return(Command, frozen=True, tag="return"):
    """Back at the table after being marked absent (any other command also does it)."""


# typing.Union, not `|`: Litestar's OpenAPI registry needs a named generic alias.
PlayerCommand = Union[  # noqa: UP007
    Pass,
    Bid,
    Hold,
    NameTrump,
    Exchange,
    Play,
    Stand,
    Declare,
    Contra,
    Recontra,
    Accept,
    Reserve,
    Meld,
    Bury,
    Concede,
    TakeWidow,
    ExchangeDix,
    Leave,
    Resign,
    Return,
]
SEAT_COMMANDS = (Leave, Resign, Return)


class CardChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Any pick of ``min`` to ``max`` cards from ``from`` is legal."""

    from_: list[Card] = msgspec.field(name="from")
    min: int
    max: int


class ExchangeChoice(msgspec.Struct, frozen=True, tag_field="type", tag="exchange"):
    """A legal exchange: discard any ``min``..``max`` of the offered cards."""

    discard: CardChoice


class ReserveChoice(msgspec.Struct, frozen=True, tag_field="type", tag="reserve"):
    """A legal reserve: lay aside exactly ``min`` (= ``max``) of the offered cards."""

    cards: CardChoice


class MeldChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Any pick of ``min`` to ``max`` melds from ``from`` (as a multiset) is a legal claim."""

    from_: list[MeldClaim] = msgspec.field(name="from")
    min: int
    max: int


class MeldOffer(msgspec.Struct, frozen=True, tag_field="type", tag="meld"):
    """A legal meld claim: ready to send (a list), or a choice of melds to pick from."""

    melds: list[MeldClaim] | MeldChoice


class BuryChoice(msgspec.Struct, frozen=True, tag_field="type", tag="bury"):
    """A legal burial: any ``min``..``max`` of the offered cards (claimed cards left out)."""

    cards: CardChoice


LegalAction = Union[  # noqa: UP007
    Pass,
    Bid,
    Hold,
    NameTrump,
    ExchangeChoice,
    Play,
    Stand,
    Declare,
    Contra,
    Recontra,
    Accept,
    ReserveChoice,
    MeldOffer,
    BuryChoice,
    Concede,
    TakeWidow,
    ExchangeDix,
]


class SupplyDeck(msgspec.Struct, frozen=True):
    """System only: the deck for the chance step the game is waiting for.

    Not part of the API: the service draws the seed (or takes an operator's deck) and
    passes the ordered deck together with its public commitment.
    """

    deck: tuple[str, ...]
    commitment: str
    shuffle: int
