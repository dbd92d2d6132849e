"""The console's tests: one real ``cardroom serve`` (real Postgres and Redis) for the
package, one headless Chromium per module, and tables built through the API."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from domain.registry import GAMES
from domain.shuffle import shuffle
from service.tools.bench.harness import running_server
from tests.support import services
from tests.support.browser import open_browser, rendered, require_browser, sign_in
from tests.support.proxy import Relay

NAMES = ("Ann", "Bob", "Cleo", "Dev", "Eve", "Finn", "Gus")  # a table's players, in seat order
KEEP_ALIVE = 2  # seconds between the console server's keep-alives (the default is 15)


class Console(NamedTuple):
    base: str
    operator: str
    api: httpx.Client
    tournament: dict[str, Any]
    database: str  # the server's: a test fires a table's clock there (tests.support.deadlines)

    def op(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.operator}"}

    def table(self, game: str, seats: int, label: str, **extra: Any) -> tuple[str, list[str]]:
        """A table dealt decks fixed by ``label`` (so a game takes the same course every
        run), every seat taken: its id and the seats' tokens."""
        pack = GAMES[game].pack
        decks = [
            {"deck": list(shuffle(pack, hashlib.sha256(f"{label}-{i}".encode()).digest()))}
            for i in range(30)
        ]
        body = {"game": game, "seats": seats, "first_dealer": 0, "deals": decks, **extra}
        created = self.api.post("/tables", json=body, headers=self.op())
        assert created.status_code == 201, created.text
        table = created.json()["id"]
        tokens = []
        for seat, name in zip(range(seats), NAMES, strict=False):
            taken = self.api.post(f"/tables/{table}/seats/{seat}", json={"name": name})
            assert taken.status_code == 201, taken.text
            tokens.append(taken.json()["token"])
        return table, tokens

    def act(self, table: str, tokens: list[str], pick: int = 0) -> dict[str, Any]:
        """The seat to act sends its legal action ``pick`` over the API: the new view."""
        seat = self.view(table)["to_act"][0]
        action = self.view(table, tokens[seat])["legal_actions"][pick]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        answer = self.api.post(f"/tables/{table}/actions", json=action, headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()["table"]  # type: ignore[no-any-return]

    def view(self, table: str, token: str | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.api.get(f"/tables/{table}", headers=headers)
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]


def replay_of_moves(
    browser: WebDriver, console: Console, label: str, moves: int
) -> tuple[str, int]:
    """A four-seat Pitch table ``moves`` commands on, its replay open in ``browser`` (the
    operator signed in) at the latest version: the table's id and that version."""
    table, tokens = console.table("pitch", 4, label)
    for _ in range(moves):
        console.act(table, tokens, pick=-1)
    latest: int = console.view(table)["version"]
    browser.get(f"{console.base}/console/tables/{table}/replay")
    if not browser.find_elements(By.ID, "signout"):
        sign_in(browser, console.operator)
    rendered(browser, latest)
    return table, latest


@contextmanager
def relayed(browser: WebDriver, console: Console) -> Iterator[Relay]:
    """A relay in front of the console's server, for the browser's requests; closed after
    the page is left (or the page would retry through it)."""
    relay = Relay(int(console.base.rsplit(":", 1)[1]))
    try:
        yield relay
    finally:
        browser.get("about:blank")
        browser.get_log("browser")
        relay.close()


def seat_page(browser: WebDriver, console: Console, table: str, token: str) -> None:
    """The page of the seat ``token`` holds at ``table``, drawn at its current version."""
    browser.get(f"{console.base}/console/tables/{table}#token={token}")
    rendered(browser, console.view(table)["version"])


def seat_to_act_page(
    browser: WebDriver, console: Console, game: str, seats: int, label: str
) -> tuple[str, dict[str, Any]]:
    """A new table, in a signed-out tab the page of the seat to act, drawn: the table's id
    and its view."""
    table, tokens = console.table(game, seats, label)
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    view = console.view(table)
    browser.get(f"{console.base}/console/tables/{table}#token={tokens[view['to_act'][0]]}")
    rendered(browser, view["version"])
    return table, view


@pytest.fixture(scope="session")
def console() -> Iterator[Console]:
    """The server, and a duplicate tournament of computers started at once: it plays
    itself out while the other tests run. Its streams send a keep-alive every
    ``KEEP_ALIVE`` seconds, so that a page notices a silent stream within a few."""
    require_browser()
    database = services.fresh_database("console_")
    quick = {"CARDROOM_KEEPALIVE_SECONDS": str(KEEP_ALIVE)}
    with (
        running_server(database, services.redis_url(), extra_env=quick) as server,
        httpx.Client(base_url=server.base, timeout=30) as api,
    ):
        operator = {"Authorization": f"Bearer {server.operator}"}
        body = {"game": "reserve-bridge", "name": "Club night", "format": "duplicate", "rounds": 1}
        event = api.post("/tournaments", json=body, headers=operator).json()
        director = {"Authorization": f"Bearer {event['director_token']}"}
        for name in ("Ada", "Bea", "Cal", "Dot"):
            entry = {"name": name, "computer": True}
            added = api.post(f"/tournaments/{event['id']}/entries", json=entry, headers=director)
            assert added.status_code == 201, added.text
        paired = api.post(f"/tournaments/{event['id']}/rounds", headers=director)
        assert paired.status_code == 201, paired.text
        # Dot withdraws after the only round is paired: her result stands, marked.
        dot = added.json()["entry"]
        gone = api.post(f"/tournaments/{event['id']}/entries/{dot}/withdraw", headers=director)
        assert gone.status_code == 200, gone.text
        yield Console(server.base, server.operator, api, event, database)


@pytest.fixture(scope="module")
def browser(console: Console) -> Iterator[WebDriver]:
    driver = open_browser()
    try:
        yield driver
    finally:
        driver.quit()
