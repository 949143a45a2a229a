"""The trace page as a person reads it, in headless Chromium (`tests/_browser.py`): the
outcome heads a failed run's page, no column header is clipped at a desktop (1280×900) or a
phone (390×844, CDP device-metrics emulation) width, the reply and the cost are on the page,
and hostile model text and tool results stay inert text under the CSP. Screenshots are kept
under build/artefacts/."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from tests._browser import chromium
from tests.journal._journals import MIXED, chained_journal

from nika.journal.verify import read_frames, verify
from nika.run.launch import RunOptions, Streams, run_command
from nika.view.console import Console
from nika.view.trace_html import render_html, render_view
from nika.view.trace_view import fold

ARTEFACTS: Final = Path(__file__).resolve().parents[2] / "build" / "artefacts"
SECRET: Final = "s3cr3t-page-77"
FAILED: Final = MIXED.replace("""    on_error:
      recover: "stalled"
""", "").replace("""  hello:
    infer: { prompt: "Say hello." }
""", """  hello:
    infer: { prompt: "Say hello to ${{ secrets.token }}." }
""").replace("permits:", "secrets: { token: { source: env, key: TOKEN, egress: [{ to: infer }] } }"
             "\npermits:")
"""The view demo with the stall unrecovered (the run fails with NIKA-AGENT-006) and a
declared secret in the infer prompt, which mock/echo echoes into the task's output."""

EVIL: Final = ("</details></dd></dl><script>window.pwned=1</script>"
               "<a href='javascript:window.pwned=2'>x</a>\x1b[31m\u202e" + "z" * 200)
"""Hostile text a model or a tool may return: markup, a script, a javascript: link, controls."""


def _failed_page(tmp: Path) -> Path:
    source = tmp / "flow.nika.yaml"
    source.write_text(FAILED, encoding="utf-8")
    run_command(RunOptions(file=source, trace_dir=tmp / "traces"),
                Streams(io.StringIO(), io.StringIO()), Console(out=io.StringIO()),
                environ={"TOKEN": SECRET})
    [journal] = (tmp / "traces").glob("*.ndjson")
    data = journal.read_bytes()
    page = tmp / "failed.html"
    page.write_text(render_html(read_frames(data), verify(data), journal.name), encoding="utf-8")
    return page


def _hostile_page(tmp: Path) -> Path:
    """A priced agent run whose tool returned hostile text; the model's reply (a field the
    journal gains with the content capture) is put into the turn's values, as it will be."""
    journal = chained_journal(tmp / "hostile.ndjson", [
        ("workflow_started", {"workflow": "priced", "tasks": 1}),
        ("task_started", {"task": "ask"}),
        ("verb_invoked", {"task": "ask", "agent_event": "run_started", "attempt": 1,
                          "model": "openai/gpt-4o", "universe": 1}),
        ("cost_incurred", {"task": "ask", "agent_event": "model_called", "attempt": 1,
                           "turn": 1, "model": "openai/gpt-4o", "input_tokens": 1000,
                           "output_tokens": 500, "duration_ms": 812.5,
                           "finish_reason": "tool_calls"}),
        ("tool_invoked", {"task": "ask", "agent_event": "tool_completed", "attempt": 1,
                          "turn": 1, "name": "nika:fetch", "call_id": "c1", "is_error": False,
                          "result_bytes": len(EVIL), "arguments": '{"url":"javascript:x"}',
                          "result": EVIL}),
        ("task_completed", {"task": "ask", "status": "success", "duration_ms": 900,
                            "output": '"done"'}),
        ("workflow_completed", {"state": "success", "outputs": '{"answer":"done"}'}),
    ])
    data = journal.read_bytes()
    view = fold(read_frames(data), verify(data))
    [run] = view.tasks["ask"].runs.values()
    run.turns[1].values["reply"] = "The answer is 42. " + EVIL
    page = tmp / "hostile.html"
    page.write_text(render_view(view, journal.name), encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("page")
    return _failed_page(tmp), _hostile_page(tmp)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    with chromium(tmp_path_factory, "--window-size=1280,900") as driver:
        yield driver


_CLIPPED: Final = """
return Array.from(document.querySelectorAll('.thead>span, .tl>.hd'))
  .filter(function (c) { return c.offsetParent !== null; })
  .map(function (c) {
    return [c.textContent, c.scrollWidth, c.clientWidth, c.getBoundingClientRect().right];
  });
"""


def _headers_fit(browser: WebDriver, width: int) -> None:
    cells = browser.execute_script(_CLIPPED)
    assert len(cells) >= 10  # the task table's and the turn table's headers, shown
    clipped = [c for c in cells if c[1] > c[2] or c[3] > width]
    assert not clipped, f"clipped column headers at {width} px: {clipped}"


def test_a_failed_run_is_headed_by_its_failure_and_fits_desktop_and_phone(
    browser: WebDriver, pages: tuple[Path, Path]
) -> None:
    failed, _ = pages
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    browser.get(failed.as_uri())
    outcome = browser.find_element(By.ID, "outcome")
    assert outcome.location["y"] == 0 and outcome.text.startswith("FAILURE")
    assert "NIKA-AGENT-006" in outcome.text  # the failure's code, in the headline
    verdict = outcome.find_element(By.ID, "verdict")
    assert verdict.text.startswith("chain CLEAN")  # the chain verdict beside, not above
    assert outcome.value_of_css_property("background-color") == "rgba(207, 34, 46, 1)"
    width = browser.execute_script("return document.documentElement.clientWidth")
    _headers_fit(browser, width)
    assert browser.save_screenshot(str(ARTEFACTS / "trace-page-1280.png"))
    totals = browser.find_element(By.ID, "totals").text
    assert "model calls 6" in totals and "cost unpriced" in totals  # mock: never $0
    assert SECRET not in browser.page_source and SECRET not in failed.read_text()
    assert "Say hello to ••••••." in browser.find_element(By.ID, "t0").text  # masked output

    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        browser.get(failed.as_uri())
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert width == 390
        _headers_fit(browser, width)
        scroll = browser.execute_script("return document.documentElement.scrollWidth")
        assert scroll <= width  # nothing runs off the side of a phone
        assert browser.save_screenshot(str(ARTEFACTS / "trace-page-390.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_reply_and_cost_are_on_the_page_and_hostile_text_is_inert(
    browser: WebDriver, pages: tuple[Path, Path]
) -> None:
    _, hostile = pages
    browser.get(hostile.as_uri())
    assert browser.execute_script("return window.pwned") is None  # no injected script ran
    assert len(browser.find_elements(By.TAG_NAME, "script")) == 1  # only the page's own
    assert not browser.find_elements(By.CSS_SELECTOR, "a[href^='javascript']")
    assert "$0.0075" in browser.find_element(By.ID, "totals").text  # 1000 in + 500 out
    browser.find_element(By.ID, "open").click()
    turn = browser.find_element(By.CSS_SELECTOR, "details.turn")
    assert "$0.0075" in turn.find_element(By.TAG_NAME, "summary").text  # per model call
    text = turn.get_attribute("textContent") or ""
    assert "The answer is 42. </details></dd></dl><script>window.pwned=1</script>" in text
    assert "\\x1b[31m\\u202e" in text and "\x1b" not in text  # controls shown, not obeyed
    assert len(turn.find_elements(By.CSS_SELECTOR, "details.fold")) == 2  # reply and result
    outputs = browser.find_element(By.ID, "outputs").text
    assert "answer" in outputs and "done" in outputs
    assert browser.save_screenshot(str(ARTEFACTS / "trace-page-hostile.png"))
