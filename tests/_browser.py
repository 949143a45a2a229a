"""Debian's headless Chromium driven by Selenium, by path (`make install-dev` installs both;
nothing is downloaded at run time): the one harness the browser tests share."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM: Final = Path("/usr/bin/chromium")
CHROMEDRIVER: Final = Path("/usr/bin/chromedriver")
FLAGS: Final = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)


@contextlib.contextmanager
def chromium(tmp_path_factory: pytest.TempPathFactory, *flags: str,
             needs: tuple[Path, ...] = ()) -> Iterator[WebDriver]:
    """A fresh browser with `flags` beside the shared ones (e.g. the window size), in its own
    profile directory, quit on exit; `needs` are other files the test cannot run without."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER, *needs) if not p.exists()]
    assert not missing, f"{missing} not installed: `make install-dev` installs them"
    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, *flags, f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
