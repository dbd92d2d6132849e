"""The console's watching pages: the tables list, a spectator following a game live, the
operator's replay and the tournament page, each checked by axe-core and photographed."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.conftest import KEEP_ALIVE, Console, relayed, replay_of_moves
from tests.support.browser import (
    SPOKEN,
    assert_accessible,
    body,
    no_errors,
    rendered,
    screenshots,
    shown_cards,
    sign_in,
    wait_for,
)
from tests.support.proxy import Relay

CARD = re.compile(r"^(10|[2-9TJQKA])[SHDC]$")
NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
WORDS = "ace king queen jack ten nine eight seven six five four three two"
RANKS = dict(zip("AKQJT98765432", WORDS.split(" "), strict=True))


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value))
    return set()


def hidden_from_spectators(everything: dict[str, Any]) -> set[str]:
    """The cards the operator's view holds in hands and the undealt stock."""
    return cards_in(everything["hands"]) | cards_in(everything.get("undealt"))


def watching_live(
    browser: WebDriver, console: Console, relay: Relay, name: str
) -> tuple[str, list[str]]:
    """A new four-seat Pitch table, open in the browser through ``relay`` and live."""
    table, tokens = console.table("pitch", 4, name)
    browser.get(f"http://127.0.0.1:{relay.port}/console/tables/{table}")
    rendered(browser, console.view(table)["version"])
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "live")
    return table, tokens


def test_the_first_page_lists_tables_live_and_weighs_little(
    browser: WebDriver, console: Console
) -> None:
    browser.get(f"{console.base}/console")
    wait_for(browser, lambda d: body(d, "rendered"))
    weight = browser.execute_script(
        "const all = [...performance.getEntriesByType('navigation'),"
        " ...performance.getEntriesByType('resource')];"
        "return all.reduce((n, e) => n + (e.encodedBodySize || 0), 0)"
    )
    assert 0 < weight <= 150_000, weight

    table, _ = console.table("pitch", 4, "list")  # appears without reloading the page
    link = f'a[href="/console/tables/{table}"]'
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, link))
    assert_accessible(browser, "tables list")
    screenshots(browser, "tables")
    no_errors(browser)


def test_a_spectator_follows_a_game_within_a_second_and_never_sees_a_hidden_card(
    browser: WebDriver, console: Console
) -> None:
    options = {"all_pass": "stick_dealer", "game_end": "highest"}
    table, tokens = console.table("pitch", 4, "h", options=options)
    browser.get(f"{console.base}/console/tables/{table}")
    view = console.view(table)
    rendered(browser, view["version"])
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "live")
    slowest = 0.0
    while view["status"] != "finished":
        view = console.act(table, tokens)
        sent = time.monotonic()
        rendered(browser, view["version"], seconds=1.0)
        slowest = max(slowest, time.monotonic() - sent)

        everything = console.view(table, console.operator)
        hidden = hidden_from_spectators(everything)
        assert not shown_cards(browser) & hidden
        page = browser.page_source
        for card in hidden:
            assert f"{RANKS[card[0]]} of {NAMES[card[1]]}" not in page, card
        if view["version"] == 20:
            assert_accessible(browser, "spectator page")
            screenshots(browser, "spectator")
    assert body(browser, "status") == "finished"
    print(f"spectator page: slowest update {slowest:.3f} s after the command's answer")
    no_errors(browser)


def test_the_table_page_resumes_its_stream_after_the_connection_drops(
    browser: WebDriver, console: Console
) -> None:
    with relayed(browser, console) as relay:
        table, tokens = watching_live(browser, console, relay, "drop")
        first = console.view(table)["version"]
        console.act(table, tokens)
        relay.drop()  # the page's stream ends; moves go on meanwhile
        for _ in range(3):
            last = console.act(table, tokens)["version"]
        rendered(browser, last)
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "live")
        # The stream's catch-up may still be arriving when the view is drawn (a read of
        # its own): wait for the last event in the log, then look at the whole log.
        versions = (
            "return [...document.querySelectorAll('.log li')].map(li => Number(li.dataset.version))"
        )
        logged = wait_for(browser, lambda d: (v := d.execute_script(versions)) and last in v and v)
        assert sorted(logged) == list(range(min(logged), last + 1))  # each once, no gap
        assert min(logged) <= first
        no_errors(browser, expected="net::ERR_")  # the cut connections


def test_a_table_page_whose_stream_goes_silent_reconnects_and_catches_up(
    browser: WebDriver, console: Console
) -> None:
    """The stream's connection stays open but nothing comes through any more (a NAT or
    proxy that forgot it): after three keep-alive intervals of silence the page gives it
    up and resumes on a new one, where it said "live" and froze for good before."""
    with relayed(browser, console) as relay:
        table, tokens = watching_live(browser, console, relay, "silent")
        relay.hold_streams()
        for _ in range(3):
            last = console.act(table, tokens)["version"]
        # Three silent intervals, a reconnection's back-off, a catch-up: well within this.
        rendered(browser, last, seconds=6 * KEEP_ALIVE + 10)
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "live")
        no_errors(browser)


def test_a_read_the_network_swallowed_is_given_up_and_the_table_catches_up(
    browser: WebDriver, console: Console
) -> None:
    """A read of the table goes out on a connection that is dead without anyone knowing
    (it never arrives, no answer comes, nothing fails). The page gives it up after its
    patience and reads again: before, it waited on that read for good and, since its
    reads go one at a time, the board stopped moving while the stream went on "live"."""
    with relayed(browser, console) as relay:
        table, tokens = watching_live(browser, console, relay, "swallowed")
        relay.hold_next(f"GET /tables/{table} ".encode())
        for _ in range(3):
            last = console.act(table, tokens)["version"]
        # Ten seconds' patience (the least), a second's pause, a read: within this.
        rendered(browser, last, seconds=20)
        assert browser.find_element(By.CSS_SELECTOR, ".live").text == "live"
        assert browser.find_element(By.CSS_SELECTOR, ".message").text == ""
        no_errors(browser)


def test_a_seat_revoked_while_its_stream_was_down_goes_on_watching(
    browser: WebDriver, console: Console
) -> None:
    """The network is down when the operator hands the seat on: the stream's next try
    is refused with 401, and the page forgets the token and watches, saying why (it
    stopped at "closed", the seat's old hand still drawn)."""
    with relayed(browser, console) as relay:
        table, tokens = console.table("pitch", 3, "revoked-offline")
        base = f"http://127.0.0.1:{relay.port}"
        browser.get(f"{base}/console")
        browser.execute_script("sessionStorage.clear()")
        browser.get(f"{base}/console/tables/{table}#token={tokens[2]}")
        rendered(browser, console.view(table)["version"])
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "live")
        relay.refuse()
        relay.drop()
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text != "live")
        handed = console.api.post(
            f"/tables/{table}/seats/2/replace", json={"name": "Zed"}, headers=console.op()
        )
        assert handed.status_code == 200, handed.text
        relay.refuse(False)

        sub = "return document.querySelector('.sub')?.textContent || ''"  # across a reload
        wait_for(browser, lambda d: "a spectator" in d.execute_script(sub), seconds=20)
        notice = browser.find_element(By.CSS_SELECTOR, ".notice").text
        assert notice.startswith("This seat's link no longer works"), notice
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-action], [data-seat-command]")
        # The refused tries, and the 401 that told the page: nothing else.
        said = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        known = ("net::ERR_", "401 (Unauthorized)", "favicon")
        assert [m for m in said if not any(k in m for k in known)] == []


def test_replay_steps_back_and_forth_as_get_replay_says(
    browser: WebDriver, console: Console
) -> None:
    table, latest = replay_of_moves(browser, console, "replay", 30)  # the auction, tricks
    assert_accessible(browser, "replay page")
    screenshots(browser, "replay")

    def matches(version: int) -> None:
        wait_for(browser, lambda d: body(d, "rendered") == str(version))
        step = console.api.get(
            f"/tables/{table}/replay?version={version}", headers=console.op()
        ).json()
        said = browser.find_element(By.ID, "said")
        assert said.text.startswith(f"{version}: ")
        assert said.get_attribute("data-type") == step["event"]["event"]["type"]
        assert shown_cards(browser, "main") == cards_in(step["table"]), version
        assert browser.find_element(By.ID, "scrubber").get_attribute("value") == str(version)

    matches(latest)
    browser.execute_script(SPOKEN)
    page = browser.find_element(By.TAG_NAME, "body")
    page.send_keys(Keys.ARROW_LEFT)
    matches(latest - 1)
    # Said once: the position and the step's words were live regions of their own too.
    assert browser.execute_script("return [...new Set(window.spoken)]") == ["announce"]
    for version in range(latest - 2, max(0, latest - 25), -1):
        page.send_keys(Keys.ARROW_LEFT)
        matches(version)
    for version in range(max(1, latest - 24) + 1, max(1, latest - 24) + 6):
        page.send_keys(Keys.ARROW_RIGHT)
        matches(version)
    browser.find_element(By.ID, "back").click()
    matches(max(1, latest - 24) + 4)
    no_errors(browser)


def test_the_tournament_page_shows_the_standings_of_the_api(
    browser: WebDriver, console: Console
) -> None:
    event = console.tournament["id"]
    deadline = time.monotonic() + 180
    while console.api.get(f"/tournaments/{event}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament of computers did not finish"
        time.sleep(0.5)
    standings = console.api.get(f"/tournaments/{event}/standings").json()["entries"]

    browser.get(f"{console.base}/console/tournaments/{event}")
    if not browser.find_elements(By.ID, "signout"):
        sign_in(browser, console.operator)
    wait_for(browser, lambda d: body(d, "status") == "finished")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#standings tbody tr')]"
        ".map(row => [...row.cells].map(cell => cell.textContent))"
    )
    shown_name = {True: "{} (withdrawn)", False: "{}"}
    expected = [
        [
            str(e["rank"]),
            shown_name[e["withdrawn"]].format(e["name"]),
            f"{e['points']:g}",
            f"{e['wins']}–{e['losses']}–{e['draws']}",
        ]
        for e in standings
    ]
    assert [row[:4] for row in shown] == expected
    assert [e["name"] for e in standings if e["withdrawn"]] == ["Dot"]
    assert browser.find_elements(By.CSS_SELECTOR, "#rounds .sheet table")
    assert browser.find_elements(By.CSS_SELECTOR, "#duplicate .compare table")

    saved = Path(tempfile.mkdtemp(prefix="console-export-"))
    browser.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(saved)}
    )
    browser.find_element(By.ID, "download").click()
    export = saved / f"tournament-{event}.ndjson"
    wait_for(browser, lambda d: export.exists() and export.stat().st_size > 0, seconds=30)
    assert json.loads(export.read_text().splitlines()[0])["type"] == "tournament_header"
    browser.find_element(By.ID, "standings-csv").click()
    sheet = saved / f"standings-{event}.csv"
    wait_for(browser, lambda d: sheet.exists() and sheet.stat().st_size > 0, seconds=30)
    rows = list(csv.DictReader(io.StringIO(sheet.read_text())))
    assert [(row["rank"], row["name"]) for row in rows] == [
        (str(e["rank"]), e["name"]) for e in standings
    ]
    shutil.rmtree(saved)

    browser.find_element(By.ID, "verify").click()
    verdict = wait_for(browser, lambda d: d.find_elements(By.ID, "verdict"), seconds=60)
    assert verdict[0].text.startswith("Intact")
    assert_accessible(browser, "tournament page")
    screenshots(browser, "tournament")

    browser.get(f"{console.base}/console/tournaments")
    link = f'a[href="/console/tournaments/{event}"]'
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, link))
    assert_accessible(browser, "tournaments list")
    screenshots(browser, "tournaments")
    no_errors(browser)


def test_operator_buttons_ask_before_they_act(browser: WebDriver, console: Console) -> None:
    table, _ = console.table("pitch", 4, "operator")
    browser.get(f"{console.base}/console/tables/{table}")
    if not browser.find_elements(By.ID, "signout"):
        sign_in(browser, console.operator)
    rendered(browser, console.view(table)["version"])
    assert len(shown_cards(browser, ".felt")) == 4 * 6  # the operator sees every hand

    def button(label: str) -> Any:
        return wait_for(
            browser,
            lambda d: [
                b for b in d.find_elements(By.CSS_SELECTOR, ".operator button") if b.text == label
            ],
        )[0]

    button("Pause").click()
    browser.switch_to.alert.dismiss()  # not confirmed: nothing happens
    assert console.view(table)["paused"] is False

    button("Pause").send_keys(Keys.ENTER)  # from the keyboard
    browser.switch_to.alert.accept()
    wait_for(browser, lambda d: console.view(table)["paused"] is True)
    button("Resume")  # the panel drawn again: the focus stayed in it, not on <body>
    assert browser.execute_script("return Boolean(document.activeElement.closest('.operator'))")
    assert_accessible(browser, "operator's table page")
    screenshots(browser, "operator")
    button("Resume").click()
    browser.switch_to.alert.accept()
    wait_for(browser, lambda d: console.view(table)["paused"] is False)
    no_errors(browser)


def test_a_paused_table_shows_the_time_its_stopped_turn_has_left(
    browser: WebDriver, console: Console
) -> None:
    """The view's ``clock.paused_left``, standing still beside the seat to act: the
    countdown is shown only while the clock runs."""
    clock = {"action_seconds": 20, "bank_seconds": 60}
    table, _ = console.table("pitch", 2, "frozen-clock", clock=clock)
    paused = console.api.post(f"/tables/{table}/pause", headers=console.op())
    assert paused.status_code == 200, paused.text
    view = console.view(table)
    left = view["clock"]["paused_left"][view["to_act"][0]]
    shown = int(left + 0.5)  # as Math.round rounds it
    expected = f"{shown // 60}:{shown % 60:02d} paused"
    browser.get(f"{console.base}/console/tables/{table}")
    rendered(browser, view["version"])
    clocks = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".felt .tag.clock"))
    assert [c.text for c in clocks] == [expected]
    no_errors(browser)


def test_the_tables_list_fits_a_320_pixel_screen(browser: WebDriver, console: Console) -> None:
    """WCAG 1.4.10 (reflow): no sideways scrolling at 320 CSS pixels. The tournament
    filter, 36 characters wide, stuck out of the list's page."""
    metrics = {"width": 320, "height": 640, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        browser.get(f"{console.base}/console")
        wait_for(browser, lambda d: d.find_element(By.ID, "tournament"))
        wide, room = browser.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert wide <= room, (wide, room)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
