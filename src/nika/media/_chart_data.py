"""A chart's spec and rows judged and read into typed columns (NIKA-BUILTIN-CHART-001…007).

`parse_spec` holds `chart:` and `semantics:` to the closed sets (004); `Columns` reads one
field's values for one role: a number must be a JSON number (006), finite and within ±1e15
(003 — beyond, a double no longer spells whole units and the axis arithmetic overflows);
a timestamp an ISO-8601 string or Unix seconds; a category any scalar. A field no row holds is
002 (with the row keys it could have meant). A missing or null value is a gap: the row is left
out of that role and counted in a warning.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from nika import codes
from nika.errors import NikaError
from nika.media._numfmt import KINDS, trim

TYPES: Final = ("bar", "line", "area_band", "scatter", "heatmap")
ROLES: Final = ("x", "y", "y_lo", "y_hi", "y2", "color")
REQUIRED: Final = {"bar": ("x", "y"), "line": ("x", "y"), "area_band": ("x", "y_lo", "y_hi"),
                   "scatter": ("x", "y"), "heatmap": ("x", "y", "color")}
ALLOWED: Final = {"bar": ("x", "y", "color"), "line": ("x", "y", "y2", "color"),
                  "area_band": ("x", "y", "y_lo", "y_hi", "y2"),
                  "scatter": ("x", "y", "color"), "heatmap": ("x", "y", "color")}
Floats = npt.NDArray[np.float64]
MAGNITUDE: Final = 1e15
"""The largest |value| a chart draws: past it a double no longer spells whole units."""


def fail(code: str, detail: str, **details: Any) -> NikaError:
    return NikaError(code, f"nika:chart: {detail}", details=details or None)


@dataclass(frozen=True, slots=True)
class ChartSpec:
    """`chart:` as judged: its type, the field of each role it uses, and its title."""

    type: str
    fields: Mapping[str, str]
    title: str
    semantics: Mapping[str, str]

    def field(self, role: str) -> str | None:
        return self.fields.get(role)

    def kind(self, role: str) -> str | None:
        """The `semantics:` kind of the field playing `role` (None: a plain value)."""
        name = self.fields.get(role)
        return self.semantics.get(name) if name is not None else None


def parse_spec(chart: Any, semantics: Any) -> ChartSpec:
    """`chart:` and `semantics:` held to the closed sets, or CHART-004 naming the fix."""
    if not isinstance(chart, Mapping):
        raise fail(codes.BUILTIN_CHART_004, "`chart:` must be a map such as "
                   "{type: bar, x: region, y: revenue}", arg="chart")
    kind = chart.get("type")
    if kind not in TYPES:
        raise fail(codes.BUILTIN_CHART_004, f"`chart.type: {kind!r}` is not one of "
                   f"{', '.join(TYPES)}", arg="chart")
    for key in chart:
        if key not in (*ROLES, "type", "title"):
            raise fail(codes.BUILTIN_CHART_004, f"`chart.{key}` is not a chart key; the keys "
                       f"are type, title, {', '.join(ROLES)}", arg="chart")
    fields: dict[str, str] = {}
    for role in ROLES:
        if role not in chart:
            continue
        if role not in ALLOWED[kind]:
            raise fail(codes.BUILTIN_CHART_004, f"`chart.{role}` has no meaning for a {kind} "
                       f"chart, which reads {', '.join(ALLOWED[kind])}", arg="chart")
        if not isinstance(chart[role], str) or not chart[role]:
            raise fail(codes.BUILTIN_CHART_004, f"`chart.{role}: {chart[role]!r}` must name "
                       "a field of the rows", arg="chart")
        fields[role] = chart[role]
    missing = [r for r in REQUIRED[kind] if r not in fields]
    if missing:
        raise fail(codes.BUILTIN_CHART_004, f"a {kind} chart needs `chart.{missing[0]}` "
                   f"(it reads {', '.join(REQUIRED[kind])})", arg="chart")
    title = chart.get("title", "")
    if not isinstance(title, str):
        raise fail(codes.BUILTIN_CHART_004, f"`chart.title: {title!r}` must be text",
                   arg="chart")
    return ChartSpec(kind, fields, title, _semantics(semantics))


def _semantics(semantics: Any) -> dict[str, str]:
    if semantics is None:
        return {}
    if not isinstance(semantics, Mapping):
        raise fail(codes.BUILTIN_CHART_004, "`semantics:` must map field names to kinds, "
                   "e.g. {revenue: usd}", arg="semantics")
    for name, kind in semantics.items():
        if kind not in KINDS:
            raise fail(codes.BUILTIN_CHART_004, f"`semantics.{name}: {kind!r}` is not one of "
                       f"{', '.join(KINDS)}", arg="semantics")
    return {str(k): str(v) for k, v in semantics.items()}


def rows_of(data: Any) -> Sequence[Mapping[str, Any]]:
    """The rows: a non-empty list of flat maps (001 when empty, 006 otherwise)."""
    if not isinstance(data, list):
        raise fail(codes.BUILTIN_CHART_006, f"`data:` must be a list of rows (maps), not "
                   f"{type(data).__name__}; or {{path: <json file>}}", arg="data")
    if not data:
        raise fail(codes.BUILTIN_CHART_001, "`data:` holds no rows; chart a non-empty list, "
                   "or guard the task on the upstream result being non-empty", arg="data")
    if set(map(type, data)) != {dict}:  # the common case at C speed; else find the row
        for i, row in enumerate(data):
            if not isinstance(row, Mapping):
                raise fail(codes.BUILTIN_CHART_006, f"row {i} is {_shown(row)}, not a map of "
                           "field values", arg="data", row=i)
    return data


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def check_fields(spec: ChartSpec, rows: Sequence[Mapping[str, Any]]) -> None:
    """Every field the spec or `semantics:` names is held by some row (002 otherwise)."""
    named = [*spec.fields.values(), *spec.semantics]
    wanted = set(named)
    for row in rows:
        wanted.difference_update(row.keys())
        if not wanted:
            return
    name = next(n for n in named if n in wanted)
    known = sorted({str(k) for row in rows[:100] for k in row})
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise fail(codes.BUILTIN_CHART_002, f"no row holds the field {name!r}; {hint}the rows "
               f"hold {', '.join(map(repr, known[:12]))}", field=name)


def number(value: Any, field: str, row: int, kind: str | None) -> float | None:
    """One numeric value (None: a gap), or the refusal naming the row."""
    if value is None:
        return None
    if kind == "timestamp" and isinstance(value, str):
        return _instant(value, field, row)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(codes.BUILTIN_CHART_006, f"row {row} field {field!r} is {_shown(value)}, "
                   "not a number; convert it upstream (jq `tonumber`)", field=field, row=row)
    try:
        out = float(value)
    except OverflowError:
        out = math.inf
    if not math.isfinite(out) or abs(out) > MAGNITUDE:
        # str() of a huge int raises past 4,300 digits: name its size in bits instead
        shown = (_shown(value) if isinstance(value, float)
                 else f"an integer of {int(value).bit_length()} bits")
        raise fail(codes.BUILTIN_CHART_003, f"row {row} field {field!r} is {shown}; a chart "
                   f"draws finite numbers within ±1e15 — drop or clamp the row upstream",
                   field=field, row=row)
    return out


def numbers(rows: Sequence[Mapping[str, Any]], field: str, kind: str | None) -> Floats:
    """`number` of `field` in every row as a float array, a gap as NaN (a judged value is
    never NaN, so NaN marks the gaps alone). A column of plain ints and floats within range
    is judged at array speed; anything else, row by row, so a refusal names its row."""
    values = [row.get(field) for row in rows]
    if set(map(type, values)) <= {int, float}:
        try:
            column = np.array(values, dtype=np.float64)
        except OverflowError:  # an int past a double's range: the slow path names it
            column = None
        if column is not None and bool(np.all(np.abs(column) <= MAGNITUDE)):  # NaN fails
            return column
    judged = [number(v, field, i, kind) for i, v in enumerate(values)]
    return np.array([math.nan if v is None else v for v in judged], dtype=np.float64)


def _instant(text: str, field: str, row: int) -> float:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise fail(codes.BUILTIN_CHART_006, f"row {row} field {field!r} is {_shown(text)}, "
                   "not an ISO-8601 timestamp (2026-07-09 or 2026-07-09T12:00:00Z)",
                   field=field, row=row) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # a naive instant is read as UTC, documented
    return moment.timestamp()


def label(value: Any, field: str = "", row: int = 0) -> str:
    """A category's text: strings as written, numbers by our own spelling, gaps named; a
    nested value is refused (rows are flat)."""
    if isinstance(value, Mapping | list):
        raise fail(codes.BUILTIN_CHART_006, f"row {row} field {field!r} is nested "
                   f"({type(value).__name__}); rows are flat: strings and numbers",
                   field=field, row=row)
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):  # str() refuses an int past 4,300 digits
        return str(value) if value.bit_length() < 10_000 else f"({value.bit_length()}-bit int)"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "(nan)" if value != value else "(inf)" if value > 0 else "(-inf)"
        return trim(f"{value:.6f}") if abs(value) < 1e15 else f"{value:.6g}"
    return str(value)
