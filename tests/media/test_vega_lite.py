"""The `.vl.json` sibling: valid against the pinned Vega-Lite v6 schema (the copy the `altair`
package ships) and drawn by a real Vega-Lite renderer (`vl-convert`), mark for mark."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import vl_convert
from tests.media._chart_cases import CASES

from nika.media import vega_lite
from nika.media._chart_data import parse_spec
from nika.tools.builtins import BuiltinExecutor, Context

MARKS = {
    "bar": [("rect", 3)],
    "line": [("line", 24), ("line", 24)],
    "area_band": [("area", 30), ("line", 30), ("line", 30)],
    "scatter": [("symbol", 45)],
    "heatmap": [("rect", 56)],
}


@functools.cache
def _validator() -> Any:
    text = resources.files("altair").joinpath("vegalite/v6/schema/vega-lite-schema.json")
    schema = json.loads(text.read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def _compiled(name: str) -> dict[str, Any]:
    case = CASES[name]
    spec = parse_spec(case["chart"], case["semantics"])
    return vega_lite.compile_spec(spec, case["data"], width=800, height=450)


def _marks(node: Any) -> Iterator[tuple[str, int]]:
    if isinstance(node, dict):
        if node.get("role") == "mark" and "marktype" in node:
            yield node["marktype"], len(node.get("items", []))
        for value in node.values():
            yield from _marks(value)
    elif isinstance(node, list):
        for value in node:
            yield from _marks(value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_validates_against_the_pinned_schema(name: str) -> None:
    spec = _compiled(name)
    assert spec["$schema"] == "https://vega.github.io/schema/vega-lite/v6.json"
    errors = sorted(_validator().iter_errors(spec), key=lambda e: list(e.path))
    assert errors == [], [e.message[:200] for e in errors]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_real_renderer_draws_every_row(name: str) -> None:
    graph = vl_convert.vegalite_to_scenegraph(_compiled(name), vl_version="6.4")
    assert list(_marks(graph)) == MARKS[name]
    svg = vl_convert.vegalite_to_svg(_compiled(name), vl_version="6.4")
    assert svg.startswith("<svg") and CASES[name]["chart"]["title"] in svg


def test_the_prediction_is_dashed_and_bars_start_at_zero() -> None:
    band = _compiled("area_band")["layer"]
    assert band[1]["mark"]["strokeDash"] == [6, 4] and "strokeDash" not in band[2]["mark"]
    assert _compiled("bar")["encoding"]["y"]["scale"] == {"zero": True}


def test_field_names_with_path_characters_are_keys() -> None:
    spec = parse_spec({"type": "bar", "x": "a.b", "y": "c[0]"}, None)
    out = vega_lite.compile_spec(spec, [{"a.b": "x", "c[0]": 1}], width=800, height=450)
    assert out["encoding"]["x"]["field"] == "a\\.b" and out["encoding"]["y"]["field"] == "c\\[0\\]"
    graph = vl_convert.vegalite_to_scenegraph(out, vl_version="6.4")
    assert list(_marks(graph)) == [("rect", 1)]


def test_numeric_timestamps_become_iso_dates() -> None:
    spec = parse_spec({"type": "line", "x": "t", "y": "v"}, {"t": "timestamp"})
    out = vega_lite.compile_spec(spec, [{"t": 0, "v": 1}], width=800, height=450)
    assert out["data"]["values"] == [{"t": "1970-01-01T00:00:00Z", "v": 1}]


async def test_the_builtin_writes_the_sibling_byte_identically(tmp_path: Path) -> None:
    case = CASES["heatmap"]
    args = {"data": case["data"], "semantics": case["semantics"], "chart": case["chart"],
            "out": "out/heat.svg", "compile_to": "vega_lite"}
    executor = BuiltinExecutor(Context(base_dir=tmp_path))
    first = await executor.call("nika:chart", args)
    again = await executor.call("nika:chart", args)
    assert first.error is None, first.error
    sibling = first.structured["vega_lite"]
    assert sibling["path"] == "out/heat.vl.json" and sibling["wrote"] is True
    assert again.structured["vega_lite"] == {**sibling, "wrote": False}
    written = (tmp_path / "out" / "heat.vl.json").read_bytes()
    assert written == vega_lite.to_bytes(_compiled("heatmap"))
    assert list(_validator().iter_errors(json.loads(written))) == []


def test_one_row_per_line_and_a_title_like_the_placeholder_survives() -> None:
    spec = parse_spec({"type": "bar", "x": "k", "y": "v", "title": "\x00rows\x00"}, None)
    compiled = vega_lite.compile_spec(spec, [{"k": "a", "v": 1}, {"k": "b", "v": 2}],
                                      width=800, height=450)
    written = vega_lite.to_bytes(compiled)
    assert json.loads(written) == compiled
    assert b'\n      {"k": "a", "v": 1},\n      {"k": "b", "v": 2}\n' in written
