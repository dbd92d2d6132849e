"""What the operator and a watcher meet beyond one game in play: every seat on the felt
at every table size, a table that has ended (its page stops following it), the
operator's half-typed intervention surviving the game's moves, an intervention confirmed
while the table changed, a refused filter, and the tournaments list."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select

from tests.console.conftest import Console
from tests.support.browser import body, no_errors, rendered, sign_in, wait_for


def signed_out(browser: WebDriver, console: Console) -> None:
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")


# The seats' boxes whose corners lie outside the felt's inner edge: its padding box with
# its rounded corners, each a quarter ellipse of the felt's border-radius less its border.
OFF_THE_FELT = """
const felt = document.querySelector('.felt');
const outer = felt.getBoundingClientRect();
const style = getComputedStyle(felt);
const border = felt.clientLeft;
const [rx, ry] = style.borderTopLeftRadius.split(' ').map((r, i) => (r.endsWith('%')
  ? parseFloat(r) / 100 * (i ? outer.height : outer.width) : parseFloat(r)) - border);
const left = outer.left + border, top = outer.top + border;
const width = felt.clientWidth, height = felt.clientHeight;
const inside = (x, y) => {
  const dx = Math.min(x - left, left + width - x), dy = Math.min(y - top, top + height - y);
  if (dx < 0 || dy < 0) return false;
  if (dx >= rx || dy >= ry) return true;
  return ((rx - dx) / rx) ** 2 + ((ry - dy) / ry) ** 2 <= 1;
};
return [...felt.querySelectorAll('.seat')].filter((seat) => {
  const r = seat.getBoundingClientRect();
  return ![[r.left, r.top], [r.right, r.top], [r.left, r.bottom], [r.right, r.bottom]]
    .every(([x, y]) => inside(x, y));
}).map((seat) => seat.getAttribute('aria-label'));
"""


def test_every_seat_sits_on_the_felt_at_every_table_size(
    browser: WebDriver, console: Console
) -> None:
    """Seats round the oval, every hand face up (the operator's view, the largest boxes):
    a box high or low on a side stuck out over the rim at three, five and seven seats."""
    browser.get(f"{console.base}/console")
    sign_in(browser, console.operator)
    for seats in range(2, 8):
        table, _ = console.table("pitch", seats, f"felt-{seats}")
        browser.get(f"{console.base}/console/tables/{table}")
        rendered(browser, console.view(table)["version"])
        for width in (1280, 920):  # the narrowest window that still draws the oval
            browser.set_window_size(width, 900)
            off = browser.execute_script(OFF_THE_FELT)
            assert off == [], f"{seats} seats, {width} px wide: {off}"
        browser.set_window_size(1280, 900)
    no_errors(browser)


def test_an_ended_tables_page_stops_following_it(browser: WebDriver, console: Console) -> None:
    """The service ends an ended table's stream after its last event: the page says the
    table is over instead of asking again and again."""
    signed_out(browser, console)
    table, _ = console.table("pitch", 3, "ended")
    stopped = console.api.post(f"/tables/{table}/abort", json={"reason": "x"}, headers=console.op())
    assert stopped.status_code == 200, stopped.text
    browser.get(f"{console.base}/console/tables/{table}")
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "over")
    result = browser.find_element(By.CSS_SELECTOR, ".centre .result").text
    assert result == "Result: aborted", result  # nobody won an aborted table
    asked = browser.execute_script(
        "return performance.getEntriesByType('resource')"
        ".filter(e => e.name.endsWith('/stream')).length"
    )
    assert asked == 1, f"the stream was asked for {asked} times"
    no_errors(browser)


def test_the_operators_typing_survives_the_games_moves(
    browser: WebDriver, console: Console
) -> None:
    table, tokens = console.table("pitch", 3, "typing")
    signed_out(browser, console)
    sign_in(browser, console.operator)
    browser.get(f"{console.base}/console/tables/{table}")
    rendered(browser, console.view(table)["version"])
    browser.find_element(By.ID, "replace-name").send_keys("Zoe")
    reason = browser.find_element(By.ID, "abort-reason")
    reason.clear()
    reason.send_keys("the hall")
    moved = console.act(table, tokens)["version"]
    rendered(browser, moved)
    # Still in the field, as the operator left it: the next keys go on where he was.
    assert browser.switch_to.active_element.get_attribute("id") == "abort-reason"
    browser.switch_to.active_element.send_keys(" closes")
    assert browser.find_element(By.ID, "replace-name").get_attribute("value") == "Zoe"
    assert browser.find_element(By.ID, "abort-reason").get_attribute("value") == "the hall closes"
    no_errors(browser)


# Installed on a page: its next question is answered yes, after ``arguments``' request
# was sent as if by someone else while the question was open. A dialog stops the page
# until it is answered, as this synchronous request does.
MEANWHILE = """
const [path, token, body] = arguments;
const ask = window.confirm;
window.confirm = () => {
  window.confirm = ask;
  const meanwhile = new XMLHttpRequest();
  meanwhile.open('POST', path, false);
  meanwhile.setRequestHeader('Authorization', 'Bearer ' + token);
  meanwhile.setRequestHeader('Content-Type', 'application/json');
  meanwhile.send(JSON.stringify(body));
  window.meanwhile = meanwhile.status;
  return true;
};
"""


def operators_page(browser: WebDriver, console: Console, table: str) -> None:
    browser.get(f"{console.base}/console")
    either = "#signout, #operator-token"  # signed in already, or not
    found = wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, either))
    if found[0].get_attribute("id") != "signout":
        sign_in(browser, console.operator)
    browser.get(f"{console.base}/console/tables/{table}")
    rendered(browser, console.view(table)["version"])


def hand_on(browser: WebDriver, seat: int, name: str) -> None:
    """The operator's *Replace…*: ``seat`` to ``name``, confirmed."""
    Select(browser.find_element(By.ID, "replace-seat")).select_by_value(str(seat))
    browser.find_element(By.ID, "replace-name").send_keys(name)
    buttons = browser.find_elements(By.CSS_SELECTOR, ".operator button")
    next(b for b in buttons if b.text == "Replace…").click()


def test_a_seat_handed_on_while_the_operator_confirmed_is_not_handed_again(
    browser: WebDriver, console: Console
) -> None:
    """The console sent a confirmed *Replace…* whatever had happened while the question
    was open: Bob's seat, handed to Zed meanwhile by another operator, went on to Eve."""
    table, _ = console.table("pitch", 2, "handed-meanwhile")
    operators_page(browser, console, table)
    replace = f"/tables/{table}/seats/1/replace"
    browser.execute_script(MEANWHILE, replace, console.operator, {"name": "Zed"})
    hand_on(browser, 1, "Eve")
    said = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".message").text)
    assert browser.execute_script("return window.meanwhile") == 200
    assert said == "Seat 2 changed hands meanwhile: Zed has it now. Nothing was done."
    assert console.view(table)["seats"][1]["name"] == "Zed"
    no_errors(browser)


def test_a_move_while_the_operator_confirmed_does_not_stop_the_intervention(
    browser: WebDriver, console: Console
) -> None:
    """The console checks what its question named, not the table's version: a move made
    while the operator read the question leaves the seat to hand on as it was."""
    table, tokens = console.table("pitch", 2, "moved-meanwhile")
    operators_page(browser, console, table)
    view = console.view(table)
    seat = view["to_act"][0]
    move = console.view(table, tokens[seat])["legal_actions"][0]
    browser.execute_script(MEANWHILE, f"/tables/{table}/actions", tokens[seat], move)
    hand_on(browser, 1, "Eve")
    wait_for(browser, lambda d: console.view(table)["seats"][1]["name"] == "Eve")
    assert browser.execute_script("return window.meanwhile") == 200
    assert console.view(table)["version"] == view["version"] + 2  # the move, the hand-over
    no_errors(browser)


def test_a_refused_filter_leaves_the_form_to_correct_it(
    browser: WebDriver, console: Console
) -> None:
    browser.get(f"{console.base}/console?tournament=b0bcbc93")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#tables .message"))
    said = browser.find_element(By.CSS_SELECTOR, "#tables .message").text
    assert said.startswith("The filter was refused: tournament: Expected a UUID"), said
    assert browser.find_element(By.ID, "tournament").get_attribute("value") == "b0bcbc93"
    no_errors(browser, expected="400 (Bad Request)")  # the refusal itself


def test_the_tournaments_list_says_what_it_knows(browser: WebDriver, console: Console) -> None:
    browser.get(f"{console.base}/console/tournaments")
    wait_for(browser, lambda d: body(d, "rendered"))
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table.grid td"))
    text = browser.find_element(By.TAG_NAME, "main").text
    assert "undefined" not in text and "Club night" in text
    no_errors(browser)


def test_the_signed_in_operator_is_listed_the_tables_closed_to_spectators(
    browser: WebDriver, console: Console
) -> None:
    """A duplicate round's tables are closed to spectators while it is played: the list
    shows them to the operator, and to nobody else."""
    body = {"game": "reserve-bridge", "name": "Closed", "format": "duplicate", "rounds": 1}
    event = console.api.post("/tournaments", json=body, headers=console.op()).json()
    director = {"Authorization": f"Bearer {event['director_token']}"}
    for name in ("Ann", "Bob", "Cy", "Di"):  # people: the tables stay in play
        entry = console.api.post(
            f"/tournaments/{event['id']}/entries", json={"name": name}, headers=director
        )
        assert entry.status_code == 201, entry.text
    paired = console.api.post(f"/tournaments/{event['id']}/rounds", headers=director)
    assert paired.status_code == 201, paired.text
    rows = "#tables tbody tr"
    signed_out(browser, console)
    browser.get(f"{console.base}/console?tournament={event['id']}")
    wait_for(browser, lambda d: "No table matches." in d.find_element(By.ID, "tables").text)
    sign_in(browser, console.operator)
    browser.get(f"{console.base}/console?tournament={event['id']}")
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, rows)) == 2)
    no_errors(browser)
