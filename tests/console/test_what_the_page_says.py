"""What a seat's page says of the table, in words: seats of one name (every computer is
"Computer") told apart, lists of seats and partnerships by their players' names, claimed
melds in full, a paused table as nobody's turn, a move the network lost as such, trumps
by name, a seat given up before the game, and a list the network could not read."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.conftest import Console, seat_page, seat_to_act_page
from tests.support.browser import no_errors, rendered, wait_for

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(code: str) -> str:
    """A card as the page writes it: ``KC`` is ``K♣`` (a ten, ``T``, is ``10``)."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUITS[code[1]]


def details(browser: WebDriver) -> dict[str, str]:
    """The page's *Scores and details*: each row's title and its text."""
    script = (
        "return [...document.querySelectorAll('dl.details dt')]"
        ".map(dt => [dt.textContent, dt.nextElementSibling.textContent])"
    )
    return dict(browser.execute_script(script))


def test_seats_of_one_name_are_told_apart(browser: WebDriver, console: Console) -> None:
    """Three computers were all "Computer": the auction, the tricks and the sides read
    "Computer & Computer", and a player could not tell his partner's bid from the
    others'."""
    table, tokens = console.table("forty-five", 4, "same-names")
    for seat in (1, 2, 3):
        body = {"computer": True}
        path = f"/tables/{table}/seats/{seat}/replace"
        replaced = console.api.post(path, json=body, headers=console.op())
        assert replaced.status_code == 200, replaced.text
    seat_page(browser, console, table, tokens[0])
    heads = browser.find_elements(By.CSS_SELECTOR, ".felt section.seat h3")
    first = "return arguments[0].firstChild.textContent"
    names = sorted(browser.execute_script(first, head) for head in heads)
    assert names == ["Ann", "Computer (seat 2)", "Computer (seat 3)", "Computer (seat 4)"]
    read = details(browser)
    assert read["Sides"] == "Ann & Computer (seat 3) · Computer (seat 2) & Computer (seat 4)"
    assert read["Scores"].startswith("Ann & Computer (seat 3) ")
    no_errors(browser)


def test_claimed_melds_and_seats_are_shown_by_name_and_in_full(
    browser: WebDriver, console: Console
) -> None:
    """Melds were JSON cut off at 400 characters, the seats dealt in a list of numbers
    drawn as one number a seat."""
    table, tokens = console.table("pinochle-four", 4, "m")  # opens on the meld
    seat = console.view(table)["to_act"][0]
    offered = console.view(table, tokens[seat])["legal_actions"]
    best = next(a for a in offered if isinstance(a.get("melds"), list))
    headers = {"Authorization": f"Bearer {tokens[seat]}"}
    sent = console.api.post(f"/tables/{table}/actions", json=best, headers=headers)
    assert sent.status_code == 200, sent.text
    view = console.view(table, tokens[seat])
    claimed = view["melds"][seat]
    assert len(claimed) == len(best["melds"]) >= 2
    seat_page(browser, console, table, tokens[seat])
    read = details(browser)
    melds = read["Melds"]
    assert "…" not in melds and "{" not in melds
    for meld in claimed:
        words = " ".join([meld["kind"].replace("_", " "), *map(card_text, meld["cards"])])
        assert words in melds, melds
    names = ["Ann", "Bob", "Cleo", "Dev"]
    assert read["Active"] == ", ".join(names[s] for s in view["active"])
    no_errors(browser)


def test_a_paused_table_is_nobodys_turn(browser: WebDriver, console: Console) -> None:
    """The seat to act read "Your turn" over an empty set of choices while the operator
    had the table paused."""
    table, view = seat_to_act_page(browser, console, "pitch", 2, "paused")
    paused = console.api.post(f"/tables/{table}/pause", headers=console.op())
    assert paused.status_code == 200, paused.text
    rendered(browser, view["version"] + 1)
    panel = browser.find_element(By.CSS_SELECTOR, 'section[aria-label="Your seat"] h2')
    assert panel.text == "The table is paused"
    assert not browser.find_elements(By.CSS_SELECTOR, ".tag.acting, .centre .turn")
    no_errors(browser)


def test_a_move_the_network_lost_says_so(browser: WebDriver, console: Console) -> None:
    """Offline, a move showed only the browser's "Failed to fetch"."""
    _, view = seat_to_act_page(browser, console, "pitch", 2, "offline")
    button = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "button[data-action]"))
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    try:
        button.click()
        # Once the move is done with (the panel no longer busy): a read after it failed
        # too, and its word replaced the move's.
        wait_for(
            browser,
            lambda d: d.find_element(By.CSS_SELECTOR, ".mine").get_attribute("aria-busy") is None,
        )
        message = browser.find_element(By.CSS_SELECTOR, ".message").text
    finally:
        browser.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
    assert message == (
        "No answer came: the network failed."
        " If your move does not show on the table in a moment, send it again."
    ), message
    assert console.view(view["id"])["version"] == view["version"]  # nothing was sent
    no_errors(browser, expected="ERR_INTERNET_DISCONNECTED")  # only the requests it lost


def test_a_refused_move_names_the_seat_to_act_as_the_page_does(
    browser: WebDriver, console: Console
) -> None:
    """The seat moved on another device while this page heard nothing of it (its stream
    held up): the move sent from here is refused, and the page showed the service's
    "seat 3 to act", counting seats from 0 where the page counts from 1 and names them."""
    table, tokens = console.table("pitch", 4, "stale")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/stream*"]})
    try:
        seat_page(browser, console, table, tokens[console.view(table)["to_act"][0]])
        moved = console.act(table, tokens)  # the same seat, from its phone
        up = moved["to_act"][0]
        button = browser.find_element(By.CSS_SELECTOR, "button[data-action]")
        button.click()
        message = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".message").text)
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    assert message == f"Not your turn: {moved['seats'][up]['name']} to act.", message
    assert console.view(table)["version"] == moved["version"]  # nothing more was recorded
    browser.get_log("browser")  # the refusal (409) and the stream held up, as meant


def test_the_score_sheet_names_players_seated_after_the_page_opened(
    browser: WebDriver, console: Console
) -> None:
    """The sheet was read when the page opened and again only when a deal was scored: it
    said "Ann v –" through the whole first deal."""
    created = console.api.post("/tables", json={"game": "pitch", "seats": 2})
    assert created.status_code == 201, created.text
    table = created.json()["id"]
    ann = console.api.post(f"/tables/{table}/seats/0", json={"name": "Ann"}).json()["token"]
    seat_page(browser, console, table, ann)
    taken = console.api.post(f"/tables/{table}/seats/1", json={"name": "Bob"})
    assert taken.status_code == 201, taken.text
    sheet = 'section[aria-label="Score sheet"]'
    wait_for(browser, lambda d: "Bob" in d.find_element(By.CSS_SELECTOR, sheet).text)
    no_errors(browser)


SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
STALE = "main p.message[role=status]"  # the tables list's word on a list it could not read


def test_trumps_are_named_in_words(browser: WebDriver, console: Console) -> None:
    """The centre of the felt said "Trumps: H"."""
    table, tokens = console.table("pitch", 2, "trumps-in-words")
    for _ in range(20):  # a bid, and the maker's first lead names trumps
        if (view := console.view(table))["trump"]:
            break
        console.act(table, tokens, pick=-1)
    assert view["trump"], view
    browser.get(f"{console.base}/console/tables/{table}")
    rendered(browser, view["version"])
    centre = browser.find_element(By.CSS_SELECTOR, ".centre").text
    assert f"Trumps: {SUIT_WORDS[view['trump']]}" in centre, centre
    no_errors(browser)


def test_a_seat_given_up_before_the_game_is_free_again(
    browser: WebDriver, console: Console
) -> None:
    """A seat taken by mistake could not be given back from its page until the game had
    started: the page offered no seat command at a waiting table."""
    created = console.api.post("/tables", json={"game": "pitch", "seats": 3})
    assert created.status_code == 201, created.text
    table = created.json()["id"]
    taken = console.api.post(f"/tables/{table}/seats/0", json={"name": "Ann"})
    assert taken.status_code == 201, taken.text
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{console.base}/console/tables/{table}#token={taken.json()['token']}")
    rendered(browser, console.view(table)["version"])
    assert not browser.find_elements(By.CSS_SELECTOR, '[data-seat-command="resign"]')
    browser.find_element(By.CSS_SELECTOR, '[data-seat-command="leave"]').click()
    browser.switch_to.alert.accept()

    notice = "return document.querySelector('.notice')?.textContent || ''"  # across a reload
    said = wait_for(browser, lambda d: d.execute_script(notice), seconds=20)
    assert said.startswith("You gave your seat up"), said
    again = console.api.post(f"/tables/{table}/seats/0", json={"name": "Bob"})
    assert again.status_code == 201, again.text
    no_errors(browser)


def test_a_link_with_another_tables_token_watches_and_says_why(
    browser: WebDriver, console: Console
) -> None:
    """The page kept the token and was refused (403) on every load, a reload included:
    the table could not even be watched in that tab."""
    table, _ = console.table("pitch", 2, "wrong-link")
    _, others = console.table("pitch", 2, "wrong-link-other")
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.get(f"{console.base}/console/tables/{table}#token={others[0]}")
    notice = "return document.querySelector('.notice')?.textContent || ''"  # across a reload
    said = wait_for(browser, lambda d: d.execute_script(notice), seconds=20)
    assert said.startswith("This link's token is not for a seat at this table"), said
    rendered(browser, console.view(table)["version"])
    sub = browser.find_element(By.CSS_SELECTOR, ".sub").text
    assert "a spectator" in sub, sub
    browser.refresh()
    rendered(browser, console.view(table)["version"])
    assert browser.execute_script("return sessionStorage.length") == 0
    no_errors(browser, expected="403")


def test_a_list_the_network_cannot_read_says_so_without_talk_of_moves(
    browser: WebDriver, console: Console
) -> None:
    """The tables list's stale notice quoted the command's "if your move does not show"."""
    browser.get(f"{console.base}/console")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table"))
    browser.execute_cdp_cmd("Network.enable", {})
    offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", offline)
    try:
        stale = f"return document.querySelector('{STALE}')?.textContent || ''"
        said = wait_for(browser, lambda d: "read again" in (t := d.execute_script(stale)) and t)
    finally:
        browser.execute_cdp_cmd("Network.emulateNetworkConditions", {**offline, "offline": False})
    assert "No answer came: the network failed." in said, said
    assert "move" not in said, said
    no_errors(browser, expected="ERR_INTERNET_DISCONNECTED")


# For each <bdi> in the Scores row: the right edge of the name and the left edge of the
# score that follows it, as drawn.
NAME_THEN_SCORE = """
const dd = [...document.querySelectorAll('.details dt')]
  .find((dt) => dt.textContent === 'Scores').nextElementSibling;
return [...dd.querySelectorAll('bdi')].map((bdi) => {
  const score = document.createRange();
  score.selectNodeContents(bdi.nextSibling);
  return [bdi.textContent, bdi.getBoundingClientRect().right, score.getBoundingClientRect().left];
});
"""


def test_a_right_to_left_name_keeps_its_score_beside_it(
    browser: WebDriver, console: Console
) -> None:
    """A score after an Arabic or Hebrew name joined the name's right-to-left run and
    was drawn on its far side, beside the next name ("Ann 0 · 3- דוד · 3 محمد"): names in
    running text are isolated."""
    table, tokens = console.table("pitch", 3, "bidi")
    for seat, name in ((1, "محمد"), (2, "דוד")):
        answer = console.api.post(
            f"/tables/{table}/seats/{seat}/replace", json={"name": name}, headers=console.op()
        )
        assert answer.status_code == 200, answer.text
        tokens[seat] = answer.json()["token"]
    console.act(table, tokens, pick=1)  # a bid: the auction names its bidder
    seat_page(browser, console, table, tokens[0])
    drawn = browser.execute_script(NAME_THEN_SCORE)
    assert [name for name, _, _ in drawn] == ["Ann", "محمد", "דוד"]
    for name, name_right, score_left in drawn:
        assert score_left >= name_right - 1, (name, name_right, score_left)
    auction = browser.find_elements(By.CSS_SELECTOR, ".auction li bdi")
    assert auction and auction[0].text in ("Ann", "محمد", "דוד")
    no_errors(browser)
