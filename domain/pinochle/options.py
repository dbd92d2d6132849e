"""Table options of the Pinochle games and the normalised settings the rules read.

Each game id has its own options struct (unknown fields are refused at table creation,
``invalid-options``); all of them normalise into one :class:`Config` kept in the state.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

# RULES 3A.7 [decision, Hoyle-style]: (lowest bid of the step, chips per seat).
DEFAULT_SCHEDULE: tuple[tuple[int, int], ...] = (
    (200, 1),
    (250, 2),
    (300, 3),
    (350, 5),
    (400, 10),
    (450, 15),
    (500, 20),
    (550, 25),
    (600, 30),
)
ANTE = 3  # chips each seat puts in the kitty at the start and on a thrown-in deal (3A.8)
KITTY_BID = 350  # from this bid the kitty pays and is paid like a seat (3A.8)
TARGET = 1000
TARGET_STEP = 250

Bid = Annotated[int, msgspec.Meta(ge=0, le=1000, multiple_of=10)]
# An option added after tables were first recorded is UNSET when left out, so that a table
# created without it records exactly the options it always did (no new key in
# ``table_created``): its default is applied where the rules read it, in the Config.
DoubleMelds = (
    Annotated[
        bool,
        msgspec.Meta(
            description="A double run scores 1500, double aces, kings, queens, jacks around"
            " 1000, 800, 600, 400, a double pinochle 300, instead of twice the single meld"
            " (default false; RULES 3.4).",
            extra_json_schema={"default": False},
        ),
    ]
    | msgspec.UnsetType
)
MustOvertrump = (
    Annotated[
        bool,
        msgspec.Meta(
            description="A player void in the suit led who trumps must beat a trump already"
            " in the trick if he can (default false; RULES 3.5).",
            extra_json_schema={"default": False},
        ),
    ]
    | msgspec.UnsetType
)

# The options the auction games share (3A, 3.C), each with what it means for clients
# (the API's schemas and its game catalogue show these descriptions).
MinBid = Annotated[
    Literal[200, 250, 300],
    msgspec.Meta(description="The lowest bid; bids are multiples of 10 (RULES 3A.3)."),
]
Roundhouse = Annotated[
    bool, msgspec.Meta(description="Bids may go up to 790 instead of 650 (RULES 3A.3).")
]
CompulsoryOpening = Annotated[
    bool,
    msgspec.Meta(
        description="The opener must bid the minimum. If it stands: in `pinochle` he may"
        " take the widow or concede (for 1 chip, paid to the kitty, at a table scored in"
        " chips with a kitty; for nothing at any other, RULES 3A.3); in `pinochle-widow`,"
        " which has no concessions, he takes the widow (RULES 3.C)."
    ),
]
DealPackets = Annotated[
    Literal["3", "4"],
    msgspec.Meta(description="Deal in packets of 3, or of 4, 4, 4 and 3 (RULES 3A.2)."),
]
MustHeadPlain = Annotated[
    bool,
    msgspec.Meta(
        description="A player following a plain suit led must beat its best card in the"
        " trick if he can (RULES 3A.6)."
    ),
]


class ScheduleStep(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Bids from ``bid`` up (to the next step) are worth ``chips`` from each seat."""

    bid: Bid
    chips: Annotated[int, msgspec.Meta(ge=1, le=10_000)]


class AuctionRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The options of the games with an auction (3A, 3.C).

    Keyword-only, so that msgspec places them after a subclass's own fields: every
    options schema keeps the order it was published with.
    """

    min_bid: MinBid = 300
    roundhouse: Roundhouse = False
    compulsory_opening: CompulsoryOpening = False
    deal_packets: DealPackets = "3"
    must_head_plain: MustHeadPlain = False
    double_melds: DoubleMelds = msgspec.UNSET
    must_overtrump: MustOvertrump = msgspec.UNSET


class PinochleOptions(AuctionRules, frozen=True, forbid_unknown_fields=True):
    """Auction Pinochle with a widow (RULES 3A).

    [decision] Options that mean nothing for the table are refused rather than ignored:
    the chips-only ones with points scoring, ``kitty_shortfall`` without a kitty, and a
    schedule that does not price the minimum bid. ``deals`` counts thrown-in deals too
    (the deal passes on them as on any other, RULES 0.4).
    """

    scoring: Annotated[
        Literal["chips", "points"],
        msgspec.Meta(
            description="Settle each deal in `chips` (a schedule, a kitty, a fixed number"
            " of deals) or score `points` to 1000 (RULES 3A.7)."
        ),
    ] = "chips"
    schedule: (
        Annotated[
            list[ScheduleStep],
            msgspec.Meta(
                min_length=1,
                max_length=60,
                description="Chips only: the chips per seat from each bid up, in steps rising"
                " by bid, the first pricing the minimum bid (`null`: the table of RULES 3A.7).",
            ),
        ]
        | None
    ) = None
    kitty: Annotated[
        bool | None,
        msgspec.Meta(
            description="Chips only: a kitty fed 3 chips a seat, paying and paid from a bid"
            " of 350 (`null`: on; RULES 3A.8)."
        ),
    ] = None
    kitty_shortfall: Annotated[
        Literal["opponents", "what_is_there"] | None,
        msgspec.Meta(
            description="Chips only, with a kitty short of what it owes: the `opponents`"
            " make up the rest, or the soloist gets `what_is_there` (`null`: `opponents`;"
            " RULES 3A.8)."
        ),
    ] = None
    deals: Annotated[
        Annotated[int, msgspec.Meta(ge=1, le=500)] | None,
        msgspec.Meta(
            description="Chips only: the table ends after this many deals, thrown-in deals"
            " included (`null`: twice the seats; RULES 3A.7)."
        ),
    ] = None

    def __post_init__(self) -> None:
        chips_only = {
            "schedule": self.schedule,
            "kitty": self.kitty,
            "kitty_shortfall": self.kitty_shortfall,
            "deals": self.deals,
        }
        if self.scoring == "points":
            named = [k for k, v in chips_only.items() if v is not None]
            if named:
                raise ValueError(f"{', '.join(named)} apply to chips scoring only")
        if self.kitty is False and self.kitty_shortfall is not None:
            raise ValueError("kitty_shortfall needs the kitty")
        if self.schedule is not None:
            bids = [step.bid for step in self.schedule]
            if bids != sorted(set(bids)):
                raise ValueError("schedule steps must rise strictly by bid")
            if bids[0] > self.min_bid:
                raise ValueError(f"the schedule must price the minimum bid {self.min_bid}")


class WidowOptions(AuctionRules, frozen=True, forbid_unknown_fields=True):
    """Widow Pinochle (RULES 3.C): bidding as 3A, scored in points to 1000."""


class TurnUpOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Three- and four-hand Pinochle with a turn-up (RULES 3.B, 3.D)."""

    must_head_plain: MustHeadPlain = False
    double_melds: DoubleMelds = msgspec.UNSET
    must_overtrump: MustOvertrump = msgspec.UNSET


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """The rules a table plays by, whatever its game id."""

    scoring: Literal["chips", "points"] = "points"
    schedule: tuple[tuple[int, int], ...] = DEFAULT_SCHEDULE
    kitty: bool = False
    kitty_shortfall: Literal["opponents", "what_is_there"] = "opponents"
    deals: int = 0  # chips tables end after this many deals; 0 for points tables
    min_bid: int = 300
    max_bid: int = 650
    compulsory_opening: bool = False
    packets: tuple[int, ...] = (3, 3, 3, 3, 3)  # per player, round by round
    widow: int = 3  # cards dealt to the widow after the first round
    must_head_plain: bool = False
    double_melds: bool = False
    must_overtrump: bool = False
    # 3A.5 from engine 1.3.0 on: the opponents concede to the contract as it stands, so
    # the soloist's naming another trump withdraws their concessions (each concedes again,
    # or not). Under an older engine a concession carried over to the new trump.
    trump_change_withdraws: bool = False


# The rules engine from which ``trump_change_withdraws`` holds (domain/__init__.py).
CONCESSION_TO_ITS_TRUMP = "1.3.0"


def packets_of(deal_packets: str) -> tuple[int, ...]:
    """3A.2: 3 each, widow, then 3s to 15; or 4 each, widow, 4, 4, 3."""
    return (3, 3, 3, 3, 3) if deal_packets == "3" else (4, 4, 4, 3)


def with_play_rules(config: Config, options: AuctionRules | TurnUpOptions) -> Config:
    """The options every Pinochle game id takes: how tricks are played, how melds score."""
    return msgspec.structs.replace(
        config,
        must_head_plain=options.must_head_plain,
        double_melds=options.double_melds is True,
        must_overtrump=options.must_overtrump is True,
    )


def auction_config(options: AuctionRules, seats: int) -> Config:
    chips = isinstance(options, PinochleOptions) and options.scoring == "chips"
    base = with_play_rules(
        Config(
            min_bid=options.min_bid,
            max_bid=790 if options.roundhouse else 650,
            compulsory_opening=options.compulsory_opening,
            packets=packets_of(options.deal_packets),
        ),
        options,
    )
    if not chips:
        return base
    assert isinstance(options, PinochleOptions)
    schedule = options.schedule
    return msgspec.structs.replace(
        base,
        scoring="chips",
        schedule=DEFAULT_SCHEDULE
        if schedule is None
        else tuple((step.bid, step.chips) for step in schedule),
        kitty=options.kitty is not False,
        kitty_shortfall=options.kitty_shortfall or "opponents",
        # default: two full rotations of the deal (3A.7)
        deals=options.deals if options.deals is not None else 2 * seats,
    )


def unit_value(config: Config, bid: int) -> int:
    """Chips per seat for ``bid`` from the schedule (spades not yet doubled)."""
    value = config.schedule[0][1]
    for lowest, chips in config.schedule:
        if bid >= lowest:
            value = chips
    return value
