"""The table: seats, chance bookkeeping and one game, as a single aggregate.

A table's stream opens with ``table_created``; seats are taken with ``seat_taken``; once
every seat is taken the game asks for chance steps (the dealer draw, each deal), which
the service answers with decks. Every shuffle's seed is revealed in ``seed_revealed``
once its cards are out of play — that is, when the game next needs a deck or ends.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any, Generic, Literal, Protocol, TypeVar

import msgspec
import msgspec.inspect
from msgspec.structs import replace

from domain import RULES_ENGINE_VERSION
from domain.cards import same_cards
from domain.commands import LegalAction, PlayerCommand, SupplyDeck
from domain.engine import HELD_PAUSE, engine_since
from domain.errors import RuleCode, RuleError
from domain.events import (
    ChanceEvent,
    ClockExpired,
    ClockSet,
    ClockSettings,
    Event,
    GameForfeited,
    GameResigned,
    GameTimed,
    GameWon,
    SeatLeft,
    SeatMarkedAbsent,
    SeatReplaced,
    SeatReturned,
    SeatTaken,
    SeedRevealed,
    TableAborted,
    TableCreated,
    TableExpired,
    TablePaused,
    TableResumed,
    TimeCalled,
)
from domain.protocol import (
    SYSTEM,
    Actor,
    Audience,
    Chance,
    ClockView,
    Game,
    Result,
    SeatInfo,
    View,
    ViewHeader,
)
from domain.registry import GAMES
from domain.shuffle import deck_commitment, seed_commitment, shuffle

S = TypeVar("S")
Status = Literal["waiting", "playing", "finished", "aborted", "expired"]
ENDED: tuple[Status, ...] = ("finished", "aborted", "expired")  # it takes no more commands
LIVENESS_EVENTS: tuple[type[Event], ...] = (
    ClockSet,
    ClockExpired,
    SeatMarkedAbsent,
    SeatReturned,
    SeatLeft,
    SeatReplaced,
    GameResigned,
    GameForfeited,
    TableAborted,
    TablePaused,
    TableResumed,
)
"""What makes a table always finish (DESIGN 10, :mod:`domain.liveness`): clocks, absent
players, leaving, replacing, resigning, forfeiting, aborting and pausing."""
TABLE_EVENTS: tuple[type[Event], ...] = (
    TableCreated,
    SeatTaken,
    SeedRevealed,
    *LIVENESS_EVENTS,
    TableExpired,
    TimeCalled,
    GameTimed,
)


ENDING_EVENTS: tuple[type[Event], ...] = (
    GameWon,
    GameResigned,
    GameForfeited,
    GameTimed,
    TableAborted,
    TableExpired,
)
"""The events that end a table: after one its status is one of ``ENDED``."""


class Table(msgspec.Struct, Generic[S], frozen=True, kw_only=True):
    id: str
    game: str
    version: int
    names: tuple[str | None, ...]
    options: dict[str, Any]
    rules_version: str
    tournament: str | None = None
    decks: tuple[tuple[str, ...], ...] = ()
    shuffles: int = 0
    deals: int = 0
    unrevealed: tuple[int, ...] = ()
    computers: tuple[int, ...] = ()  # the seats the computer plays
    # Liveness (DESIGN 10). Seat sets are tuples of seat numbers, so that snapshots
    # written before these fields existed decode to "nobody".
    absent: tuple[int, ...] = ()  # the computer plays these until their players return
    vacant: tuple[int, ...] = ()  # left for good: another player may take them over
    strikes: tuple[int, ...] = ()  # seats whose last turn expired without a move
    revoked: tuple[int, ...] = ()  # a seat number per token revoked (leave, replace)
    clock: ClockSettings | None = None
    since: tuple[datetime | None, ...] = ()  # when each seat's turn began
    banks: tuple[int, ...] = ()  # milliseconds left in each seat's bank
    paused_at: datetime | None = None
    result: Result | None = None
    expired: bool = False  # nobody filled the seats in time (the service's retention)
    ends_at: datetime | None = None  # a timed round's end (DESIGN 14)
    time_called: bool = False  # ends_at passed: no deal starts any more
    state: S

    @property
    def rules(self) -> Game[S]:
        return GAMES[self.game]

    @property
    def status(self) -> Status:
        if self.expired:
            return "expired"
        if self.result is not None and self.result.reason == "aborted":
            return "aborted"
        if self.result is not None and self.result.reason != "played":
            return "finished"
        if None in self.names:
            return "waiting"
        return "finished" if self.rules.finished(self.state) else "playing"

    def engine_since(self, version: str) -> bool:
        """Whether the table was created under rules engine ``version`` or a later one."""
        return engine_since(self.rules_version, version)

    def epoch(self, seat: int) -> int:
        """How many tokens of ``seat`` were revoked: a token is good for one epoch."""
        return self.revoked.count(seat)

    def deadline(self, seat: int) -> datetime | None:
        """When ``seat``'s turn expires; ``None`` off the clock or while paused."""
        if self.paused_at is not None:
            return None
        return self._expiry(seat)

    def _expiry(self, seat: int) -> datetime | None:
        """When ``seat``'s turn expires, the clocks running; ``None`` off the clock."""
        if self.clock is None or seat >= len(self.since):
            return None
        since = self.since[seat]
        if since is None:
            return None
        return since + timedelta(seconds=self.clock.action_seconds, milliseconds=self.banks[seat])

    def paused_left(self) -> list[float | None] | None:
        """While paused, the seconds each seat's stopped turn has left (``None`` for a
        seat not on the clock): what a resume gives back. Under engine 1.0.0 the pause
        charged the running turns and stopped them, and a resume starts the seats to act
        on a whole turn: theirs is the turn's time and the bank."""
        if self.paused_at is None or self.clock is None:
            return None
        paused_at, clock = self.paused_at, self.clock
        anew = () if self.engine_since(HELD_PAUSE) else to_act(self)

        def left(seat: int) -> float | None:
            end = self._expiry(seat)
            if end is not None:
                return max(0.0, (end - paused_at).total_seconds())
            if seat in anew:
                return clock.action_seconds + self.banks[seat] / 1000
            return None

        return [left(seat) for seat in range(len(self.names))]

    @property
    def turn_deadline(self) -> datetime | None:
        """The earliest deadline of any seat: when the seat to act expires (the view's
        ``deadline``)."""
        return min(
            (d for seat in range(len(self.names)) if (d := self.deadline(seat))), default=None
        )

    @property
    def next_deadline(self) -> datetime | None:
        """The turn's deadline, or the end of a timed round if sooner: when the
        timekeeper must look next."""
        deadlines = [d for d in (self.turn_deadline,) if d is not None]
        if self.ends_at is not None and not self.time_called and self.status == "playing":
            deadlines.append(self.ends_at)
        return min(deadlines, default=None)


def create(
    table_id: str,
    game_id: str,
    seats: int,
    options: dict[str, Any],
    *,
    first_dealer: int | None = None,
    decks: list[list[str]] | None = None,
    tournament: str | None = None,
    clock: ClockSettings | None = None,
    ends_at: datetime | None = None,
) -> TableCreated:
    """Validate a new table's settings; the ``table_created`` event that opens it."""
    game = GAMES.get(game_id)
    if game is None:
        raise RuleError(RuleCode.INVALID_OPTIONS, f"unknown game {game_id!r}", game=game_id)
    if not game.min_seats <= seats <= game.max_seats:
        raise RuleError(
            RuleCode.INVALID_OPTIONS,
            f"{game_id} seats {game.min_seats} to {game.max_seats} players, not {seats}",
            seats=seats,
        )
    normalised = parse_options(game, options)
    if first_dealer is not None and not 0 <= first_dealer < seats:
        raise RuleError(
            RuleCode.INVALID_OPTIONS,
            f"first_dealer must be a seat below {seats}",
            seat=first_dealer,
        )
    for index, deck in enumerate(decks or ()):
        if not same_cards(deck, game.pack):
            raise RuleError(
                RuleCode.INVALID_DECK,
                f"deals[{index}] is not exactly the {game_id} pack",
                deal=index,
            )
    if clock is not None and not (
        1 <= clock.action_seconds <= MAX_ACTION_SECONDS
        and 0 <= clock.bank_seconds <= MAX_BANK_SECONDS
    ):
        raise RuleError(
            RuleCode.INVALID_OPTIONS,
            f"clock: action_seconds 1 to {MAX_ACTION_SECONDS}, bank_seconds 0 to"
            f" {MAX_BANK_SECONDS}",
        )
    return TableCreated(
        table=table_id,
        game=game_id,
        seats=seats,
        options=msgspec.to_builtins(normalised),
        rules_version=RULES_ENGINE_VERSION,
        first_dealer=first_dealer,
        tournament=tournament,
        supplied_decks=len(decks or ()),
        decks=[list(d) for d in decks] if decks else None,
        clock=clock,
        ends_at=ends_at,
    )


def parse_options(game: Game[Any], options: dict[str, Any]) -> msgspec.Struct:
    try:
        return msgspec.convert(options, type=game.options_type)
    except msgspec.ValidationError as exc:
        raise RuleError(RuleCode.INVALID_OPTIONS, f"options: {exc}", options=options) from exc


def in_force(options: msgspec.Struct) -> msgspec.Struct:
    """``options`` with every option a table left out given its declared default.

    An option added after tables were first recorded is UNSET when left out (the table's
    ``table_created`` keeps the shape it always had); its schema's ``default`` is the rule
    such a table plays by, so that is what a view names.
    """
    unset = {
        name: default
        for name, default in _declared_defaults(type(options)).items()
        if getattr(options, name) is msgspec.UNSET
    }
    return replace(options, **unset) if unset else options


@functools.cache
def _declared_defaults(options_type: type[msgspec.Struct]) -> dict[str, Any]:
    info = msgspec.inspect.type_info(options_type)
    assert isinstance(info, msgspec.inspect.StructType)
    declared = {}
    for field in info.fields:
        meta = field.type
        schema = meta.extra_json_schema if isinstance(meta, msgspec.inspect.Metadata) else None
        if schema and "default" in schema:
            declared[field.name] = schema["default"]
    return declared


MAX_ACTION_SECONDS = 3600
MAX_BANK_SECONDS = 86400


def start(event: TableCreated) -> Table[Any]:
    game = GAMES[event.game]
    options = parse_options(game, event.options)
    return Table(
        id=event.table,
        game=event.game,
        version=1,
        names=(None,) * event.seats,
        options=event.options,
        rules_version=event.rules_version,
        tournament=event.tournament,
        decks=tuple(tuple(d) for d in event.decks or ()),
        clock=event.clock,
        ends_at=event.ends_at,
        since=(None,) * event.seats if event.clock else (),
        banks=(event.clock.bank_seconds * 1000,) * event.seats if event.clock else (),
        state=game.under_engine(
            game.initial_state(event.seats, options, event.first_dealer), event.rules_version
        ),
    )


def under_its_engine(table: Table[S]) -> Table[S]:
    """``table`` with its state under the rules of the engine it was created under
    (``Game.under_engine``): for a table decoded from a snapshot, which a process of an
    older release may have written."""
    state = table.rules.under_engine(table.state, table.rules_version)
    return table if state is table.state else replace(table, state=state)


def evolve(table: Table[S], event: Event) -> Table[S]:
    table = replace(table, version=table.version + 1)
    match event:
        case SeatTaken(seat=seat, name=name, computer=computer):
            return _seated(table, seat, name, computer)
        case SeatReplaced(seat=seat, name=name, computer=computer):
            table = replace(table, revoked=(*table.revoked, seat))
            return _seated(table, seat, name, computer)
        case SeatLeft(seat=seat) if table.status == "waiting":
            names = tuple(None if i == seat else n for i, n in enumerate(table.names))
            computers = _without(table.computers, seat)
            return replace(table, names=names, computers=computers, revoked=(*table.revoked, seat))
        case SeatLeft(seat=seat):
            return replace(
                table,
                vacant=_with(table.vacant, seat),
                absent=_with(table.absent, seat),
                revoked=(*table.revoked, seat),
            )
        case SeatMarkedAbsent(seat=seat):
            return replace(table, absent=_with(table.absent, seat))
        case SeatReturned(seat=seat):
            absent, strikes = _without(table.absent, seat), _without(table.strikes, seat)
            return replace(table, absent=absent, strikes=strikes)
        case ClockSet(since=since, banks=banks, moved=moved):
            strikes = table.strikes if moved is None else _without(table.strikes, moved)
            return replace(table, since=tuple(since), banks=tuple(banks), strikes=strikes)
        case ClockExpired(seat=seat):
            # The turn is spent: the seat starts afresh (on an empty bank) if it must act again.
            spent = tuple(0 if i == seat else b for i, b in enumerate(table.banks))
            stopped = tuple(None if i == seat else s for i, s in enumerate(table.since))
            strikes = _with(table.strikes, seat)
            return replace(table, banks=spent, since=stopped, strikes=strikes)
        case TablePaused(at=at):
            return replace(table, paused_at=at)
        case TableResumed():
            return replace(table, paused_at=None)
        case GameResigned() | GameForfeited() | TableAborted():
            return replace(table, result=result_of(event, len(table.names)))
        case GameTimed():  # the game folds it too: it ends between deals
            table = replace(table, result=result_of(event, len(table.names)))
        case TableExpired():
            return replace(table, expired=True)
        case TimeCalled():
            return replace(table, time_called=True)
        case GameWon():  # the game folds it too
            table = replace(table, result=result_of(event, len(table.names)))
        case SeedRevealed(shuffle=shuffle):
            return replace(table, unrevealed=tuple(n for n in table.unrevealed if n != shuffle))
        case ChanceEvent(shuffle=shuffle):
            table = replace(
                table,
                shuffles=shuffle,
                unrevealed=(*table.unrevealed, shuffle),
                deals=table.deals + (event.kind == "deal"),
            )
    return replace(table, state=table.rules.evolve(table.state, event))


def result_of(event: Event, seats: int) -> Result | None:
    """How ``event`` ends a table of ``seats`` (DESIGN 10), or None when it ends nothing:
    ``played`` to the end (every seat not among the winners loses), ``resigned``,
    ``forfeit``, on ``time``, or ``aborted`` (nobody wins or loses)."""
    match event:
        case GameWon(winners=winners):
            lost = [seat for seat in range(seats) if seat not in winners]
            return Result(reason="played", winners=winners, losers=lost)
        case GameResigned(winners=winners, losers=losers):
            return Result(reason="resigned", winners=winners, losers=losers)
        case GameForfeited(winners=winners, losers=losers):
            return Result(reason="forfeit", winners=winners, losers=losers)
        case GameTimed(winners=winners, losers=losers):
            return Result(reason="time", winners=winners, losers=losers)
        case TableAborted():
            return Result(reason="aborted", winners=[], losers=[])
    return None


def _seated(table: Table[S], seat: int, name: str, computer: bool) -> Table[S]:
    """``seat`` has a new occupant: a player, or the computer; present either way."""
    names = tuple(name if i == seat else n for i, n in enumerate(table.names))
    computers = _with(table.computers, seat) if computer else _without(table.computers, seat)
    return replace(
        table,
        names=names,
        computers=computers,
        vacant=_without(table.vacant, seat),
        absent=_without(table.absent, seat),
        strikes=_without(table.strikes, seat),
    )


def _with(seats: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return seats if seat in seats else tuple(sorted((*seats, seat)))


def _without(seats: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return tuple(s for s in seats if s != seat)


def fold(events: list[Event]) -> Table[Any]:
    """The table after ``events``, which must open with ``table_created``."""
    first = events[0]
    assert isinstance(first, TableCreated)
    table = start(first)
    for event in events[1:]:
        table = evolve(table, event)
    return table


# --- commands ---------------------------------------------------------------------------


def take_seat(table: Table[Any], seat: int, name: str, *, computer: bool = False) -> list[Event]:
    if not 0 <= seat < len(table.names):
        raise RuleError(RuleCode.NO_SUCH_SEAT, f"this table has seats 0 to {len(table.names) - 1}")
    if table.status == "expired":
        raise RuleError(RuleCode.TABLE_EXPIRED, "nobody filled this table in time", seat=seat)
    if table.status == "aborted":
        raise RuleError(RuleCode.TABLE_ABORTED, "the operator aborted this table", seat=seat)
    if table.status == "finished":
        raise RuleError(RuleCode.GAME_OVER, "the game is over", seat=seat)
    if table.names[seat] is not None and seat not in table.vacant:
        raise RuleError(RuleCode.SEAT_TAKEN, f"seat {seat} is taken", seat=seat)
    return [SeatTaken(seat=seat, name=name, computer=computer)]


def computer_to_act(table: Table[Any]) -> list[int]:
    """The seats the computer plays that the table waits on now: its own seats, and
    those of absent players (DESIGN 10)."""
    if table.paused_at is not None:
        return []
    return [s for s in to_act(table) if s in table.computers or s in table.absent]


def expire_waiting(table: Table[Any]) -> list[Event]:
    """The service's retention: a table still waiting for players expires. How long it
    may wait is the service's setting, not a rule; the rules only see that it waits."""
    if table.status == "expired":
        raise RuleError(RuleCode.TABLE_EXPIRED, "the table has expired already")
    if table.status != "waiting":
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "only a table waiting for players expires")
    return [TableExpired()]


def decide(table: Table[Any], command: PlayerCommand, actor: int) -> list[Event]:
    status = table.status  # worked out once: it asks the game whether it is finished
    if status == "waiting":
        raise RuleError(RuleCode.NOT_ALLOWED_NOW, "the table is waiting for players")
    _require_open(table, status)
    return table.rules.decide(table.state, command, actor)


def require_open(table: Table[Any]) -> None:
    """Refuse any command once the table is over, or while the operator holds it."""
    _require_open(table, table.status)


def _require_open(table: Table[Any], status: Status) -> None:
    if status == "expired":
        raise RuleError(RuleCode.TABLE_EXPIRED, "nobody filled this table in time")
    if status == "aborted":
        raise RuleError(RuleCode.TABLE_ABORTED, "the operator aborted this table")
    if status == "finished":
        raise RuleError(RuleCode.GAME_OVER, "the game is over")
    if table.paused_at is not None:
        raise RuleError(RuleCode.TABLE_PAUSED, "the operator paused this table")


def pending_chance(table: Table[Any]) -> Chance | None:
    """The deck the game waits for; none until every seat is taken."""
    if table.status != "playing":
        return None
    return table.rules.chance(table.state)


def supplied_deck(table: Table[Any], chance: Chance) -> tuple[str, ...] | None:
    """The operator's deck for this deal, while the supplied list lasts (DESIGN 6)."""
    if chance.kind == "deal" and table.deals < len(table.decks):
        return table.decks[table.deals]
    return None


def supply(table: Table[Any], deck: tuple[str, ...], commitment: str) -> list[Event]:
    command = SupplyDeck(deck=deck, commitment=commitment, shuffle=table.shuffles + 1)
    return table.rules.decide(table.state, command, SYSTEM)


def reveals_due(table: Table[Any]) -> tuple[int, ...]:
    """Shuffles whose cards are out of play: the game wants a new deck, or it is over
    (played out, resigned, forfeited or aborted: every deck is then open to audit)."""
    if table.status in ("finished", "aborted") or pending_chance(table) is not None:
        return table.unrevealed
    return ()


class ChanceSource(Protocol):
    """Where :func:`settle` gets the secrets it may not invent: the domain never draws."""

    def revealed(self, shuffle_no: int) -> bytes | None:
        """The seed of an earlier shuffle whose cards are out of play; ``None`` when the
        shuffle dealt a supplied deck."""
        ...

    def seed(self, shuffle_no: int, chance: Chance) -> bytes | None:
        """A fresh seed for ``shuffle``; ``None`` stops settling with ``chance`` pending
        (a bench out of planned decks, a verifier whose export has not revealed it)."""
        ...


class ChanceStep(msgspec.Struct, Generic[S], frozen=True, kw_only=True):
    """One chance step of :func:`settle`: its events and the table after them."""

    kind: Literal["reveal_seed", "supply_deck", "end_on_time"]
    shuffle: int
    events: list[Event]
    table: Table[S]
    seed: bytes | None = None  # supply_deck: the seed drawn, or None for a supplied deck

    def command(self) -> dict[str, Any]:
        """The step as it is recorded: what caused its events (never the deck or seed)."""
        return {"type": self.kind, "shuffle": self.shuffle}


def end_on_time(table: Table[Any]) -> GameTimed:
    """The game ends on time between two deals: the side ahead wins; level at the top is
    a draw (DESIGN 14)."""
    count = len(table.names)
    units = table.rules.units(count)
    scores = list(view(table, "operator").scores) or [0] * len(units)
    best = max(scores)
    ahead = [i for i, score in enumerate(scores) if score == best]
    if len(ahead) > 1:
        return GameTimed(winners=[], losers=[], scores=scores)
    winners = sorted(units[ahead[0]])
    return GameTimed(
        winners=winners, losers=[s for s in range(count) if s not in winners], scores=scores
    )


def settle(table: Table[S], source: ChanceSource) -> Iterator[ChanceStep[S]]:
    """The one chance loop: reveal the seeds of every shuffle whose cards are out of play,
    then supply the deck the game waits for — the operator's while the table's list
    lasts, else one shuffled from ``source``'s seed — until the game waits on a seat.

    The service, the offline verifier, the bench, the samples and the tests all settle a
    table through here, so that they cannot drift apart.
    """
    while True:
        for shuffle_no in reveals_due(table):
            seed = source.revealed(shuffle_no)
            revealed = SeedRevealed(
                shuffle=shuffle_no, supplied=seed is None, seed=None if seed is None else seed.hex()
            )
            table = evolve(table, revealed)
            yield ChanceStep(kind="reveal_seed", shuffle=shuffle_no, events=[revealed], table=table)
        chance = pending_chance(table)
        if chance is None:
            return
        if table.time_called:
            timed = end_on_time(table)
            table = evolve(table, timed)
            yield ChanceStep(
                kind="end_on_time", shuffle=table.shuffles, events=[timed], table=table
            )
            continue  # the seeds of the last deal are out of play now: reveal them
        shuffle_no = table.shuffles + 1
        deck = supplied_deck(table, chance)
        seed = None
        if deck is not None:
            commitment = deck_commitment(deck)
        else:
            seed = source.seed(shuffle_no, chance)
            if seed is None:
                return
            deck, commitment = shuffle(chance.pack, seed), seed_commitment(seed)
        dealt = supply(table, deck, commitment)
        for event in dealt:
            table = evolve(table, event)
        yield ChanceStep(
            kind="supply_deck", shuffle=shuffle_no, events=dealt, table=table, seed=seed
        )


# --- what leaves the domain -------------------------------------------------------------


def legal_actions(table: Table[Any], seat: int) -> list[LegalAction]:
    if table.status != "playing" or table.paused_at is not None:
        return []
    return table.rules.legal_actions(table.state, seat)


def to_act(table: Table[Any]) -> list[int]:
    return table.rules.to_act(table.state) if table.status == "playing" else []


def view(table: Table[Any], audience: Audience) -> View:
    header = ViewHeader(
        id=table.id,
        version=table.version,
        status=table.status,
        seats=[
            SeatInfo(
                seat=i,
                name=n,
                computer=i in table.computers,
                absent=i in table.absent,
                vacant=i in table.vacant,
            )
            for i, n in enumerate(table.names)
        ],
        you=audience if isinstance(audience, int) else None,
        deadline=table.turn_deadline,
        clock=_clock_view(table),
        paused=table.paused_at is not None and table.status == "playing",
        result=table.result,
        options=in_force(parse_options(table.rules, table.options)),
    )
    return table.rules.view(table.state, audience, header)


def _clock_view(table: Table[Any]) -> ClockView | None:
    if table.clock is None:
        return None
    return ClockView(
        action_seconds=table.clock.action_seconds,
        bank_seconds=table.clock.bank_seconds,
        on_timeout=table.clock.on_timeout,
        bank=[ms / 1000 for ms in table.banks],
        paused_left=table.paused_left() if table.status == "playing" else None,
    )


def redact(game: Game[Any], event: Event, audience: Audience) -> Event:
    """``event`` as ``audience`` may see it (RULES 0.6)."""
    if audience == "operator":
        return event
    match event:
        case TableCreated():
            return replace(event, decks=None)
        case SeedRevealed():
            # A seed recomputes the whole deck, hidden cards included: operators only.
            return replace(event, seed=None)
    return game.redact(event, audience)


def actor_of(actor: Actor) -> str:
    return "system" if actor == SYSTEM else f"seat:{actor}"
