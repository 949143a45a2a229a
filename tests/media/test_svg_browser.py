"""Every golden chart in a real viewer: Debian's headless Chromium (driven by Selenium, as the
trace view's browser test drives it) opens the SVG file, and the screenshot shows the marks
where the data puts them — sampled at positions computed from the data and the axis ticks."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any, Final

import defusedxml.ElementTree as ET
import pytest
from PIL import Image
from selenium.webdriver.remote.webdriver import WebDriver
from tests._browser import chromium
from tests.media._chart_cases import CASES, GOLDEN

NS: Final = "{http://www.w3.org/2000/svg}"
RGB = tuple[int, int, int]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    with chromium(tmp_path_factory, "--window-size=1000,800", "--force-device-scale-factor=1",
                  "--hide-scrollbars") as driver:
        yield driver


def _shot(browser: WebDriver, name: str) -> Image.Image:
    browser.get((GOLDEN / f"chart_{name}.svg").as_uri())
    image = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    assert image.size[0] >= 800 and image.size[1] >= 450
    return image


def _hex(colour: str) -> RGB:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _over_white(colour: RGB, alpha: float) -> RGB:
    r, g, b = (round(c * alpha + 255 * (1 - alpha)) for c in colour)
    return r, g, b


def _near(image: Image.Image, x: float, y: float, colour: RGB, *, reach: int = 0,
          tolerance: int = 12) -> bool:
    """Some pixel within `reach` of (x, y) is `colour` (within `tolerance` per channel)."""
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            pixel: Any = image.getpixel((int(x) + dx, int(y) + dy))
            if all(abs(p - c) <= tolerance for p, c in zip(pixel[:3], colour, strict=True)):
                return True
    return False


def _root(name: str) -> Any:
    return ET.fromstring((GOLDEN / f"chart_{name}.svg").read_bytes())


def _y_scale(root: Any) -> tuple[float, float, float, float]:
    """Two y tick labels: (value, pixel) pairs read back from the axis the chart drew."""
    ticks = [(t.text, float(t.get("y"))) for t in root.iter(f"{NS}text")
             if t.get("text-anchor") == "end"]
    (a, ya), (b, yb) = ticks[0], ticks[-1]
    return _number(a), ya, _number(b), yb


def _number(label: str) -> float:
    text = label.replace("$", "").replace(",", "")
    scale = {"k": 1e3, "M": 1e6}.get(text[-1:], 1.0)
    return float(text.rstrip("kM")) * scale


def _pixel_of(value: float, scale: tuple[float, float, float, float]) -> float:
    a, ya, b, yb = scale
    return ya + (value - a) / (b - a) * (yb - ya)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_golden_renders_non_blank(browser: WebDriver, name: str) -> None:
    image = _shot(browser, name).crop((0, 0, 800, 450))
    colours = image.getcolors(maxcolors=800 * 450) or []
    inked = sum(count for count, rgb in colours if rgb != (255, 255, 255))
    assert inked > 800 * 450 // 50, f"{name}: only {inked} non-white pixels"


def test_bars_stand_as_tall_as_their_values(browser: WebDriver) -> None:
    image, root = _shot(browser, "bar"), _root("bar")
    scale = _y_scale(root)
    zero = _pixel_of(0, scale)
    blue = _hex("#3b6fb6")
    bars = [r for r in root.iter(f"{NS}rect") if r.get("height") and r.get("x")]
    for rect, row in zip(bars, CASES["bar"]["data"], strict=True):
        centre = float(rect.get("x")) + float(rect.get("width")) / 2
        top = _pixel_of(row["revenue"], scale)
        assert _near(image, centre, (top + zero) / 2, blue, tolerance=2)
        assert _near(image, centre, top + 3, blue, tolerance=2)
        assert not _near(image, centre, top - 4, blue, tolerance=30)  # nothing above it
        assert _near(image, centre, zero - 3, blue, tolerance=2)  # down to zero


def test_lines_pass_through_their_points(browser: WebDriver) -> None:
    image, root = _shot(browser, "line"), _root("line")
    for path, colour in zip(root.iter(f"{NS}path"), ("#3b6fb6", "#e0892f"), strict=True):
        points = [p.split() for p in path.get("d")[1:].split(" L")]
        for x, y in points[1:-1:4]:
            assert _near(image, float(x), float(y), _hex(colour), reach=2, tolerance=40)


def test_the_band_fills_between_its_bounds(browser: WebDriver) -> None:
    image, root = _shot(browser, "area_band"), _root("area_band")
    scale = _y_scale(root)
    day = CASES["area_band"]["data"][27]
    x_ticks = {t.text: float(t.get("x")) for t in root.iter(f"{NS}text")
               if t.get("text-anchor") == "middle" and t.text and t.text.isdigit()}
    x = x_ticks["25"] + (x_ticks["30"] - x_ticks["25"]) * 2 / 5
    fill = _over_white(_hex("#3b6fb6"), 0.25)
    assert _near(image, x, _pixel_of(day["lo"], scale) - 3, fill, tolerance=6)
    assert _near(image, x, _pixel_of(day["hi"], scale) + 3, fill, tolerance=6)
    assert _near(image, x, _pixel_of(day["hi"], scale) - 6, (255, 255, 255), tolerance=3)


def test_points_sit_at_their_values(browser: WebDriver) -> None:
    image, root = _shot(browser, "scatter"), _root("scatter")
    groups = [g for g in root.iter(f"{NS}g") if g.get("fill-opacity") == "0.8"]
    for group in groups:
        colour = _over_white(_hex(group.get("fill")), 0.8)
        for circle in list(group.iter(f"{NS}circle"))[::5]:
            assert _near(image, float(circle.get("cx")), float(circle.get("cy")), colour,
                         reach=1, tolerance=8)


def test_heatmap_cells_hold_their_colours(browser: WebDriver) -> None:
    image, root = _shot(browser, "heatmap"), _root("heatmap")
    cells = [r for r in root.iter(f"{NS}rect") if r.get("x") and float(r.get("width")) > 50]
    assert len(cells) == 56
    for cell in cells[::7]:
        x = float(cell.get("x")) + float(cell.get("width")) / 2
        y = float(cell.get("y")) + float(cell.get("height")) / 2
        assert _near(image, x, y, _hex(cell.get("fill")), tolerance=2)
