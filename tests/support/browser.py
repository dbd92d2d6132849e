"""Debian's headless Chromium driven through its chromedriver (Selenium), for the
console's tests: waits on the page's own markers, axe-core checks and screenshots.

Selenium rather than Playwright: Debian packages chromium and chromedriver together at
the same version, so the pair needs nothing downloaded, whereas Playwright's Python
package ships its own driver and expects browsers of its own build.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.wait import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "console" / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = ROOT / "tests" / "screenshots"
DESKTOP = (1280, 900)
PHONE = (390, 844)


def require_browser() -> None:
    """Skips without Chromium, chromedriver or axe-core, unless CI demands them
    (``CARDROOM_REQUIRE_BROWSER=1``, set by .ci/run, which installs them)."""
    missing = [
        str(path)
        for path in (Path(CHROMIUM), Path(CHROMEDRIVER), AXE)
        if not path.exists() and shutil.which(str(path)) is None
    ]
    if missing:
        message = (
            f"missing {', '.join(missing)}"
            " (apt-get install chromium chromium-driver; npm ci in tests/console)"
        )
        if os.environ.get("CARDROOM_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)


def open_browser() -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        # Background tabs (the other seats) keep their timers and streams running.
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    return driver


def wait_for(driver: WebDriver, condition: Callable[[WebDriver], Any], seconds: float = 10) -> Any:
    # An element found and then redrawn before it is read (the pages redraw as the
    # service moves on) is looked for again, as one not there yet is.
    stale = (StaleElementReferenceException,)
    return WebDriverWait(driver, seconds, 0.02, ignored_exceptions=stale).until(condition)


def body(driver: WebDriver, name: str) -> str | None:
    """A marker the console sets on ``<body>`` (``data-version``, ``data-rendered``)."""
    return driver.execute_script(f"return document.body.dataset.{name} ?? null")  # type: ignore[no-any-return]


def rendered(driver: WebDriver, version: int, seconds: float = 10) -> None:
    """Waits until the page has drawn ``version`` (or a later one)."""
    wait_for(driver, lambda d: int(body(d, "rendered") or 0) >= version, seconds)


def shown_cards(driver: WebDriver, within: str = "body") -> set[str]:
    """Every face-up card picture on the page (its ``data-card``)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.dataset.card)"
    return set(driver.execute_script(script, f"{within} svg[data-card]"))


def axe_violations(driver: WebDriver) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings on the page as it stands."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(AXE.read_text())
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(r.violations), e => done([{id: 'axe-error', impact: 'critical',"
        " description: String(e), nodes: []}]));"
    )
    return [v for v in found if v.get("impact") in ("serious", "critical")]


def assert_accessible(driver: WebDriver, page: str) -> None:
    violations = axe_violations(driver)
    summary = [
        f"{v['id']} ({v['impact']}): {v['description']} at "
        + ", ".join(str(n.get("target")) for n in v.get("nodes", [])[:3])
        for v in violations
    ]
    assert not violations, f"{page}: " + "; ".join(summary)


def screenshots(driver: WebDriver, name: str) -> None:
    """The whole page at desktop and phone sizes, into tests/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, (width, height) in (("desktop", DESKTOP), ("phone", PHONE)):
        driver.set_window_size(width, height)
        full = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, min(max(height, int(full) + 140), 4000))
        driver.save_screenshot(str(SCREENSHOTS / f"{name}-{label}.png"))
    driver.set_window_size(*DESKTOP)


def sign_in(driver: WebDriver, token: str) -> None:
    """Types the operator's token into the console's form (the page reloads)."""
    driver.find_element(By.ID, "operator-token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#operator-form button").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "signout"))


def no_errors(driver: WebDriver, expected: str = "favicon") -> None:
    """No script error on the page (the browser's console log) but the ``expected``."""
    errors = [
        entry
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and expected not in entry["message"]
    ]
    assert not errors, errors


# Installed on a page: the id of every live region whose text changes from then on.
SPOKEN = """
window.spoken = [];
const live = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"],'
  + ' [role="log"], output:not([aria-live="off"])';
new MutationObserver((changes) => {
  for (const change of changes) {
    const node = change.target.nodeType === 1 ? change.target : change.target.parentElement;
    const region = node && node.closest(live);
    if (region) window.spoken.push(region.id || region.className);
  }
}).observe(document.body, {childList: true, subtree: true, characterData: true});
"""
