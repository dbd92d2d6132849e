"""Re-running an exported table through the rules, batch by batch, as the service did.

The service writes a table's events in batches, each opened by the command that caused
it (``service/write/handler.py``): the creation request (``table_created``, and for a tournament
table one ``take_seat`` per player in the same commit), a seat's ``take_seat``, a seat's
command — and after each of those the chance steps it settles in a loop: reveal the seeds
of every shuffle whose cards are out of play (``reveal_seed``), then supply the deck the
game waits for (``supply_deck``), until the game waits on a seat. The verifier runs that
very loop (``domain.table.settle``), with the export's revealed seeds as its source: each
batch's events are produced again from its command and the table as folded so far, and
must equal the exported events one for one.

Liveness (DESIGN 10) brings time in: a player's command (``seat:N``) goes through
``domain.liveness.decide`` at its batch's ``recorded_at`` (the instant the service passed
to the rules) — its deadline, leaving, resigning, coming back — while the computer's
(``computer:N``, for its own seats and absent ones) and the clock's autoplay (``clock:N``,
right after the expiry of seat N) go through the game's rules alone, and must be the very
move the computer makes there (tables of engine 1.1.0 on). The clock steps, the
timekeeper's and the operator's commands are re-run in ``service.audit.liveness_rerun``.

A deck comes from the operator's list in ``table_created`` (its commitment is the
SHA-256 of the deck's text) or from the shuffle's seed, which the export reveals later in
``seed_revealed`` (its commitment is the SHA-256 of the seed). A deal still in play when
the table was exported has no revealed seed yet: its deck is taken back from the cards it
dealt and dealt again, so that its batch is checked like any other; only whether the
hidden seed shuffles that deck waits, and the report says so.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from domain import computer, liveness
from domain import table as tables
from domain.commands import SEAT_COMMANDS, PlayerCommand
from domain.errors import RuleError
from domain.events import ChanceEvent, ClockSettings, Event, SeedRevealed, TableCreated
from domain.protocol import Chance
from domain.registry import GAMES
from domain.shuffle import SEED_BYTES
from domain.table import Table
from service.audit import liveness_rerun
from service.audit.entries import Entry, Mismatch, describe, difference
from service.audit.liveness_rerun import Acted, Timing, instant
from service.audit.redeal import deck_behind
from service.write.codec import convert

SYSTEM = "system"
# The computer is pure and deterministic: from this engine on (domain/__init__.py) its
# moves, and the clock's, are re-derived, not only checked as legal.
COMPUTER_REPLAYED = "1.1.0"


class Counts(msgspec.Struct, kw_only=True):
    seats_taken: int = 0
    commands: int = 0
    clock_steps: int = 0
    table_commands: int = 0  # the timekeeper's and the operator's
    seeded: int = 0
    supplied: int = 0
    reveals: int = 0
    in_play: list[tuple[int, int]] = msgspec.field(default_factory=list)  # (shuffle, version)


class Rerun:
    """Replays ``entries`` (versions 1, 2, … in order) through the rules."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.counts = Counts()
        self.reveals: dict[int, Entry] = {}
        for entry in entries:
            if isinstance(entry.event, SeedRevealed):
                self.reveals.setdefault(entry.event.shuffle, entry)
        self.supplied: set[int] = set()
        self.seeds: dict[int, str] = {}
        self.timing = Timing()
        self.table: Table[Any]

    @property
    def last(self) -> int:
        return self.entries[-1].version if self.entries else 0

    def run(self) -> Table[Any]:
        """The table after every batch, or :class:`Mismatch` at the first bad event."""
        self.table = self._open()
        pos = self._settle(1)
        while pos < len(self.entries):
            pos = self._settle(self._batch(pos))
        return self.table

    # --- the creation batch -------------------------------------------------------------

    def _open(self) -> Table[Any]:
        first = self._entry(0)
        created = first.event
        if not isinstance(created, TableCreated):
            raise Mismatch(first.version, f"a table opens with table_created, not {first.data}")
        if first.command is None:
            raise Mismatch(first.version, "table_created carries no creation request")
        try:
            again = tables.create(
                created.table,
                created.game,
                created.seats,
                created.options,
                first_dealer=created.first_dealer,
                decks=created.decks,
                tournament=created.tournament,
                clock=created.clock,
                ends_at=created.ends_at,
            )
        except RuleError as exc:
            raise Mismatch(first.version, f"the rules refuse the table: {exc.message}") from None
        if replace(again, rules_version=created.rules_version) != created:
            raise Mismatch(first.version, difference(again, created))
        _check_creator(first, created)
        _check_request(first, created)
        return tables.start(created)

    # --- a batch caused by a request ----------------------------------------------------

    def _batch(self, pos: int) -> int:
        entry = self.entries[pos]
        command = entry.command
        if command is None:
            raise Mismatch(entry.version, f"{describe(entry.event)} was caused by no command")
        kind = command.get("type")
        if not isinstance(kind, str):
            raise Mismatch(entry.version, f"a command without a type: {command}")
        if kind in ("supply_deck", "reveal_seed"):
            raise Mismatch(entry.version, f"the table was waiting for no chance step ({kind})")
        # A clock step times the batch just before it, and the clock may play a seat only
        # right after the expiry of its turn: any other batch starts afresh.
        expired = self.timing.expired
        if kind != "set_clock":
            self.timing.acted = self.timing.expired = None
        if kind == "take_seat":
            return self._take_seat(pos, entry, command)
        if kind in liveness_rerun.ACTORS:
            produced = liveness_rerun.table_command(self.table, entry, command, self.timing)
            if kind == "set_clock":
                self.counts.clock_steps += 1
            else:
                self.counts.table_commands += 1
            return self._expect(pos, produced, entry.actor)
        return self._command(pos, entry, command, expired)

    def _take_seat(self, pos: int, entry: Entry, command: dict[str, Any]) -> int:
        seat, name, computer = command.get("seat"), command.get("name"), command.get("computer")
        if not isinstance(seat, int) or not isinstance(name, str):
            raise Mismatch(entry.version, f"a take_seat request without seat and name: {command}")
        creator = self.entries[0].actor
        if entry.actor not in (f"seat:{seat}", creator):
            raise Mismatch(entry.version, f"seat {seat} was taken by {entry.actor!r}")
        try:
            produced = tables.take_seat(self.table, seat, name, computer=computer is True)
        except RuleError as exc:
            raise Mismatch(entry.version, f"the rules refuse take_seat: {exc.message}") from None
        self.counts.seats_taken += 1
        return self._expect(pos, produced, entry.actor)

    def _command(
        self, pos: int, entry: Entry, command: dict[str, Any], expired: tuple[int, int] | None
    ) -> int:
        """A seat's command: its player's (``seat:N``), the computer's (``computer:N``) or
        the clock's autoplay after an expiry (``clock:N``)."""
        found = _seat_of(entry.actor, self.table)
        if found is None:
            raise Mismatch(entry.version, f"{entry.actor!r} is not a seat of this table")
        kind, seat = found
        try:
            decided = convert(command, PlayerCommand)
        except msgspec.ValidationError as exc:
            raise Mismatch(entry.version, f"not a command the API accepts: {exc}") from None
        if kind != "seat" and isinstance(decided, SEAT_COMMANDS):
            raise Mismatch(
                entry.version,
                f"only seat {seat}'s player may {command.get('type')}, not {entry.actor!r}",
            )
        if kind == "seat" and seat in self.table.vacant:
            # Its player's token was revoked when it left; only a take-over seats another.
            raise Mismatch(entry.version, f"seat {seat} is vacant: nobody may act for it")
        if kind == "seat" and seat in self.table.computers:
            # The computer's seat has no token: a move relabelled as a player's would
            # escape the check that the computer's moves are the computer's.
            raise Mismatch(entry.version, f"seat {seat} is the computer's: no player holds it")
        if kind == "clock" and (expired is None or expired[0] != seat):
            why = ", whose turn did not just expire"
            if expired is not None:
                why = f" after seat {expired[0]}'s turn expired (version {expired[1]})"
            raise Mismatch(entry.version, f"the clock plays seat {seat}{why}")
        try:
            if kind == "seat":
                produced = liveness.decide(self.table, decided, seat, instant(entry))
            else:
                produced = tables.decide(self.table, decided, seat)
        except RuleError as exc:
            raise Mismatch(
                entry.version,
                f"the rules refuse seat {seat}'s {command.get('type')}: {exc.code.value}:"
                f" {exc.message}",
            ) from None
        # A legal move, but the computer's own? (Checked second: a move the rules refuse
        # is reported as such.)
        if kind != "seat" and self.table.engine_since(COMPUTER_REPLAYED):
            chosen = computer.choose(self.table, seat)
            if decided != chosen:
                raise Mismatch(
                    entry.version,
                    f"{entry.actor!r} sent {command}; the computer plays"
                    f" {msgspec.to_builtins(chosen)} here",
                )
        self.counts.commands += 1
        self.timing.acted = Acted(seat, entry.actor, entry.version)
        return self._expect(pos, produced, entry.actor)

    def _expect(self, pos: int, produced: list[Event], actor: str) -> int:
        """Match ``produced`` against the batch at ``pos``; the position after it."""
        opened = self.entries[pos]
        if not produced:
            raise Mismatch(opened.version, "its command produces no event at all")
        for offset, event in enumerate(produced):
            if pos + offset >= len(self.entries):
                raise Mismatch(
                    self.last + 1,
                    f"missing: the command of version {opened.version} also gives"
                    f" {describe(event)}, and the export ends at version {self.last}",
                )
            entry = self.entries[pos + offset]
            if offset and entry.command is not None:
                raise Mismatch(
                    entry.version,
                    f"the command of version {opened.version} also gives {describe(event)};"
                    f" the export has a new {entry.command.get('type')} command here",
                )
            if entry.event is None:
                raise Mismatch(entry.version, f"not an event of this game: {entry.problem}")
            if entry.event != event:
                raise Mismatch(entry.version, difference(event, entry.event))
            if entry.actor != actor:
                raise Mismatch(entry.version, f"recorded for {entry.actor!r}, not {actor!r}")
            self.table = tables.evolve(self.table, event)
        after = pos + len(produced)
        if after < len(self.entries) and self.entries[after].command is None:
            extra = self.entries[after]
            raise Mismatch(
                extra.version,
                f"{describe(extra.event)} follows the batch of version {opened.version},"
                " which the rules end before it",
            )
        return after

    # --- the service's chance steps -----------------------------------------------------

    def _settle(self, pos: int) -> int:
        """The chance steps after a batch, through the service's own loop: each step the
        rules give must be the next batch of the export."""
        while True:
            for step in tables.settle(self.table, self):
                entry = self._step(pos, step.command())
                if step.kind == "reveal_seed":
                    self.counts.reveals += 1
                elif step.kind == "supply_deck":
                    self._check_supply(entry, step)
                pos = self._expect(pos, step.events, SYSTEM)
            chance = tables.pending_chance(self.table)
            if chance is None:
                return pos
            shuffle_no = self.table.shuffles + 1  # its seed is not in the export yet
            entry = self._step(pos, {"type": "supply_deck", "shuffle": shuffle_no})
            pos = self._in_play(pos, entry, shuffle_no, chance)

    # The chance source of ``settle``: seeds as the export reveals them.
    def revealed(self, shuffle_no: int) -> bytes | None:
        seed = self.seeds.get(shuffle_no)
        return None if seed is None else bytes.fromhex(seed)

    def seed(self, shuffle_no: int, chance: Chance) -> bytes | None:
        reveal = self.reveals.get(shuffle_no)
        return None if reveal is None else self._seed(reveal)

    def _step(self, pos: int, command: dict[str, Any]) -> Entry:
        step = f"{command['type']} of shuffle {command['shuffle']}"
        if pos >= len(self.entries):
            raise Mismatch(
                self.last + 1,
                f"missing: the export ends at version {self.last}, where the service owed"
                f" the {step}",
            )
        entry = self.entries[pos]
        if entry.command != command:
            found = entry.command.get("type") if entry.command else "no command"
            raise Mismatch(entry.version, f"the service owed the {step} here, not {found}")
        if entry.actor != SYSTEM:
            raise Mismatch(entry.version, f"the {step} recorded for {entry.actor!r}")
        return entry

    def _check_supply(self, entry: Entry, step: tables.ChanceStep[Any]) -> None:
        """Say which is false when the exported deal departs from the one the rules give:
        an operator deck's commitment, a seed, or a commitment."""
        exported = entry.event.commitment if isinstance(entry.event, ChanceEvent) else None
        produced = step.events[0]
        assert isinstance(produced, ChanceEvent)
        commitment = produced.commitment
        if step.seed is None:
            if exported is not None and exported != commitment:
                raise Mismatch(
                    entry.version,
                    f"commitment {exported[:16]}… is not that of operator deck"
                    f" {self.table.deals + 1} ({commitment[:16]}…)",
                )
            self.supplied.add(step.shuffle)
            self.counts.supplied += 1
            return
        reveal = self.reveals[step.shuffle]
        if exported is not None and exported != commitment:
            # Which is false, the seed or the commitment? A seed that deals exactly the
            # exported cards is the real one: then the commitment was altered.
            assert isinstance(entry.event, ChanceEvent)
            if replace(entry.event, commitment=commitment) == produced:
                raise Mismatch(
                    entry.version,
                    f"commitment {exported[:16]}… is not the SHA-256 of the seed revealed at"
                    f" version {reveal.version}, though that seed deals exactly these cards",
                )
            raise Mismatch(
                reveal.version,
                f"the seed revealed for shuffle {step.shuffle} matches neither the commitment"
                f" published at version {entry.version} nor the cards dealt there",
            )
        self.seeds[step.shuffle] = step.seed.hex()
        self.counts.seeded += 1

    def _seed(self, reveal: Entry) -> bytes:
        assert isinstance(reveal.event, SeedRevealed)
        text = reveal.event.seed
        try:
            seed = bytes.fromhex(text or "")
        except ValueError:
            seed = b""
        if len(seed) != SEED_BYTES:
            raise Mismatch(
                reveal.version, f"shuffle {reveal.event.shuffle} reveals no 32-byte seed"
            )
        return seed

    def _in_play(self, pos: int, entry: Entry, shuffle_no: int, chance: Chance) -> int:
        """A deal whose seed is not revealed yet: the deck it dealt is taken back from its
        cards (``service.audit.redeal``) and dealt again by the rules, so that its whole
        batch is checked; only the deck's match with the hidden seed waits."""
        dealt = entry.event
        if not isinstance(dealt, ChanceEvent) or dealt.shuffle != shuffle_no:
            raise Mismatch(entry.version, f"shuffle {shuffle_no} deals {describe(dealt)}")
        if type(dealt).kind != chance.kind:
            raise Mismatch(entry.version, f"the game waits for a {chance.kind}, not {dealt}")
        deck = deck_behind(self.table, dealt, chance.pack, entry.version)
        after = self._expect(pos, tables.supply(self.table, deck, dealt.commitment), SYSTEM)
        self.counts.in_play.append((shuffle_no, entry.version))
        return after

    def _entry(self, index: int) -> Entry:
        if index >= len(self.entries):
            raise Mismatch(index + 1, "missing: the export holds no events")
        return self.entries[index]


def _seat_of(actor: str, table: Table[Any]) -> tuple[str, int] | None:
    """The kind and seat of ``seat:N``, of ``clock:N``, or of ``computer:N`` where the
    computer plays seat N: its own seat, or an absent (or vacant) player's."""
    kind, _, number = actor.partition(":")
    if not number.isdigit() or not 0 <= int(number) < len(table.names):
        return None
    seat = int(number)
    if kind in ("seat", "clock") or (
        kind == "computer" and (seat in table.computers or seat in table.absent)
    ):
        return kind, seat
    return None


# Who may open a table, as the service records it: anybody (``anonymous``), the
# operator, a tournament's director (its own tables) or the tournament's pairing.
CREATORS = ("anonymous", "operator", "director", "tournament")


def _check_creator(first: Entry, created: TableCreated) -> None:
    """The table was opened by someone the service lets open such a table."""
    actor = first.actor
    if actor not in CREATORS:
        raise Mismatch(first.version, f"a table is not opened by {actor!r}")
    if actor in ("director", "tournament") and created.tournament is None:
        raise Mismatch(first.version, f"{actor!r} opened a table of no tournament")
    if actor == "anonymous" and (
        created.tournament is not None or created.first_dealer is not None or created.decks
    ):
        raise Mismatch(
            first.version, "anybody opened a table only the operator or a director may open"
        )


def _check_request(first: Entry, created: TableCreated) -> None:
    """The creation request, as far as it states the table's settings, agrees with them."""
    request = first.command or {}
    stated: dict[str, Any] = {
        "game": created.game,
        "seats": created.seats,
        "first_dealer": created.first_dealer,
        "tournament": created.tournament,
    }
    for key, value in stated.items():
        if request.get(key) is not None and request[key] != value:
            raise Mismatch(first.version, f"the request asked for {key} {request[key]!r}")
    options = request.get("options")
    if isinstance(options, dict):
        # Compared as the game reads them: a default left out is the same option.
        game = GAMES[created.game]
        try:
            same = tables.parse_options(game, options) == tables.parse_options(
                game, created.options
            )
        except RuleError:
            same = False
        if not same:
            raise Mismatch(first.version, f"the request asked for options {options!r}")
    deals = request.get("deals")
    if deals is not None:
        decks = [d.get("deck") if isinstance(d, dict) else None for d in deals]
        if decks != (created.decks or []):
            raise Mismatch(first.version, "the table's decks are not the ones requested")
    clock = request.get("clock")
    if clock is not None:
        if isinstance(clock, dict):  # the request states on_timeout beside the clock
            clock = {"on_timeout": request.get("on_timeout", "autoplay"), **clock}
        try:
            asked: ClockSettings | None = msgspec.convert(clock, ClockSettings)
        except msgspec.ValidationError:
            asked = None
        if asked != created.clock:
            raise Mismatch(first.version, f"the request asked for clock {clock!r}")
    players = request.get("players")
    if players is not None and len(players) != created.seats:
        raise Mismatch(first.version, f"{len(players)} players for {created.seats} seats")
