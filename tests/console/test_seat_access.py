"""A seat's page for players who cannot see it, play from the keyboard or hold a phone:
what is said aloud, which cards stand out, where the focus goes and what stays in sight."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.conftest import Console, seat_page
from tests.support.browser import DESKTOP, rendered, wait_for
from tests.support.deadlines import expire_on

SHEET = ".box[aria-label='Score sheet']"
SUITS = "SHCD"
RANKS = "AKQJT98765432"

# Installed on a page: records every text the page says aloud from then on, from its
# status region and from live regions such as the log.
LISTEN = """
window.heard = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    const region = change.target.nodeType === 1 ? change.target : change.target.parentElement;
    const live = region && region.closest('[aria-live]');
    if (!live || live.getAttribute('aria-live') === 'off') continue;
    const added = [...change.addedNodes].map((n) => n.textContent).join(' ');
    window.heard.push(live.id === 'announce' ? live.textContent : added);
  }
}).observe(document.body, {childList: true, subtree: true, characterData: true});
"""


def played_into_a_trick(
    console: Console, label: str, seats: int = 2
) -> tuple[str, list[str], dict[str, Any]]:
    """A Pitch table moved on over the API until the seat to act answers a trick holding
    a card and may not play every card it holds: the table, its tokens and that seat's
    view."""
    table, tokens = console.table("pitch", seats, label)
    for _ in range(60):
        seat = console.view(table)["to_act"][0]
        view = console.view(table, tokens[seat])
        plays = [a for a in view["legal_actions"] if a["type"] == "play"]
        if (view["trick"] or {}).get("cards") and plays and len(plays) < len(view["hand"]):
            return table, tokens, view
        console.act(table, tokens, pick=-1)
    raise AssertionError("no trick to follow came up")


def contrast(one: tuple[float, ...], two: tuple[float, ...]) -> float:
    """WCAG's contrast ratio of two sRGB colours (0–255 a channel)."""

    def luminance(rgb: tuple[float, ...]) -> float:
        linear = [
            c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
            for c in (x / 255 for x in rgb[:3])
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def rgb(css: str) -> tuple[float, ...]:
    """``rgb(1, 2, 3)`` or ``rgba(1, 2, 3, 0.5)`` → (1, 2, 3)."""
    inside = css[css.index("(") + 1 : css.index(")")]
    return tuple(float(part) for part in inside.replace("/", ",").split(",")[:3])


def test_the_turn_coming_round_is_said_and_the_log_reads_out_each_move(
    browser: WebDriver, console: Console
) -> None:
    table, tokens = console.table("pitch", 2, "said-aloud")
    waiting = 1 - console.view(table)["to_act"][0]
    seat_page(browser, console, table, tokens[waiting])
    browser.execute_script(LISTEN)

    after = console.act(table, tokens)  # the other seat bids: now this one is to act
    assert after["to_act"] == [waiting]
    rendered(browser, after["version"])
    mover = ("Ann", "Bob")[1 - waiting]

    def the_move_heard(driver: WebDriver) -> list[str] | None:
        heard: list[str] = driver.execute_script("return window.heard")
        return heard if any(t.startswith(f"{after['version']} {mover}") for t in heard) else None

    assert "Your turn." in wait_for(browser, the_move_heard)


def test_only_the_cards_that_may_be_played_stand_out_in_a_hand_sorted_by_suit(
    browser: WebDriver, console: Console
) -> None:
    table, tokens, view = played_into_a_trick(console, "follow-suit")
    seat_page(browser, console, table, tokens[view["you"]])

    playable = {a["card"] for a in view["legal_actions"] if a["type"] == "play"}
    hand = browser.execute_script(
        "return [...document.querySelectorAll('.hand li')].map((li) => ({"
        " card: li.querySelector('svg[data-card]').dataset.card,"
        " button: !!li.querySelector('button'), text: li.textContent,"
        " opacity: Number(getComputedStyle(li.querySelector('svg')).opacity)}))"
    )
    assert sorted(card["card"] for card in hand) == sorted(view["hand"])
    for card in hand:
        may = card["card"] in playable
        assert card["button"] is may
        assert ("not playable now" in card["text"]) is not may
        assert (card["opacity"] == 1) is may, card
    places = [(SUITS.index(c["card"][-1]), RANKS.index(c["card"][:-1])) for c in hand]
    assert places == sorted(places)


@pytest.mark.parametrize("background", ["panel", "felt"])
def test_the_keyboard_focus_stands_out_from_what_it_is_on(
    browser: WebDriver, console: Console, background: str
) -> None:
    """The ring (WCAG's 3:1 for what is not text) against the white panel the cards
    and buttons stand on, and against the felt."""
    table, tokens, view = played_into_a_trick(console, "focus-ring")
    seat_page(browser, console, table, tokens[view["you"]])
    card = browser.find_element(By.CSS_SELECTOR, ".hand button.card-button")
    card.send_keys(Keys.NULL)  # focuses it, as Tab would
    assert browser.execute_script("return document.activeElement.matches(':focus-visible')")
    ring = browser.execute_script(
        "const s = getComputedStyle(document.activeElement);"
        " return [s.outlineColor, s.outlineWidth, s.boxShadow];"
    )
    behind = {"panel": (255, 255, 255), "felt": (13, 90, 52)}[background]
    colours = [rgb(ring[0]), rgb(ring[2])]
    assert float(ring[1].removesuffix("px")) >= 2
    assert max(contrast(colour, behind) for colour in colours) >= 3, ring


def play_until_scored(console: Console, table: str, tokens: list[str], hands: int) -> None:
    """Moves over the API, the lowest bid in each auction (all passing deals again), until
    ``hands`` hands in all have been scored."""

    def scored() -> int:
        page = console.api.get(f"/tables/{table}/events", headers=console.op()).json()
        return sum(item["event"]["type"] == "hand_scored" for item in page["events"])

    while scored() < hands:
        view = console.view(table)
        console.act(table, tokens, pick=1 if view["phase"] == "auction" else 0)


def test_the_score_sheet_read_again_keeps_the_focus(browser: WebDriver, console: Console) -> None:
    table, tokens = console.table("pitch", 2, "sheet-focus")
    play_until_scored(console, table, tokens, 1)
    seat_page(browser, console, table, tokens[0])
    region = wait_for(
        browser,
        lambda d: d.find_elements(By.CSS_SELECTOR, f"{SHEET} .scroll"),
    )[0]
    region.send_keys(Keys.NULL)  # focuses it, as Tab would

    play_until_scored(console, table, tokens, 2)  # the sheet is drawn anew with the hand
    wait_for(
        browser,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{SHEET} tbody tr")) == 2,
    )

    assert browser.execute_script(
        "return document.activeElement.closest(\".box[aria-label='Score sheet']\") !== null"
    )


def test_the_headings_of_a_seat_and_a_spectator_page_nest(
    browser: WebDriver, console: Console
) -> None:
    table, tokens = console.table("pitch", 3, "headings")
    console.act(table, tokens)
    for link in (f"#token={tokens[0]}", ""):
        browser.get(f"{console.base}/console/tables/{table}{link}")
        rendered(browser, console.view(table)["version"])
        levels = browser.execute_script(
            "return [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]"
            ".map((e) => Number(e.tagName[1]))"
        )
        assert levels[0] == 1
        skips = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
        assert not skips, (link, levels)


@pytest.mark.parametrize("size", [(375, 667), (1366, 657)], ids=["phone", "laptop"])
def test_the_trick_and_the_hand_are_in_sight_together(
    browser: WebDriver, console: Console, size: tuple[int, int]
) -> None:
    """``size`` is the page's viewport: a phone's (where the other three seats stack
    between the trick and the seat's own panel), and a 1366 x 768 laptop's below the
    browser's bars. With the trick scrolled to the top, the seat's panel is below it and
    its whole hand in the window."""
    table, tokens, view = played_into_a_trick(console, "in-sight", seats=4)
    browser.set_window_size(*size)
    bars = browser.execute_script("return window.outerHeight - window.innerHeight")
    browser.set_window_size(size[0], size[1] + bars)
    try:
        seat_page(browser, console, table, tokens[view["you"]])
        browser.execute_script("document.querySelector('.centre .trick').scrollIntoView()")
        trick, panel, hand, height = browser.execute_script(
            "const box = (s) => { const r = document.querySelector(s).getBoundingClientRect();"
            " return [r.top, r.bottom]; };"
            " return [box('.centre .trick'), box('.mine section'), box('.mine .hand'),"
            " window.innerHeight];"
        )
        assert height == size[1]
        assert trick[0] >= -1 and trick[1] <= panel[0] <= hand[0] and hand[1] <= height, (
            trick,
            panel,
            hand,
        )
    finally:
        browser.set_window_size(*DESKTOP)


def test_a_seat_marked_absent_comes_back_with_one_click(
    browser: WebDriver, console: Console
) -> None:
    """A player whose turns ran out is marked absent and the computer plays his turns at
    once, so his page never had a move to offer: nothing on it sent ``return``, and he
    had lost his seat for the rest of the game. Here Ann's turns run out (the test fires
    her clock at its deadline) while Bob plays his at once; her page says she is away and
    offers to come back (Bob then stops: the table waits for him, so it cannot finish
    meanwhile)."""
    clock = {"action_seconds": 20, "bank_seconds": 0}
    created = console.api.post("/tables", json={"game": "pitch", "seats": 2, "clock": clock})
    assert created.status_code == 201, created.text
    table = created.json()["id"]
    tokens = []
    for seat, name in enumerate(("Ann", "Bob")):
        taken = console.api.post(f"/tables/{table}/seats/{seat}", json={"name": name})
        assert taken.status_code == 201, taken.text
        tokens.append(taken.json()["token"])
    seat_page(browser, console, table, tokens[0])

    def ann_absent(driver: WebDriver) -> bool:
        view = console.view(table)
        if view["seats"][0]["absent"]:
            return True
        if view["to_act"] == [1]:
            console.act(table, tokens)
        elif view["to_act"] == [0]:
            asyncio.run(expire_on(console.database, table))
        return False

    wait_for(browser, ann_absent)
    back = "button[data-seat-command='return']"
    # (Drawn between the absence and the computer's move, a version where the seat is
    # to act says "Your turn": the computer's move follows at once.)
    wait_for(
        browser,
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, back) and heading_of(d).startswith("You are away")
        ),
    )
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, back).click() or True)
    wait_for(browser, lambda d: not console.view(table)["seats"][0]["absent"])
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, back))
    assert not heading_of(browser).startswith("You are away")


def heading_of(browser: WebDriver) -> str:
    return str(browser.find_element(By.CSS_SELECTOR, ".yours h2").text)


PHONE = (360, 740)
# Installed on a page: its next POST waits for ``window.releasePost()``.
HOLD_POSTS = """
const send = window.fetch;
window.fetch = async (path, init) => {
  if (init && init.method === 'POST') {
    await new Promise((resolve) => { window.releasePost = resolve; });
    window.fetch = send;
  }
  return send(path, init);
};
"""


def on_a_phone(browser: WebDriver) -> None:
    browser.set_window_size(*PHONE)


@pytest.mark.parametrize(("game", "seats"), [("reserve-bridge", 2), ("forty-five", 4)])
def test_on_a_phone_no_seat_lies_over_another(
    browser: WebDriver, console: Console, game: str, seats: int
) -> None:
    """The seat's own box on the felt took the sticky place meant for its panel and lay
    over the seat drawn before it: in a game of two, the only opponent's cards, tricks
    and score were under it."""
    table, tokens = console.table(game, seats, f"stacked-{game}")
    on_a_phone(browser)
    try:
        seat_page(browser, console, table, tokens[0])
        for top in (0, 400, 100_000):  # wherever the page is scrolled to
            browser.execute_script(f"window.scrollTo(0, {top})")
            boxes = browser.execute_script(
                "return [...document.querySelectorAll('.felt .seat')].map((e) => {"
                " const r = e.getBoundingClientRect(); return [r.top, r.bottom]; })"
            )
            assert len(boxes) == seats
            overlaps = [
                (a, b) for a, b in itertools.combinations(boxes, 2) if a[0] < b[1] and b[0] < a[1]
            ]
            assert not overlaps, (top, boxes)
    finally:
        browser.set_window_size(*DESKTOP)


def test_a_pause_while_others_are_to_act_is_said_on_the_seats_panel(
    browser: WebDriver, console: Console
) -> None:
    """The panel was redrawn only when the hand, the actions, the turn or the status
    changed: paused while another seat was to act, it still said "Waiting for the
    others" (and a seat that came back still showed "I'm back")."""
    table, tokens = console.table("pitch", 2, "paused-panel")
    waiting = 1 - console.view(table)["to_act"][0]
    seat_page(browser, console, table, tokens[waiting])
    assert heading_of(browser) == "Waiting for the others"
    paused = console.api.post(f"/tables/{table}/pause", headers=console.op())
    assert paused.status_code == 200, paused.text
    wait_for(browser, lambda d: heading_of(d) == "The table is paused")
    resumed = console.api.post(f"/tables/{table}/resume", headers=console.op())
    assert resumed.status_code == 200, resumed.text
    wait_for(browser, lambda d: heading_of(d) == "Waiting for the others")


def test_on_a_touch_screen_a_card_tapped_twice_looks_unpicked(
    browser: WebDriver, console: Console
) -> None:
    """A touch screen keeps :hover on the element tapped last, and the hover looked as
    a picked card does: a card picked and unpicked still looked picked."""
    table, tokens = console.table("pinochle", 3, "touch")
    for pick in (1, 0, 0, 0):  # the first bid, two passes, trumps named
        console.act(table, tokens, pick=pick)
    soloist = console.view(table)["to_act"][0]
    seat_page(browser, console, table, tokens[soloist])
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "hover", "value": "none"}]}
    )
    try:
        card = browser.find_element(By.CSS_SELECTOR, "button.card-button.pick[data-card]")
        plain = card.value_of_css_property("background-color")
        card.click()
        assert card.get_attribute("aria-pressed") == "true"
        card.click()  # the pointer stays on it, as a finger's last tap does
        assert card.get_attribute("aria-pressed") == "false"
        assert card.value_of_css_property("background-color") == plain
        assert card.value_of_css_property("transform") in ("none", "")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_on_a_phone_a_refused_move_is_said_in_sight(browser: WebDriver, console: Console) -> None:
    """The refusal is written above the board: with the page scrolled down to the trick,
    it was said out of sight and the tap seemed to do nothing."""
    table, tokens, view = played_into_a_trick(console, "refused-in-sight", seats=4)
    on_a_phone(browser)
    try:
        seat_page(browser, console, table, tokens[view["you"]])
        browser.execute_script("document.querySelector('.centre .trick').scrollIntoView()")
        # The same seat plays from another device while this tap is on its way: the
        # page's move is held until the other one is in.
        browser.execute_script(HOLD_POSTS)
        browser.find_element(By.CSS_SELECTOR, ".yours .hand button.card-button").click()
        wait_for(browser, lambda d: d.execute_script("return Boolean(window.releasePost)"))
        console.act(table, tokens)
        browser.execute_script("window.releasePost()")
        message = wait_for(
            browser, lambda d: d.find_element(By.CSS_SELECTOR, ".message:not(:empty)")
        )
        top, bottom, height = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            " return [r.top, r.bottom, window.innerHeight];",
            message,
        )
        assert top >= 0 and bottom <= height, (top, bottom, height)
    finally:
        browser.set_window_size(*DESKTOP)
