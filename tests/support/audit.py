"""Audit test support: whole games played through the real command path, exports, tampering.

Games are played by the seeded random players of the domain playouts, but every command
goes through :class:`service.write.handler.TableService` — the code the HTTP handler calls —
against the real store, so exports hold real seeds, commitments, batches and hashes.
(Skipping HTTP for each command keeps a complete game of every game id within seconds.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from functools import cache, partial
from typing import Any

import msgspec
from httpx import AsyncClient

from domain import table as tables
from domain.table import Table
from service.audit.chain import GENESIS, canonical_bytes, chain
from service.write.handler import TableService
from service.write.store import NewEvent
from tests.domain.test_reserve_bridge_playouts import BridgePlayout
from tests.support.api import OPERATOR, ok, on_app
from tests.support.pinochle import PinochlePlayout
from tests.support.playout import Playout, to_command

# game id -> (seats, options, the random player that finishes its games)
GAMES: dict[str, tuple[int, dict[str, Any], type[Playout]]] = {
    "forty-five": (4, {}, Playout),
    "pitch": (3, {}, Playout),
    "pinochle": (3, {"deals": 2}, PinochlePlayout),
    "pinochle-three": (3, {}, PinochlePlayout),
    "pinochle-widow": (3, {}, PinochlePlayout),
    "pinochle-four": (4, {}, PinochlePlayout),
    "reserve-bridge": (2, {}, BridgePlayout),
}


class Player:
    """Chooses each seat's command with a game's seeded random player."""

    def __init__(self, game: str, seats: int, options: dict[str, Any], seed: int) -> None:
        kind = GAMES[game][2]
        self.playout = kind(tables.create("scratch", game, seats, options), seed)

    def command(self, table: Table[Any]) -> tuple[int, Any]:
        self.playout.table = table
        seat = self.playout.choose_seat()
        action = self.playout.pick(tables.legal_actions(table, seat))
        return seat, to_command(action, self.playout.rng)


async def play(
    client: AsyncClient,
    service: TableService,
    table_id: str,
    player: Player,
    until: Callable[[Table[Any]], bool] = lambda t: False,
    limit: int = 20_000,
) -> Table[Any]:
    """Send the player's commands through the service until the game ends or ``until``
    holds. The service lives on the app's event loop (the test client's portal thread),
    so every call runs there: its pool and its futures belong to that loop."""
    table = on_app(client, lambda: service.load(table_id)).table
    for _ in range(limit):
        if table.status != "playing" or until(table):
            return table
        seat, command = player.command(table)
        on_app(
            client,
            partial(service.act, table_id, seat, command, if_match=None, idempotency_key=None),
        )
        table = on_app(client, lambda: service.load(table_id)).table
    raise AssertionError("the game did not end")


async def new_game(client: AsyncClient, game: str, **extra: Any) -> tuple[str, int, dict[str, Any]]:
    """A table of ``game`` created and seated over HTTP; its id, seats and options."""
    seats, options, _ = GAMES[game]
    body = {"game": game, "seats": seats, "options": options, **extra}
    headers = OPERATOR if {"first_dealer", "deals"} & extra.keys() else {}
    table = ok(await client.post("/tables", json=body, headers=headers), 201)
    for seat in range(seats):
        ok(await client.post(f"/tables/{table['id']}/seats/{seat}", json={"name": f"P{seat}"}), 201)
    return table["id"], seats, options


async def complete_game(client: AsyncClient, service: TableService, game: str, seed: int) -> str:
    table_id, seats, options = await new_game(client, game)
    await play(client, service, table_id, Player(game, seats, options, seed))
    return table_id


async def export(client: AsyncClient, table_id: str) -> bytes:
    response = await client.get(f"/tables/{table_id}/export", headers=OPERATOR)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return response.content


# --- tampering ----------------------------------------------------------------------------


def lines_of(document: bytes) -> list[dict[str, Any]]:
    return [msgspec.json.decode(line) for line in document.splitlines() if line.strip()]


def document_of(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(msgspec.json.encode(line) + b"\n" for line in lines)


def _chain_again(header: dict[str, Any], events: list[dict[str, Any]], key: str) -> None:
    """Number ``events`` 1, 2, … and recompute every hash (the stream is ``header[key]``'s),
    and the header's version and head."""
    previous = GENESIS
    for version, line in enumerate(events, start=1):
        line["version"] = version
        at = msgspec.convert(line["recorded_at"], datetime)
        event = NewEvent(line["data"], line["actor"], line["command"])
        previous = chain(previous, canonical_bytes(header[key], version, at, event))
        line["hash"] = previous.hex()
    header["version"] = len(events)
    header["head"] = previous.hex()


def rechain(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number the events 1, 2, … and recompute every hash and the head, as a forger who
    knows the format would: only the rules can catch what such a forger changed."""
    header, *events = lines
    _chain_again(header, events, "table")
    return [header, *events]


def rechain_tournament(document: bytes) -> bytes:
    """:func:`rechain` for a tournament export's own stream (its table exports as they
    are): a forger's edit of a tournament event (or one removed), with the versions
    numbered again and every later hash recomputed."""
    header, *rest = lines_of(document)
    stream = [line for line in rest if line["type"] == "tournament_event"]
    tables = [line for line in rest if line["type"] != "tournament_event"]
    _chain_again(header, stream, "tournament")
    return document_of([header, *stream, *tables])


def other_seed(seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


# --- the documented line schema -----------------------------------------------------------


@cache
def export_line_schema() -> dict[str, Any]:
    """The schema the OpenAPI document gives one export line (``x-itemSchema``), with its
    components."""
    from service.http.spec import spec

    document = spec()
    content = document["paths"]["/tables/{table_id}/export"]["get"]["responses"]["200"]
    return {**content["content"]["application/x-ndjson"]["x-itemSchema"], **document}


@cache
def _validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(export_line_schema())


def nonconforming_lines(document: bytes) -> list[str]:
    """Each export line that does not match its documented schema, with the reason."""
    validator = _validator()
    problems = []
    for number, line in enumerate(document.splitlines(), start=1):
        for error in validator.iter_errors(msgspec.json.decode(line)):
            problems.append(f"line {number}: {error.message}")
    return problems
