"""Tournament commands (DESIGN 14): create, enter, withdraw, pair a round, record results.

Each command folds the tournament's stream, decides in the domain and appends with the
expected version; a collision (the director entering a player while a table's result is
recorded) is decided again on the fresh stream. A round is opened in two steps, each safe
to repeat: ``round_paired`` is appended together with the ids of the tables it opens,
then the tables are created — by this process at once, or by the tournament worker if
this one died in between (``open_missing``).

Seat tokens of a tournament's tables are derived, not stored: HMAC of the tournament's
secret key over the table and seat. The table keeps only their digests, like any seat
token, and ``/me`` can hand a player the token of the seat he was paired to without the
service ever having written it down.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

import msgspec
import psycopg

from domain import table as tables
from domain.events import TableCreated
from domain.table import Table
from domain.tournament import results, stream
from domain.tournament.errors import TournamentError
from domain.tournament.events import TournamentEvent
from domain.tournament.model import PAIRING_RULES, Format
from domain.tournament.stream import Tournament
from service.refusals import CommandConflict, TableNotFound, UpgradeInProgress
from service.write import sealed_tokens
from service.write.codec import event_data, event_decoder
from service.write.handler import Clock, SealingGate, TableService, token_digest
from service.write.queues import Queues, pause_before_retry
from service.write.store import (
    OPENINGS,
    TOURNAMENT_NOTICE,
    Commit,
    IdempotencyRecord,
    NewEvent,
    VersionConflict,
    now,
)
from service.write.tournament_store import (
    Also,
    EntryToken,
    Secrets,
    TournamentStore,
    decode_event,
)

ATTEMPTS = 30  # a decision only fails when the tournament keeps moving for a second or so
Decision = Callable[[Tournament], Sequence[TournamentEvent]]
# A request's idempotency record, made from the tournament its decision leaves.
Recording = Callable[[Tournament], IdempotencyRecord | None]


class MySeat(msgspec.Struct, frozen=True):
    """Where the entry plays the current round: its table, seat and that seat's token
    (an ordinary seat token); ``table: null`` and ``bye: true`` when it sits the round
    out (``round: 0`` before the first). ``token`` is ``null`` once the seat's player
    left it or the director handed it on: that token answers 401 from then on. For a
    partnership's player, ``partner_seat`` is where the partner sits; ``partner_token``
    is only ever set for the one token of a pair entered before each player had their
    own. ``status`` is the tournament's: ``finished`` once it has ended, when no round
    follows and a player waiting for the next can stop."""

    entry: str
    round: int
    table: str | None
    seat: int | None
    token: str | None
    status: stream.Status
    bye: bool = False
    partner_seat: int | None = None
    partner_token: str | None = None


def _still_issued(table: Table[Any] | None, seat: int) -> bool:
    """Whether a seat's derived token still works: it was issued for the seat's first
    epoch, which ends when its player leaves or the seat is handed on. A table not found
    (a read replica yet to see it) revoked none."""
    return table is None or table.epoch(seat) == 0


def _never(seat: int) -> bool:
    return False


class Seated(NamedTuple):
    """``/me``'s answer and the streams it was read from, at the versions read: the
    tournament's (``tournament:<id>``) and the seat's table's, which a long-poll of
    ``/me`` waits on."""

    seat: MySeat
    read: dict[str, int]


class TournamentService:
    def __init__(
        self, store: TournamentStore, tables_service: TableService, clock: Clock = now
    ) -> None:
        self.store = store
        self.tables = tables_service
        self.clock = clock
        # The decisions of one tournament take turns in this process (an operator opening
        # a room's tables at once), so that only other processes' collide.
        self._turns = Queues()

    async def create(
        self,
        terms: stream.Terms,
        *,
        decks: list[list[str]] | None,
        first_dealer: int | None,
        command: dict[str, Any],
        idempotency_key: str | None = None,
    ) -> tuple[str, str]:
        """A new tournament: its id and the director's token. With ``idempotency_key``, a
        retry of the same request (an answer lost on the way) gets the same tournament and
        token instead of opening a second tournament."""
        # The duplicate decks stay out of the recorded command, not out of the request.
        request = {**command, "deals": decks, "first_dealer": first_dealer}
        gate = SealingGate(self.tables.store, OPENINGS, "operator", idempotency_key, request)
        if (first := await gate.replay()) is not None:
            return first.made, first.tokens[0]
        secret = Secrets(seed=secrets.token_bytes(32), seat_key=secrets.token_bytes(32))
        tournament_id = str(uuid.uuid4())
        rules = await self.store.pairing_rules_known()
        created = stream.create(tournament_id, terms, secret.seed, pairing_rules=rules)
        director, raw = sealed_tokens.new_token()
        try:
            await self.store.create(
                NewEvent(event_data(created), "operator", command),
                self.clock(),
                director_hash=token_digest(director),
                secrets=secret,
                decks=decks,
                first_dealer=first_dealer,
                idempotency=gate.record(tournament_id, [raw], 1),
            )
        except VersionConflict:
            first = await gate.twin()
            return first.made, first.tokens[0]
        return tournament_id, director

    async def load(self, tournament_id: str) -> Tournament:
        return (await self.store.load(tournament_id))[0]

    async def tables_in_play(self, tournament_id: str) -> bool:
        """Whether a table of the tournament (of its rounds, or opened by hand) has not
        ended yet."""
        return await self.store.tables_in_play(tournament_id) > 0

    async def enter(
        self,
        tournament_id: str,
        names: list[str],
        computer: bool,
        actor: str,
        *,
        idempotency_key: str | None = None,
    ) -> tuple[str, list[str]]:
        """A new entry: its id and its tokens, one per player of a partnership (in the
        order ``names`` gives them), else one for the entry.

        With ``idempotency_key``, a retry of the same request (a director's tablet that
        lost the answer) gets the first answer, tokens included, instead of entering the
        same players twice; the record keeps the tokens sealed with the key."""
        command = {"type": "enter", "names": names, "computer": computer}
        gate = SealingGate(self.tables.store, tournament_id, actor, idempotency_key, command)
        if (first := await gate.replay()) is not None:
            return first.made, first.tokens
        entry = uuid.uuid4().hex[:12]
        players = len(names) if len(names) > 1 and not computer else 1
        minted = [sealed_tokens.new_token() for _ in range(players)]
        try:
            await self._decide(
                tournament_id,
                lambda t: stream.enter(t, entry, names, computer=computer),
                actor,
                command,
                entry_tokens=[
                    EntryToken(token_digest(token), entry, None if players == 1 else member)
                    for member, (token, _) in enumerate(minted)
                ],
                idempotency=gate.record(entry, [raw for _, raw in minted]),
                replayed=gate.recorded,
            )
        except Replayed:
            first = await gate.twin()
            return first.made, first.tokens
        return entry, [token for token, _ in minted]

    async def open_table(
        self,
        created: TableCreated,
        command: dict[str, Any],
        actor: str,
        players: list[str],
        *,
        idempotency_key: str | None = None,
    ) -> tuple[tables.Table[Any], list[str]]:
        """Open ``created`` for its tournament by hand with ``players`` seated: the table
        as it opened, and their tokens. With ``idempotency_key``, a retry of the same
        request (an answer lost on the way) gets the first table and tokens again instead
        of opening a second table."""
        assert created.tournament is not None
        gate = SealingGate(self.tables.store, created.tournament, actor, idempotency_key, command)
        if (first := await gate.replay()) is not None:
            return await self.tables.as_opened(first, created.game), first.tokens
        minted = [sealed_tokens.new_token() for _ in players]

        def record(commit: Commit) -> IdempotencyRecord | None:
            version = commit.expected_version + len(commit.events)
            return gate.record(commit.table_id, [raw for _, raw in minted], version)

        recording = self.recording_opening(created, actor, record=record, replayed=gate.recorded)
        try:
            return await self.tables.create(
                created,
                command,
                actor,
                players,
                tokens=[token for token, _ in minted],
                committing=recording,
            )
        except Replayed:
            first = await gate.twin()
            return await self.tables.as_opened(first, created.game), first.tokens

    def recording_opening(
        self,
        created: TableCreated,
        actor: str,
        *,
        record: Callable[[Commit], IdempotencyRecord | None] | None = None,
        replayed: Callable[[], Awaitable[bool]] | None = None,
    ) -> Callable[[Commit], Awaitable[bytes]]:
        """How ``created``, a table the operator opens for its tournament by hand, is
        committed (``TableService.create``'s ``committing``): its first commit and the
        tournament's ``table_opened`` in one transaction, so that neither is ever stored
        without the other, and an export that leaves the table out can be told; with the
        request's idempotency ``record`` of the commit, when it has one."""
        tournament_id = created.tournament
        assert tournament_id is not None
        store = self.tables.store

        async def with_the_opening(commit: Commit) -> bytes:
            last_hash = b""

            async def the_table(conn: psycopg.AsyncConnection[Any]) -> None:
                nonlocal last_hash
                last_hash = await store.commit_on(conn, commit)

            await self._decide(
                tournament_id,
                lambda t: stream.open_table(t, created.table),
                actor,
                {"type": "open_table", "table": created.table},
                also=the_table,
                idempotency=None if record is None else record(commit),
                replayed=replayed,
            )
            store.committed(commit)
            return last_hash

        return with_the_opening

    async def withdraw(self, tournament_id: str, entry: str, actor: str) -> Tournament:
        command = {"type": "withdraw", "entry": entry}
        return await self._decide(
            tournament_id, lambda t: stream.withdraw(t, entry), actor, command
        )

    async def pair_round(
        self, tournament_id: str, actor: str, *, idempotency_key: str | None = None
    ) -> Tournament:
        """Pair the next round and open its tables: the tournament as it was paired. With
        ``idempotency_key``, a retry of the same request (an answer lost on the way) gets
        that again, instead of the next round paired (or ``round-in-progress``)."""
        command = {"type": "pair_round"}
        gate = SealingGate(self.tables.store, tournament_id, actor, idempotency_key, command)
        if (first := await gate.replay()) is not None:
            return await self._as_paired(tournament_id, first.version)
        await self._record_ended(tournament_id)
        seed = (await self.store.secrets(tournament_id)).seed
        at = self.clock()

        def decide(tournament: Tournament) -> Sequence[TournamentEvent]:
            rules = tournament.created.pairing_rules
            if rules > PAIRING_RULES:
                # Paired by older rules, the round would not be the one its tournament's
                # rules give, and `cardroom verify` would fail the event.
                raise UpgradeInProgress(
                    f"the tournament is paired by pairing rules {rules}; this process"
                    f" knows {PAIRING_RULES}"
                )
            ids = iter(lambda: str(uuid.uuid4()), None)
            return stream.pair_next(tournament, seed, ids, at)

        def record(after: Tournament) -> IdempotencyRecord | None:
            return gate.record(str(after.rounds[-1].number), [], after.version)

        try:
            paired = await self._decide(
                tournament_id,
                decide,
                actor,
                command,
                opens_round=True,
                idempotency=record,
                replayed=gate.recorded,
            )
        except Replayed:
            return await self._as_paired(tournament_id, (await gate.twin()).version)
        except TournamentError:
            # Refused (round-in-progress) because this very request paired it, on another
            # process, just after the key was looked up?
            if (first := await gate.replay()) is not None:
                return await self._as_paired(tournament_id, first.version)
            raise
        await self.open_tables(paired, [t.table for t in paired.rounds[-1].tables])
        return paired

    async def _as_paired(self, tournament_id: str, version: int) -> Tournament:
        """The tournament as a recorded pairing left it, at ``version``."""
        stored = await self.store.read_stream(tournament_id)
        return stream.fold([decode_event(s.data) for s in stored if s.version <= version])

    async def open_tables(self, tournament: Tournament, table_ids: Sequence[str]) -> None:
        """Create the paired tables ``table_ids`` of the tournament's current round (a
        table created already, by another process, is left as it is)."""
        keys = await self.store.secrets(tournament.id)
        current = tournament.rounds[-1]
        decks, first_dealer = None, None
        if tournament.format is Format.DUPLICATE:
            # Every table of the round plays the same cards from the same first dealer:
            # the operator's decks, else decks drawn from the seed for this round.
            supplied, first_dealer = await self.store.duplicate_deals(tournament.id)
            game = tournament.created.game
            decks = supplied or stream.round_decks(game, keys.seed, current.number)
            first_dealer = first_dealer or 0
        for paired in current.tables:
            if paired.table not in table_ids:
                continue
            names = stream.seat_names(tournament, paired.seats)
            computers = frozenset(
                seat for seat, e in enumerate(paired.seats) if tournament.entries[e].computer
            )
            created = tables.create(
                paired.table,
                tournament.created.game,
                len(paired.seats),
                tournament.created.options,
                first_dealer=first_dealer,
                decks=decks,
                tournament=tournament.id,
                clock=tournament.created.clock,
                ends_at=current.deadline,
            )
            tokens = [seat_token(keys.seat_key, paired.table, s) for s in range(len(names))]
            command = {"type": "open_round_table", "round": current.number}
            try:
                await self.tables.create(
                    created, command, "tournament", names, computers=computers, tokens=tokens
                )
            except VersionConflict:
                continue  # opened meanwhile by another process

    async def score_table(self, tournament_id: str, table_id: str) -> Tournament:
        """Record how a round table ended (once; a second call finds it recorded)."""
        table = (await self.tables.load(table_id)).table
        stored = await self.tables.store.read_stream(table_id, 0, 100_000)
        decode = event_decoder(table.game).decode
        events = [decode(s.data) for s in stored]
        seed = (await self.store.secrets(tournament_id)).seed

        def decide(tournament: Tournament) -> Sequence[TournamentEvent]:
            played = tournament.round_of(table_id)
            if played is None:
                return []
            paired = next(t for t in played.tables if t.table == table_id)
            rules = tournament.created.results_rules
            result, reason = results.table_result(table, paired.seats, events, rules)
            return stream.score(tournament, table_id, result, reason, seed)

        command = {"type": "score_table", "table": table_id}
        return await self._decide(tournament_id, decide, "tournament", command)

    async def finish(self, tournament_id: str, actor: str) -> Tournament:
        """End the tournament now (``stream.finish``), revealing its seed. Its tables in
        play are counted as of the version the finish is decided on: a table opened
        after the count (its ``table_opened`` moved the version) is counted again, so a
        finish never passes a table just opened and still in play."""
        await self._record_ended(tournament_id)
        seed = (await self.store.secrets(tournament_id)).seed
        for attempt in range(ATTEMPTS):
            counted_at = (await self.load(tournament_id)).version
            in_play = await self.store.tables_in_play(tournament_id)

            def decide(
                tournament: Tournament, counted_at: int = counted_at, in_play: int = in_play
            ) -> Sequence[TournamentEvent]:
                if tournament.version != counted_at:
                    raise _Recount
                return stream.finish(tournament, seed, in_play)

            try:
                return await self._decide(tournament_id, decide, actor, {"type": "finish"})
            except _Recount:
                await pause_before_retry(attempt)
        raise CommandConflict("the tournament kept changing; try again")

    async def seat_of(self, tournament_id: str, entry: str, member: int | None) -> Seated:
        """Where ``entry`` plays the current round, and the seat's token (``/me``).

        A partnership's player (``member`` 0 or 1) gets their own seat's token and only
        the number of the partner's seat: a token that opened both seats would show one
        player the partner's hand. A whole-entry token (``member`` None) of a pair
        entered before players had tokens of their own still gets both seats' tokens. A
        computer entry's seats have none (``token`` null), as the computer's seats never
        do."""
        tournament = await self.load(tournament_id)
        read = {f"{TOURNAMENT_NOTICE}{tournament_id}": tournament.version}
        computer = stream.entry_of(tournament, entry).computer
        if not tournament.rounds:
            waiting = MySeat(entry, 0, None, None, None, tournament.status)
            return Seated(waiting, read)
        current = tournament.rounds[-1]
        for paired in current.tables:
            held = [s for s, e in enumerate(paired.seats) if e == entry]
            if held:
                key = (await self.store.secrets(tournament_id)).seat_key
                mine = held[member or 0]  # a partnership holds its two seats, in name order
                partners = [s for s in held if s != mine]
                partner = partners[0] if partners else None
                table = None if computer else await self._table(paired.table)
                if table is None and not computer:
                    # Paired, not opened yet: the pairing process opens the round's
                    # tables one by one after the pairing commits, and a poll of /me
                    # wakes at that commit. Opened here as the rounds worker would, so
                    # that the token handed out opens its table at once (not 401).
                    await self.open_tables(tournament, [paired.table])
                    table = await self._table(paired.table)
                # The computer's seats are taken with no token: nobody plays for it.
                issued = partial(_still_issued, table) if not computer else _never
                if not computer:  # a computer's seats have no token to follow
                    # (A table not created yet is read at version 0: its creation wakes.)
                    read[paired.table] = 0 if table is None else table.version
                seated = MySeat(
                    entry=entry,
                    round=current.number,
                    table=paired.table,
                    seat=mine,
                    token=seat_token(key, paired.table, mine) if issued(mine) else None,
                    status=tournament.status,
                    partner_seat=partner,
                    partner_token=seat_token(key, paired.table, partner)
                    if partner is not None and member is None and issued(partner)
                    else None,
                )
                return Seated(seated, read)
        sits_out = MySeat(
            entry=entry,
            round=current.number,
            table=None,
            seat=None,
            token=None,
            status=tournament.status,
            bye=entry in current.byes,
        )
        return Seated(sits_out, read)

    async def _record_ended(self, tournament_id: str) -> None:
        """Record each table of the round in play that has ended and is not recorded yet,
        as the rounds worker does when it next looks: a director who pairs the next round,
        or finishes, the moment the last table ends is not told the round is still being
        played."""
        tournament = await self.load(tournament_id)
        current = tournament.rounds[-1] if tournament.rounds else None
        if current is None or current.complete:
            return
        for paired in current.tables:
            if paired.table in current.results:
                continue
            table = await self._table(paired.table)
            if table is not None and table.status in ("finished", "aborted"):
                try:
                    await self.score_table(tournament_id, paired.table)
                except UpgradeInProgress:
                    return  # a newer release's process records it

    async def _table(self, table_id: str) -> Table[Any] | None:
        """The table as committed now; None while it is not created yet."""
        try:
            return (await self.tables.load(table_id)).table
        except TableNotFound:
            return None

    async def _decide(
        self,
        tournament_id: str,
        decide: Decision,
        actor: str,
        command: dict[str, Any],
        *,
        opens_round: bool = False,
        entry_tokens: Sequence[EntryToken] = (),
        idempotency: IdempotencyRecord | Recording | None = None,
        replayed: Callable[[], Awaitable[bool]] | None = None,
        also: Also | None = None,
    ) -> Tournament:
        """Decide on the tournament as stored and append, again on a collision. With
        ``idempotency`` (or made from the tournament the decision leaves, when what the
        request made is known only then), its record goes in the same transaction, and
        ``replayed`` says after a collision whether a twin request recorded the key
        first: then nothing more is appended, and :class:`Replayed` is raised."""
        async with self._turns.turn(tournament_id):
            for attempt in range(ATTEMPTS):
                tournament, last_hash = await self.store.load(tournament_id)
                events = decide(tournament)
                if not events:
                    return tournament
                after = tournament
                for event in events:
                    after = stream.evolve(after, event)
                round_tables = []
                if opens_round:
                    current = after.rounds[-1]
                    round_tables = [(t.table, current.number) for t in current.tables]
                try:
                    await self.store.append(
                        tournament,
                        last_hash,
                        events,
                        actor,
                        command,
                        self.clock(),
                        after=after,
                        round_tables=round_tables,
                        entry_tokens=entry_tokens,
                        idempotency=idempotency(after) if callable(idempotency) else idempotency,
                        also=also,
                    )
                except VersionConflict:
                    if replayed is not None and await replayed():
                        raise Replayed from None
                    await pause_before_retry(attempt)
                    continue
                return after
            raise CommandConflict("the tournament kept changing; try again")


class _Recount(Exception):
    """The tournament moved on since its tables in play were counted."""


class Replayed(Exception):
    """A twin request with the same idempotency key was recorded first: answer with its
    record, append nothing."""


def seat_token(key: bytes, table_id: str, seat: int) -> str:
    digest = hmac.new(key, f"{table_id}:{seat}".encode(), hashlib.sha256).digest()
    return digest.hex()
