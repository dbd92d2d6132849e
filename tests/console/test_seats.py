"""Seat pages (``/console/tables/{id}#token=…``): people play whole games by clicking
their legal actions, and a seat's page never shows another seat's cards."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.conftest import Console
from tests.support.browser import (
    assert_accessible,
    body,
    no_errors,
    rendered,
    screenshots,
    wait_for,
)

# Chooses which legal action (by its index in ``legal_actions``) the player clicks.
Chooser = Callable[[int, dict[str, Any]], int]


def first(step: int, view: dict[str, Any]) -> int:
    return 0


def open_seats(browser: WebDriver, console: Console, table: str, tokens: list[str]) -> list[str]:
    """A tab per seat, each opened with its seat link; the token leaves the address bar."""
    handles = []
    for token in tokens:
        browser.switch_to.new_window("tab")
        browser.get(f"{console.base}/console/tables/{table}#token={token}")
        wait_for(browser, lambda d: body(d, "rendered"))
        assert "token" not in browser.current_url
        handles.append(browser.current_window_handle)
    return handles


# What the test reads of a seat's page in one round trip: the version drawn, whether
# its legal actions are on the page, every face-up card.
PROBE = """
return {
  rendered: Number(document.body.dataset.rendered || 0),
  actions: document.querySelectorAll("[data-action]").length,
  cards: [...document.querySelectorAll("svg[data-card]")].map(e => e.dataset.card),
};
"""


def ready(browser: WebDriver, version: int) -> dict[str, Any] | None:
    """The page's probe once it has drawn ``version`` with its legal actions."""
    page: dict[str, Any] = browser.execute_script(PROBE)
    return page if page["rendered"] >= version and page["actions"] else None


def click_action(browser: WebDriver, index: int, keyboard: bool = False) -> None:
    """Clicks legal action ``index``: a card of the hand, a button, or, for a choice of
    cards, the first cards it needs and then its send button. With ``keyboard``, each
    control is pressed from the keyboard instead (Space on a card to pick, Enter)."""
    target = browser.find_element(By.CSS_SELECTOR, f'[data-action="{index}"]')

    def press(control: Any, key: str = Keys.ENTER) -> None:
        if keyboard:
            control.send_keys(key)  # focuses the control, then the key
        else:
            control.click()

    if "send" in (target.get_attribute("class") or ""):
        picker = target.find_element(By.XPATH, "./ancestor::div[@class='picker']")
        needed = int(target.get_attribute("data-min") or 0)
        for card in picker.find_elements(By.CSS_SELECTOR, "button.pick")[:needed]:
            press(card, Keys.SPACE)
    press(target)


def play_by_clicking(
    browser: WebDriver,
    console: Console,
    table: str,
    handles: list[str],
    done: Callable[[dict[str, Any]], bool],
    choose: Chooser = first,
    limit: int = 400,
) -> dict[str, Any]:
    """The seat to act clicks in its own tab, until ``done``. At every step each page
    shows its own hand face up and no card of another hand."""
    for step in range(limit):
        view = console.view(table)
        if done(view):
            return view
        seat = view["to_act"][0]
        if browser.current_window_handle != handles[seat]:
            browser.switch_to.window(handles[seat])
        version = view["version"]
        try:
            page = wait_for(browser, lambda d, v=version: ready(d, v))
        except Exception as exc:
            live = browser.find_element(By.CSS_SELECTOR, ".live").text
            raise AssertionError(
                f"step {step}, seat {seat}: the page drew {body(browser, 'rendered')}, not"
                f" {view['version']} (stream {live}); {browser.get_log('browser')}"
            ) from exc
        everything = console.view(table, console.operator)
        hands = everything["hands"]
        hidden = {c for other, hand in enumerate(hands) if other != seat for c in hand}
        shown = set(page["cards"])
        assert set(everything["hands"][seat]) <= shown
        assert not shown & hidden, f"seat {seat} sees {shown & hidden}"
        # Every third move from the keyboard: each control works without a pointer.
        click_action(browser, choose(step, view), keyboard=step % 3 == 2)
        rendered(browser, view["version"] + 1)
    raise AssertionError("the game did not end")


def test_four_seat_pages_play_a_whole_pitch_game_by_clicking(
    browser: WebDriver, console: Console
) -> None:
    options = {"all_pass": "stick_dealer", "game_end": "highest"}
    table, tokens = console.table("pitch", 4, "h", options=options)
    handles = open_seats(browser, console, table, tokens)
    assert_accessible(browser, "seat page")
    screenshots(browser, "seat")

    end = play_by_clicking(browser, console, table, handles, lambda v: v["status"] == "finished")

    assert end["result"]["winners"]
    for handle in handles:
        browser.switch_to.window(handle)
        rendered(browser, end["version"])
        assert body(browser, "status") == "finished"
        no_errors(browser)
    screenshots(browser, "seat-finished")
    for handle in handles[1:]:
        browser.switch_to.window(handle)
        browser.close()
    browser.switch_to.window(handles[0])


def test_two_seat_pages_play_a_reserve_bridge_deal_with_its_reserves(
    browser: WebDriver, console: Console
) -> None:
    table, tokens = console.table("reserve-bridge", 2, "a")
    handles = open_seats(browser, console, table, tokens)

    def bid_first(step: int, view: dict[str, Any]) -> int:
        return 1 if step == 0 else 0  # open with the lowest bid, then the first choice

    laid: list[str] = []

    def reserve_screenshot(step: int, view: dict[str, Any]) -> int:
        if browser.find_elements(By.CSS_SELECTOR, ".picker") and not laid:
            laid.append(view["phase"])
            assert_accessible(browser, "seat page choosing a reserve")
            screenshots(browser, "seat-reserve")
        return bid_first(step, view)

    play_by_clicking(
        browser, console, table, handles, lambda v: v["deal"] > 1, choose=reserve_screenshot
    )

    events = console.api.get(f"/tables/{table}/events?after=0&limit=1000").json()["events"]
    kinds = [e["event"]["type"] for e in events]
    assert kinds.count("reserve_laid") == 2
    assert "hand_scored" in kinds
    assert laid

    # Seat 1 gives the game up: a confirmed click on Resign (two sides: it is offered).
    browser.switch_to.window(handles[1])

    def resign() -> None:
        # Found afresh for each click: the live page may have been drawn again since.
        wait_for(
            browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-seat-command="resign"]')
        )[0].click()

    resign()
    browser.switch_to.alert.dismiss()  # asked first: nothing is sent without a yes
    assert console.view(table)["status"] == "playing"
    resign()
    browser.switch_to.alert.accept()
    end = wait_for(browser, lambda d: (v := console.view(table))["status"] == "finished" and v)
    assert end["result"]["winners"] == [0] and end["result"]["losers"] == [1]
    for handle in handles:
        browser.switch_to.window(handle)
        rendered(browser, end["version"])
        assert body(browser, "status") == "finished"
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-seat-command]")
        no_errors(browser)
