"""The ``cardroom`` command: serve the API, apply migrations, and the operators' tools."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

import msgspec
import psycopg

from service import logs
from service.settings import (
    Settings,
    SettingsError,
    check_operator_token,
    container_evidence,
    embedded_servers,
    from_env,
    operator_token_generated,
)

log = logging.getLogger("cardroom")

# By import path: worker processes import it afresh.
HTTP_PROTOCOL = "service.http.protocol:HeadLimitedProtocol"


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    # uvicorn re-raises the signal after its graceful shutdown; turning it into SystemExit
    # lets the `finally` below stop the embedded servers.
    raise SystemExit(128 + signum)


def uvicorn_options(host: str, port: int, settings: Settings) -> dict[str, Any]:
    """uvicorn's settings for ``cardroom serve`` (and for the bench's stack floor, which
    must be served exactly as the service is)."""
    # uvloop named, not "auto": a silent fallback to asyncio's loop would bring back
    # Nagle's delay on the sockets of a multi-worker server (pyproject.toml). The HTTP
    # protocol is uvicorn's httptools one with limits on the request head (DESIGN 12).
    # No `server: uvicorn` header: it tells a scanner which server's flaws to try.
    # A stop waits for open requests at most `shutdown_seconds`, then closes them.
    return {
        "host": host,
        "port": port,
        "log_level": settings.log_level,
        "loop": "uvloop",
        "http": HTTP_PROTOCOL,
        "server_header": False,
        # The API has no WebSocket: without this, uvicorn answered a request asking for
        # one itself, in plain text, past the app's problems, headers and log.
        "ws": "none",
        "timeout_graceful_shutdown": settings.shutdown_seconds,
        # uvicorn logs as the service does (service.logs), in every worker; its access
        # log is off: the app writes one line a request, with the request's id.
        "log_config": logs.config(settings.log_format, settings.log_level),
        "access_log": False,
        # The client address is the socket's peer; X-Forwarded-For is read only from
        # CARDROOM_TRUSTED_PROXIES (service.http.throttle), never uvicorn's default of
        # trusting it from 127.0.0.1.
        "proxy_headers": False,
    }


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service.write.migrate import migrate

    settings = from_env()
    generated_token = operator_token_generated()
    # Before anything starts: a replica without its database fails at once, loudly
    # (main() prints the SettingsError, which names the variable to set; exit 2).
    container = container_evidence()
    wanted = embedded_servers(settings, container)
    check_operator_token(generated_token, container, wanted, settings)
    embedded = None
    if wanted.postgres or wanted.redis:
        from service.tools.embedded import Embedded

        embedded = Embedded(settings.data_dir)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_on_signal)
    try:
        database_url, redis_url = settings.database_url, settings.redis_url
        if embedded is not None:
            database_url = database_url or embedded.start_postgres()
            redis_url = redis_url or embedded.start_redis()
        assert database_url and redis_url, "embedded_servers() lets none be missing"
        settings = msgspec.structs.replace(settings, database_url=database_url, redis_url=redis_url)
        # Worker processes read the same settings, the generated operator token included.
        os.environ.update(
            CARDROOM_DATABASE_URL=database_url,
            CARDROOM_REDIS_URL=redis_url,
            CARDROOM_OPERATOR_TOKEN=settings.operator_token,
        )
        migrate(database_url)
        postgres = "embedded" if wanted.postgres else "configured"
        redis = "embedded" if wanted.redis else "configured"
        log.info(
            "cardroom serving on http://%s:%s (Postgres %s, Redis %s)",
            args.host,
            args.port,
            postgres,
            redis,
        )
        if generated_token:
            print(f"operator token: {settings.operator_token}", flush=True)
        options = uvicorn_options(args.host, args.port, settings)
        if args.workers > 1:
            from service.tools.supervisor import Supervisor, metrics_directory

            # Each worker is a process of its own: their metrics meet in a directory.
            with metrics_directory() as directory:
                config = uvicorn.Config(
                    "service.tools.supervisor:worker_app",
                    factory=True,
                    workers=args.workers,
                    **options,
                )
                try:
                    supervisor = Supervisor(config, directory)  # binds the port
                except OSError as exc:  # as uvicorn itself says it with one worker
                    log.error("cannot listen on %s:%s: %s", args.host, args.port, exc.strerror)
                    return 3
                supervisor.run()
        else:
            from service.http.app import create_app

            app = create_app(settings, migrate="no")  # applied above
            uvicorn.Server(uvicorn.Config(app, **options)).run()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def migrate_command(args: argparse.Namespace) -> int:
    from service.write.migrate import migrate

    applied = migrate(_database_url())
    print("applied: " + ", ".join(applied) if applied else "up to date")
    return 0


def relay_command(args: argparse.Namespace) -> int:
    """Run only the relay (one leads at a time; extra ones stand by)."""
    import asyncio

    from service.workers.relay import run_standalone

    settings = from_env()
    if not settings.database_url or not settings.redis_url:
        raise SettingsError("the relay needs CARDROOM_DATABASE_URL and CARDROOM_REDIS_URL")
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_on_signal)
    asyncio.run(run_standalone(settings))
    return 0


def timekeeper_command(args: argparse.Namespace) -> int:
    """Run only the timekeeper (one leads at a time; extra ones stand by)."""
    import asyncio

    from service.workers.timekeeper import run_standalone

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_on_signal)
    asyncio.run(run_standalone(_database_url()))
    return 0


def retention_command(args: argparse.Namespace) -> int:
    """Run only the retention sweeper (one leads at a time; extra ones stand by)."""
    import asyncio

    from service.workers.retention import run_standalone

    settings = from_env()
    _database_url(settings)  # refused when it is not set
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_on_signal)
    asyncio.run(run_standalone(settings))
    return 0


def _database_url(settings: Settings | None = None) -> str:
    """The configured database's URL: a command other than ``serve`` starts no embedded
    server."""
    url = (settings or from_env()).database_url
    if not url:
        raise SettingsError("CARDROOM_DATABASE_URL is not set")
    return url


def project_command(args: argparse.Namespace) -> int:
    """Run only the projector, keeping every async read model caught up."""
    import asyncio

    from psycopg_pool import AsyncConnectionPool

    from service.workers.projector import Projector

    async def run() -> None:
        async with AsyncConnectionPool(
            _database_url(), min_size=1, max_size=2, kwargs={"autocommit": True}
        ) as pool:
            await Projector(pool).run(asyncio.Event())

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_on_signal)
    asyncio.run(run())
    return 0


def rebuild_command(args: argparse.Namespace) -> int:
    """Rebuild read models from position 0, with a progress bar; print events/second."""
    import asyncio

    from psycopg_pool import AsyncConnectionPool
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from service.read.catalog import PROJECTIONS
    from service.workers.projector import Projector

    names = [args.projection] if args.projection else list(PROJECTIONS)

    async def run() -> None:
        async with AsyncConnectionPool(
            _database_url(), min_size=1, max_size=2, kwargs={"autocommit": True}
        ) as pool:
            projector = Projector(pool, batch=args.batch)
            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            ) as progress:
                for name in names:
                    task = progress.add_task(name, total=None)

                    def advance(done: int, total: int, task: Any = task) -> None:
                        progress.update(task, completed=done, total=total)

                    events, seconds = await projector.rebuild(PROJECTIONS[name], advance)
                    rate = events / seconds if seconds else 0.0
                    progress.console.print(
                        f"{name}: {events} events in {seconds:.2f}s ({rate:,.0f} events/s)"
                    )

    asyncio.run(run())
    return 0


def bench_command(args: argparse.Namespace) -> int:
    """Run a benchmark against a real server on a scratch database; print JSON.

    ``bots`` and ``pairing`` need no server: they run the domain alone (the computer against
    random play; Swiss pairing of large fields).
    """
    import asyncio
    import json

    if args.benchmark == "bots":
        from service.tools.bench import bots

        unknown = sorted(set(args.game or ()) - set(bots.SEATS))
        if unknown:
            print(f"unknown game id: {', '.join(unknown)}", file=sys.stderr)
            return 2
        print(json.dumps(bots.run(args.games, args.seed, args.game), indent=2))
        return 0
    if args.benchmark == "pairing":
        from service.tools.bench import pairing

        print(json.dumps(pairing.run(args.seed, args.entrants), indent=2))
        return 0

    from service.tools.bench import rebuild, sse, suite, timers
    from service.tools.bench.harness import running_server, scratch_database

    workers = args.workers or 1

    if args.benchmark == "timers":
        with scratch_database(args.admin_database_url) as database_url:
            tables = args.tables or 10_000
            result = asyncio.run(timers.measure(database_url, tables, args.rate, args.seconds))
    elif args.benchmark == "all":
        result = suite.run(args.admin_database_url, args.redis_url, args.seconds, workers)
    elif args.benchmark == "players":
        from service.tools.bench import players

        ramp = players.Ramp(
            seconds=args.seconds,
            most=args.max_players,
            spectators=args.spectators,
            seed=args.seed,
            processes=args.load_processes or 0,
        )
        result = players.run(args.admin_database_url, args.redis_url, args.workers or 2, ramp)
    elif args.benchmark == "replicas":
        from service.tools.bench import replicas

        if not args.replica_url:
            print("bench replicas needs --replica-url (a streaming replica)", file=sys.stderr)
            return 2
        result = replicas.run(
            args.admin_database_url, args.replica_url, args.redis_url, args.seconds, workers
        )
    elif args.benchmark == "rebuild":
        with scratch_database(args.admin_database_url) as database_url:
            result = asyncio.run(rebuild.measure(database_url, args.events or 100_000))
    elif args.benchmark == "store":
        from service.tools.bench import store_size

        result = store_size.run(
            args.admin_database_url,
            args.redis_url,
            args.seconds,
            workers,
            args.events or store_size.EVENTS,
        )
    else:
        tables = args.tables or 16
        sse.allow_streams(args.streams or tables)  # before the server, which inherits it
        with (
            scratch_database(args.admin_database_url) as database_url,
            running_server(database_url, args.redis_url, workers=workers) as server,
        ):
            result = asyncio.run(
                sse.measure(server.base, tables, args.seconds, args.streams, args.pause)
            )
    print(json.dumps(result, indent=2))
    return 0


def openapi_command(args: argparse.Namespace) -> int:
    """Write the OpenAPI and AsyncAPI documents (or one of them to stdout)."""
    from service.http.asyncapi import render as render_asyncapi
    from service.http.spec import render_spec

    if args.output == "-":
        sys.stdout.write(render_spec())
        return 0
    for path, text in ((args.output, render_spec()), (args.asyncapi, render_asyncapi())):
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            # The defaults are the repository's api_spec/: elsewhere (an installed
            # package, the image) name the files, or --output - for stdout.
            print(
                f"cardroom openapi: cannot write {path} ({exc.strerror}); run it at the"
                " repository's root, or name the files with --output and --asyncapi"
                " (--output - writes the OpenAPI document to stdout)",
                file=sys.stderr,
            )
            return 2
        print(f"wrote {path}")
    return 0


def bot_command(args: argparse.Namespace) -> int:
    """Play a seat (or, with --play-all, whole tables) by choosing from legal_actions."""
    from service.tools import bot

    return bot.main(args)


def chain_hash(text: str) -> str:
    """``--head``: a SHA-256 in hex, as the header's ``head`` writes it. Anything else
    (a head copied short, a typo) is a mistake in the command (exit 2), not a forgery."""
    head = text.strip().lower()
    if len(head) != 64 or any(c not in "0123456789abcdef" for c in head):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a chain hash: the head is 64 hexadecimal characters, as the"
            " header's head, in full"
        )
    return head


def verify_command(args: argparse.Namespace) -> int:
    """Verify a table or tournament export offline: no server, no database, just the file."""
    from service.audit.render import render, render_tournament
    from service.audit.tournament_verify import is_tournament_export, verify_tournament_lines
    from service.audit.verify import verify_lines

    try:
        if args.file == "-":
            lines = sys.stdin.buffer.readlines()
        else:
            with open(args.file, "rb") as file:
                lines = file.readlines()
    except OSError as exc:
        print(f"cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    if lines and is_tournament_export(lines[0]):
        tournament = verify_tournament_lines(lines, args.head)
        sys.stdout.write(render_tournament(tournament))
        return 0 if tournament.ok else 1
    report = verify_lines(lines, args.head)
    sys.stdout.write(render(report))
    return 0 if report.ok else 1


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)

    serve_cmd = commands.add_parser("serve", help="serve the HTTP API")
    serve_cmd.add_argument("--host", default="127.0.0.1")
    serve_cmd.add_argument("--port", type=port, default=8000, help="0: any free port")
    serve_cmd.add_argument("--workers", type=workers, default=1, help="worker processes")
    serve_cmd.set_defaults(run=serve)

    migrate_cmd = commands.add_parser("migrate", help="apply pending database migrations")
    migrate_cmd.set_defaults(run=migrate_command)

    bench_cmd = commands.add_parser(
        "bench", help="measure a real server, or the computer players (prints JSON)"
    )
    bench_cmd.add_argument(
        "benchmark",
        choices=[
            "all",
            "rebuild",
            "sse",
            "bots",
            "timers",
            "pairing",
            "replicas",
            "players",
            "store",
        ],
    )
    bench_cmd.add_argument(
        "--rate", type=int, default=200, help="timers: clocks expiring per second"
    )
    bench_cmd.add_argument(
        "--events",
        type=int,
        default=None,
        help="rebuild: store size (100,000); store: events bulk-loaded (5,000,000)",
    )
    bench_cmd.add_argument(
        "--tables", type=int, default=None, help="sse: 16 tables; timers: 10,000 armed clocks"
    )
    bench_cmd.add_argument(
        "--streams", type=int, default=None, help="sse: spectator streams (one per table)"
    )
    bench_cmd.add_argument(
        "--pause", type=float, default=0.4, help="sse: seconds between a table's commands"
    )
    bench_cmd.add_argument("--seconds", type=float, default=20.0)
    bench_cmd.add_argument(
        "--workers", type=int, default=None, help="server workers (1; players: 2)"
    )
    bench_cmd.add_argument(
        "--max",
        dest="max_players",
        type=int,
        default=10_000,
        help="players: the last step of the ramp (40, 100, 200, 400, 800, then doubling)",
    )
    bench_cmd.add_argument(
        "--spectators", type=int, default=0, help="players: spectators long-polling each table"
    )
    bench_cmd.add_argument(
        "--load-processes",
        type=int,
        default=None,
        help="players: load-generator processes (one per core)",
    )
    bench_cmd.add_argument("--games", type=int, default=500, help="bots: seeded games per id")
    bench_cmd.add_argument(
        "--seed",
        type=int,
        default=0,
        help="bots: seed of the first game; pairing: of the results; players: think times",
    )
    bench_cmd.add_argument(
        "--entrants",
        type=int,
        action="append",
        help="pairing: field size (may be repeated; default 100, 1,000 and 10,000)",
    )
    bench_cmd.add_argument(
        "--game", action="append", help="bots: only this game id (may be repeated)"
    )
    bench_cmd.add_argument(
        "--admin-database-url",
        default=os.environ.get(
            "CARDROOM_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
        help="a server where the benchmark may create and drop a scratch database",
    )
    bench_cmd.add_argument(
        "--redis-url", default=os.environ.get("CARDROOM_REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    bench_cmd.add_argument(
        "--replica-url",
        default=os.environ.get("CARDROOM_BENCH_REPLICA_URL"),
        help="replicas: a streaming replica of the --admin-database-url server",
    )
    bench_cmd.set_defaults(run=bench_command)

    project_cmd = commands.add_parser("project", help="keep the async read models caught up")
    project_cmd.set_defaults(run=project_command)

    rebuild_cmd = commands.add_parser("rebuild", help="rebuild read models from position 0")
    rebuild_cmd.add_argument("projection", nargs="?", choices=["scoresheet", "standings"])
    rebuild_cmd.add_argument("--batch", type=int, default=2000, help="events per transaction")
    rebuild_cmd.set_defaults(run=rebuild_command)

    relay_cmd = commands.add_parser("relay", help="publish committed events to Redis")
    relay_cmd.set_defaults(run=relay_command)
    timekeeper_cmd = commands.add_parser("timekeeper", help="fire expired clocks (DESIGN 10)")
    timekeeper_cmd.set_defaults(run=timekeeper_command)
    retention_cmd = commands.add_parser(
        "retention", help="expire old idempotency records and tables nobody filled"
    )
    retention_cmd.set_defaults(run=retention_command)

    bot_cmd = commands.add_parser("bot", help="play a seat, or whole tables, from legal_actions")
    bot_cmd.add_argument("--url", default="http://127.0.0.1:8000")
    bot_cmd.add_argument("--table", help="the table to play at")
    bot_cmd.add_argument("--seat", type=int, help="the seat to take (or to play, with --token)")
    bot_cmd.add_argument("--name", help="the player's name (default: bot SEAT)")
    bot_cmd.add_argument(
        "--token",
        default=os.environ.get("CARDROOM_SEAT_TOKEN") or None,
        help="the seat's token, when it is already taken (or CARDROOM_SEAT_TOKEN: an"
        " argument is seen by every user of the machine, in ps)",
    )
    bot_cmd.add_argument("--seed", type=int, help="seed of the random choices")
    bot_cmd.add_argument("--delay", type=float, default=0.0, help="seconds before each command")
    bot_cmd.add_argument(
        "--play-all", action="store_true", help="create tables and play every seat"
    )
    bot_cmd.add_argument("--game", default="pitch", help="with --play-all: the game id")
    bot_cmd.add_argument("--seats", type=int, default=4, help="with --play-all: seats per table")
    bot_cmd.add_argument("--tables", type=int, default=1, help="with --play-all: tables at once")
    bot_cmd.add_argument("--options", default="{}", help="with --play-all: options as JSON")
    bot_cmd.set_defaults(run=bot_command, offline=True)

    verify_cmd = commands.add_parser(
        "verify",
        help="verify a table's or a tournament's export offline (exit 1 names the first bad event)",
    )
    verify_cmd.add_argument(
        "file", help="an export (GET /tables/{id}/export or /tournaments/{id}/export), or -"
    )
    verify_cmd.add_argument(
        "--head",
        type=chain_hash,
        help="the table's last chain hash, published apart from the file, to anchor it",
    )
    verify_cmd.set_defaults(run=verify_command, offline=True)

    openapi_cmd = commands.add_parser("openapi", help="write the OpenAPI and AsyncAPI documents")
    openapi_cmd.add_argument("--output", default="api_spec/openapi.json", help="a path, or -")
    openapi_cmd.add_argument("--asyncapi", default="api_spec/asyncapi.json")
    openapi_cmd.set_defaults(run=openapi_command, offline=True)
    return root


def port(text: str) -> int:
    if not (text.isdigit() and int(text) <= 65_535):
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (0 to 65535)")
    return int(text)


def workers(text: str) -> int:
    if not (text.isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers (1 or more)")
    return int(text)


# The commands that read no setting of the service: a client of the API (bot), and
# verify and openapi, which need only files. They log as the service does by default.
OFFLINE = Settings(database_url=None, redis_url=None, operator_token="")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        logs.configure(OFFLINE if getattr(args, "offline", False) else from_env())
        code: int = args.run(args)
    except (SettingsError, ValueError) as exc:  # a setting the service cannot run with
        print(f"cardroom: {exc}", file=sys.stderr)
        return 2
    except psycopg.OperationalError as exc:  # the database is not there, or not answering
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(
            f"cardroom: the database (CARDROOM_DATABASE_URL) does not answer: {reason}",
            file=sys.stderr,
        )
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
