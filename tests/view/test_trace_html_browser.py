"""The HTML trace view in a real browser: Debian's headless Chromium driven by Selenium.

`make test` installs `chromium` and `chromium-driver` when they are missing, so this test is
part of the normal suite; nothing is downloaded at run time (the driver and the browser are the
system's, named by path, so Selenium Manager never runs). The page is opened from a file with
every background-network feature off; it has nothing to fetch anyway (see its CSP).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from tests._browser import chromium
from tests.journal._journals import run_journal

from nika.cli import main

ARTEFACTS: Final = Path(__file__).resolve().parents[2] / "build" / "artefacts"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    with chromium(tmp_path_factory, "--window-size=1280,1000") as driver:
        yield driver


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    out = tmp / "trace.html"
    assert main(["trace", "show", str(run_journal(tmp)), "--html", str(out)]) == 0
    return out


def test_the_page_shows_the_outcome_tasks_turns_and_a_highlighted_stall(
    browser: WebDriver, page: Path
) -> None:
    browser.get(page.as_uri())
    outcome = browser.find_element(By.ID, "outcome")
    assert outcome.location["y"] == 0 and outcome.text.startswith("SUCCESS")  # heads the page
    verdict = outcome.find_element(By.ID, "verdict")
    assert verdict.is_displayed() and verdict.text.startswith("chain CLEAN")

    rows = browser.find_elements(By.CSS_SELECTOR, ".trow")
    assert [r.text for r in rows] == ["hello", "draft", "wrapup"]
    assert all(r.is_displayed() for r in rows)
    turns = browser.find_elements(By.CSS_SELECTOR, "details.turn")
    assert len(turns) == 6 and all(t.is_displayed() for t in turns)

    [stall] = browser.find_elements(By.CSS_SELECTOR, "details.turn.stall")
    summary = stall.find_element(By.TAG_NAME, "summary")
    assert summary.value_of_css_property("background-color") == "rgba(255, 206, 203, 1)"
    assert stall.get_attribute("open") is not None
    evidence = stall.find_element(By.CSS_SELECTOR, ".evidence.stall")
    assert evidence.is_displayed() and "NIKA-AGENT-006" in evidence.text
    [nudge] = browser.find_elements(By.CSS_SELECTOR, "details.turn.nudge")
    assert not nudge.find_element(By.CSS_SELECTOR, ".evidence").is_displayed()  # folded

    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / "trace-view.png"  # docs/trace-view.png is a copy of it
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_controls_filter_and_unfold_turns(browser: WebDriver, page: Path) -> None:
    # The controls are the inline script, allowed by its hash in the page's CSP: were the
    # hash wrong, the browser would block it and these clicks would do nothing.
    browser.get(page.as_uri())
    turns = browser.find_elements(By.CSS_SELECTOR, "details.turn")
    browser.find_element(By.ID, "only").click()
    shown = [t.is_displayed() for t in turns]
    assert shown == [True] * 5 + [False]  # wrapup's plain turn is hidden, the cycle stays
    browser.find_element(By.ID, "only").click()
    assert turns[5].is_displayed()

    browser.find_element(By.ID, "open").click()
    [nudge] = browser.find_elements(By.CSS_SELECTOR, "details.turn.nudge")
    assert nudge.find_element(By.CSS_SELECTOR, ".evidence.nudge").is_displayed()
    browser.find_element(By.ID, "close").click()
    assert not any(t.get_attribute("open") for t in turns)

