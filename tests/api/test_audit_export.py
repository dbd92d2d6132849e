"""Exports and their offline verification: a complete game of every game verifies, a game
in progress verifies as far as it can, seeds appear only once their deal is over, and the
``cardroom verify`` command needs nothing but the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import psycopg
import pytest
from httpx import AsyncClient
from litestar import Litestar

from domain import RULES_ENGINE_VERSION
from domain import table as tables
from domain.events import (
    CardsDealt,
    ChanceEvent,
    DealerDrawn,
    DealThrownIn,
    Event,
    GameWon,
    HandScored,
    SeedRevealed,
)
from domain.pinochle.events import ChipsSettled
from domain.registry import GAMES
from service.audit.render import render
from service.audit.verify import verify_lines
from service.write.codec import event_decoder
from tests.support.api import OPERATOR, bearer, ok
from tests.support.audit import GAMES as PLAYERS
from tests.support.audit import (
    Player,
    complete_game,
    document_of,
    export,
    lines_of,
    new_game,
    nonconforming_lines,
    play,
)

DEAL_OVER = (HandScored, ChipsSettled, DealThrownIn, GameWon)


def events_of(document: bytes) -> list[Event]:
    header, *lines = lines_of(document)
    decode = event_decoder(header["game"]).decode
    return [decode(msgspec.json.encode(line["data"])) for line in lines]


def test_every_game_has_a_player_for_the_export_tests() -> None:
    assert set(PLAYERS) == set(GAMES)


@pytest.mark.parametrize("game", list(GAMES))
async def test_an_export_of_a_complete_game_verifies(
    client: AsyncClient, app: Litestar, game: str
) -> None:
    table_id = await complete_game(client, app.state.service, game, seed=7)
    document = await export(client, table_id)
    assert nonconforming_lines(document) == []
    report = verify_lines(document.splitlines())
    assert report.ok, render(report)

    header = lines_of(document)[0]
    view = ok(await client.get(f"/tables/{table_id}", headers=OPERATOR))
    assert header["rules_version"] == RULES_ENGINE_VERSION
    assert (header["status"], header["version"]) == ("finished", view["version"])
    assert header["players"] == [{"seat": s["seat"], "name": s["name"]} for s in view["seats"]]
    assert report.final_scores == view["scores"]
    assert report.winners == view["winners"]
    # A finished game has revealed every shuffle's seed: every deck was recomputed.
    events = events_of(document)
    shuffles = {e.shuffle for e in events if isinstance(e, ChanceEvent)}
    assert {e.shuffle for e in events if isinstance(e, SeedRevealed) and e.seed} == shuffles
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert [d.version for d in report.deals] == [
        i + 1 for i, e in enumerate(events) if isinstance(e, CardsDealt)
    ]
    assert len(report.deals) == len(dealt)
    assert all(d.seed and d.outcome in ("scored", "thrown_in") for d in report.deals)
    text = render(report)
    assert "RESULT: OK" in text and f"{len(events)} events" in text


async def test_export_is_for_the_operator_only(client: AsyncClient) -> None:
    table = ok(await client.post("/tables", json={"game": "pitch", "seats": 2}), 201)
    granted = ok(await client.post(f"/tables/{table['id']}/seats/0", json={"name": "Ann"}), 201)
    anonymous = await client.get(f"/tables/{table['id']}/export")
    assert anonymous.status_code == 401
    assert anonymous.headers["content-type"] == "application/problem+json"
    as_seat = await client.get(f"/tables/{table['id']}/export", headers=bearer(granted["token"]))
    assert as_seat.status_code == 403 and as_seat.json()["code"] == "operator-only"
    unknown = await client.get(
        "/tables/00000000-0000-4000-8000-000000000000/export", headers=OPERATOR
    )
    assert unknown.status_code == 404 and unknown.json()["code"] == "table-not-found"


async def test_a_waiting_table_exports_and_verifies(client: AsyncClient) -> None:
    table = ok(await client.post("/tables", json={"game": "pinochle-four", "seats": 4}), 201)
    ok(await client.post(f"/tables/{table['id']}/seats/2", json={"name": "Bea"}), 201)
    document = await export(client, table["id"])
    header = lines_of(document)[0]
    assert header["status"] == "waiting" and header["version"] == 2
    assert [p["name"] for p in header["players"]] == [None, None, "Bea", None]
    report = verify_lines(document.splitlines())
    assert report.ok, render(report)
    assert report.deals == [] and report.final_scores == [0, 0, 0, 0]


async def test_seeds_are_revealed_only_once_their_deal_is_over(
    client: AsyncClient, app: Litestar, database_url: str
) -> None:
    """Mid-game, the export shows the seeds of the deals that are over and nothing of the
    deal in play; the verifier checks everything else and says what it could not."""
    table_id, seats, options = await new_game(client, "forty-five")
    player = Player("forty-five", seats, options, seed=3)

    def second_deal_under_way(t: Any) -> bool:
        return t.deals == 2 and len(t.state.tricks) >= 2  # nobody reaches 120 in one deal

    table = await play(client, app.state.service, table_id, player, until=second_deal_under_way)
    assert table.status == "playing"
    document = await export(client, table_id)
    events = events_of(document)

    current = max(e.shuffle for e in events if isinstance(e, CardsDealt))
    revealed = [(i, e) for i, e in enumerate(events) if isinstance(e, SeedRevealed)]
    assert {e.shuffle for _, e in revealed} == set(range(1, current))
    for index, seed in revealed:
        dealt = next(
            i
            for i, e in enumerate(events)
            if isinstance(e, ChanceEvent) and e.shuffle == seed.shuffle
        )
        if isinstance(events[dealt], DealerDrawn):
            assert isinstance(events[index + 1], ChanceEvent)  # revealed as the next deck came
        else:
            assert any(isinstance(e, DEAL_OVER) for e in events[dealt:index])
    with psycopg.connect(database_url) as conn:
        secret = conn.execute(
            "SELECT seed FROM shuffle_secrets WHERE table_id = %s AND shuffle = %s",
            (table_id, current),
        ).fetchone()
    assert secret is not None and bytes(secret[0]).hex().encode() not in document

    report = verify_lines(document.splitlines())
    assert report.ok, render(report)
    assert report.final_scores == list(tables.view(table, "operator").scores)
    assert [d.outcome for d in report.deals][-1] == "in_play"
    assert report.deals[-1].seed is None and all(d.seed for d in report.deals[:-1])
    assert any(note.startswith(f"shuffle {current} ") for note in report.notes)
    assert "1 deal in play, dealt again from its own cards" in render(report)


async def test_cardroom_verify_needs_only_the_file(
    client: AsyncClient, app: Litestar, tmp_path: Path
) -> None:
    """The installed command, in a process that knows of no database or server."""
    table_id = await complete_game(client, app.state.service, "pinochle", seed=5)
    document = await export(client, table_id)
    good, bad = tmp_path / "good.ndjson", tmp_path / "bad.ndjson"
    good.write_bytes(document)
    lines = lines_of(document)
    lines[20]["actor"] = "seat:9"  # any change to a hashed field breaks the chain there
    bad.write_bytes(document_of(lines))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM")}
    environment["CARDROOM_DATABASE_URL"] = "postgresql://nobody@127.0.0.1:1/none"
    command = str(Path(sys.executable).parent / "cardroom")

    def verify(path: Path | str, *options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [command, "verify", str(path), *options],
            capture_output=True,
            text=True,
            env=environment,
            check=False,
            timeout=120,
        )

    passed = verify(good, "--head", lines[0]["head"])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "RESULT: OK" in passed.stdout and table_id in passed.stdout
    assert "the chain ends at the published head" in passed.stdout
    failed = verify(bad)
    assert failed.returncode == 1
    assert "RESULT: FAILED at version 20 (line 21)" in failed.stdout
    short = verify(good, "--head", lines[0]["head"][:16])
    assert short.returncode == 2 and "is not a chain hash" in short.stderr  # not "forged"
    missing = verify(tmp_path / "absent.ndjson")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
