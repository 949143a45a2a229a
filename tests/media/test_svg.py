from __future__ import annotations

import hashlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import defusedxml.ElementTree as ET
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.media._chart_cases import CASES, GOLDEN

from nika.errors import NikaError
from nika.media._numfmt import coord, format_value, nice_ticks
from nika.media._text_metrics import fit, text_width
from nika.media.svg import DECIMATE_ABOVE, MAX_CATEGORIES, MAX_ROWS, MAX_SERIES, render

NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[2]


def _num(element: Any, attr: str) -> float:
    return float(str(element.get(attr)))


def _render(name: str) -> bytes:
    case = CASES[name]
    return render(case["chart"], case["semantics"], case["data"]).svg


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_type_matches_its_golden_bytes(name: str) -> None:
    assert _render(name) == (GOLDEN / f"chart_{name}.svg").read_bytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_golden_is_well_formed_svg(name: str) -> None:
    root = ET.fromstring((GOLDEN / f"chart_{name}.svg").read_bytes())
    assert root.tag == f"{NS}svg" and root.get("width") == "800" and root.get("height") == "450"
    title = root.find(f"{NS}title")
    assert title is not None and title.text == CASES[name]["chart"]["title"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_float_noise_in_any_coordinate(name: str) -> None:
    text = _render(name).decode()
    for attr in re.findall(r' (?:x|y|x1|x2|y1|y2|cx|cy|width|height|d)="([^"]*)"', text):
        for number in re.findall(r"-?\d+(?:\.\d+)?", attr):
            assert len(number.partition(".")[2]) <= 1, (attr, number)


_CHILD = """
import hashlib, json, sys
sys.path.insert(0, {root!r})
from tests.media._chart_cases import CASES
from nika.media.svg import render
print(json.dumps({{n: hashlib.sha256(render(c["chart"], c["semantics"], c["data"]).svg)
                  .hexdigest() for n, c in sorted(CASES.items())}}))
"""


def test_identical_bytes_twice_and_across_hash_seeds() -> None:
    here = {n: hashlib.sha256(_render(n)).hexdigest() for n in sorted(CASES)}
    assert here == {n: hashlib.sha256(_render(n)).hexdigest() for n in sorted(CASES)}
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT))], env=env,
                             capture_output=True, text=True, check=True, timeout=120)
        assert json.loads(out.stdout) == here


def test_bars_anchor_at_zero_with_heights_in_proportion() -> None:
    root = ET.fromstring(_render("bar"))
    bars = [r for g in root.iter(f"{NS}g") if g.get("fill") == "#3b6fb6"
            for r in g.iter(f"{NS}rect")]
    bottoms = {round(_num(r, "y") + _num(r, "height"), 1) for r in bars}
    assert len(bars) == 3 and len(bottoms) == 1  # one shared zero line
    heights = [_num(r, "height") for r in bars]
    values = [row["revenue"] for row in CASES["bar"]["data"]]
    for h, v in zip(heights, values, strict=True):
        assert h / heights[1] == pytest.approx(v / values[1], abs=0.002)


def test_negative_bars_hang_from_zero_and_deltas_diverge() -> None:
    rows = [{"k": "a", "d": 5}, {"k": "b", "d": -3}]
    svg = render({"type": "bar", "x": "k", "y": "d"}, {"d": "delta"}, rows).svg
    rects = [r for r in ET.fromstring(svg).iter(f"{NS}rect") if r.get("fill") in
             ("#2f7ab8", "#c2473d")]
    up, down = rects
    assert up.get("fill") == "#2f7ab8" and down.get("fill") == "#c2473d"
    zero = _num(up, "y") + _num(up, "height")
    assert _num(down, "y") == pytest.approx(zero, abs=0.1)
    assert b">+4<" in svg or b">+5<" in svg or b">+6<" in svg  # signed tick labels


def test_predictions_are_dashed_and_observations_solid() -> None:
    paths = list(ET.fromstring(_render("area_band")).iter(f"{NS}path"))
    band, predicted, actual = paths
    assert band.get("fill-opacity") == "0.25"
    assert predicted.get("stroke-dasharray") == "6 4"
    assert actual.get("stroke-dasharray") is None


def _spiky(n: int) -> list[dict[str, Any]]:
    rows = [{"x": i, "y": math.sin(i / 40) * 10} for i in range(n)]
    rows[1234]["y"] = 500.0
    rows[4321]["y"] = -700.0
    return rows


def test_long_series_are_decimated_keeping_extremes_and_warn() -> None:
    out = render({"type": "line", "x": "x", "y": "y"}, None, _spiky(10_000))
    [warning] = out.warnings
    assert "10000 points, drawn as" in warning and str(DECIMATE_ABOVE) in warning
    [path] = ET.fromstring(out.svg).iter(f"{NS}path")
    ys = [float(p.split()[1]) for p in str(path.get("d"))[1:].split(" L")]
    assert len(ys) <= DECIMATE_ABOVE + 2
    root = ET.fromstring(out.svg)
    ticks = {t.text: float(str(t.get("y"))) for t in root.iter(f"{NS}text")
             if t.get("text-anchor") == "end"}
    zero, up = ticks["0"], ticks["500"]  # 500 units up from zero, in pixels
    assert min(ys) == pytest.approx(zero - (zero - up) * 500 / 500, abs=0.1)  # the +500 spike
    assert max(ys) == pytest.approx(zero + (zero - up) * 700 / 500, abs=0.1)  # the -700 one


@pytest.mark.parametrize(("rows", "code"), [
    ([], "NIKA-BUILTIN-CHART-001"),
    ([{"x": 1, "why": 2}], "NIKA-BUILTIN-CHART-002"),
    ([{"x": 1, "y": math.nan}], "NIKA-BUILTIN-CHART-003"),
    ([{"x": 1, "y": math.inf}], "NIKA-BUILTIN-CHART-003"),
    ([{"x": 1, "y": 1e300}], "NIKA-BUILTIN-CHART-003"),
    ([{"x": 1, "y": 10**5000}], "NIKA-BUILTIN-CHART-003"),
    ([{"x": 1, "y": 1.0}, {"x": 2, "y": 1.0 + 1e-12}], "NIKA-BUILTIN-CHART-005"),
    ([{"x": 1, "y": "12"}], "NIKA-BUILTIN-CHART-006"),
    ([{"x": 1, "y": True}], "NIKA-BUILTIN-CHART-006"),
    ([{"x": 1, "y": {"n": 1}}], "NIKA-BUILTIN-CHART-006"),
    (["row"], "NIKA-BUILTIN-CHART-006"),
    ([{"x": 1, "y": 2}] * (MAX_ROWS + 1), "NIKA-BUILTIN-CHART-007"),
    ([{"x": i, "y": 1, "c": str(i)} for i in range(MAX_SERIES + 1)], "NIKA-BUILTIN-CHART-007"),
])
def test_hostile_rows_are_refused_with_the_charts_code(rows: list[Any], code: str) -> None:
    chart = {"type": "line", "x": "x", "y": "y"}
    if rows and isinstance(rows[0], dict) and "c" in rows[0]:
        chart["color"] = "c"
    with pytest.raises(NikaError) as caught:
        render(chart, None, rows)
    assert caught.value.code == code, caught.value.detail


def test_an_unknown_field_names_the_close_one() -> None:
    with pytest.raises(NikaError, match="did you mean 'revenue'"):
        render({"type": "bar", "x": "region", "y": "revenu"}, None, CASES["bar"]["data"])


@pytest.mark.parametrize("chart", [
    {"type": "pie", "x": "a", "y": "b"},
    {"type": "bar", "x": "a"},
    {"type": "bar", "x": "a", "y": "b", "y_lo": "c"},
    {"type": "bar", "x": "a", "y": "b", "colour": "c"},
    {"type": "bar", "x": "a", "y": 3},
    "bar",
])
def test_an_invalid_spec_is_chart_004(chart: Any) -> None:
    with pytest.raises(NikaError) as caught:
        render(chart, None, [{"a": "x", "b": 1}])
    assert caught.value.code == "NIKA-BUILTIN-CHART-004"


def test_an_unknown_semantic_kind_is_chart_004() -> None:
    with pytest.raises(NikaError) as caught:
        render({"type": "bar", "x": "a", "y": "b"}, {"b": "euros"}, [{"a": "x", "b": 1}])
    assert caught.value.code == "NIKA-BUILTIN-CHART-004" and "'euros'" in caught.value.detail


def test_too_many_categories_is_chart_007() -> None:
    rows = [{"a": f"c{i}", "b": i} for i in range(MAX_CATEGORIES + 1)]
    with pytest.raises(NikaError) as caught:
        render({"type": "bar", "x": "a", "y": "b"}, None, rows)
    assert caught.value.code == "NIKA-BUILTIN-CHART-007"


def test_hostile_text_stays_well_formed() -> None:
    rows = [{"k": "<b>&\x00\x07\ud800\"'", "v": 1}]
    out = render({"type": "bar", "x": "k", "y": "v", "title": "]]><x/>\x1b[31m"}, None, rows)
    root = ET.fromstring(out.svg)
    assert "\x1b" not in "".join(root.itertext())


def test_a_constant_series_still_draws() -> None:
    out = render({"type": "line", "x": "x", "y": "y"}, None, [{"x": 1, "y": 5}, {"x": 2, "y": 5}])
    assert next(ET.fromstring(out.svg).iter(f"{NS}path")) is not None


@given(st.floats(min_value=-1e7, max_value=1e7, allow_nan=False))
def test_coordinates_are_tenths_without_noise(value: float) -> None:
    spelled = coord(value)
    assert re.fullmatch(r"-?\d+(\.\d)?", spelled) and spelled != "-0"
    assert abs(float(spelled) - value) <= 0.05 + 1e-9 * abs(value)


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
       st.floats(min_value=1e-6, max_value=1e12, allow_nan=False))
def test_nice_ticks_cover_the_range_with_round_steps(lo: float, width: float) -> None:
    width = max(width, abs(lo) * 1e-6)  # `domain` refuses a narrower one (CHART-005)
    ticks = nice_ticks(lo, lo + width)
    slack = (ticks.values[1] - ticks.values[0]) * 1e-6  # float noise, far below a pixel
    assert ticks.lo <= lo + slack and ticks.hi >= lo + width - slack
    assert 2 <= len(ticks.values) <= 12


@pytest.mark.parametrize(("kind", "value", "decimals", "spelled"), [
    ("usd", 184320.0, None, "$184,320"),
    ("usd", 12.5, None, "$12.50"),
    ("usd", 0.0042, None, "$0.0042"),
    ("usd", 2_500_000.0, None, "$2.5M"),
    ("usd", -40.0, 0, "-$40"),
    ("tokens", 12_345.0, None, "12.3k"),
    ("tokens", 4_500_000.0, None, "4.5M"),
    ("duration_ms", 850.0, None, "850ms"),
    ("duration_ms", 12_300.0, None, "12.3s"),
    ("duration_ms", 245_000.0, None, "4m 5s"),
    ("duration_ms", 7_500_000.0, None, "2h 5m"),
    ("percent", 0.253, None, "25.3%"),
    ("percent", 0.5, 1, "50%"),
    ("count", 1234567.0, None, "1,234,567"),
    ("delta", 3.5, None, "+3.5"),
    ("delta", -2.0, 0, "-2"),
    ("delta", -0.0, 0, "0"),
    ("timestamp", 1_783_555_200.0, None, "07-09 00:00"),
    (None, 0.1 + 0.2, None, "0.3"),
])
def test_values_are_spelled_by_their_semantics(kind: str | None, value: float,
                                               decimals: int | None, spelled: str) -> None:
    assert format_value(kind, value, decimals=decimals, span=3600.0) == spelled


def test_text_widths_come_from_the_table() -> None:
    assert text_width("iiii", 10) < text_width("MMMM", 10)
    assert text_width("日本", 10) == 20
    assert fit("a long category name", 11, 40).endswith("…")
    assert text_width(fit("a long category name", 11, 40), 11) <= 40


_VALUES = st.one_of(
    st.none(), st.booleans(), st.sampled_from(["", "EMEA", "<&>", "\x00"]),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(), max_size=2),
    st.sampled_from(["2026-07-09", "2026-07-09T12:00:00Z", "not a date"]),
)
_FIELDS = st.sampled_from(["a", "b", "c"])


@given(
    rows=st.lists(st.fixed_dictionaries({}, optional={"a": _VALUES, "b": _VALUES,
                                                      "c": _VALUES}), max_size=8),
    kind=st.sampled_from(["bar", "line", "area_band", "scatter", "heatmap"]),
    roles=st.dictionaries(st.sampled_from(["x", "y", "y_lo", "y_hi", "y2", "color"]),
                          _FIELDS, max_size=4),
    semantics=st.dictionaries(_FIELDS, st.sampled_from(
        ["usd", "duration_ms", "tokens", "delta", "percent", "timestamp", "count",
         "category"]), max_size=2),
)
def test_any_input_renders_or_is_refused_with_a_chart_code(
        rows: list[dict[str, Any]], kind: str, roles: dict[str, str],
        semantics: dict[str, str]) -> None:
    try:
        out = render({"type": kind, **roles}, semantics, rows)
    except NikaError as err:
        assert err.code.startswith("NIKA-BUILTIN-CHART-"), (err.code, err.detail)
        return
    root = ET.fromstring(out.svg)
    for element in root.iter():
        for attr in ("x", "y", "width", "height", "cx", "cy", "x1", "x2", "y1", "y2"):
            if element.get(attr) is not None:
                assert math.isfinite(_num(element, attr)), (attr, element.get(attr))
        assert "nan" not in (element.text or "").replace("(nan)", "").lower()


def test_duration_axes_step_by_the_clock() -> None:
    rows = [{"d": i, "v": i * i * 12_345.5} for i in range(20)]
    svg = render({"type": "line", "x": "d", "y": "v"}, {"v": "duration_ms"}, rows).svg
    labels = [t.text for t in ET.fromstring(svg).iter(f"{NS}text")
              if t.get("text-anchor") == "end"]
    assert labels == ["0ms", "15m", "30m", "45m", "1h", "1h 15m"]


def test_a_delta_line_reads_against_zero() -> None:
    rows = [{"x": i, "y": i - 3} for i in range(7)]
    svg = render({"type": "line", "x": "x", "y": "y"}, {"y": "delta"}, rows).svg
    ink = [line for line in ET.fromstring(svg).iter(f"{NS}line")
           if line.get("stroke") == "#333333"]
    labels = {t.text: _num(t, "y") for t in ET.fromstring(svg).iter(f"{NS}text")
              if t.get("text-anchor") == "end"}
    assert [_num(line, "y1") for line in ink] == [labels["0"]]
    assert "+2" in labels and "-2" in labels


@pytest.mark.parametrize(("value", "shown"), [
    (10**5000, "(16610-bit int)"), (1e20, "1e+20"), (math.inf, "(inf)"), (2.5, "2.5"),
    (True, "true"), (None, "(none)"),
], ids=["huge-int", "huge-float", "inf", "float", "bool", "none"])
def test_any_scalar_names_a_category(value: Any, shown: str) -> None:
    svg = render({"type": "bar", "x": "k", "y": "v"}, None, [{"k": value, "v": 1}]).svg
    assert f">{shown}<".encode() in svg
