"""A Postgres that stops answering (frozen with SIGSTOP, or shut down) gives quick 503
``database-unavailable`` answers with ``Retry-After`` instead of requests held for the
outage, and the service recovers without a restart, losing and duplicating nothing
(DESIGN 12). The cluster is the test's own, never the shared server."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import httpx
import psutil
import psycopg
import pytest
from psycopg_pool import PoolTimeout
from psycopg_pool.base import AttemptWithBackoff

from service.choices import choose
from service.http.app import create_app
from service.pg import request_pool
from service.tools.bench.harness import Server, running_server
from service.write.migrate import available, migrate
from tests.conftest import make_settings
from tests.support import services
from tests.support.api import bearer, ok
from tests.support.metrics import Samples, parse, value
from tests.support.postgres_server import PostgresServer
from tests.support.server_log import logged_errors
from tests.support.workers import workers

# The service answers within its 1.5 s deadline; this leaves a busy machine a margin, and
# is far shorter than an outage (a held request would wait for all of it).
PROBE = 4.0


@contextmanager
def served_on_a_private_postgres(
    env: dict[str, str] | None = None, output: IO[str] | None = None, workers: int = 1
) -> Iterator[tuple[Server, PostgresServer]]:
    """A server on a Postgres of its own, and the Postgres."""
    postgres = PostgresServer()
    postgres.start()
    try:
        migrate(postgres.url)
        redis_url = services.redis_url()
        with running_server(postgres.url, redis_url, workers, env, output=output) as server:
            yield server, postgres
    finally:
        postgres.stop()
        postgres.remove()


@pytest.fixture(scope="module")
def outage() -> Iterator[tuple[str, str, PostgresServer]]:
    with served_on_a_private_postgres() as (server, postgres):
        yield server.base, server.operator, postgres


def _seated(client: httpx.Client) -> tuple[str, list[str]]:
    table = ok(client.post("/tables", json={"game": "forty-five", "seats": 4}), 201)
    tokens = [
        ok(client.post(f"/tables/{table['id']}/seats/{s}", json={"name": f"p{s}"}), 201)["token"]
        for s in range(4)
    ]
    return table["id"], tokens


def _next_command(client: httpx.Client, table_id: str, tokens: list[str]) -> tuple[str, Any]:
    seat = ok(client.get(f"/tables/{table_id}"))["to_act"][0]
    mine = ok(client.get(f"/tables/{table_id}", headers=bearer(tokens[seat])))
    return tokens[seat], choose(mine["legal_actions"][0], random.Random(2))


def _assert_unavailable(answer: httpx.Response) -> None:
    assert answer.status_code == 503, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["code"] == "database-unavailable"
    assert int(answer.headers["retry-after"]) >= 1


def _assert_counted_as_unavailable(before: Samples, after: Samples, waited: bool) -> None:
    """The 503s are counted as such, errors and all, with the time they took (``waited``:
    the deadline's, for a frozen database): those the deadline answered were counted as
    fast 200s, so a dashboard showed an outage as fast 200s and no error-rate alert fired."""
    route = {"method": "POST", "path": "/tables", "status_code": "503"}
    for name in ("cardroom_requests_total", "cardroom_requests_error_total"):
        assert value(after, name, **route) - value(before, name, **route) >= 1, name
    took = "cardroom_request_duration_seconds_sum"
    if waited:
        assert value(after, took, **route) - value(before, took, **route) >= 0.5


def _recovered(client: httpx.Client, path: str) -> httpx.Response:
    """The first answer that is not a 503, asking a few times as a client would."""
    for _ in range(40):
        answer = client.get(path)
        if answer.status_code != 503:
            return answer
        time.sleep(0.25)
    raise AssertionError(f"still 503 after the database came back: {answer.text}")


def _commands_recorded(client: httpx.Client, table_id: str, operator: str) -> list[Any]:
    """The seat commands in the table's export, in order."""
    export = client.get(f"/tables/{table_id}/export", headers=bearer(operator))
    lines = [json.loads(line) for line in ok_bytes(export).splitlines()]
    return [
        line["command"]
        for line in lines
        if line.get("type") == "event" and line["command"] and line["actor"].startswith("seat:")
    ]


def ok_bytes(answer: httpx.Response) -> bytes:
    assert answer.status_code == 200, answer.text
    return answer.content


@pytest.mark.parametrize("fault", ["frozen", "stopped"])
def test_an_outage_answers_503_at_once_and_recovers(
    outage: tuple[str, str, PostgresServer], fault: str
) -> None:
    base, operator, postgres = outage
    # The table and tournament are set up before the fault, with the suite's usual
    # patience: on a machine loaded by the rest of the suite a setup request once took
    # longer than the probe's 4 s, which is not what this test measures. Every request
    # from the fault on has the probe's timeout.
    with httpx.Client(base_url=base, timeout=30) as setup:
        table_id, tokens = _seated(setup)
        token, command = _next_command(setup, table_id, tokens)
        event = {"game": "pitch", "name": f"During {fault}"}
        tournament = ok(setup.post("/tournaments", json=event, headers=bearer(operator)), 201)
    keyed = {**bearer(token), "Idempotency-Key": f"during-{fault}"}
    with httpx.Client(base_url=base, timeout=PROBE) as client:
        before = parse(ok_bytes(client.get("/metrics")).decode())
        postgres.freeze() if fault == "frozen" else postgres.stop()
        try:
            # A stream's opening reads have the same deadline as any request's (asked
            # first, while the pool still holds idle connections to the frozen server).
            _assert_unavailable(client.get(f"/tables/{table_id}/stream?timeout=1"))
            _assert_unavailable(client.get(f"/tournaments/{tournament['id']}/stream?timeout=1"))
            _assert_unavailable(client.get(f"/tables/{table_id}"))
            _assert_unavailable(
                client.post(f"/tables/{table_id}/actions", json=command, headers=keyed)
            )
            _assert_unavailable(client.post("/tables", json={"game": "pitch", "seats": 3}))
            ready = client.get("/readyz")
            assert ready.status_code == 503
        finally:
            postgres.thaw() if fault == "frozen" else postgres.start()
        assert _recovered(client, f"/tables/{table_id}").status_code == 200
        now = parse(ok_bytes(client.get("/metrics")).decode())
        _assert_counted_as_unavailable(before, now, waited=fault == "frozen")
        before_retry = len(_commands_recorded(client, table_id, operator))
        # The client retries with its key: the command is recorded once, whether or
        # not the attempt during the outage reached the database.
        retried = client.post(f"/tables/{table_id}/actions", json=command, headers=keyed)
        assert retried.status_code == 200, retried.text
        again = client.post(f"/tables/{table_id}/actions", json=command, headers=keyed)
        assert again.content == retried.content
        after = _commands_recorded(client, table_id, operator)
        assert len(after) - before_retry <= 1
        assert after.count(command) == 1
        assert client.get("/readyz").status_code == 200


def test_a_worker_that_dies_while_the_database_is_down_is_replaced_and_the_server_recovers() -> (
    None
):
    """uvicorn's supervisor stops the whole server when a worker fails to start (it takes
    that for a broken app): a replacement that needed the database to start took the
    healthy worker down with it, and nothing served once the database was back."""
    with served_on_a_private_postgres(workers=2) as (server, postgres):
        with httpx.Client(base_url=server.base, timeout=30) as setup:
            table_id, _ = _seated(setup)
        postgres.stop()
        try:
            victim = workers(server.pid)[0].pid
            os.kill(victim, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while {w.pid for w in workers(server.pid)} & {victim} or len(workers(server.pid)) < 2:
                assert psutil.pid_exists(server.pid), "the supervisor stopped"
                assert time.monotonic() < deadline, "the dead worker was not replaced"
                time.sleep(0.2)
            for _ in range(8):  # each over a new connection, which either worker may take
                with httpx.Client(base_url=server.base, timeout=PROBE) as client:
                    _assert_unavailable(client.get(f"/tables/{table_id}"))
        finally:
            postgres.start()
        with httpx.Client(base_url=server.base, timeout=PROBE) as client:
            assert _recovered(client, f"/tables/{table_id}").status_code == 200
        assert len(workers(server.pid)) == 2


def test_readiness_answers_its_own_document_from_the_first_probe_of_a_freeze() -> None:
    """/readyz bounds its checks at 0.8 s so that a probe with a 1 s timeout gets its
    answer. Cancelling the check's query on a frozen server waits on the server too: the
    first /readyz of a freeze waited for the request deadline and answered its 503
    ``database-unavailable`` problem, not the readiness document. On a server and
    Postgres of its own: the module's others start each outage from a quiet server."""
    with (
        served_on_a_private_postgres() as (server, postgres),
        httpx.Client(base_url=server.base, timeout=PROBE) as client,
    ):
        assert client.get("/readyz").status_code == 200  # the pool holds a live connection
        postgres.freeze()
        try:
            ready = client.get("/readyz")
        finally:
            postgres.thaw()
        assert ready.status_code == 503, ready.text
        assert ready.json()["checks"]["postgres"] == "error: no answer within 0.8 s"
        assert ready.json()["checks"]["redis"] == "ok"
        assert _recovered(client, "/readyz").status_code == 200


async def test_a_pool_tries_to_connect_again_at_once_when_the_database_is_back(
    outage: tuple[str, str, PostgresServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pool's connection slot that cannot connect tries again after 1, 2, 4 … 32 s: a
    database back after a minute's outage was left unused for up to a minute more, every
    request 503 meanwhile (a review saw 47 s after a 70 s outage). Here the first pause
    is already 30 s, as a long outage would have grown it: the slots must give up
    instead, so that the first request after the outage connects at once."""
    _, _, postgres = outage
    monkeypatch.setattr(AttemptWithBackoff, "INITIAL_DELAY", 30.0)
    pool = request_pool(postgres.url, 1, 2, wait_seconds=1.0)
    await pool.open(wait=True)
    try:
        postgres.stop()
        try:
            down = time.monotonic()
            while time.monotonic() - down < 3:  # requests keep coming through the outage
                with pytest.raises((psycopg.OperationalError, PoolTimeout)):
                    async with pool.connection() as conn:
                        await conn.execute("SELECT 1")
        finally:
            postgres.start()
        async with pool.connection(timeout=3) as conn:
            await conn.execute("SELECT 1")
    finally:
        await pool.close()


def test_a_server_told_to_stop_while_the_database_is_frozen_exits() -> None:
    """Its background workers wait on a database that does not answer: they are given
    a few seconds, then cancelled, and the process exits well inside a deployment's
    grace period (everything acknowledged is committed already). It used to wait for
    the database to come back, however long that took. (A cluster of its own: the
    module's server would lead the workers, and a standby's wait ends with the stop.)"""
    postgres = PostgresServer()
    postgres.start()
    try:
        migrate(postgres.url)
        with running_server(postgres.url, services.redis_url()) as server:
            process = psutil.Process(server.pid)
            postgres.freeze()
            try:
                time.sleep(1.5)  # each worker's next look at the store (≤ 1 s apart) blocks
                process.send_signal(signal.SIGTERM)
                process.wait(40)  # psutil.TimeoutExpired: still waiting on the database
            finally:
                postgres.thaw()
    finally:
        postgres.stop()
        postgres.remove()


STREAM_OPEN = 3  # seconds a stream is asked to stay open (?timeout=): its one look at Postgres


@contextmanager
def _stream_opened(client: httpx.Client, path: str) -> Iterator[Iterator[bytes]]:
    """The stream's chunks, its opening catch-up (or comment) taken already; a wait for
    the next may last the stream's ``?timeout=`` and a request's deadline."""
    with client.stream("GET", path, timeout=STREAM_OPEN + PROBE) as response:
        assert response.status_code == 200, response.read()
        chunks = response.iter_raw()
        assert next(chunks).startswith((b"id: ", b": open"))
        yield chunks


def _stream_through_a_freeze(
    query: str, env: dict[str, str], at_freeze: Callable[[Server], None]
) -> tuple[bytes, float, list[dict[str, Any]]]:
    """A table's stream, opened on a server of its own, read to its end from the moment
    its Postgres froze (``at_freeze`` then acts on the server): the rest of the stream,
    how long it took, and the errors the server logged."""
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as output,
        served_on_a_private_postgres({"CARDROOM_LOG_LEVEL": "info", **env}, output) as served,
        httpx.Client(base_url=served[0].base, timeout=PROBE) as client,
        httpx.Client(base_url=served[0].base, timeout=60) as other,
    ):
        server, postgres = served
        table_id, _ = _seated(client)
        # The fan-out hub reads Redis only while a stream follows it. Started by the
        # stream under test, it would have that stream look at Postgres once more (a
        # resync: entries may have passed unread), and that look could come before the
        # freeze (about one run in five); so another stream has it reading first.
        with other.stream("GET", f"/tables/{table_id}/stream?timeout=60"):
            _until_the_hub_reads(client)
            with _stream_opened(client, f"/tables/{table_id}/stream{query}") as chunks:
                postgres.freeze()
                try:
                    at_freeze(server)
                    started = time.monotonic()
                    rest = b"".join(chunks)  # httpx raises if the body is cut off
                    took = time.monotonic() - started
                finally:
                    postgres.thaw()
        return rest, took, logged_errors(output)


def _until_the_hub_reads(client: httpx.Client) -> None:
    deadline = time.monotonic() + 30
    while b"cardroom_live_hub_connected 1.0" not in client.get("/metrics").content:
        assert time.monotonic() < deadline, "the hub never read Redis"
        time.sleep(0.05)


def test_a_stream_whose_look_at_postgres_meets_a_freeze_stays_whole() -> None:
    """A stream's reads once it has started have the request's deadline too: one the
    frozen database does not answer sends nothing this time and the stream goes on.
    Before, the read waited for the database for as long as it was frozen, and one that
    found the pool's connections all taken raised PoolTimeout, cutting the stream off
    mid-body with an error in the log. Here the stream's only look (at its
    ``?timeout=``) meets the freeze: the stream must still end whole and on time."""
    rest, took, errors = _stream_through_a_freeze(f"?timeout={STREAM_OPEN}", {}, lambda _: None)
    assert rest == b": keep-alive\r\n\r\n"  # the look read nothing, and said so
    assert took < STREAM_OPEN + PROBE, took
    assert errors == []


def test_keep_alives_keep_their_interval_while_postgres_is_frozen() -> None:
    """``Cardroom-Keep-Alive`` is the most time between two things a stream sends. A
    quiet spell ends in a look at Postgres, and a frozen one takes that look's whole
    deadline: the wait came first, whole, so chunks came the interval plus the deadline
    apart (3.5 s here, 16.5 s by default)."""
    keep_alive = 2.0
    env = {"CARDROOM_KEEPALIVE_SECONDS": str(keep_alive)}
    with (
        served_on_a_private_postgres(env) as (server, postgres),
        httpx.Client(base_url=server.base, timeout=PROBE) as client,
        httpx.Client(base_url=server.base, timeout=60) as other,
    ):
        table_id, _ = _seated(client)
        with other.stream("GET", f"/tables/{table_id}/stream?timeout=60"):
            _until_the_hub_reads(client)  # the stream under test follows the hub, live
            with _stream_opened(client, f"/tables/{table_id}/stream?timeout=9") as chunks:
                postgres.freeze()
                try:
                    arrivals = [time.monotonic() for _ in chunks]
                finally:
                    postgres.thaw()
    gaps = [later - earlier for earlier, later in itertools.pairwise(arrivals)]
    assert len(gaps) >= 2, arrivals
    # A second's slack for a loaded machine, short of the deadline's 1.5 s.
    assert max(gaps) < keep_alive + 1.0, gaps


def test_a_stop_while_postgres_is_frozen_ends_the_streams_at_once() -> None:
    """A graceful stop ends every stream after sending what is new; with the database
    frozen that read waited for it, so each open stream held the stop for its whole
    grace period (30 s here) and was then cut off, with an error in the log."""

    def stop(server: Server) -> None:
        psutil.Process(server.pid).send_signal(signal.SIGTERM)

    rest, took, errors = _stream_through_a_freeze("", {"CARDROOM_SHUTDOWN_SECONDS": "30"}, stop)
    assert set(rest.split(b"\r\n\r\n")) == {b": keep-alive", b""}, rest  # and whole
    assert took < 2 * PROBE, took
    assert errors == []


async def test_a_worker_applies_pending_migrations_when_it_can_and_starts_when_it_cannot() -> None:
    """A worker of ``serve --workers N`` started by SIGHUP after a newer release was
    installed in place brings the release's migrations; one replacing a worker that died
    during an outage starts all the same, and answers 503 until the database is back."""
    postgres = PostgresServer()
    postgres.start()
    running = True
    try:
        settings = make_settings(postgres.url)
        async with create_app(settings, migrate="if-reachable").lifespan():
            with psycopg.connect(postgres.url) as conn:
                applied = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()
            assert applied is not None and applied[0] == len(available())
        postgres.stop()
        running = False
        async with create_app(settings, migrate="if-reachable").lifespan():
            pass  # started, with nothing to migrate against
    finally:
        if running:
            postgres.stop()
        postgres.remove()
