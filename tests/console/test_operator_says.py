"""What the operator's and a director's pages say, from a review of them in Chromium: a
token the service does not know is refused at sign-in, an export the service refuses is
said and never saved, the lists of tables and tournaments page to the older ones, an open tournament
ranks its partnerships, a waiting table can be aborted or given to the computer, score
sheets tell two computers apart, a timed round shows when time is called, and a table
page the service refused does not claim to be connecting."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from service.tools.bench.harness import running_server
from tests.console.conftest import Console, relayed
from tests.support import services
from tests.support.browser import (
    SPOKEN,
    assert_accessible,
    no_errors,
    rendered,
    screenshots,
    sign_in,
    wait_for,
)


def signed_in(browser: WebDriver, console: Console, token: str, base: str = "") -> None:
    """A fresh tab signed in with ``token``, at ``base`` (a relay's) or the console's."""
    base = base or console.base
    browser.get(f"{base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{base}/console")
    sign_in(browser, token)


def tournament(console: Console, **extra: Any) -> dict[str, Any]:
    body = {"game": "forty-five", "name": "Tuesday", **extra}
    made = console.api.post("/tournaments", json=body, headers=console.op())
    assert made.status_code == 201, made.text
    return made.json()  # type: ignore[no-any-return]


def text_of(browser: WebDriver, selector: str) -> str:
    return str(browser.find_element(By.CSS_SELECTOR, selector).text)


def test_a_token_the_service_does_not_know_is_refused_at_sign_in(
    browser: WebDriver, console: Console
) -> None:
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{console.base}/console")
    browser.find_element(By.ID, "operator-token").send_keys("wrong-token-xyz")
    browser.find_element(By.CSS_SELECTOR, "#operator-form button").click()
    said = wait_for(browser, lambda d: d.find_element(By.ID, "signin-said").text)
    assert said == "The service does not know that token."
    assert not browser.find_elements(By.ID, "signout")
    assert browser.execute_script("return sessionStorage.length") == 0
    no_errors(browser, expected="401")


def test_a_players_token_is_refused_at_sign_in(browser: WebDriver, console: Console) -> None:
    """A seat's token was kept as the operator's: the pages said "the operator (every
    hand)" and drew the operator's buttons, each refused when clicked."""
    _, tokens = console.table("pitch", 2, "seat-sign-in")
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{console.base}/console")
    browser.find_element(By.ID, "operator-token").send_keys(tokens[0])
    browser.find_element(By.CSS_SELECTOR, "#operator-form button").click()
    said = wait_for(browser, lambda d: d.find_element(By.ID, "signin-said").text)
    assert said.startswith("That is a seat's token, not the operator's"), said
    assert not browser.find_elements(By.ID, "signout")
    assert browser.execute_script("return sessionStorage.length") == 0
    no_errors(browser)


def test_an_export_refused_is_said_and_not_saved(browser: WebDriver, console: Console) -> None:
    """Another tournament's director clicked *Download the export* and got the 403
    problem saved as the export, and no word on the page."""
    mine, other = tournament(console), tournament(console)
    signed_in(browser, console, mine["director_token"])
    browser.get(f"{console.base}/console/tournaments/{other['id']}")
    button = wait_for(browser, lambda d: d.find_element(By.ID, "download"))
    button.click()
    said = wait_for(browser, lambda d: d.find_element(By.ID, "verification").text)
    assert said.startswith("The export could not be downloaded: exports are for the operator")
    assert not browser.execute_script("return document.querySelectorAll('a[download]').length")
    no_errors(browser, expected="403")


def test_the_tables_list_pages_to_the_older_tables(browser: WebDriver, console: Console) -> None:
    for _ in range(51):  # more than a page, of a game no other test leaves waiting
        made = console.api.post("/tables", json={"game": "pinochle-widow", "seats": 3})
        assert made.status_code == 201, made.text
    query = "game=pinochle-widow&status=waiting"
    first = console.api.get(f"/tables?{query}&limit=50").json()
    assert first["next"]
    second = console.api.get(f"/tables?{query}&limit=50&cursor={first['next']}").json()
    signed_in(browser, console, console.operator)
    browser.get(f"{console.base}/console?{query}")
    wait_for(browser, lambda d: d.find_element(By.ID, "older")).click()
    wait_for(browser, lambda d: "after the newer ones" in d.find_element(By.ID, "tables").text)
    links = browser.find_elements(By.CSS_SELECTOR, "#tables td a")
    assert str(links[0].get_attribute("href")).endswith(second["tables"][0]["id"])
    assert "Newest tables" in text_of(browser, "#tables .pages")
    no_errors(browser)


def test_an_open_tournament_ranks_its_partnerships(browser: WebDriver, console: Console) -> None:
    event = tournament(console)
    players = {"players": ["Ann", "Bob", "Cy", "Di"]}
    path = f"/tournaments/{event['id']}/tables"
    opened = console.api.post(path, json=players, headers=console.op())
    assert opened.status_code == 201, opened.text
    token = opened.json()["seats"][0]["token"]
    table = opened.json()["table"]["id"]
    resign = {"Authorization": f"Bearer {token}"}
    resigned = console.api.post(f"/tables/{table}/actions", json={"type": "resign"}, headers=resign)
    assert resigned.status_code == 200, resigned.text
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    standings = wait_for(
        browser, lambda d: "Partnerships" in text_of(d, "#standings") and text_of(d, "#standings")
    )
    assert "Bob & Di" in standings and "Ann & Cy" in standings
    no_errors(browser)


def test_a_swiss_tournament_without_entries_says_so(browser: WebDriver, console: Console) -> None:
    """It drew an open tournament's empty table of players (Played, Won) instead."""
    event = tournament(console, game="pitch", format="swiss", rounds=2)
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    standings = wait_for(browser, lambda d: text_of(d, "#standings"))
    assert standings == "Standings\nNo entry yet.", standings
    no_errors(browser)


def test_a_waiting_table_can_be_aborted_or_given_to_the_computer(
    browser: WebDriver, console: Console
) -> None:
    made = console.api.post("/tables", json={"game": "pitch", "seats": 2})
    assert made.status_code == 201, made.text
    table = made.json()["id"]
    signed_in(browser, console, console.operator)
    browser.get(f"{console.base}/console/tables/{table}")
    rendered(browser, 1)
    operator = text_of(browser, 'section[aria-label="Operator"]')
    assert "Abort…" in operator and "Replace…" in operator
    no_errors(browser)


def test_score_sheets_tell_two_computers_apart(browser: WebDriver, console: Console) -> None:
    made = console.api.post("/tables", json={"game": "pitch", "seats": 2})
    table = made.json()["id"]
    for seat in (0, 1):
        taken = console.api.post(f"/tables/{table}/seats/{seat}", json={"computer": True})
        assert taken.status_code == 201, taken.text
    browser.get(f"{console.base}/console/tables/{table}")
    sheet = 'section[aria-label="Score sheet"]'
    wait_for(browser, lambda d: "Computer (seat 2)" in text_of(d, sheet), 30)
    assert "Computer (seat 1)" in text_of(browser, sheet)


def test_a_timed_round_shows_when_time_is_called(browser: WebDriver, console: Console) -> None:
    event = tournament(console, game="pitch", format="swiss", rounds=1, round_minutes=30)
    director = {"Authorization": f"Bearer {event['director_token']}"}
    for name in ("Eve", "Fay", "Gil", "Hal"):  # people: the round stays in play
        path = f"/tournaments/{event['id']}/entries"
        added = console.api.post(path, json={"name": name}, headers=director)
        assert added.status_code == 201, added.text
    paired = console.api.post(f"/tournaments/{event['id']}/rounds", headers=director)
    assert paired.status_code == 201, paired.text
    assert paired.json()["deadline"]
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    heading = wait_for(browser, lambda d: text_of(d, "#rounds h3"))
    assert "time is called at" in heading, heading


def test_a_refused_table_page_does_not_claim_to_connect(
    browser: WebDriver, console: Console
) -> None:
    """It said "connecting" for ever above the refusal (here: no such table)."""
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{console.base}/console/tables/{uuid.uuid4()}")
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "main .message").text)
    assert text_of(browser, ".live") == "not following"
    no_errors(browser, expected="404")


def test_the_tournaments_list_pages_to_the_older_tournaments(browser: WebDriver) -> None:
    """On a server of its own: fifty more tournaments would push the session's out of the
    first page that other tests read."""
    database = services.fresh_database("console_pages_")
    with (
        running_server(database, services.redis_url()) as server,
        httpx.Client(base_url=server.base, timeout=30) as api,
    ):
        operator = {"Authorization": f"Bearer {server.operator}"}
        for number in range(51):  # more than a page
            body = {"game": "pitch", "name": f"Week {number}"}
            assert api.post("/tournaments", json=body, headers=operator).status_code == 201
        first = api.get("/tournaments?limit=50").json()
        assert first["next"]
        second = api.get(f"/tournaments?limit=50&cursor={first['next']}").json()
        browser.get(f"{server.base}/console/tournaments")
        wait_for(browser, lambda d: d.find_element(By.ID, "older")).click()
        main = (By.TAG_NAME, "main")
        wait_for(browser, lambda d: "after the newer ones" in d.find_element(*main).text)
        links = browser.find_elements(By.CSS_SELECTOR, "main td a")
        assert str(links[0].get_attribute("href")).endswith(second["tournaments"][0]["id"])
        assert "Newest tournaments" in text_of(browser, "main .pages")
        no_errors(browser)


def test_a_hand_scored_redraws_the_score_sheets_not_the_standings(
    browser: WebDriver, console: Console
) -> None:
    """The tournament page drew every section again whenever anything on it changed: a
    hand scored at one table took the focus from a reader going through the standings."""
    event = tournament(console, game="pitch", format="swiss", rounds=1)
    director = {"Authorization": f"Bearer {event['director_token']}"}
    entries = []
    for name in ("Ann", "Bob"):
        added = console.api.post(
            f"/tournaments/{event['id']}/entries", json={"name": name}, headers=director
        )
        assert added.status_code == 201, added.text
        entries.append(added.json()["token"])
    paired = console.api.post(f"/tournaments/{event['id']}/rounds", headers=director)
    assert paired.status_code == 201, paired.text
    table, seats = "", ["", ""]
    for token in entries:
        me = console.api.get(
            f"/tournaments/{event['id']}/me", headers={"Authorization": f"Bearer {token}"}
        ).json()
        table, seats[me["seat"]] = me["table"], me["token"]
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    csv = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#standings button"))[0]
    wait_for(browser, lambda d: "Ann" in text_of(d, "#standings") and table[:8] in d.page_source)
    browser.execute_script("arguments[0].focus()", csv)
    standings, sheets = text_of(browser, "#standings"), text_of(browser, "#rounds")
    scored = f"/tables/{table}/scoresheet"
    for _ in range(100):  # a hand is a dozen moves or so
        if (console.api.get(scored).json()["sheet"] or {}).get("rows"):
            break
        seat = console.view(table)["to_act"][0]
        actions = console.view(table, seats[seat])["legal_actions"]
        # The lowest bid: no deal thrown in, and no smudge, which made wins the game at
        # once and ends the round (the highest bid, 4, did now and then: the standings
        # changed and the loop found nobody to act).
        pick = next((i for i, a in enumerate(actions) if a["type"] == "bid"), 0)
        console.act(table, seats, pick=pick)
    else:
        raise AssertionError(console.api.get(scored).text)
    wait_for(browser, lambda d: text_of(d, "#rounds") != sheets)
    assert text_of(browser, "#standings") == standings  # the table plays on
    assert browser.switch_to.active_element == csv
    no_errors(browser)


def test_the_director_runs_a_swiss_event_from_its_page(
    browser: WebDriver, console: Console
) -> None:
    """Enter a player (her token shown, to hand over) and the computer, pair the round,
    and a refusal said as the service gave it: every step a director took with curl."""
    event = tournament(console, game="reserve-bridge", format="swiss", rounds=2)
    signed_in(browser, console, event["director_token"])
    assert text_of(browser, ".tag.you") == "Director"
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    said = "#director-said"
    # Enter with no name: said, beside the field (the form did nothing at all).
    field = wait_for(browser, lambda d: d.find_element(By.ID, "entry-name"))
    field.send_keys("  ", Keys.ENTER)
    wait_for(browser, lambda d: text_of(d, said) == "Type the player's name.")
    assert browser.switch_to.active_element.get_attribute("id") == "entry-name"
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == "entry-missing"
    field.clear()
    field.send_keys("Ann", Keys.ENTER)
    link = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{said} .token"))[0].text
    # From the keyboard: the field keeps the focus for the next name (the box disabled
    # it while the entry went, and the focus fell to <body>).
    assert browser.switch_to.active_element.get_attribute("id") == "entry-name"
    assert link.startswith(f"{console.base}/console/tournaments/{event['id']}#entry="), link
    ann = {"Authorization": f"Bearer {link.split('#entry=')[1]}"}
    me = console.api.get(f"/tournaments/{event['id']}/me", headers=ann)
    assert me.status_code == 200 and me.json()["round"] == 0, me.text
    # A double click sends one command: the box waits for its answer.
    browser.execute_script(
        "const b = document.getElementById('enter-computer'); b.click(); b.click()"
    )
    wait_for(browser, lambda d: text_of(d, said) == "Computer 1 is entered.")
    # Each computer a name of its own: standings of two "Computer"s could not be read.
    wait_for(browser, lambda d: d.find_element(By.ID, "enter-computer").is_enabled())
    wait_for(browser, lambda d: "Computer 1" in text_of(d, "#standings"))
    browser.find_element(By.ID, "enter-computer").click()
    wait_for(browser, lambda d: text_of(d, said) == "Computer 2 is entered.")
    entries = console.api.get(f"/tournaments/{event['id']}/entries").json()["entries"]
    assert [(e["names"], e["computer"]) for e in entries] == [
        (["Ann"], False),
        (["Computer 1"], True),
        (["Computer 2"], True),
    ]

    wait_for(browser, lambda d: text_of(d, "#pair-round") == "Pair round 1")
    browser.find_element(By.ID, "pair-round").click()
    wait_for(browser, lambda d: text_of(d, said) == "Round 1 is paired: 1 table, 1 bye.")
    wait_for(browser, lambda d: "Round 1 · playing" in text_of(d, "#rounds"))
    assert text_of(browser, "#pair-round") == "Pair round 2"
    browser.find_element(By.ID, "pair-round").click()  # the round is still in play
    refused = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{said} .bad"))
    assert refused[0].text == "Not done: round 1 is still being played", refused[0].text
    assert_accessible(browser, "director's tournament page")
    screenshots(browser, "director")
    no_errors(browser, expected="409")


def test_the_last_round_paired_leaves_no_round_to_pair(
    browser: WebDriver, console: Console
) -> None:
    """A tournament of one round offered "Pair round 2" while its round played, which the
    service could only refuse."""
    event = tournament(console, game="reserve-bridge", format="swiss", rounds=1)
    director = {"Authorization": f"Bearer {event['director_token']}"}
    for name in ("Ann", "Bob"):
        entered = console.api.post(
            f"/tournaments/{event['id']}/entries", json={"name": name}, headers=director
        )
        assert entered.status_code == 201, entered.text
    signed_in(browser, console, event["director_token"])
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    wait_for(browser, lambda d: text_of(d, "#pair-round") == "Pair round 1")
    browser.find_element(By.ID, "pair-round").click()
    wait_for(browser, lambda d: "Round 1 · playing" in text_of(d, "#rounds"))
    wait_for(browser, lambda d: not d.find_element(By.ID, "pair-round").is_displayed())
    assert browser.find_element(By.ID, "finish-tournament").is_displayed()
    no_errors(browser)


def test_an_entrys_link_leads_its_player_to_each_rounds_seat(
    browser: WebDriver, console: Console
) -> None:
    """The director hands a player the link of her entry: her tournament page says where
    she plays the round in play and opens her seat, round after round; she had only a
    token, and the console no way to use it."""
    event = tournament(console, game="reserve-bridge", format="swiss", rounds=2)
    director = {"Authorization": f"Bearer {event['director_token']}"}
    path = f"/tournaments/{event['id']}"
    ann = console.api.post(f"{path}/entries", json={"name": "Ann"}, headers=director).json()
    console.api.post(f"{path}/entries", json={"computer": True}, headers=director)
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{console.base}/console/tournaments/{event['id']}#entry={ann['token']}")
    waiting = wait_for(browser, lambda d: text_of(d, "#mine"))
    assert "You are entered" in waiting, waiting
    assert "#entry=" not in browser.current_url  # the token is kept out of the address

    browser.execute_script(SPOKEN)
    paired = console.api.post(f"{path}/rounds", headers=director)
    assert paired.status_code == 201, paired.text
    wait_for(browser, lambda d: "Round 1: seat" in text_of(d, "#mine"), seconds=15)
    # Said, not only shown: a player waiting for the pairing hears where to sit.
    assert "mine" in browser.execute_script("return window.spoken")
    seat = console.api.get(f"{path}/me", headers={"Authorization": f"Bearer {ann['token']}"})
    browser.find_element(By.ID, "play-seat").click()  # not redrawn while it says the same
    rendered(browser, console.view(seat.json()["table"])["version"])
    assert text_of(browser, ".sub").startswith("Watching as a seat")
    mine = browser.find_element(By.CSS_SELECTOR, ".seat.mine").get_attribute("aria-label")
    assert mine == f"Seat {seat.json()['seat'] + 1}: Ann", mine
    no_errors(browser)


def test_an_entry_whose_answer_was_lost_is_entered_once_when_sent_again(
    browser: WebDriver, console: Console
) -> None:
    """The entry was recorded, its answer lost: the box said "Not done" and to send it
    again, and sending it again entered the player twice, the first entry's token never
    shown. Sent again as it is, even after another command, it now goes with the same
    Idempotency-Key."""
    event = tournament(console, game="reserve-bridge", format="swiss", rounds=2)
    with relayed(browser, console) as relay:
        base = f"http://127.0.0.1:{relay.port}"
        signed_in(browser, console, event["director_token"], base)
        browser.get(f"{base}/console/tournaments/{event['id']}")
        relay.lose_answer_of(f"POST /tournaments/{event['id']}/entries ".encode())
        wait_for(browser, lambda d: d.find_element(By.ID, "entry-name")).send_keys("Zed")
        browser.find_element(By.CSS_SELECTOR, "#enter-form button").click()
        lost = wait_for(browser, lambda d: text_of(d, "#director-said").startswith("No answer"), 20)
        assert lost
        # Another entry meanwhile, then Zed's sent again: the same command, the same key.
        for name in ("Amy", "Zed"):
            field = browser.find_element(By.ID, "entry-name")
            field.clear()
            field.send_keys(name)
            browser.find_element(By.CSS_SELECTOR, "#enter-form button").click()
            wait_for(browser, lambda d, n=name: text_of(d, "#director-said").startswith(n))
        links = browser.find_elements(By.CSS_SELECTOR, "#director-said .token")
        entries = console.api.get(f"/tournaments/{event['id']}/entries").json()["entries"]
        assert [e["names"] for e in entries] == [["Zed"], ["Amy"]]
        zed = {"Authorization": f"Bearer {links[0].text.split('#entry=')[1]}"}
        me = console.api.get(f"/tournaments/{event['id']}/me", headers=zed)
        assert me.status_code == 200, me.text


def test_the_director_box_comes_once_the_token_is_known(
    browser: WebDriver, console: Console
) -> None:
    """Asking who the token is failed (the network): the page waited blank for that
    answer, and never drew the director's box afterwards. It draws at once, and asks
    again with its next draw."""
    event = tournament(console, game="reserve-bridge", format="swiss", rounds=2)
    signed_in(browser, console, event["director_token"])
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/me"]})
    try:
        browser.get(f"{console.base}/console/tournaments/{event['id']}")
        wait_for(browser, lambda d: "No entry yet." in text_of(d, "#standings"), 5)
        assert not browser.find_element(By.ID, "director").is_displayed()
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    wait_for(browser, lambda d: d.find_element(By.ID, "director").is_displayed(), 15)
    no_errors(browser, expected="ERR_BLOCKED_BY_CLIENT")


def test_an_open_tournament_can_be_ended_from_its_page(
    browser: WebDriver, console: Console
) -> None:
    """An open tournament's tables are opened by hand: its box only ends it."""
    event = tournament(console)
    signed_in(browser, console, event["director_token"])
    browser.get(f"{console.base}/console/tournaments/{event['id']}")
    wait_for(browser, lambda d: d.find_element(By.ID, "director").is_displayed())
    assert not browser.find_elements(By.ID, "enter-form")
    assert not browser.find_elements(By.ID, "pair-round")
    browser.find_element(By.ID, "finish-tournament").click()
    browser.switch_to.alert.accept()
    wait_for(browser, lambda d: text_of(d, "#director-said") == "The tournament is over.")
    status = console.api.get(f"/tournaments/{event['id']}").json()["status"]
    assert status == "finished"
    no_errors(browser)
