"""`compile_to: vega_lite` — the same chart as a Vega-Lite **v6** specification (`.vl.json`).

The SVG is the attestation surface; this sibling is for people who want to restyle or explore
the chart in the Vega ecosystem. It carries every row (projected onto the fields the chart
uses — no decimation: Vega-Lite aggregates its own way), the same encodings, the same honesty
(bars from zero, a dashed prediction and a solid observation, a diverging scheme centred on
zero for `delta`), and is written as sorted, indented JSON: the same inputs, the same bytes.
A numeric timestamp (Unix seconds, as the SVG reads it) is written as ISO-8601 UTC, which
Vega-Lite parses as a date.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from nika.media._chart_data import ChartSpec

SCHEMA: Final = "https://vega.github.io/schema/vega-lite/v6.json"
"""The Vega-Lite major version this engine writes (validated against v6.4 in the tests)."""

_FORMATS: Final = {"usd": "$,.2~f", "tokens": "~s", "percent": ".0%", "count": ",d",
                   "delta": "+,~g"}
_DASH: Final = [6, 4]


def _field(name: str) -> str:
    # Vega-Lite reads `.` and `[]` in a field name as a path: escape them to mean the key
    return name.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[").replace("]", "\\]")


def _channel(spec: ChartSpec, role: str, kind: str) -> dict[str, Any]:
    name = spec.fields[role]
    semantic = spec.semantics.get(name)
    out: dict[str, Any] = {"field": _field(name), "type": kind, "title": name}
    if kind in ("nominal", "ordinal"):
        out["sort"] = None  # the data's own order, as the SVG draws it
    if kind == "quantitative" and semantic in _FORMATS:
        out["axis"] = {"format": _FORMATS[semantic]}
    if semantic == "duration_ms":
        out["title"] = f"{name} (ms)"
    return out


def _x_type(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> str:
    if spec.type in ("bar", "heatmap"):
        return "nominal"
    kind = spec.kind("x")
    if kind == "timestamp":
        return "temporal"
    if kind == "category":
        return "ordinal"
    name = spec.fields["x"]
    numeric = all(isinstance(r.get(name), int | float) and not isinstance(r.get(name), bool)
                  for r in rows if r.get(name) is not None)
    return "quantitative" if numeric else "ordinal"


def _values(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    used = sorted(set(spec.fields.values()))
    stamps = {name for name in used if spec.semantics.get(name) == "timestamp"}
    out = []
    for row in rows:
        projected = {}
        for name in used:
            value = row.get(name)
            if name in stamps and isinstance(value, int | float) and not isinstance(value, bool):
                value = datetime.fromtimestamp(value, UTC).isoformat().replace("+00:00", "Z")
            projected[name] = value
        out.append(projected)
    return out


def compile_spec(spec: ChartSpec, rows: Sequence[Mapping[str, Any]], *, width: int,
                 height: int) -> dict[str, Any]:
    """The Vega-Lite specification of the chart `spec` draws from `rows` (already judged)."""
    x = _channel(spec, "x", _x_type(spec, rows))
    top: dict[str, Any] = {"$schema": SCHEMA, "width": width - 200, "height": height - 110,
                           "data": {"values": _values(spec, rows)}}
    if spec.title:
        top["title"] = spec.title
    if spec.type == "bar":
        y = _channel(spec, "y", "quantitative") | {"stack": None}
        y["scale"] = {"zero": True}
        enc: dict[str, Any] = {"x": x, "y": y}
        if "color" in spec.fields:
            enc["color"] = _channel(spec, "color", "nominal")
            enc["xOffset"] = _channel(spec, "color", "nominal")
        elif spec.kind("y") == "delta":
            test = f"datum[{json.dumps(spec.fields['y'])}] < 0"
            enc["color"] = {"condition": {"test": test, "value": "#c2473d"}, "value": "#2f7ab8"}
        return top | {"mark": "bar", "encoding": enc}
    if spec.type == "heatmap":
        colour = _channel(spec, "color", "quantitative")
        if "axis" in colour:  # a colour channel's guide is its legend
            colour["legend"] = colour.pop("axis")
        colour["scale"] = ({"scheme": "redblue", "domainMid": 0, "reverse": True}
                           if spec.kind("color") == "delta" else {"scheme": "blues"})
        enc = {"x": x, "y": _channel(spec, "y", "nominal"), "color": colour}
        return top | {"mark": "rect", "encoding": enc}
    if spec.type == "scatter":
        enc = {"x": x, "y": _channel(spec, "y", "quantitative")}
        if "color" in spec.fields:
            enc["color"] = _channel(spec, "color", "nominal")
        return top | {"mark": {"type": "point", "filled": True}, "encoding": enc}
    return top | {"layer": _layers(spec, x)}


def _layers(spec: ChartSpec, x: dict[str, Any]) -> list[dict[str, Any]]:
    layers: list[dict[str, Any]] = []
    if spec.type == "area_band":
        band = {"x": x, "y": _channel(spec, "y_lo", "quantitative"),
                "y2": {"field": _field(spec.fields["y_hi"])}}
        layers.append({"mark": {"type": "area", "opacity": 0.25}, "encoding": band})
    for role, dashed in (("y", spec.type == "area_band"), ("y2", False)):
        if role not in spec.fields:
            continue
        enc = {"x": x, "y": _channel(spec, role, "quantitative")}
        if "color" in spec.fields:
            enc["color"] = _channel(spec, "color", "nominal")
        mark: dict[str, Any] = {"type": "line"}
        if dashed:
            mark["strokeDash"] = _DASH
        layers.append({"mark": mark, "encoding": enc})
    return layers


_ROWS: Final = "\x00rows\x00"
"""A placeholder for the data values: JSON spells it with escapes (`"\\u0000rows\\u0000"`), and
sorted keys put `data` before anything else a user names (only `$schema` precedes it)."""


def to_bytes(spec: dict[str, Any]) -> bytes:
    """The specification as the `.vl.json` file holds it: sorted, indented, UTF-8 — each data
    row on one line, written by the C encoder (the indenting one is pure Python, and slow
    and memory-hungry on 250,000 rows)."""
    values = spec["data"]["values"]
    shell = {**spec, "data": {**spec["data"], "values": _ROWS}}
    text = json.dumps(shell, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    dump = json.JSONEncoder(sort_keys=True, ensure_ascii=False, allow_nan=False).encode
    rows = ",\n".join("      " + dump(row) for row in values)
    body = "[\n" + rows + "\n    ]" if values else "[]"
    placeholder = json.dumps(_ROWS)
    return (text.replace(placeholder, body, 1) + "\n").encode("utf-8")
