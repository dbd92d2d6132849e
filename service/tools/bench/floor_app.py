"""The stack's floor: the service's HTTP server and framework around almost nothing.

``cardroom bench all`` serves this app as its own server process — uvicorn with the very
options of ``cardroom serve`` (``service.tools.cli.uvicorn_options``), the same worker
count, a psycopg pool built as the service builds its own — and sends it the same load as
the commands. Its one route decodes a small JSON body, INSERTs one row and answers a
small JSON object, so a command's figure divided by the floor's separates what Cardroom
adds from what the stack costs. It is no part of the service's API: no route of the real
app, nothing in the OpenAPI document.

``python -m service.tools.bench.floor_app --port P --workers N`` (reads
``CARDROOM_DATABASE_URL`` and the pool settings from the environment).
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgspec
from litestar import Litestar, get, post

from service.pg import request_pool
from service.runtime import tune_collector
from service.settings import from_env

TABLE = "bench_floor"
CREATE = f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigserial PRIMARY KEY, seat int, payload text)"


class Move(msgspec.Struct, frozen=True):
    table: str
    seat: int
    card: str


class Recorded(msgspec.Struct, frozen=True):
    id: int
    seat: int


def app_factory() -> Litestar:
    settings = from_env()
    assert settings.database_url, "the bench harness passes CARDROOM_DATABASE_URL"
    database_url = settings.database_url
    pool = request_pool(
        database_url, settings.pool_min, settings.pool_max, settings.request_seconds
    )

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        await pool.open()
        tune_collector()  # as the service's processes do once started
        try:
            yield
        finally:
            await pool.close()

    @post("/floor", status_code=200)
    async def record(data: Move) -> Recorded:
        async with pool.connection() as conn:
            cursor = await conn.execute(
                f"INSERT INTO {TABLE} (seat, payload) VALUES (%s, %s) RETURNING id",
                (data.seat, data.card),
            )
            row = await cursor.fetchone()
        assert row is not None
        return Recorded(id=row[0], seat=data.seat)

    @get("/readyz")
    async def ready() -> dict[str, bool]:
        return {"ready": True}

    return Litestar([record, ready], lifespan=[lifespan], openapi_config=None)


def main() -> None:
    import psycopg
    import uvicorn

    from service.tools.cli import uvicorn_options
    from service.tools.supervisor import SpreadWorkers

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    settings = from_env()
    assert settings.database_url
    with psycopg.connect(settings.database_url, autocommit=True) as conn:
        conn.execute(CREATE)
    options = uvicorn_options("127.0.0.1", args.port, settings)
    config = uvicorn.Config(
        "service.tools.bench.floor_app:app_factory",
        factory=True,
        workers=args.workers,
        **options,
    )
    if args.workers > 1:
        SpreadWorkers(config).run()  # as `cardroom serve` spreads its connections
    else:
        uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
