"""The Assets section in a real browser (Debian's headless Chromium, as the trace page's own
browser test): the PNG thumbnail renders under the page's CSP — `img-src data:` is what lets
it — and the page loads no resource at all."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from tests._browser import chromium
from tests.view.test_assets import ran_with_assets

from nika.cli import main


def test_the_thumbnail_renders_and_nothing_is_fetched(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tmp_path_factory.mktemp("assets-browser")
    journal = ran_with_assets(base)
    monkeypatch.chdir(base)
    out = base / "page.html"
    assert main(["trace", "show", str(journal), "--html", str(out)]) == 0
    with chromium(tmp_path_factory, "--window-size=1300,1000") as browser:
        browser.get(out.as_uri())
        [thumb] = browser.find_elements(By.CSS_SELECTOR, "#assets img.thumb")
        assert thumb.is_displayed()
        natural = browser.execute_script(
            "return [arguments[0].complete, arguments[0].naturalWidth, "
            "arguments[0].naturalHeight]", thumb)
        assert natural == [True, 160, 96]  # 500×300 box-downscaled to a 160-pixel side
        items = browser.find_elements(By.CSS_SELECTOR, "#assets li")
        assert len(items) == 2 and "out/gray.png" in items[0].text
        fetched = browser.execute_script("return performance.getEntriesByType('resource')"
                                         ".map(function(e){return e.name})")
        assert fetched == []
