"""Pinochle at a seat page: claiming melds by picking them, burying both copies of a card,
and playing over plain HTTP, where the browser has no ``crypto.randomUUID``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.conftest import Console, seat_page
from tests.support.browser import body, no_errors, rendered, wait_for

# What a page served over plain HTTP at a LAN address lacks: browsers offer randomUUID
# only in a secure context (HTTPS or localhost), and the tests are served on localhost.
NO_SECURE_CONTEXT = "delete Crypto.prototype.randomUUID;"


@pytest.fixture
def insecure(browser: WebDriver) -> Iterator[WebDriver]:
    added = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": NO_SECURE_CONTEXT}
    )
    try:
        yield browser
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]}
        )


def events_of(console: Console, table: str) -> list[dict[str, Any]]:
    answer = console.api.get(f"/tables/{table}/events?after=0&limit=1000", headers=console.op())
    assert answer.status_code == 200, answer.text
    return [e["event"] for e in answer.json()["events"]]


def test_a_meld_is_claimed_by_picking_it_over_plain_http(
    insecure: WebDriver, console: Console
) -> None:
    """Four-hand Pinochle opens on the meld: the seat is offered its best claim ready to
    send, labelled with what it claims, and a choice of its melds to pick from."""
    browser = insecure
    table, tokens = console.table("pinochle-four", 4, "m")
    seat = console.view(table)["to_act"][0]
    offered = console.view(table, tokens[seat])["legal_actions"]
    best = next(a["melds"] for a in offered if isinstance(a.get("melds"), list))
    choice = next(a["melds"] for a in offered if isinstance(a.get("melds"), dict))
    assert len(best) >= 2 and choice["from"] == best  # what this deck deals
    seat_page(browser, console, table, tokens[seat])
    assert browser.execute_script("return typeof crypto.randomUUID") == "undefined"
    labels = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "button.action")]
    ready = next(label for label in labels if label.startswith("Meld "))
    assert "?" not in ready
    for meld in best:
        assert meld["kind"].replace("_", " ") in ready
    wanted = best[-1]
    picker = browser.find_element(By.CSS_SELECTOR, ".picker")
    picker.find_element(By.CSS_SELECTOR, f'button.pick[data-meld="{wanted["kind"]}"]').click()
    picker.find_element(By.CSS_SELECTOR, "button.send").click()
    claimed = wait_for(
        browser,
        lambda d: [e for e in events_of(console, table) if e["type"] == "melds_claimed"],
    )
    assert claimed[0]["seat"] == seat
    assert [m["kind"] for m in claimed[0]["melds"]] == [wanted["kind"]]
    assert not browser.find_elements(By.CSS_SELECTOR, ".message:not(:empty)")
    no_errors(browser)


def test_the_soloist_buries_both_copies_of_a_card(browser: WebDriver, console: Console) -> None:
    """A Pinochle pack holds two of each card: both may be picked to bury."""
    table, tokens = console.table("pinochle", 3, "a")
    console.act(table, tokens, pick=1)  # the first bid, then two passes
    console.act(table, tokens)
    console.act(table, tokens)
    console.act(table, tokens)  # the soloist names trumps
    soloist = console.view(table)["to_act"][0]
    bury = next(
        a["cards"]
        for a in console.view(table, tokens[soloist])["legal_actions"]
        if a["type"] == "bury"
    )
    twice = next(c for c in bury["from"] if bury["from"].count(c) == 2)
    other = next(c for c in bury["from"] if c != twice)
    assert bury["min"] <= 3 <= bury["max"]
    seat_page(browser, console, table, tokens[soloist])
    picker = next(
        p
        for p in browser.find_elements(By.CSS_SELECTOR, ".picker")
        if p.find_elements(By.CSS_SELECTOR, "button.pick[data-card]") and "Bury" in p.text
    )
    for card in (twice, twice, other):
        buttons = picker.find_elements(
            By.CSS_SELECTOR, f'button.pick[data-card="{card}"][aria-pressed="false"]'
        )
        buttons[0].click()
    pressed = picker.find_elements(By.CSS_SELECTOR, 'button.pick[aria-pressed="true"]')
    assert sorted(b.get_attribute("data-card") for b in pressed) == sorted([twice, twice, other])
    picker.find_element(By.CSS_SELECTOR, "button.send").click()
    buried = wait_for(
        browser,
        lambda d: [e for e in events_of(console, table) if e["type"] == "cards_buried"],
    )
    assert sorted(buried[0]["cards"]) == sorted([twice, twice, other])
    no_errors(browser)


def test_a_seat_reads_the_house_rules_of_its_table(browser: WebDriver, console: Console) -> None:
    """The options as words: a chips schedule step by step, yes or no, and the options
    left to the rules said so (not ``null`` or ``[object Object]``)."""
    options = {
        "schedule": [{"bid": 300, "chips": 1}, {"bid": 400, "chips": 4}],
        "must_head_plain": True,
    }
    table, tokens = console.table("pinochle", 3, "o", options=options)
    seat_page(browser, console, table, tokens[0])
    details = browser.find_element(By.CSS_SELECTOR, ".box[aria-label='Scores and details']")
    shown = next(
        dd.text
        for dt, dd in zip(
            details.find_elements(By.CSS_SELECTOR, "dt"),
            details.find_elements(By.CSS_SELECTOR, "dd"),
            strict=True,
        )
        if dt.text == "Options"
    )
    said = dict(item.split(": ", 1) for item in shown.split(" · "))
    assert said["schedule"] == "from 300, 1 chip; from 400, 4 chips"
    assert said["must head plain"] == "yes" and said["roundhouse"] == "no"
    assert said["kitty"] == "as in the rules" and said["deal packets"] == "3"
    assert said["kitty shortfall"] == "as in the rules" and said["scoring"] == "chips"
    no_errors(browser)


def test_a_table_page_opened_while_the_service_is_unavailable_comes_back(
    browser: WebDriver, console: Console
) -> None:
    """The first reads answered 503 (a database restarting): the page says so, tries again
    after the Retry-After, and draws the table once the service answers."""
    table, _ = console.table("pitch", 3, "unavailable")
    unavailable = """
    const real = window.fetch;
    let refused = 0;
    window.fetch = (input, init) => {
      if (String(input).startsWith("/tables/") && refused < 2) {
        refused += 1;
        const problem = {type: "about:blank", title: "Database unavailable", status: 503,
                         detail: "the database did not answer in time; try again shortly"};
        return Promise.resolve(new Response(JSON.stringify(problem), {status: 503,
          headers: {"Content-Type": "application/problem+json", "Retry-After": "1"}}));
      }
      return real(input, init);
    };
    """
    added = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": unavailable}
    )
    try:
        browser.get(f"{console.base}/console/tables/{table}")
        wait_for(
            browser, lambda d: "Not available just now" in d.find_element(By.TAG_NAME, "h1").text
        )
        rendered(browser, console.view(table)["version"])
        assert body(browser, "status") == "playing"
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]}
        )
    no_errors(browser, expected="503")
