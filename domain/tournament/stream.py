"""A tournament as an event-sourced aggregate: its state, ``evolve`` and the commands.

Like a table, a tournament is decided from its folded events and never reads a clock or a
random source: the service passes in the time, the seed and the ids of the tables it is
about to open. Pairing itself is :func:`domain.tournament.pairing.pair`, a function of the
entries, the results recorded so far and the seed — which is what lets the verifier re-run
every round from an export.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from domain.events import ClockSettings
from domain.registry import GAMES
from domain.shuffle import shuffle
from domain.tournament.errors import TournamentCode, TournamentError
from domain.tournament.events import (
    EntryAdded,
    EntryWithdrawn,
    PairedTable,
    RoundPaired,
    TableOpened,
    TableScored,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
)
from domain.tournament.model import (
    PAIRING_RULES,
    Entrant,
    Format,
    Pairing,
    RoundRecord,
    Seating,
    Shape,
    TableResult,
)
from domain.tournament.pairing import fits, pair, rounds_needed
from domain.tournament.results import RESULTS_RULES
from domain.tournament.standings import Standing, standings

Status = Literal["open", "playing", "finished"]


class Terms(msgspec.Struct, frozen=True, kw_only=True):
    """What a tournament is opened with (``tournament_created`` records them): its name,
    game and table size, its format and entries, and its rounds with their clock."""

    name: str
    game: str
    format: Format
    entry: Literal["single", "pair"]
    seats: int
    options: dict[str, Any]
    rounds: int | None = None
    clock: ClockSettings | None = None
    round_minutes: int | None = None
    auto_rounds: bool = False


class EntryState(msgspec.Struct, frozen=True):
    entry: str
    names: tuple[str, ...]
    computer: bool
    first_round: int
    withdrawn: bool = False


class RoundState(msgspec.Struct, frozen=True):
    number: int
    tables: tuple[PairedTable, ...]
    byes: tuple[str, ...]
    inputs: str
    deadline: datetime | None
    results: dict[str, TableScored]  # by table id, as they arrive

    @property
    def complete(self) -> bool:
        return len(self.results) == len(self.tables)


class Tournament(msgspec.Struct, frozen=True, kw_only=True):
    created: TournamentCreated
    version: int
    entries: dict[str, EntryState]  # in the order they entered
    rounds: tuple[RoundState, ...] = ()
    seed: str | None = None  # revealed when the tournament finishes
    opened: tuple[str, ...] = ()  # the tables opened by hand (``table_opened``), in order

    @property
    def id(self) -> str:
        return self.created.tournament

    @property
    def format(self) -> Format:
        return Format(self.created.format)

    @property
    def status(self) -> Status:
        if self.seed is not None:
            return "finished"
        return "playing" if self.rounds else "open"

    def table_watchable(self, dealt_decks: bool, table_over: bool, tables_in_play: bool) -> bool:
        """Whether anyone may watch one of its tables. Tables that play the same deals are
        closed until the event is over, since one table's play would show another's
        players their cards: a duplicate event's (every table of a round plays the same
        deals), and a table dealt supplied decks (an operator deals his decks at every
        table he opens). The table must be over too, and so must the event's every table
        (none ``tables_in_play``): the last round's result finishes an event in rounds on
        its own, while a table opened by hand may still be at the same decks."""
        shares_deals = self.format is Format.DUPLICATE or dealt_decks
        if not shares_deals:
            return True
        return self.status == "finished" and table_over and not tables_in_play

    def results_public(self, dealt_decks: bool, dealt_in_play: bool) -> bool:
        """Whether anyone may see how its tables are scoring: not while tables that play
        the same deals are still at them — a duplicate event's round in play; an event
        with tables dealt supplied decks until it is over and none of them is in play
        (one opened as it ended may be)."""
        if self.format is Format.DUPLICATE:
            return round_in_secret(self) is None
        return not dealt_decks or (self.status == "finished" and not dealt_in_play)

    @property
    def shape(self) -> Shape:
        return shape_of(self.created.game, self.created.seats, self.created.entry)

    @property
    def total_rounds(self) -> int | None:
        """How many rounds the event has: as created, and for a round-robin no more than
        its schedule has (every pair meets once), counted by its field."""
        if self.format is not Format.ROUND_ROBIN or not self.rounds:
            return self.created.rounds
        # The schedule is drawn once, for the field of round 1 (berger.field keeps an entry
        # that withdrew after playing, and gives its opponents byes): count that field, not
        # today's entries, or a withdrawal from an odd field would cut the event two
        # rounds short.
        first = self.rounds[0]
        field = {e for t in first.tables for e in t.seats} | set(first.byes)
        schedule = rounds_needed(self.format, len(field)) or 0
        asked = self.created.rounds
        return schedule if asked is None else min(asked, schedule)

    @property
    def round_tables(self) -> list[str]:
        """Every table its rounds paired, round by round: the tables of its export."""
        return [t.table for played in self.rounds for t in played.tables]

    @property
    def exported_tables(self) -> list[str] | None:
        """Every table it opened, as its export lists them: its rounds' tables, then those
        opened by hand. None for a tournament whose stream does not record the tables
        opened by hand (created before API 1.11): those are only known to the store."""
        if not self.created.tables_recorded:
            return None
        return [*self.round_tables, *self.opened]

    def round_of(self, table_id: str) -> RoundState | None:
        for played in reversed(self.rounds):
            if any(t.table == table_id for t in played.tables):
                return played
        return None


def shape_of(game_id: str, seats: int, entry: str) -> Shape:
    """The game's table as pairing sees it: its seats, and each seat's side where the game
    is played by two sides (a partnership each, or two players)."""
    units = GAMES[game_id].units(seats)
    sides = None
    if len(units) == 2:
        side_of = {seat: side for side, unit in enumerate(units) for seat in unit}
        sides = tuple(side_of[seat] for seat in range(seats))
    return Shape(seats=seats, sides=sides, entry_seats=2 if entry == "pair" else 1)


# --- evolve -----------------------------------------------------------------------------


def start(created: TournamentCreated) -> Tournament:
    return Tournament(created=created, version=1, entries={})


def evolve(tournament: Tournament, event: TournamentEvent) -> Tournament:
    tournament = replace(tournament, version=tournament.version + 1)
    match event:
        case EntryAdded():
            entry = EntryState(event.entry, tuple(event.names), event.computer, event.first_round)
            return replace(tournament, entries={**tournament.entries, event.entry: entry})
        case EntryWithdrawn():
            gone = replace(tournament.entries[event.entry], withdrawn=True)
            return replace(tournament, entries={**tournament.entries, event.entry: gone})
        case RoundPaired():
            paired = RoundState(
                event.round,
                tuple(event.tables),
                tuple(event.byes),
                event.inputs,
                event.deadline,
                {},
            )
            return replace(tournament, rounds=(*tournament.rounds, paired))
        case TableScored():
            *earlier, last = tournament.rounds
            results = {**last.results, event.table: event}
            return replace(tournament, rounds=(*earlier, replace(last, results=results)))
        case TableOpened():
            return replace(tournament, opened=(*tournament.opened, event.table))
        case TournamentFinished():
            return replace(tournament, seed=event.seed)
    return tournament


def fold(events: Sequence[TournamentEvent]) -> Tournament:
    first, *rest = events
    assert isinstance(first, TournamentCreated)
    tournament = start(first)
    for event in rest:
        tournament = evolve(tournament, event)
    return tournament


# --- commands ---------------------------------------------------------------------------


def create(
    tournament_id: str, terms: Terms, seed: bytes, pairing_rules: int = PAIRING_RULES
) -> TournamentCreated:
    """A new tournament, or a ``format-does-not-fit`` refusal naming the field; paired by
    ``pairing_rules`` (an earlier version while a process that knows no later one may
    still pair it: ``service.write.tournament_store``)."""
    game, format, entry = terms.game, terms.format, terms.entry
    rules = GAMES[game]
    if not rules.min_seats <= terms.seats <= rules.max_seats:
        raise _misfit("seats", f"{game} is played by {rules.min_seats} to {rules.max_seats}")
    if format is Format.OPEN:
        # The first field sent that an open tournament has no use for is the one named.
        sent = {
            "entry": entry == "pair",
            "rounds": terms.rounds is not None,
            "round_minutes": terms.round_minutes is not None,
            "auto_rounds": terms.auto_rounds,
        }
        if field := next((name for name, given in sent.items() if given), None):
            raise _misfit(field, "an open tournament has no entries or rounds of its own")
    else:
        misfit = fits(format, shape_of(game, terms.seats, entry))
        if misfit is not None:
            field, _, why = misfit.partition(": ")  # the message names the field first
            raise _misfit(field, why)
        if terms.rounds is None and format is not Format.ROUND_ROBIN:
            raise _misfit("rounds", f"a {format} tournament needs its number of rounds")
    return TournamentCreated(
        tournament=tournament_id,
        **msgspec.structs.asdict(terms) | {"format": format.value},
        seed_hash=hashlib.sha256(seed).hexdigest(),
        pairing_rules=pairing_rules,
        tables_recorded=True,
        results_rules=RESULTS_RULES,
    )


def _misfit(field: str, message: str) -> TournamentError:
    return TournamentError(TournamentCode.FORMAT_DOES_NOT_FIT, message, field=field)


def enter(
    tournament: Tournament, entry: str, names: Sequence[str], *, computer: bool = False
) -> list[TournamentEvent]:
    """A new entry; it joins the next round to be paired. The computer may be entered
    under one name in a partnership event: it plays both seats under it."""
    _require_rounds(tournament)
    _require_unfinished(tournament)
    wanted = tournament.shape.entry_seats
    if computer and len(names) == 1:
        names = list(names) * wanted
    if len(names) != wanted:
        kind = "two names (a partnership)" if wanted == 2 else "one name"
        raise TournamentError(TournamentCode.WRONG_ENTRY, f"an entry here is {kind}")
    if tournament.format is Format.ROUND_ROBIN and tournament.rounds:
        raise TournamentError(
            TournamentCode.TOURNAMENT_STARTED, "a round-robin takes no entry once it started"
        )
    first_round = len(tournament.rounds) + 1
    return [EntryAdded(entry=entry, names=list(names), first_round=first_round, computer=computer)]


def withdraw(tournament: Tournament, entry: str) -> list[TournamentEvent]:
    """The entry is paired no more; its results so far stand."""
    found = entry_of(tournament, entry)
    _require_unfinished(tournament)
    if found.withdrawn:
        raise TournamentError(TournamentCode.ENTRY_WITHDRAWN, f"entry {entry} has withdrawn")
    return [EntryWithdrawn(entry=entry)]


def open_table(tournament: Tournament, table_id: str) -> list[TournamentEvent]:
    """The operator opens ``table_id`` for the tournament by hand: not once it finished,
    when its standings are final."""
    if tournament.status == "finished":
        raise TournamentError(
            TournamentCode.TOURNAMENT_FINISHED, "a finished tournament opens no tables"
        )
    return [TableOpened(table=table_id)]


def entry_of(tournament: Tournament, entry: str) -> EntryState:
    found = tournament.entries.get(entry)
    if found is None:
        raise TournamentError(TournamentCode.NO_SUCH_ENTRY, f"no entry {entry} here")
    return found


def pair_round(
    tournament: Tournament,
    entrants: Sequence[Entrant],
    history: Sequence[RoundRecord],
    seed: bytes,
    number: int,
) -> Pairing:
    """Round ``number``'s pairing by the rules the tournament was created under."""
    rules = tournament.created.pairing_rules
    return pair(tournament.format, tournament.shape, entrants, history, seed, number, rules=rules)


def pair_next(
    tournament: Tournament, seed: bytes, table_ids: Iterator[str], at: datetime
) -> list[TournamentEvent]:
    """Pair and open the next round: which table each entry sits at, and the byes."""
    _require_between_rounds(tournament)
    number = len(tournament.rounds) + 1
    entrants = entrants_of(tournament)
    playing = [e for e in entrants if not e.withdrawn and e.first_round <= number]
    if len(playing) < tournament.shape.entries_per_table:
        raise TournamentError(
            TournamentCode.TOO_FEW_ENTRIES,
            f"{len(playing)} entries cannot fill a table of {tournament.shape.entries_per_table}",
        )
    history = history_of(tournament)
    pairing = pair_round(tournament, entrants, history, seed, number)
    deadline = None
    if tournament.created.round_minutes is not None:
        deadline = at + timedelta(minutes=tournament.created.round_minutes)
    tables = [PairedTable(table=next(table_ids), seats=list(s.seats)) for s in pairing.tables]
    paired = RoundPaired(
        round=number,
        tables=tables,
        byes=list(pairing.byes),
        inputs=inputs_digest(entrants, history, number),
        deadline=deadline,
    )
    return [paired, *_finished_if_last(evolve(tournament, paired), seed)]


def score(
    tournament: Tournament, table_id: str, result: TableResult, reason: str, seed: bytes
) -> list[TournamentEvent]:
    """Record how one of the round's tables ended; the last table of the last round
    finishes the tournament and reveals its seed."""
    played = tournament.round_of(table_id)
    if played is None or table_id in played.results:
        return []  # not a table of this tournament's rounds, or recorded already
    scored = TableScored(
        round=played.number,
        table=table_id,
        outcomes=list(result.outcomes),
        scores=list(result.scores),
        reason=reason,
        aborted=result.aborted,
        deal_scores=[list(d) for d in result.deal_scores],
        deal_decks=list(result.deal_decks),
    )
    return [scored, *_finished_if_last(evolve(tournament, scored), seed)]


def _finished_if_last(after: Tournament, seed: bytes) -> list[TournamentEvent]:
    """The last round complete finishes the tournament: usually with its last table's
    result, or as it is paired when it seats nobody (every entrant left has a bye)."""
    if after.rounds[-1].complete and after.rounds[-1].number == after.total_rounds:
        return [TournamentFinished(seed=seed.hex())]
    return []


def finish(tournament: Tournament, seed: bytes, tables_in_play: int) -> list[TournamentEvent]:
    """The director ends the tournament and its seed is revealed: one in rounds between
    two rounds (the rounds not yet paired are not played), an open one once none of the
    ``tables_in_play`` it opened is still being played (they may share its decks, which
    finishing shows to spectators)."""
    if tournament.status == "finished":
        raise TournamentError(TournamentCode.TOURNAMENT_FINISHED, "the tournament has finished")
    _require_round_complete(tournament)
    if tables_in_play:
        raise TournamentError(
            TournamentCode.TABLES_IN_PLAY, f"{tables_in_play} of its tables are still being played"
        )
    return [TournamentFinished(seed=seed.hex())]


def played_out(tournament: Tournament) -> bool:
    """Every round played and recorded, and yet not finished: a round-robin stored before
    API 1.8.2 with more ``rounds`` than its schedule, whose last round ended without
    ``tournament_finished``. :func:`finish` ends it."""
    last = tournament.rounds[-1] if tournament.rounds else None
    return (
        tournament.status == "playing"
        and last is not None
        and last.complete
        and last.number == tournament.total_rounds
    )


def due_to_pair(tournament: Tournament) -> bool:
    """Whether ``auto_rounds`` pairs the next round now: the last one is complete and
    rounds remain."""
    if not tournament.created.auto_rounds or tournament.status != "playing":
        return False
    last = tournament.rounds[-1]
    return last.complete and last.number != tournament.total_rounds


def _require_between_rounds(tournament: Tournament) -> None:
    """A tournament in rounds, not finished, with no table of its last round in play."""
    _require_rounds(tournament)
    _require_unfinished(tournament)
    _require_round_complete(tournament)


def _require_round_complete(tournament: Tournament) -> None:
    if tournament.rounds and not tournament.rounds[-1].complete:
        raise TournamentError(
            TournamentCode.ROUND_IN_PROGRESS,
            f"round {tournament.rounds[-1].number} is still being played",
        )


def _require_rounds(tournament: Tournament) -> None:
    if tournament.format is Format.OPEN:
        raise TournamentError(
            TournamentCode.NOT_IN_ROUNDS, "an open tournament's tables are opened by hand"
        )


def _require_unfinished(tournament: Tournament) -> None:
    if tournament.status == "finished" or played_out(tournament):
        raise TournamentError(
            TournamentCode.TOURNAMENT_FINISHED,
            "the tournament has finished: it played its last round or its director ended it",
        )


# --- what pairing and standings are a function of -------------------------------------


def seat_names(tournament: Tournament, seats: Sequence[str]) -> list[str]:
    """The name at each seat of a round table seating ``seats`` (an entry per seat): a
    partnership's two names in turn."""
    names: list[str] = []
    held: dict[str, int] = {}
    for entry in seats:
        options = tournament.entries[entry].names
        names.append(options[held.get(entry, 0) % len(options)])
        held[entry] = held.get(entry, 0) + 1
    return names


def entrants_of(tournament: Tournament) -> list[Entrant]:
    return [
        Entrant(entry=e.entry, first_round=e.first_round, withdrawn=e.withdrawn)
        for e in tournament.entries.values()
    ]


def history_of(tournament: Tournament) -> list[RoundRecord]:
    """The finished rounds as pairing takes them."""
    return [_record(played, played.tables) for played in tournament.rounds if played.complete]


def round_in_secret(tournament: Tournament) -> int | None:
    """The round whose results are kept from the public while it plays: a duplicate
    event's. Every table of the round holds the same deals, so one table's deal scores
    would tell the players of a table still at them how their cards were played."""
    if tournament.format is not Format.DUPLICATE or tournament.status == "finished":
        return None
    if not tournament.rounds or tournament.rounds[-1].complete:
        return None
    return tournament.rounds[-1].number


def ranking(tournament: Tournament) -> tuple[list[Standing], list[list[str]]]:
    """The entries ranked by the format's rules from the results the public may see
    (:func:`results_so_far`), each named (a pair by both names), with the ids of each
    round's tables in the order the standings index them. An open tournament, whose
    tables the operator opens by hand, ranks no entries."""
    if tournament.format is Format.OPEN:
        return [], []
    records, ids = results_so_far(tournament)
    names = {e.entry: " & ".join(e.names) for e in tournament.entries.values()}
    ranked = standings(tournament.format, tournament.shape, entrants_of(tournament), records, names)
    return ranked, ids


def results_so_far(tournament: Tournament) -> tuple[list[RoundRecord], list[list[str]]]:
    """Every table result the public may see, for the standings: the finished rounds, and
    of the round in play its tables that have ended (and its byes), unless the round is
    in secret; with each record, the ids of its tables in the record's order."""
    records, ids = [], []
    secret = round_in_secret(tournament)
    for played in tournament.rounds:
        shown = played.results if played.number != secret else {}
        ended = tuple(t for t in played.tables if t.table in shown)
        records.append(_record(played, ended))
        ids.append([t.table for t in ended])
    return records, ids


def _record(played: RoundState, tables: Sequence[PairedTable]) -> RoundRecord:
    pairing = Pairing(
        round=played.number,
        tables=tuple(Seating(tuple(t.seats)) for t in tables),
        byes=played.byes,
    )
    results = tuple(_result(t, played.results[t.table]) for t in tables)
    return RoundRecord(pairing=pairing, results=results)


def _result(table: PairedTable, scored: TableScored) -> TableResult:
    return TableResult(
        seats=tuple(table.seats),
        outcomes=tuple(scored.outcomes),
        scores=tuple(scored.scores),
        aborted=scored.aborted,
        deal_scores=tuple(tuple(d) for d in scored.deal_scores),
        deal_decks=tuple(scored.deal_decks),
    )


def inputs_digest(entrants: Sequence[Entrant], history: Sequence[RoundRecord], number: int) -> str:
    encoded = msgspec.json.encode(
        {"round": number, "entrants": entrants, "history": history}, order="sorted"
    )
    return hashlib.sha256(encoded).hexdigest()


DUPLICATE_DEALS = 32  # decks a duplicate round supplies; a table that needs more shuffles its own


def round_decks(game: str, seed: bytes, number: int) -> list[list[str]]:
    """The decks every table of a duplicate round plays, in deal order, drawn from the
    tournament's seed: the same at every table, and re-drawn by anyone once the seed is
    revealed."""
    pack = GAMES[game].pack
    return [
        list(shuffle(pack, hashlib.sha256(seed + f"round {number} deal {deal}".encode()).digest()))
        for deal in range(DUPLICATE_DEALS)
    ]
