"""`nika:chart`'s renderer: rows and a chart spec to SVG bytes, identical on every machine.

`render(chart, semantics, data)` judges the spec and rows (NIKA-BUILTIN-CHART-001…007), lays
the chart out on a fixed 800×450 canvas and writes the SVG itself — no plotting library, whose
output varies with its version and the fonts installed. Byte identity rests on three rules:
text widths come from a fixed table (`_text_metrics`), every number is spelled by our own
rules (`_numfmt`: coordinates in tenths of a pixel, ticks as integer multiples of a round
step, values by their `semantics:` kind), and every order is the data's own.

Encoding honesty (stdlib §chart): bars anchor at zero; an area_band's `y` (the prediction) is
dashed and its `y2` (the observation) solid; a series longer than `DECIMATE_ABOVE` (2,000)
points is decimated by LTTB to that many, keeping its minimum and maximum, with a warning;
more than `MAX_ROWS` (250,000) rows is refused (CHART-007) before any drawing. `delta`
values take a diverging palette anchored at zero.

`checkpoint` is called between stages and every few thousand rows: the builtin passes one that
raises when its task is cancelled, so a render off the event loop stops promptly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from nika import codes
from nika.media._chart_data import ChartSpec, check_fields, fail, parse_spec, rows_of
from nika.media._chart_scene import (
    DECIMATE_ABOVE,
    MAX_CATEGORIES,
    MAX_ROWS,
    MAX_SERIES,
    Scene,
    bars,
    domain,
    heatmap,
    lines,
    span_of,
)
from nika.media._numfmt import Ticks, coord, format_value, nice_ticks
from nika.media._svg_doc import Doc
from nika.media._text_metrics import fit, text_width

__all__ = ["DECIMATE_ABOVE", "HEIGHT", "MAX_CATEGORIES", "MAX_ROWS", "MAX_SERIES", "WIDTH",
           "Rendered", "render"]

WIDTH: Final = 800
HEIGHT: Final = 450
PALETTE: Final = ("#3b6fb6", "#e0892f", "#3a9a5b", "#c8453c", "#7d5ab5", "#8c6b4f",
                  "#d16aa8", "#6f7782", "#b3a733", "#2fa3b3")
POSITIVE: Final = "#2f7ab8"
NEGATIVE: Final = "#c2473d"
INK: Final = "#333333"
GRID: Final = "#e4e4e4"
AXIS: Final = "#8a8a8a"
_TICK_SIZE: Final = 11
_TIME_STEPS: Final = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                      21600, 43200, 86400, 172800, 604800, 1209600, 2592000, 7776000,
                      15552000, 31536000, 315360000)


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered chart: the SVG bytes, the canvas size, and what the render had to say."""

    svg: bytes
    width: int
    height: int
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Axis:
    lo: float
    hi: float
    at: tuple[float, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Plot:
    left: int
    top: int
    right: int
    bottom: int

    def x(self, v: float, axis: _Axis) -> str:
        return coord(self.left + (v - axis.lo) / (axis.hi - axis.lo) * (self.right - self.left))

    def y(self, v: float, axis: _Axis) -> str:
        return coord(self.bottom - (v - axis.lo) / (axis.hi - axis.lo) * (self.bottom - self.top))


def _noop() -> None:
    return None


def render(chart: Any, semantics: Any, data: Any, *,
           checkpoint: Callable[[], None] = _noop) -> Rendered:
    """The chart of `data` (a list of flat rows) as `chart:` and `semantics:` describe it."""
    spec = parse_spec(chart, semantics)
    rows = rows_of(data)
    if len(rows) > MAX_ROWS:
        raise fail(codes.BUILTIN_CHART_007, f"{len(rows)} rows is more than the {MAX_ROWS} a "
                   f"chart reads; aggregate upstream (jq group_by) — series past "
                   f"{DECIMATE_ABOVE} points are decimated, but every row is still read",
                   rows=len(rows), limit=MAX_ROWS)
    check_fields(spec, rows)
    checkpoint()
    if spec.type == "bar":
        scene = bars(spec, rows)
    elif spec.type == "heatmap":
        scene = heatmap(spec, rows)
    else:
        scene = lines(spec, rows, checkpoint)
    checkpoint()
    if not (any(v is not None for bar in scene.bars for v in bar) or scene.cells
            or any(s.xs for s in scene.series)):
        raise fail(codes.BUILTIN_CHART_001, f"none of the {len(rows)} rows holds a value to "
                   f"draw (every {', '.join(sorted(set(spec.fields.values())))} is missing or "
                   "null); check the field names and the upstream rows", rows=len(rows))
    doc = Doc(WIDTH, HEIGHT, spec.title)
    doc.add("rect", width=WIDTH, height=HEIGHT, fill="#ffffff")
    top = 16
    if spec.title:
        doc.add("text", fit(spec.title, 16, WIDTH - 32), x=WIDTH // 2, y=26, text_anchor="middle",
                font_size=16, font_weight="bold", fill=INK)
        top = 44
    if spec.type == "heatmap":
        _heatmap(doc, spec, scene, top)
    else:
        _xy(doc, spec, scene, top, checkpoint)
    return Rendered(doc.bytes(), WIDTH, HEIGHT, scene.warnings)


def _y_axis(spec: ChartSpec, scene: Scene) -> _Axis:
    if spec.type == "bar":
        values = [v for s in scene.bars for v in s if v is not None]
    else:
        values = [v for s in scene.series for v in (*s.ys, *s.hi)]
    lo, hi = domain(*span_of(values), "y", zero=spec.type == "bar")
    kind = spec.kind("y") or spec.kind("y_lo")
    ticks = _ticks(lo, hi, 5, kind)
    return _Axis(ticks.lo, ticks.hi, ticks.values, _labels(kind, ticks, ticks.hi - ticks.lo))


def _ticks(lo: float, hi: float, count: int, kind: str | None) -> Ticks:
    """Round ticks over [lo, hi]: decimal steps, or for a duration whole clock steps (30 s,
    5 min, 1 h …) past a second, so that the labels read as durations."""
    if kind != "duration_ms" or (hi - lo) / count < 1000:
        return nice_ticks(lo, hi, count, integer=kind == "count")
    step = next((s * 1000 for s in _TIME_STEPS if (hi - lo) / (s * 1000) <= count),
                _TIME_STEPS[-1] * 1000)
    first, last = math.floor(lo / step), math.ceil(hi / step)
    values = tuple(float(k * step) for k in range(first, last + 1))
    return Ticks(values[0], values[-1], values, 0)


def _labels(kind: str | None, ticks: Ticks, span: float) -> tuple[str, ...]:
    return tuple(format_value(kind, v, decimals=ticks.decimals, span=span) for v in ticks.values)


def _x_axis(spec: ChartSpec, scene: Scene) -> _Axis:
    if scene.x_kind in ("band", "ordinal"):
        n = len(scene.x_labels)
        return _Axis(-0.5, n - 0.5, tuple(float(i) for i in range(n)), scene.x_labels)
    values = [x for s in scene.series for x in s.xs]
    lo, hi = domain(*span_of(values), "x")
    if scene.x_kind == "time":
        step = next((s for s in _TIME_STEPS if (hi - lo) / s <= 6), _TIME_STEPS[-1])
        first, last = -(-int(lo) // step), int(hi) // step
        at = tuple(float(k * step) for k in range(first, last + 1))
        return _Axis(lo, hi, at, tuple(format_value("timestamp", t, span=hi - lo) for t in at))
    ticks = _ticks(lo, hi, 6, spec.kind("x"))
    return _Axis(ticks.lo, ticks.hi, ticks.values,
                 _labels(spec.kind("x"), ticks, ticks.hi - ticks.lo))


def _legend(spec: ChartSpec, scene: Scene) -> list[tuple[str, str, str]]:
    if spec.type == "bar":
        names = scene.bar_names
        return [] if len(names) < 2 else [(n, PALETTE[i], "solid") for i, n in enumerate(names)]
    point = spec.type == "scatter"
    out = [(s.name, PALETTE[i % len(PALETTE)], "point" if point else s.style)
           for i, s in enumerate(scene.series)]
    return out if len(out) > 1 or any(s != "solid" for _, _, s in out) else []


def _xy(doc: Doc, spec: ChartSpec, scene: Scene, top: int,
        checkpoint: Callable[[], None]) -> None:
    y_axis, x_axis = _y_axis(spec, scene), _x_axis(spec, scene)
    widest = max(text_width(label, _TICK_SIZE) for label in y_axis.labels)
    left = min(max(widest + 14, 44), 140)
    legend = _legend(spec, scene)
    plot = _Plot(left, top + 14, WIDTH - (170 if legend else 24), HEIGHT - 48)
    _grid(doc, plot, x_axis, y_axis, spec)
    if spec.type == "bar":
        _bars(doc, plot, spec, scene, y_axis)
    else:
        for i, series in enumerate(scene.series):
            checkpoint()
            colour = PALETTE[i % len(PALETTE)]
            if series.style == "band":
                _band(doc, plot, series.xs, series.ys, series.hi, x_axis, y_axis, colour)
            elif spec.type == "scatter":
                doc.open("g", fill=colour, fill_opacity="0.8")
                for x, y in zip(series.xs, series.ys, strict=True):
                    doc.add("circle", cx=plot.x(x, x_axis), cy=plot.y(y, y_axis), r=3)
                doc.close("g")
            else:
                _line(doc, plot, series.xs, series.ys, x_axis, y_axis, colour, series.style)
    if spec.kind("y") == "delta" and spec.type != "bar" and y_axis.lo < 0 < y_axis.hi:
        zero = plot.y(0.0, y_axis)  # a change reads against no change
        doc.add("line", x1=plot.left, y1=zero, x2=plot.right, y2=zero, stroke=INK)
    if spec.type != "bar":  # a bar chart's baseline is its zero line
        doc.add("line", x1=plot.left, y1=plot.bottom, x2=plot.right, y2=plot.bottom,
                stroke=AXIS)
    if legend:
        _draw_legend(doc, legend, plot.right + 16, plot.top)


def _grid(doc: Doc, plot: _Plot, x_axis: _Axis, y_axis: _Axis, spec: ChartSpec) -> None:
    doc.open("g", font_size=_TICK_SIZE, fill=INK)
    for v, label in zip(y_axis.at, y_axis.labels, strict=True):
        y = plot.y(v, y_axis)
        doc.add("line", x1=plot.left, y1=y, x2=plot.right, y2=y, stroke=GRID)
        doc.add("text", fit(label, _TICK_SIZE, plot.left - 10), x=plot.left - 6, y=y,
                text_anchor="end", dominant_baseline="middle")
    per_unit = (plot.right - plot.left) / (x_axis.hi - x_axis.lo)
    gap = (x_axis.at[1] - x_axis.at[0]) * per_unit if len(x_axis.at) > 1 else plot.right - plot.left
    widest = max((text_width(s, _TICK_SIZE) for s in x_axis.labels), default=0)
    every = _every(gap, min(widest, 110), len(x_axis.at))
    room = gap * every
    for i, (v, label) in enumerate(zip(x_axis.at, x_axis.labels, strict=True)):
        if i % every:
            continue
        x = plot.x(v, x_axis)
        doc.add("line", x1=x, y1=plot.bottom, x2=x, y2=plot.bottom + 4, stroke=AXIS)
        doc.add("text", fit(label, _TICK_SIZE, max(int(room) - 6, 12)), x=x,
                y=plot.bottom + 16, text_anchor="middle")
    doc.close("g")
    doc.add("text", fit(_named(spec, "x"), 12, plot.right - plot.left), x=plot.left,
            y=HEIGHT - 12, fill=AXIS)
    y_name = _named(spec, "y") if spec.field("y") else _named(spec, "y_lo")
    doc.add("text", fit(y_name, 12, plot.right - plot.left), x=plot.left, y=plot.top - 6,
            fill=AXIS)


def _every(gap: float, widest: int, count: int) -> int:
    """Label every n-th x tick (`gap` pixels apart) so that labels `widest` wide never meet."""
    n = 1
    while gap * n < widest + 6 and n < count:
        n += 1
    return n


def _named(spec: ChartSpec, role: str) -> str:
    name = spec.field(role) or ""
    kind = spec.kind(role)
    return f"{name} ({kind})" if kind and kind != "category" else name


def _bars(doc: Doc, plot: _Plot, spec: ChartSpec, scene: Scene, y_axis: _Axis) -> None:
    n = len(scene.x_labels)
    slot = (plot.right - plot.left) / n
    width = slot * 0.8 / len(scene.bars)
    zero = plot.y(0.0, y_axis)
    diverging = spec.kind("y") == "delta" and len(scene.bars) == 1
    for s, values in enumerate(scene.bars):
        doc.open("g", fill=PALETTE[s])
        for c, v in enumerate(values):
            if v is None:
                continue
            x = plot.left + c * slot + slot * 0.1 + s * width
            end = plot.y(v, y_axis)
            y, h = (end, _diff(zero, end)) if v >= 0 else (zero, _diff(end, zero))
            fill = {"fill": POSITIVE if v >= 0 else NEGATIVE} if diverging else {}
            doc.add("rect", x=coord(x), y=y, width=coord(width), height=h, **fill)
        doc.close("g")
    doc.add("line", x1=plot.left, y1=zero, x2=plot.right, y2=zero, stroke=INK)


def _diff(a: str, b: str) -> str:
    """`a - b` of two spelled coordinates, exact in tenths."""
    return coord((round(float(a) * 10) - round(float(b) * 10)) / 10)


def _line(doc: Doc, plot: _Plot, xs: Sequence[float], ys: Sequence[float], x_axis: _Axis,
          y_axis: _Axis, colour: str, style: str) -> None:
    if len(xs) == 1:
        doc.add("circle", cx=plot.x(xs[0], x_axis), cy=plot.y(ys[0], y_axis), r=3, fill=colour)
        return
    if not xs:
        return
    points = " L".join(f"{plot.x(x, x_axis)} {plot.y(y, y_axis)}"
                       for x, y in zip(xs, ys, strict=True))
    dash = {"stroke_dasharray": "6 4"} if style == "dashed" else {}
    doc.add("path", d=f"M{points}", fill="none", stroke=colour, stroke_width=2,
            stroke_linejoin="round", **dash)


def _band(doc: Doc, plot: _Plot, xs: Sequence[float], lo: Sequence[float],
          hi: Sequence[float], x_axis: _Axis, y_axis: _Axis, colour: str) -> None:
    if not xs:
        return
    upper = [f"{plot.x(x, x_axis)} {plot.y(y, y_axis)}" for x, y in zip(xs, hi, strict=True)]
    lower = [f"{plot.x(x, x_axis)} {plot.y(y, y_axis)}"
             for x, y in zip(reversed(xs), reversed(lo), strict=True)]
    doc.add("path", d="M" + " L".join(upper + lower) + " Z", fill=colour, fill_opacity="0.25",
            stroke="none")


def _draw_legend(doc: Doc, entries: list[tuple[str, str, str]], x: int, y: int) -> None:
    doc.open("g", font_size=_TICK_SIZE, fill=INK)
    for i, (name, colour, style) in enumerate(entries):
        row = y + 6 + i * 20
        if style == "band":
            doc.add("rect", x=x, y=row - 6, width=18, height=12, fill=colour,
                    fill_opacity="0.25")
        elif style == "point":
            doc.add("circle", cx=x + 9, cy=row, r=4, fill=colour)
        else:
            dash = {"stroke_dasharray": "6 4"} if style == "dashed" else {}
            doc.add("line", x1=x, y1=row, x2=x + 18, y2=row, stroke=colour, stroke_width=2,
                    **dash)
        label = name + (" (predicted)" if style == "dashed" else "")
        doc.add("text", fit(label, _TICK_SIZE, WIDTH - x - 30), x=x + 24, y=row,
                dominant_baseline="middle")
    doc.close("g")


def _heatmap(doc: Doc, spec: ChartSpec, scene: Scene, top: int) -> None:
    from nika.media._heat import colour_of, heat_legend

    kind = spec.kind("color")
    widest = max(text_width(label, _TICK_SIZE) for label in scene.y_labels)
    plot = _Plot(min(max(widest + 14, 44), 160), top + 14, WIDTH - 150, HEIGHT - 48)
    nx, ny = len(scene.x_labels), len(scene.y_labels)
    cw, ch = (plot.right - plot.left) / nx, (plot.bottom - plot.top) / ny
    lo, hi = span_of(list(scene.cells.values()))
    for (xi, yi), v in sorted(scene.cells.items()):
        doc.add("rect", x=coord(plot.left + xi * cw), y=coord(plot.top + yi * ch),
                width=coord(cw), height=coord(ch), fill=colour_of(v, lo, hi, kind))
    doc.open("g", font_size=_TICK_SIZE, fill=INK)
    widest_x = max(text_width(s, _TICK_SIZE) for s in scene.x_labels)
    every = _every(cw, min(widest_x, 110), nx)
    for i, label in enumerate(scene.x_labels):
        if i % every == 0:
            doc.add("text", fit(label, _TICK_SIZE, max(int(cw * every) - 6, 12)),
                    x=coord(plot.left + (i + 0.5) * cw), y=plot.bottom + 16, text_anchor="middle")
    step = max(1, -(-14 // max(int(ch), 1)))
    for i, label in enumerate(scene.y_labels):
        if i % step == 0:
            doc.add("text", fit(label, _TICK_SIZE, plot.left - 10), x=plot.left - 6,
                    y=coord(plot.top + (i + 0.5) * ch), text_anchor="end",
                    dominant_baseline="middle")
    doc.close("g")
    doc.add("text", _named(spec, "x"), x=plot.left, y=HEIGHT - 12, fill=AXIS)
    doc.add("text", fit(_named(spec, "y"), 12, plot.right - plot.left), x=plot.left,
            y=plot.top - 6, fill=AXIS)
    heat_legend(doc, lo, hi, kind, plot.right + 16, plot.top, _named(spec, "color"))
