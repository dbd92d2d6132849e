"""The command side: load a table's snapshot, decide, settle chance steps, commit.

Every write follows DESIGN 1: authenticate, load the inline snapshot (never replay the
stream), ``decide``, then append the events, the new snapshot and the idempotency record
in one transaction. Chance steps go through the domain's one loop
(``domain.table.settle``); the service is its source of secrets, because only the
service may draw randomness: it draws each new seed from the CSPRNG and reads the seeds
of earlier shuffles, revealed once their cards are out of play, from the store.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import msgspec

from domain import RULES_ENGINE_VERSION, computer, liveness
from domain import table as tables
from domain.commands import PlayerCommand
from domain.engine import engine_since
from domain.errors import RuleError
from domain.events import Event, TableCreated
from domain.protocol import SYSTEM, Audience, Chance
from domain.table import Table
from projections.table_state import project, with_decks
from service import metrics
from service.audit.chain import GENESIS
from service.read.loads import BatchedLoads
from service.read.records import ActionResult, EventRecord
from service.refusals import (
    ClocksRecovering,
    CommandConflict,
    IdempotencyKeyReused,
    PreconditionFailed,
    ServiceError,
    TableNotFound,
    TokenRevoked,
    UpgradeInProgress,
)
from service.release import VIEW_RELEASE
from service.write import sealed_tokens
from service.write.codec import event_data, event_decoder, snapshot_decoder
from service.write.queues import Queues, pause_before_retry
from service.write.store import (
    OPENINGS,
    Commit,
    EventStore,
    IdempotencyRecord,
    NewEvent,
    StoredEvent,
    VersionConflict,
    now,
)

_sorted_json = msgspec.json.Encoder(order="sorted")
_encoder = msgspec.json.Encoder()
RETRIES = 5
ACCEPTED, REPLAYED = "accepted", "replayed"  # outcomes of a command beside refusal codes
# A timekeeper silent for longer than this was down: a handover between leaders is
# quicker, and a live one beats every half second (service.workers.timekeeper).
GRACE = timedelta(seconds=3)
# The least time a running turn gets back after an outage: a player told to send the move
# again in a second (``clocks-recovering``'s Retry-After) is not beaten to it by the clock.
GIVEN_BACK_AT_LEAST = timedelta(seconds=2)
# A live timekeeper's heartbeat moves every half second: unchanged for longer, none runs.
UNCHANGED = timedelta(seconds=1)
SEAT_ATTEMPTS = 30  # a take only fails when the table keeps moving for a second or so


class _Beat(msgspec.Struct, frozen=True):
    """The timekeeper's heartbeat as a process read it: its value, when the process
    first saw that value (on its own clock), and whether it had moved since a look a
    few seconds before (a timekeeper keeping time, whatever its host's clock says)."""

    alive_at: datetime
    seen: datetime
    moving: bool


class Settled(msgspec.Struct, kw_only=True):
    """A decided command with its chance steps settled, ready to commit."""

    table: Table[Any]
    events: list[NewEvent]
    visible: list[tuple[int, str, Event]]
    seeds: list[tuple[int, bytes | None]]


class Loaded(msgspec.Struct, frozen=True):
    table: Table[Any]
    last_hash: bytes
    # False for a snapshot written before the decks were stored apart (migration 0014),
    # which holds them inside its state: the next commit writes them apart.
    decks_apart: bool = True


class Batch(NamedTuple):
    """Events caused by one recorded command, and who sent it."""

    events: list[Event]
    actor: str
    command: dict[str, Any]


class Plan(NamedTuple):
    """What a write appends before its chance steps, and whom the clock charges:
    the seat that ``acted`` (``moved``: by its own player)."""

    batches: list[Batch]
    acted: int | None = None
    moved: bool = False


class SeatCommand(NamedTuple):
    """A seat's command as :meth:`TableService.act` takes it: ``payload`` is the command
    as recorded, ``actor`` who sends it, ``epoch`` the seat's token's, ``if_match`` the
    request's precondition."""

    seat: int
    command: PlayerCommand
    payload: dict[str, Any]
    actor: str
    epoch: int | None
    if_match: list[str] | None

    @property
    def key_owner(self) -> str:
        """Whose ``Idempotency-Key`` this is: the token's, not the seat's. A player who
        takes the seat over must not be answered with the commands of the one before
        (whose keys he may well repeat, counting from 1 as any client does). A seat's
        first token goes by the seat's name alone, as every token did before epochs
        scoped the keys, so the keys recorded then are still found."""
        return self.actor if not self.epoch else f"{self.actor}@{self.epoch}"


Clock = Callable[[], datetime]


def stale(if_match: list[str] | None, current: str) -> bool:
    """Whether an ``If-Match`` (its strong tags; None when none was sent) names neither
    the ``current`` ETag nor ``*``: the request is not performed (412)."""
    return if_match is not None and "*" not in if_match and current not in if_match


def etag(version: int, audience: Audience) -> str:
    """A strong entity tag per version and audience (DESIGN 6), and per release: one that
    changes what a view shows changes the tag too (:mod:`service.release`)."""
    who = f"s{audience}" if isinstance(audience, int) else audience
    return f'"{version}.{who}.{VIEW_RELEASE}"'


def request_digest(payload: Any) -> bytes:
    return hashlib.sha256(_sorted_json.encode(payload)).digest()


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class TableService:
    """Commands and reads of tables, with the decoded snapshots of recent tables cached.

    The cache holds only committed snapshots. Reads always ask Postgres for the current
    version (and skip the transfer and decode when the cached one is current). Commands
    start from the cache without asking: if another process moved the table on, the
    append collides and the command is decided again on a fresh snapshot; a refusal
    decided on a cached snapshot is checked again on a fresh one before it is returned.
    """

    def __init__(self, store: EventStore, cache_size: int = 10_000, clock: Clock = now) -> None:
        self.store = store
        self.clock = clock  # injectable: tests move time on without waiting for it
        self.loads = BatchedLoads(store)
        self.reads = BatchedLoads(store, replica=True)  # readers' loads (DESIGN 13)
        self._seating = Queues()  # the takes of one table wait their turn in this process
        self.cache_size = cache_size
        self.snapshots: OrderedDict[str, Loaded] = OrderedDict()
        # Tables created under a newer rules engine than this process's (met during a
        # rolling update): it decides nothing there, and its workers look past them.
        self.newer_tables: set[str] = set()
        # The timekeeper's heartbeat as last read here (see clocks_down_since).
        self._beat: _Beat | None = None

    def _remember(self, loaded: Loaded) -> Loaded:
        held = self.snapshots.get(loaded.table.id)
        if held is not None and held.table.version > loaded.table.version:
            return loaded  # a slower read of an older version: keep the newer one
        self.snapshots[loaded.table.id] = loaded
        self.snapshots.move_to_end(loaded.table.id)
        if len(self.snapshots) > self.cache_size:
            self.snapshots.popitem(last=False)
        return loaded

    def _forget(self, table_id: str) -> None:
        self.snapshots.pop(table_id, None)

    # --- reading ------------------------------------------------------------------------

    async def load(self, table_id: str, *, replica: bool = False) -> Loaded:
        """The table as committed when this call began; ``replica``: a replica may
        answer, when it has replayed everything committed by then (DESIGN 13).

        Postgres is asked every time: another process's commit is announced here only
        after that process may already have answered its client, so no notice, cached
        version or heartbeat proves that nothing newer exists. Asking is cheap: the
        question is shared by the concurrent reads of this process (service.read.loads), and
        the snapshot's bytes travel, and are decoded, only when the cached version is
        not current.
        """
        cached = self.snapshots.get(table_id)
        known = cached.table.version if cached is not None else None
        snapshot = await (self.reads if replica else self.loads).load(table_id, known)
        if snapshot is None:
            raise TableNotFound(f"no table {table_id}")
        if snapshot.state is None and cached is not None:
            return cached  # Postgres is at ``known``: the version of this very snapshot
        assert snapshot.state is not None
        decoded = snapshot_decoder(snapshot.game).decode(snapshot.state)
        # A process of an older release may have written the snapshot, dropping a rule
        # of the table's newer engine that it knew nothing of: restore it.
        table = tables.under_its_engine(with_decks(decoded, snapshot.decks))
        apart = snapshot.decks is not None or not table.decks
        return self._remember(Loaded(table, snapshot.last_hash, decks_apart=apart))

    async def events(
        self, table_id: str, audience: Audience, after: int, limit: int
    ) -> tuple[Table[Any], list[tuple[StoredEvent, Event]]]:
        """Up to ``limit`` events after ``after`` as ``audience`` sees them, and the table
        read after them: at least as new as every one, so a seat token that the table
        shows current was current for all of them (DESIGN 10)."""
        stored = await self.store.read_stream(table_id, after, limit, replica=True)
        table = (await self.load(table_id, replica=True)).table
        decode = event_decoder(table.game).decode
        rules = table.rules
        return table, [(s, tables.redact(rules, decode(s.data), audience)) for s in stored]

    # --- writing ------------------------------------------------------------------------

    async def create(
        self,
        created: TableCreated,
        command: dict[str, Any],
        actor: str,
        players: list[str] | None = None,
        *,
        computers: frozenset[int] = frozenset(),
        tokens: list[str] | None = None,
        committing: Callable[[Commit], Awaitable[bytes]] | None = None,
    ) -> tuple[Table[Any], list[str]]:
        """Open a table; with ``players``, seat them all in the same commit (the seats in
        ``computers`` played by the computer, and given no token).

        Returns the table and the seat tokens of ``players`` (in seat order; ``tokens``
        when the caller made them, as a tournament does). ``committing`` stores the
        commit in the store's place, with more in its transaction (a tournament's record
        of the opening), and returns its last hash as :meth:`EventStore.commit` does.
        """
        table = tables.start(created)
        settled = Settled(
            table=table,
            events=[NewEvent(event_data(created), actor, command)],
            visible=[(1, actor, created)],
            seeds=[],
        )
        if tokens is None:
            tokens = [secrets.token_urlsafe(32) for _ in players or ()]
        for seat, name in enumerate(players or ()):
            computer = seat in computers
            seated = tables.take_seat(settled.table, seat, name, computer=computer)
            taken: dict[str, Any] = {"type": "take_seat", "seat": seat, "name": name}
            if computer:
                taken["computer"] = True
            self._record(settled, seated, actor, taken)
        at = self.clock()
        if players:
            await self._settle_chance(settled)
            self._set_clock(settled, at, Plan([]))
        await self._commit(
            Loaded(table, GENESIS),
            settled,
            expected=0,
            at=at,
            seat_tokens=[
                (token_digest(t), seat, 0) for seat, t in enumerate(tokens) if seat not in computers
            ],
            committing=committing,
        )
        return settled.table, tokens

    async def open(
        self,
        created: TableCreated,
        command: dict[str, Any],
        actor: str,
        *,
        idempotency_key: str | None = None,
    ) -> Table[Any]:
        """Open a table that nobody sits at yet. With ``idempotency_key``, a retry of the
        same request (a phone that lost the answer) gets the table as it opened instead
        of a second table: the record is kept in the opening's transaction."""
        gate = SealingGate(self.store, OPENINGS, actor, idempotency_key, command)
        if (first := await gate.replay()) is not None:
            return await self.as_opened(first, created.game)
        committing = None
        if gate.key is not None:

            async def committing(commit: Commit) -> bytes:
                version = commit.expected_version + len(commit.events)
                record = gate.record(commit.table_id, [], version)
                assert record is not None
                return await self.store.commit_recording(commit, record)

        try:
            table, _ = await self.create(created, command, actor, committing=committing)
        except VersionConflict:
            if (first := await gate.replay()) is None:
                raise
            return await self.as_opened(first, created.game)
        return table

    async def as_opened(self, kept: Sealed, game: str) -> Table[Any]:
        """The table a recorded opening made, as of the version it opened at."""
        stored = await self.store.read_stream(kept.made, 0, kept.version)
        decode = event_decoder(game).decode
        return tables.fold([decode(s.data) for s in stored])

    async def take_seat(
        self,
        table_id: str,
        seat: int,
        name: str,
        *,
        computer: bool = False,
        allowed: Callable[[Table[Any]], None] | None = None,
        idempotency_key: str | None = None,
    ) -> Seated:
        """Seat ``name``; the new bearer token (None for the computer, which plays without
        one: a token would let whoever seated it read its hand and play for it). The last
        seat taken starts the game.

        Players often sit down all at once (a round opening, a lobby filling), and each
        take moves the table's version: the takes of one table queue in this process, and
        a take that collides with another process's retries after a short random pause
        (so that a burst spreads out instead of colliding again), until its seat is
        taken — by it, or by someone else (``seat-taken``).

        With ``idempotency_key``, a retry of the same request (a phone that lost the
        answer) gets the first answer, token included, instead of ``seat-taken``: the
        record keeps the token sealed with the key (:mod:`service.write.sealed_tokens`).

        ``allowed`` judges the caller's right to the seat on the very table it is taken
        from, and raises if it has none: judged on an earlier read, a seat its player left
        just after would be taken as if it were free."""
        command: dict[str, Any] = {"type": "take_seat", "seat": seat, "name": name}
        if computer:
            command["computer"] = True
        gate = SealingGate(
            self.store,
            table_id,
            f"taker:{seat}",
            idempotency_key,
            command,
            min_key=sealed_tokens.MIN_KEY,
        )
        if (first := await gate.replay()) is not None:
            return Seated.of(first)
        token, raw = (None, None) if computer else sealed_tokens.new_token()
        async with self._seating.turn(table_id):
            for attempt in range(SEAT_ATTEMPTS):
                loaded = await self.load(table_id)
                if allowed is not None:
                    allowed(loaded.table)
                try:
                    events = tables.take_seat(loaded.table, seat, name, computer=computer)
                except RuleError:
                    # Taken by this very request, whose answer was lost on the way?
                    if (first := await gate.replay()) is not None:
                        return Seated.of(first)
                    raise
                at = self.clock()
                plan = Plan([Batch(events, f"seat:{seat}", command)])
                settled = await self.settle(loaded.table, plan, at)
                epoch = settled.table.epoch(seat)
                granted = [] if token is None else [(token_digest(token), seat, epoch)]
                seated = Seated(token, settled.table.version)
                try:
                    await self._commit(
                        loaded,
                        settled,
                        at=at,
                        seat_tokens=granted,
                        idempotency=gate.record(
                            str(seat), [] if raw is None else [raw], seated.version
                        ),
                    )
                except VersionConflict:
                    self._forget(table_id)
                    if (first := await gate.replay()) is not None:
                        return Seated.of(first)  # a twin request with this key took the seat
                    await pause_before_retry(attempt)
                    continue
                return seated
        raise CommandConflict("the table kept changing; try again")

    async def act(
        self,
        table_id: str,
        seat: int,
        command: PlayerCommand,
        *,
        if_match: list[str] | None,
        idempotency_key: str | None,
        actor: str | None = None,
        epoch: int | None = None,
    ) -> Answer:
        """Decide and commit one seat command, one way through: the idempotency gate, then
        at most ``RETRIES`` attempts, the first on the cached snapshot and each later one
        on the table as committed now. The answer is encoded once, stored with the key,
        and is what every retry of the request gets.

        ``actor`` is the seat's player unless given (``computer:<seat>``); a player's
        token is good for one ``epoch`` of the seat (DESIGN 10: leaving or being replaced
        revokes it).

        Each call is counted once in ``cardroom_commands_total``: ``accepted`` when it
        recorded the command, ``replayed`` when it sent a key's first answer again, else
        the code it was refused with."""
        actor = actor or f"seat:{seat}"
        payload = msgspec.to_builtins(command)
        request = SeatCommand(seat, command, payload, actor, epoch, if_match)
        try:
            answer, outcome = await self._act(table_id, request, idempotency_key)
        except RuleError as exc:
            metrics.COMMANDS.labels(outcome=exc.code.value).inc()
            raise
        except ServiceError as exc:
            metrics.COMMANDS.labels(outcome=exc.code).inc()
            raise
        metrics.COMMANDS.labels(outcome=outcome).inc()
        return answer

    async def _act(
        self, table_id: str, request: SeatCommand, idempotency_key: str | None
    ) -> tuple[Answer, str]:
        """:meth:`act`, with how it ended: ``accepted`` or ``replayed``."""
        digest = request_digest(request.payload)
        gate = IdempotencyGate(self.store, table_id, request.key_owner, idempotency_key, digest)
        if (first := await gate.replay()) is not None:
            return first, REPLAYED
        for attempt in range(RETRIES):
            cached = self.snapshots.get(table_id) if attempt == 0 else None
            loaded = cached or await self.load(table_id)
            try:
                answer = await self._attempt(loaded, request, gate, committed=cached is None)
                return answer, ACCEPTED
            except _Behind:
                continue  # perhaps only the cache is behind: ask Postgres
            except VersionConflict:
                # Another command was recorded first. The next attempt reads the table as
                # it is now: a request whose If-Match named the version before gets 412
                # with the current ETag, as it would have had it come a moment later.
                self._forget(table_id)
                if (first := await gate.replay()) is not None:
                    return first, REPLAYED  # a twin request with this key won the race
            except (RuleError, PreconditionFailed, TokenRevoked):
                # Refused on the table as committed now. If a twin request with this key
                # (the client's retry, perhaps to another process) was recorded since the
                # gate first looked, this is the late one: it gets the first answer, not
                # a 409, 412 or 401 for the very move that was made.
                if (first := await gate.replay()) is not None:
                    return first, REPLAYED
                raise
        raise CommandConflict("the table kept changing; try again")

    async def _attempt(
        self, loaded: Loaded, request: SeatCommand, gate: IdempotencyGate, *, committed: bool
    ) -> Answer:
        """One attempt on ``loaded``; a cached snapshot (not ``committed``: it may be
        behind) is never the ground of a refusal."""
        seat, command, payload, actor, epoch, if_match = request
        table = loaded.table
        version = table.version
        if epoch is not None and table.epoch(seat) != epoch:
            if not committed:
                raise _Behind
            raise TokenRevoked("this seat's token was revoked: the seat was left or replaced")
        current = etag(version, seat)
        if stale(if_match, current):
            if not committed:
                raise _Behind
            raise PreconditionFailed(
                f"the table is at version {version}", etag=current, version=version
            )
        at = self.clock()
        player = actor == f"seat:{seat}"
        # A player whose turn ran while no timekeeper did (the service down) waits for
        # that time to be given back: decided now, the move would be charged the outage,
        # or refused as out of time (DESIGN 10).
        if player and table.deadline(seat) is not None and await self.clocks_down_since(at):
            raise ClocksRecovering(
                "the service is back from an outage and is giving the clocks the time it"
                " was down; read the table again in a second (its version moves) and send"
                " the move"
            )
        try:
            if player:
                events = liveness.decide(table, command, seat, at)
            else:  # the computer, for its own seat or an absent player's
                events = tables.decide(table, command, seat)
        except RuleError:
            if not committed:
                raise _Behind from None
            raise
        plan = Plan([Batch(events, actor, payload)], acted=seat, moved=player)
        settled = await self.settle(table, plan, at)
        body = _encoder.encode(action_result(settled, seat, at))
        answer = Answer(status=200, body=body, etag=etag(settled.table.version, seat))
        await self._commit(loaded, settled, at=at, idempotency=gate.record(answer))
        return answer

    async def clocks_down_since(self, at: datetime) -> datetime | None:
        """The last heartbeat of the timekeepers if none has run since for longer than a
        handover takes: an outage, whose time the next timekeeper gives back to every
        running turn (None while one keeps the clocks). A deadline that passed meanwhile
        is not the player's to lose yet (DESIGN 10).

        The heartbeat is the timekeeper's host's time, a few seconds off this host's
        maybe. A heartbeat that looks old is taken for an outage when it has not moved for
        a second on this process's clock, or when there is no look of the last few seconds
        to compare it with: a first look (a process started after an outage must see it),
        or a look from before the outage (the heartbeat then moved, but before the outage
        began). One that moved since a recent look is being kept. (Judged by its time
        alone, a timekeeper whose host runs 3 s behind held every move on the clock for
        good.) Until it has been seen moving, an old heartbeat is an outage on every look,
        not only the first: the moves that follow the first one by less than a beat, the
        phones all sending theirs again at once, were refused as out of time.
        While it looks fresh, nothing is asked."""
        if self._beat is not None and at - self._beat.alive_at <= GRACE:
            return None
        alive_at = await self.store.timekeeper_alive_at()
        if alive_at is None:
            return None
        previous = self._beat
        old = at - alive_at > GRACE
        if previous is not None and alive_at == previous.alive_at:
            down = old and (not previous.moving or at - previous.seen > UNCHANGED)
        else:
            moving = previous is not None and at - previous.seen <= GRACE
            self._beat = _Beat(alive_at, seen=at, moving=moving)
            down = old and not moving
        return alive_at if down else None

    async def play_computers(self, table_id: str, limit: int = 50) -> int:
        """Let the computer act for every seat of its that the table waits on, one command at
        a time, until a person is to act (or ``limit`` commands); how many it sent.

        Each command is decided from the seat's view alone (``domain.computer``) and sent
        through :meth:`act` with ``If-Match`` on the version it saw, actor
        ``computer:<seat>``: if a person's command got there first, it simply stops."""
        sent = 0
        while sent < limit:
            table = (await self.load(table_id)).table
            seats = tables.computer_to_act(table)
            if not seats:
                break
            seat = seats[0]
            command = computer.choose(table, seat)
            try:
                await self.act(
                    table_id,
                    seat,
                    command,
                    if_match=[etag(table.version, seat)],
                    idempotency_key=None,
                    actor=f"computer:{seat}",
                )
            except (PreconditionFailed, CommandConflict):
                break  # the table moved meanwhile: the next look decides again
            sent += 1
        return sent

    async def settle(self, table: Table[Any], plan: Plan, at: datetime) -> Settled:
        """Fold the plan's batches, reveal spent seeds and deal until the game waits on a
        seat, then set the clocks for the turn that begins (DESIGN 10)."""
        if not engine_since(RULES_ENGINE_VERSION, table.rules_version):
            self.newer_tables.add(table.id)  # the workers look past it from now on
            raise UpgradeInProgress(
                f"the table plays by rules engine {table.rules_version}; this process"
                f" knows {RULES_ENGINE_VERSION}"
            )
        settled = Settled(table=table, events=[], visible=[], seeds=[])
        for batch in plan.batches:
            self._record(settled, batch.events, batch.actor, batch.command)
        await self._settle_chance(settled)
        self._set_clock(settled, at, plan)
        return settled

    def _set_clock(self, settled: Settled, at: datetime, plan: Plan) -> None:
        clocked = liveness.set_clock(settled.table, at, plan.acted, moved=plan.moved)
        command = {"type": "set_clock", "acted": plan.acted, "moved": plan.moved}
        self._record(settled, clocked, SYSTEM, command)

    async def write(
        self,
        table_id: str,
        plan: Callable[[Table[Any], datetime], Plan | None],
        *,
        grant: int | None = None,
    ) -> tuple[Table[Any], str | None] | None:
        """A write that is not a seat's command (the operator's, the timekeeper's): the
        events ``plan`` decides on the table as committed now, settled and committed with
        the expected version; decided again if another command got there first.
        ``None`` when ``plan`` finds nothing to do. ``grant``: a seat that gets a new
        token in the same commit (returned with the table)."""
        for attempt in range(RETRIES):
            loaded = await self.load(table_id)
            at = self.clock()
            planned = plan(loaded.table, at)
            if planned is None:
                return None
            settled = await self.settle(loaded.table, planned, at)
            token = None if grant is None else secrets.token_urlsafe(32)
            tokens: Sequence[tuple[bytes, int, int]] = ()
            if token is not None and grant is not None:
                tokens = [(token_digest(token), grant, settled.table.epoch(grant))]
            try:
                await self._commit(loaded, settled, at=at, seat_tokens=tokens)
            except VersionConflict:
                self._forget(table_id)
                await pause_before_retry(attempt)
                continue
            return settled.table, token
        raise CommandConflict("the table kept changing; try again")

    async def _settle_chance(self, settled: Settled) -> None:
        # Seeds of earlier commits can be due only before this loop deals anything (what
        # it deals itself is revealed from ``drawn``), so one look at the store suffices.
        due = tables.reveals_due(settled.table)
        stored = await self.store.seeds(settled.table.id, list(due)) if due else {}
        for step in tables.settle(settled.table, _Drawn(stored)):
            if step.kind == "supply_deck":
                settled.seeds.append((step.shuffle, step.seed))
            self._record(settled, step.events, SYSTEM, step.command())

    @staticmethod
    def _record(settled: Settled, events: list[Event], actor: str, command: dict[str, Any]) -> None:
        for index, event in enumerate(events):
            settled.table = tables.evolve(settled.table, event)
            settled.events.append(
                NewEvent(event_data(event), actor, command if index == 0 else None)
            )
            settled.visible.append((settled.table.version, actor, event))

    async def _commit(
        self,
        loaded: Loaded,
        settled: Settled,
        *,
        at: datetime,
        expected: int | None = None,
        seat_tokens: Sequence[tuple[bytes, int, int]] | None = None,
        idempotency: IdempotencyRecord | None = None,
        committing: Callable[[Commit], Awaitable[bytes]] | None = None,
    ) -> None:
        expected_version = loaded.table.version if expected is None else expected
        commit = Commit(
            table_id=settled.table.id,
            expected_version=expected_version,
            previous_hash=loaded.last_hash,
            events=settled.events,
            row=project(
                settled.table,
                write_decks=expected_version == 0 or not loaded.decks_apart,
            ),
            seeds=settled.seeds,
            seat_tokens=seat_tokens or (),
            idempotency=idempotency,
            at=at,
        )
        last_hash = await (committing or self.store.commit)(commit)
        self._remember(Loaded(settled.table, last_hash))


class _Drawn:
    """The service's chance source: fresh seeds from the CSPRNG; earlier ones from the
    store (fetched beforehand) or from this very batch."""

    def __init__(self, stored: dict[int, bytes | None]) -> None:
        self.seeds = dict(stored)

    def revealed(self, shuffle_no: int) -> bytes | None:
        return self.seeds.get(shuffle_no)

    def seed(self, shuffle_no: int, chance: Chance) -> bytes:
        self.seeds[shuffle_no] = seed = secrets.token_bytes(32)
        return seed


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """A command's answer: an encoded :class:`ActionResult`, as first sent and as every
    retry with the same Idempotency-Key gets it again."""

    status: int
    body: bytes
    etag: str


class Seated(NamedTuple):
    """A seat taken: its bearer token (None for the computer) and the table's version."""

    token: str | None
    version: int

    @classmethod
    def of(cls, first: Sealed) -> Seated:
        """The seat a recorded take made."""
        return cls(first.tokens[0] if first.tokens else None, first.version)


class Sealed(NamedTuple):
    """A first answer made again from its record: what the request made (a seat, an
    entry, a table), the version it made it at, and its tokens."""

    made: str
    version: int
    tokens: list[str]


class _SealedRecord(msgspec.Struct, frozen=True):
    """What the record of a request answered with tokens keeps: never the tokens, only
    the tokens sealed."""

    made: str
    sealed: list[bytes]
    version: int = 0


_sealed_record = msgspec.json.Decoder(_SealedRecord)


class _Behind(Exception):
    """The cached snapshot an attempt started from is not the table as committed."""


class IdempotencyGate:
    """Idempotency: the first answer to ``(owner, key)`` of one resource (a table, or a
    tournament; for a seat's commands the owner is :attr:`SeatCommand.key_owner`), for
    every retry of that request."""

    def __init__(
        self, store: EventStore, table_id: str, owner: str, key: str | None, digest: bytes
    ) -> None:
        self.store, self.table_id, self.owner, self.key = store, table_id, owner, key
        self.digest = digest

    async def replay(self) -> Answer | None:
        if self.key is None:
            return None
        first = await self.store.idempotent_answer(self.table_id, self.owner, self.key)
        if first is None:
            return None
        if first.request_hash != self.digest:
            raise IdempotencyKeyReused("this Idempotency-Key came with another body")
        return Answer(status=first.status, body=first.body, etag=first.etag)

    def record(self, answer: Answer) -> IdempotencyRecord | None:
        if self.key is None:
            return None
        return IdempotencyRecord(
            self.owner, self.key, self.digest, answer.status, answer.body, answer.etag
        )


class SealingGate:
    """Idempotency for a request answered with new tokens (taking a seat, entering
    players, opening a tournament table): the first answer to ``(resource, owner, key)``,
    its tokens sealed with the key (:mod:`service.write.sealed_tokens`), which is kept
    only as a digest. A key shorter than ``min_key`` is no key at all: where the key is
    the retry's only proof (a seat anybody may take), it must be hard to guess."""

    def __init__(
        self,
        store: EventStore,
        resource: str,
        owner: str,
        key: str | None,
        command: dict[str, Any],
        *,
        min_key: int = 1,
    ) -> None:
        self.resource = resource
        self.key = key if key is not None and len(key) >= min_key else None
        stored = None if self.key is None else sealed_tokens.stored_key(self.key)
        self.gate = IdempotencyGate(store, resource, owner, stored, request_digest(command))

    def _place(self, made: str, member: int) -> str:
        return f"{self.resource}/{made}/{member}"

    async def replay(self) -> Sealed | None:
        first = await self.gate.replay()
        if first is None or self.key is None:
            return None
        kept = _sealed_record.decode(first.body)
        tokens = [
            sealed_tokens.unseal(sealed, self.key, self._place(kept.made, member))
            for member, sealed in enumerate(kept.sealed)
        ]
        return Sealed(kept.made, kept.version, tokens)

    async def recorded(self) -> bool:
        """Whether a request with this key was recorded (a twin that got there first)."""
        return await self.replay() is not None

    async def twin(self) -> Sealed:
        """The first answer, once a twin is known to have been recorded."""
        first = await self.replay()
        assert first is not None
        return first

    def record(self, made: str, raws: list[bytes], version: int = 0) -> IdempotencyRecord | None:
        if self.key is None:
            return None
        sealed = [
            sealed_tokens.seal(raw, self.key, self._place(made, member))
            for member, raw in enumerate(raws)
        ]
        body = _encoder.encode(_SealedRecord(made, sealed, version))
        return self.gate.record(Answer(status=201, body=body, etag=""))


def action_result(settled: Settled, seat: int, at: datetime) -> ActionResult:
    """What a command answers: the new version, its events as the seat sees them, the view."""
    table = settled.table
    game = table.rules
    events = [
        EventRecord(version, at, actor, tables.redact(game, event, seat))
        for version, actor, event in settled.visible
    ]
    return ActionResult(version=table.version, events=events, table=tables.view(table, seat))


def rule_error_context(error: RuleError) -> dict[str, Any]:
    return {k: v for k, v in error.context.items() if isinstance(v, str | int | list)}
