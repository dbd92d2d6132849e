"""What a page keeps, and gives up, while people use it: the operator's page does not
come back from the browser's history after a sign-out, a list read again keeps the
keyboard's place, a seat that leaves (or is handed to another player) goes on watching,
a failed replay step leaves the page where it was, a move keeps the keyboard in the
seat's panel, a double-click sends one command, and pages left behind hold no
connection open."""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

from tests.console.conftest import Console, replay_of_moves, seat_to_act_page
from tests.support.browser import body, no_errors, rendered, sign_in, wait_for

SUB = ".sub"  # the line under the heading: "Watching as …"


def signed_out(browser: WebDriver, console: Console) -> None:
    browser.get(f"{console.base}/console")
    browser.execute_script("sessionStorage.clear()")


def passes(console: Console, table: str) -> int:
    events = console.api.get(f"/tables/{table}/events", headers=console.op()).json()["events"]
    return sum(item["event"]["type"] == "passed" for item in events)


def test_after_a_sign_out_back_does_not_bring_the_operators_page_again(
    browser: WebDriver, console: Console
) -> None:
    """The browser keeps a page left by a link in its back/forward cache, scripts and
    all: Back after signing out showed every hand again, still following the table."""
    table, _ = console.table("pitch", 3, "back-after-sign-out")
    signed_out(browser, console)
    sign_in(browser, console.operator)
    browser.get(f"{console.base}/console/tables/{table}")
    rendered(browser, console.view(table)["version"])
    assert "the operator" in browser.find_element(By.CSS_SELECTOR, SUB).text
    browser.execute_script("window.leftBehind = true")  # gone if the page starts again
    browser.find_element(By.LINK_TEXT, "Tables").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "signout"))
    browser.find_element(By.ID, "signout").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "operator-token"))

    browser.back()
    # The page learns it when its stream, ended by the server at the revocation, is
    # asked again (backing off up to 5 s between tries): a loaded CI machine once took
    # longer than the usual 10 s for the whole of it.
    wait_for(browser, lambda d: d.execute_script("return !window.leftBehind"), seconds=30)
    rendered(browser, console.view(table)["version"])
    assert "a spectator" in browser.find_element(By.CSS_SELECTOR, SUB).text
    assert not browser.find_elements(By.ID, "signout")
    no_errors(browser)


def test_the_tables_list_read_again_keeps_the_keyboards_place(
    browser: WebDriver, console: Console
) -> None:
    """The list is read every 2 s: drawn again each time, it took the focus from the link
    a keyboard user had reached (and a phone's sideways scroll)."""
    table, _ = console.table("pinochle-four", 4, "focus-in-list")
    stopped = console.api.post(f"/tables/{table}/abort", json={"reason": "x"}, headers=console.op())
    assert stopped.status_code == 200, stopped.text
    browser.get(f"{console.base}/console?game=pinochle-four&status=aborted")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'a[href$="{table}"]'))
    link = browser.find_element(By.CSS_SELECTOR, f'a[href$="{table}"]')
    link.send_keys(Keys.NULL)  # focuses it, as Tab would
    read = int(body(browser, "rendered") or 0)
    # Two more reads of the list (each marks the page when it is in).
    for _ in range(2):
        wait_for(browser, lambda d, r=read: int(body(d, "rendered") or 0) > r, seconds=10)
        read = int(body(browser, "rendered") or 0)
    focused = browser.switch_to.active_element
    assert focused.get_attribute("href") == link.get_attribute("href")
    no_errors(browser)


def test_a_seat_that_leaves_goes_on_watching_the_table(
    browser: WebDriver, console: Console
) -> None:
    """After Leave, the seat's token no longer works: the page said so as an error and
    kept the hand and buttons no longer any use. It watches as a spectator instead."""
    table, tokens = console.table("forty-five", 4, "leave-and-watch")
    signed_out(browser, console)
    browser.get(f"{console.base}/console/tables/{table}#token={tokens[1]}")
    rendered(browser, console.view(table)["version"])
    browser.execute_script("window.leftBehind = true")
    browser.find_element(By.CSS_SELECTOR, '[data-seat-command="leave"]').click()
    browser.switch_to.alert.accept()

    # The page learns it when its stream, ended by the server at the revocation, is
    # asked again (backing off up to 5 s between tries): a loaded CI machine once took
    # longer than the usual 10 s for the whole of it.
    wait_for(browser, lambda d: d.execute_script("return !window.leftBehind"), seconds=30)
    rendered(browser, console.view(table)["version"])
    assert "a spectator" in browser.find_element(By.CSS_SELECTOR, SUB).text
    assert browser.find_element(By.CSS_SELECTOR, ".notice").text.startswith("You left the table")
    assert browser.find_element(By.CSS_SELECTOR, ".message").text == ""
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-action], [data-seat-command]")
    assert console.view(table)["seats"][1]["vacant"]
    no_errors(browser)


def test_a_seat_handed_to_another_player_goes_on_watching_the_table(
    browser: WebDriver, console: Console
) -> None:
    """The operator hands the seat to someone else: the old page learns it from a 401
    and watches as a spectator, saying why, instead of keeping a dead seat's controls."""
    table, tokens = console.table("pitch", 3, "replaced-and-watch")
    signed_out(browser, console)
    browser.get(f"{console.base}/console/tables/{table}#token={tokens[2]}")
    rendered(browser, console.view(table)["version"])
    browser.execute_script("window.leftBehind = true")
    handed = console.api.post(
        f"/tables/{table}/seats/2/replace", json={"name": "Zed"}, headers=console.op()
    )
    assert handed.status_code == 200, handed.text

    # The page learns it when its stream, ended by the server at the revocation, is
    # asked again (backing off up to 5 s between tries): a loaded CI machine once took
    # longer than the usual 10 s for the whole of it.
    wait_for(browser, lambda d: d.execute_script("return !window.leftBehind"), seconds=30)
    rendered(browser, console.view(table)["version"])
    assert "a spectator" in browser.find_element(By.CSS_SELECTOR, SUB).text
    notice = browser.find_element(By.CSS_SELECTOR, ".notice").text
    assert notice.startswith("This seat's link no longer works"), notice
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-action], [data-seat-command]")
    no_errors(browser, expected="401 (Unauthorized)")  # how the page learnt it


def test_a_replay_step_that_fails_leaves_the_page_where_it_was(
    browser: WebDriver, console: Console
) -> None:
    """A step the network fails is said, and the scrubber stays on the version shown:
    it moved on alone before, and the next step skipped a version."""
    _, latest = replay_of_moves(browser, console, "replay-offline", 6)
    page = browser.find_element(By.TAG_NAME, "body")

    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/replay?version=*"]})
    try:
        page.send_keys(Keys.ARROW_LEFT)
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".message").text)
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    said = browser.find_element(By.CSS_SELECTOR, ".message").text
    assert said.startswith(f"Version {latest - 1} could not be read"), said
    assert browser.find_element(By.ID, "scrubber").get_attribute("value") == str(latest)
    assert browser.find_element(By.ID, "where").text == f"{latest} of {latest}"

    page.send_keys(Keys.ARROW_LEFT)  # the network is back: one step from where it was
    wait_for(browser, lambda d: body(d, "rendered") == str(latest - 1))
    assert browser.find_element(By.ID, "said").text.startswith(f"{latest - 1}: ")
    assert browser.find_element(By.CSS_SELECTOR, ".message").text == ""
    no_errors(browser, expected="ERR_BLOCKED_BY_CLIENT")


def test_a_move_from_the_keyboard_keeps_the_focus_in_the_seats_panel(
    browser: WebDriver, console: Console
) -> None:
    """The panel is drawn anew after a move: the focus fell back to the page's top, and
    a keyboard player tabbed through the header again before every move."""
    _, view = seat_to_act_page(browser, console, "pitch", 2, "keyboard-focus")
    version = view["version"]
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "button[data-action]"))
    browser.find_element(By.CSS_SELECTOR, "button[data-action]").send_keys(Keys.ENTER)
    rendered(browser, version + 1)
    inside = "return !!document.activeElement.closest('section[aria-label=\"Your seat\"]')"
    assert browser.execute_script(inside), browser.switch_to.active_element.tag_name
    no_errors(browser)


def test_a_double_click_sends_one_command_and_says_no_error(
    browser: WebDriver, console: Console
) -> None:
    """Each click sent a command of its own: the second was refused as out of turn and
    the page showed that refusal though the move had gone through."""
    table, view = seat_to_act_page(browser, console, "pitch", 3, "double-click")
    pass_button = wait_for(
        browser,
        lambda d: next(
            (b for b in d.find_elements(By.CSS_SELECTOR, "button.action") if b.text == "Pass"),
            None,
        ),
    )
    ActionChains(browser).double_click(pass_button).perform()
    rendered(browser, view["version"] + 1)
    assert passes(console, table) == 1
    assert browser.find_element(By.CSS_SELECTOR, ".message").text == ""
    no_errors(browser)


def test_pages_left_one_after_another_keep_no_connection_open(
    browser: WebDriver, console: Console
) -> None:
    """A page the browser kept in its back/forward cache kept its event stream open. A
    browser opens six connections to one server: after six table pages left one after
    another, the seventh waited a minute for its first request to be sent."""
    tables = [console.table("pitch", 2, f"left-behind-{n}")[0] for n in range(8)]
    browser.set_page_load_timeout(10)
    try:
        for table in tables:
            browser.get(f"{console.base}/console/tables/{table}")
            rendered(browser, console.view(table)["version"])
            # Its stream too gets a connection: the page follows the table live.
            wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live").text == "live")
    finally:
        browser.set_page_load_timeout(300)
