"""Whole games of every game through the Python client generated from the committed spec.

Only the generated client (openapi-python-client) talks to the server — a real uvicorn on
a loopback port: it creates the table, seats the players, reads each seat's view and sends
one of its ``legal_actions`` with ``If-Match`` and an ``Idempotency-Key``, until the
table is finished. What it parses must be what the server sends.
"""

from __future__ import annotations

import random
import typing
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from domain.registry import GAMES
from service.audit.verify import verify_lines
from service.choices import choose, pick_index
from service.http.app import create_app
from tests.api.test_reserve_bridge_api import choose as choose_bridge
from tests.api.test_reserve_bridge_api import strong_deck
from tests.conftest import OPERATOR_TOKEN, make_settings
from tests.support import services
from tests.support.generated import require
from tests.support.live import serving
from tests.support.pinochle import pick_pinochle

try:
    import cardroom_client
    from cardroom_client import models
    from cardroom_client.api.audit import export_table
    from cardroom_client.api.tables import create_table, get_table, post_action, take_seat
except ImportError:
    cardroom_client = None

require(cardroom_client is not None, "the generated Python client (cardroom_client)")

Chooser = Callable[[dict[str, Any], random.Random], dict[str, Any]]


def by_index(pick: Callable[[list[dict[str, Any]], random.Random], int]) -> Chooser:
    def chooser(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        actions = view["legal_actions"]
        return choose(actions[pick(actions, rng)], rng)

    return chooser


# Biases that make random games end sooner; every choice is still one of legal_actions.
# Reserve Bridge deals from stacked decks (operator only) so that its rubber is short.
CHOOSERS: dict[str, Chooser] = {"reserve-bridge": choose_bridge}
OPERATOR_BODY: dict[str, dict[str, Any]] = {
    "reserve-bridge": {"first_dealer": 0, "deals": [{"deck": strong_deck()}] * 30}
}
OPTIONS: dict[str, dict[str, Any]] = {"pinochle": {"deals": 2}}

# The command models of the postAction body, to build one from a filled-in legal action.
COMMANDS: tuple[Any, ...] = (
    typing.get_args(typing.get_type_hints(post_action.asyncio_detailed)["body"])
    if cardroom_client
    else ()
)


def command_model(command: dict[str, Any]) -> Any:
    for model in COMMANDS:
        try:
            return model.from_dict(command)
        except (KeyError, ValueError, TypeError):
            continue
    raise AssertionError(f"no generated command model takes {command}")


def create_model(body: dict[str, Any]) -> Any:
    """The generated create body of this game, e.g. ``CreateFortyFive``."""
    name = "Create" + "".join(part.capitalize() for part in body["game"].split("-"))
    return getattr(models, name).from_dict(body)


@pytest.fixture(scope="module")
async def base_url() -> AsyncIterator[str]:
    async with serving(create_app(make_settings(services.fresh_database("gen_")))) as url:
        yield url


@pytest.mark.parametrize("game_id", list(GAMES))
async def test_a_whole_game_through_the_generated_client(base_url: str, game_id: str) -> None:
    game = GAMES[game_id]
    rng = random.Random(game_id)
    chooser = CHOOSERS.get(game_id) or by_index(
        pick_pinochle if game_id.startswith("pinochle") else pick_index
    )
    operator = cardroom_client.AuthenticatedClient(base_url=base_url, token=OPERATOR_TOKEN)
    anyone = cardroom_client.Client(base_url=base_url)
    body = {"game": game_id, "seats": game.min_seats, "options": OPTIONS.get(game_id, {})}
    created = await create_table.asyncio_detailed(
        client=operator, body=create_model({**body, **OPERATOR_BODY.get(game_id, {})})
    )
    assert created.status_code == 201, created.content
    table_id = uuid.UUID(created.parsed.id)

    seats = []
    for seat in range(game.min_seats):
        granted = await take_seat.asyncio_detailed(
            table_id,
            seat,
            client=anyone,
            body=models.TakeSeat(name=f"gen {seat}"),
            idempotency_key=str(uuid.uuid4()),
        )
        assert granted.status_code == 201, granted.content
        seats.append(
            cardroom_client.AuthenticatedClient(base_url=base_url, token=granted.parsed.token)
        )

    view = (await get_table.asyncio_detailed(table_id, client=seats[0])).parsed
    commands = 0
    while view.status != "finished":
        seat = rng.choice(view.to_act)
        mine = await get_table.asyncio_detailed(table_id, client=seats[seat])
        assert mine.status_code == 200, mine.content
        etag = mine.headers["etag"]
        if commands == 0:  # a conditional GET while nothing changed: 304, no body
            again = await get_table.asyncio_detailed(
                table_id, client=seats[seat], if_none_match=etag
            )
            assert again.status_code == 304 and again.parsed is None
        command = command_model(chooser(mine.parsed.to_dict(), rng))
        acted = await post_action.asyncio_detailed(
            table_id,
            client=seats[seat],
            body=command,
            if_match=etag,
            idempotency_key=uuid.uuid4().hex,
        )
        assert acted.status_code == 200, acted.content
        assert isinstance(acted.parsed, models.ActionResult)
        view = acted.parsed.table
        commands += 1
    assert view.game == game_id and view.winners

    # The finished table's export, as the client hands it over.
    exported = await export_table.asyncio_detailed(table_id, client=operator)
    assert exported.status_code == 200, exported.content
    report = verify_lines(exported.parsed.payload.read().splitlines())
    assert report.ok and report.events == view.version, report.failure
