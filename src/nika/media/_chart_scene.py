"""Rows to what a chart draws: categories, series, cells — grouped, ordered and decimated.

Order is the data's own: categories and series appear in the order their first row does, so
the same rows always give the same picture. A bar or heatmap cell named by several rows draws
their sum (and says so in a warning); a line, band or scatter series is drawn in ascending x
and, past `DECIMATE_ABOVE` points, decimated by LTTB keeping its extremes (a warning names the
series and both counts — the data hash still covers every row).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from nika import codes
from nika.media._chart_data import ChartSpec, fail, label, numbers
from nika.media._lttb import Floats, extremes, lttb

DECIMATE_ABOVE: Final = 2_000
"""Points per series drawn as they are; a longer series is decimated to this many (LTTB)."""
MAX_ROWS: Final = 250_000
"""The most rows one chart reads; more is NIKA-BUILTIN-CHART-007 (aggregate upstream)."""
MAX_CATEGORIES: Final = 200
"""The most bar categories, and the most heatmap rows or columns."""
MAX_SERIES: Final = 10
"""The most `color:` series (one palette colour each, none reused)."""

Checkpoint = Callable[[], None]


@dataclass(frozen=True, slots=True)
class Series:
    """One drawn line or point set: its legend name, points (x ascending), and style."""

    name: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    style: str = "solid"  # solid · dashed (a prediction) · band (`ys` low, `hi` high)
    hi: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Scene:
    """What to draw: the x axis (categories, or a numeric `x_kind`), the series or bars or
    cells, and the warnings met on the way."""

    x_kind: str  # band · number · time · ordinal
    x_labels: tuple[str, ...] = ()
    y_labels: tuple[str, ...] = ()
    series: tuple[Series, ...] = ()
    bars: tuple[tuple[float | None, ...], ...] = ()  # [series][category]
    bar_names: tuple[str, ...] = ()
    cells: Mapping[tuple[int, int], float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def _order(values: Sequence[str], cap: int, what: str) -> dict[str, int]:
    seen: dict[str, int] = {}
    for v in values:
        if v not in seen:
            seen[v] = len(seen)
            if len(seen) > cap:
                raise fail(codes.BUILTIN_CHART_007, f"more than {cap} {what}; a chart that "
                           f"shows them all shows none — aggregate or filter upstream",
                           limit=cap)
    return seen


def _split(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], dict[str, int]]:
    name = spec.field("color")
    keys = [label(r.get(name), name, i) for i, r in enumerate(rows)] if name else [""] * len(rows)
    return keys, _order(keys, MAX_SERIES, "colour series")


def bars(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> Scene:
    """Grouped bars: one per (category, series), summing rows that name the same one."""
    xf, yf = spec.fields["x"], spec.fields["y"]
    cats = [label(r.get(xf), xf, i) for i, r in enumerate(rows)]
    order = _order(cats, MAX_CATEGORIES, "bar categories")
    keys, series = _split(spec, rows)
    sums: list[list[float | None]] = [[None] * len(order) for _ in series]
    repeated = 0
    for i, v in enumerate(numbers(rows, yf, spec.kind("y")).tolist()):
        if v != v:  # a gap (NaN)
            continue
        slot = sums[series[keys[i]]]
        at = order[cats[i]]
        prior = slot[at]
        repeated += prior is not None
        slot[at] = v if prior is None else prior + v
    warnings = ((f"summed: {repeated} rows repeat a bar's category; each bar draws the sum "
                 "of its rows",) if repeated else ())
    return Scene("band", tuple(order), bars=tuple(tuple(s) for s in sums),
                 bar_names=tuple(series), warnings=warnings)


def heatmap(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> Scene:
    """Cells by (x, y) category, coloured by the `color:` field's value (summed on repeats)."""
    xf, yf, vf = spec.fields["x"], spec.fields["y"], spec.fields["color"]
    xs = [label(r.get(xf), xf, i) for i, r in enumerate(rows)]
    ys = [label(r.get(yf), yf, i) for i, r in enumerate(rows)]
    xo = _order(xs, MAX_CATEGORIES, "heatmap columns")
    yo = _order(ys, MAX_CATEGORIES, "heatmap rows")
    cells: dict[tuple[int, int], float] = {}
    repeated = 0
    for i, v in enumerate(numbers(rows, vf, spec.kind("color")).tolist()):
        if v != v:  # a gap (NaN)
            continue
        key = (xo[xs[i]], yo[ys[i]])
        repeated += key in cells
        cells[key] = cells.get(key, 0.0) + v
    warnings = ((f"summed: {repeated} rows repeat a cell; each cell shows the sum of its "
                 "rows",) if repeated else ())
    return Scene("band", tuple(xo), tuple(yo), cells=cells, warnings=warnings)


def _x_kind(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> str:
    kind = spec.kind("x")
    if kind == "timestamp":
        return "time"
    name = spec.fields["x"]
    types = set(map(type, (r.get(name) for r in rows))) - {type(None)}
    if kind != "category" and types <= {int, float}:
        return "number"
    if spec.type == "scatter" or (kind != "category" and types & {int, float}):
        raise fail(codes.BUILTIN_CHART_006, f"`x: {name}` mixes numbers and text (or a "
                   "scatter's x is text); a scatter plots numbers, a line plots numbers, "
                   "timestamps or categories — one kind per field", field=name)
    return "ordinal"


def lines(spec: ChartSpec, rows: Sequence[Mapping[str, Any]], checkpoint: Checkpoint) -> Scene:
    """The series of a line, scatter or area_band chart, x ascending, decimated past the
    threshold."""
    x_kind = _x_kind(spec, rows)
    xf = spec.fields["x"]
    ordinal: dict[str, int] = {}
    if x_kind == "ordinal":
        names = [label(r.get(xf), xf, i) for i, r in enumerate(rows)]
        ordinal = _order(names, MAX_ROWS, "x categories")
        xs = np.array([math.nan if r.get(xf) is None else ordinal[n]
                       for r, n in zip(rows, names, strict=True)], dtype=np.float64)
    else:
        xs = numbers(rows, xf, spec.kind("x"))
    checkpoint()
    warnings: list[str] = []
    out: list[Series] = []
    if spec.type == "area_band":
        out.append(_band(spec, rows, xs, warnings, checkpoint))
        roles = [("y", "dashed"), ("y2", "solid")]
        codes_of, series = np.zeros(len(rows), dtype=np.int64), {"": 0}
    else:
        roles = [("y", "solid"), ("y2", "solid")]
        keys, series = _split(spec, rows)
        codes_of = np.array([series[k] for k in keys], dtype=np.int64)
    for role, style in roles:
        yf = spec.field(role)
        if yf is None:
            continue
        ys = numbers(rows, yf, spec.kind(role))
        checkpoint()
        present = ~(np.isnan(xs) | np.isnan(ys))
        for name, index in series.items():
            mask = present & (codes_of == index)
            shown = name or yf
            if role == "y2" and spec.type == "line":
                shown = f"{name} · {yf}" if name else yf
            out.append(_series(shown, xs[mask], ys[mask], style, warnings, checkpoint))
    return Scene(x_kind, tuple(ordinal), series=tuple(out), warnings=tuple(warnings))


def _series(name: str, xs: Floats, ys: Floats, style: str, warnings: list[str],
            checkpoint: Checkpoint) -> Series:
    order = np.argsort(xs, kind="stable")  # equal x keep row order
    xs, ys = xs[order], ys[order]
    keep = lttb(xs, ys, DECIMATE_ABOVE, keep=extremes(ys), checkpoint=checkpoint)
    if len(keep) < len(xs):
        warnings.append(_decimated(name, len(xs), len(keep)))
    return Series(name, tuple(xs[keep].tolist()), tuple(ys[keep].tolist()), style)


def _band(spec: ChartSpec, rows: Sequence[Mapping[str, Any]], xs: Floats,
          warnings: list[str], checkpoint: Checkpoint) -> Series:
    lof, hif = spec.fields["y_lo"], spec.fields["y_hi"]
    los, his = numbers(rows, lof, spec.kind("y_lo")), numbers(rows, hif, spec.kind("y_hi"))
    checkpoint()
    mask = ~(np.isnan(xs) | np.isnan(los) | np.isnan(his))
    bx, lo, hi = xs[mask], los[mask], his[mask]
    order = np.argsort(bx, kind="stable")
    bx, blo, bhi = bx[order], np.minimum(lo, hi)[order], np.maximum(lo, hi)[order]
    mid = (blo + bhi) / 2
    keep = lttb(bx, mid, DECIMATE_ABOVE, keep=extremes(blo, bhi), checkpoint=checkpoint)
    name = f"{lof}–{hif}"
    if len(keep) < len(bx):
        warnings.append(_decimated(name, len(bx), len(keep)))
    return Series(name, tuple(bx[keep].tolist()), tuple(blo[keep].tolist()), "band",
                  tuple(bhi[keep].tolist()))


def _decimated(name: str, had: int, drawn: int) -> str:
    return (f"decimated: series {name!r} has {had} points, drawn as {drawn} (LTTB past "
            f"{DECIMATE_ABOVE}, extremes kept); data_sha256 covers every row")


def span_of(values: Sequence[float]) -> tuple[float, float]:
    """The [min, max] of finite values (checked upstream), (0, 0) for none."""
    if not values:
        return 0.0, 0.0
    return min(values), max(values)


def domain(lo: float, hi: float, what: str, *, zero: bool = False) -> tuple[float, float]:
    """A drawable [lo, hi]: with 0 when `zero` (bars anchor at zero), a single value widened
    around itself, and CHART-005 when the values differ by less than a double can place."""
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if lo == hi:
        pad = abs(lo) * 0.1 or 1.0
        return (lo if zero and lo == 0 else lo - pad), hi + pad
    if hi - lo <= max(abs(lo), abs(hi)) * 1e-9:
        raise fail(codes.BUILTIN_CHART_005, f"the {what} values span [{lo!r}, {hi!r}], a "
                   "range too narrow to draw (under a billionth of their size); chart the "
                   "differences (a delta field) instead", axis=what)
    if math.isinf(hi - lo):
        raise fail(codes.BUILTIN_CHART_003, f"the {what} values span more than a double "
                   "holds; scale them upstream", axis=what)
    return lo, hi
