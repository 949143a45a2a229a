"""Numbers as a chart writes them: coordinates, axis ticks, and values by their meaning.

Every spelling here is ours, built from integers and Python's correctly rounded fixed-point
formatting (`f"{x:.Nf}"`, the same on every platform), never `repr` of a float: a coordinate is
written in tenths of a pixel (`coord`), a tick is an integer multiple of a step `m·10^e`, and
a value is formatted by its `semantics:` kind (`format_value`).

What each kind reads: `usd` dollars (cents below $1,000, whole dollars above, $1.2M past a
million); `duration_ms` milliseconds (850ms · 12.3s · 4m 5s · 2h 5m · 3d 4h); `tokens` a
count shown k/M/B; `delta` a signed change (+3.5 · -2; a diverging palette anchored at zero);
`percent` a FRACTION (0.253 → 25.3%, as Vega-Lite's `%` format reads it); `timestamp` an
ISO-8601 string (a naive one read as UTC) or Unix seconds, shown in UTC at the grain its axis
spans; `count` whole numbers with thousands separators; `category` text, never a number axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

KINDS: Final = ("usd", "duration_ms", "tokens", "delta", "percent", "timestamp", "count",
                "category")
"""The closed `semantics:` set (stdlib §chart)."""

_MANTISSAS: Final = (1, 2, 5, 10)


def coord(value: float) -> str:
    """`value` in tenths of a pixel: `12`, `12.5`, `-3.1` — never `12.499999999`."""
    tenths = round(value * 10)
    sign = "-" if tenths < 0 else ""
    whole, frac = divmod(abs(tenths), 10)
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def trim(text: str) -> str:
    """A fixed-point spelling without trailing zeros (`2.50` → `2.5`, `3.00` → `3`)."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True, slots=True)
class Ticks:
    """Axis ticks: `values` at multiples of `step` = `mantissa`·10^`exponent` over [lo, hi]."""

    lo: float
    hi: float
    values: tuple[float, ...]
    exponent: int

    @property
    def decimals(self) -> int:
        """How many decimals spell every tick exactly."""
        return max(0, -self.exponent)


def _scaled(k: int, exponent: int) -> float:
    # a decimal k·10^e as the nearest double: an exact division, not a noisy product
    return float(k * 10**exponent) if exponent >= 0 else k / 10 ** (-exponent)


def nice_ticks(lo: float, hi: float, count: int = 5, *, integer: bool = False) -> Ticks:
    """About `count` round ticks covering [lo, hi] (which the ticks' ends then widen to)."""
    span = hi - lo
    raw = span / max(count, 1)
    # the decimal exponent read off CPython's own correctly rounded spelling, not libm's
    # log10 (which may differ by an ulp between platforms at an exact power of ten)
    exponent = int(f"{raw:.17e}".partition("e")[2]) if raw > 0 else 0
    base = _scaled(1, exponent)
    mantissa = next(m for m in _MANTISSAS if m * base >= raw * (1 - 1e-9))
    if mantissa == 10:
        mantissa, exponent = 1, exponent + 1
    if integer and exponent < 0:
        mantissa, exponent = 1, 0
    step_units = mantissa  # the step is mantissa·10^exponent; ticks are k·step
    first = math.floor(lo / _scaled(step_units, exponent) + 1e-9)
    last = max(math.ceil(hi / _scaled(step_units, exponent) - 1e-9), first + 1)
    values = tuple(_scaled(k * step_units, exponent) for k in range(first, last + 1))
    return Ticks(values[0], values[-1], values, exponent)


def _grouped(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


def _short(value: float, units: tuple[tuple[float, str], ...], decimals: int = 1) -> str:
    magnitude = abs(value)
    for scale, suffix in units:
        if magnitude >= scale:
            return trim(f"{value / scale:.{decimals}f}") + suffix
    return trim(f"{value:.{decimals}f}")


_KMB: Final = ((1e9, "B"), (1e6, "M"), (1e3, "k"))


def _usd(value: float, decimals: int | None) -> str:
    sign, v = ("-" if value < 0 else ""), abs(value)
    if v >= 1e6:
        body = _short(v, ((1e9, "B"), (1e6, "M")), 2)
    elif decimals is not None:  # an axis: the ticks' own precision, cents at most
        body = _grouped(v, min(decimals, 2) if decimals else 0)
    elif v >= 1000:
        body = _grouped(v, 0)
    elif v >= 1 or v == 0:
        body = f"{v:.2f}"
    else:  # a fraction of a cent still shows: $0.0042
        body = trim(f"{v:.4f}")
        body = body if len(body.split(".")[-1]) >= 2 else f"{v:.2f}"
    return f"{sign}${body}"


def _duration(ms: float) -> str:
    sign, v = ("-" if ms < 0 else ""), abs(ms)
    if v < 1000:
        return sign + trim(f"{v:.1f}") + "ms"
    if v < 60_000:
        return sign + trim(f"{v / 1000:.1f}") + "s"
    seconds = round(v / 1000)
    if seconds < 3600:
        minutes, secs = divmod(seconds, 60)
        return f"{sign}{minutes}m" + (f" {secs}s" if secs else "")
    minutes = seconds // 60
    if minutes < 1440:
        hours, mins = divmod(minutes, 60)
        return f"{sign}{hours}h" + (f" {mins}m" if mins else "")
    days, hours = divmod(minutes // 60, 24)
    return f"{sign}{days}d" + (f" {hours}h" if hours else "")


def timestamp(seconds: float, span: float) -> str:
    """A Unix time (UTC) at the grain its axis's `span` (seconds) calls for."""
    moment = datetime.fromtimestamp(round(seconds), UTC)
    if span >= 2 * 86_400:
        return moment.strftime("%Y-%m-%d")
    if span >= 120:
        return moment.strftime("%m-%d %H:%M")
    return moment.strftime("%H:%M:%S")


def format_value(kind: str | None, value: float, *, decimals: int | None = None,
                 span: float = 0.0) -> str:
    """`value` spelled for its `semantics:` kind (None: a plain number). `decimals` is the
    precision an axis's ticks need (None: a data label's own); `span` an axis's extent, for
    the grain of a timestamp."""
    value = value + 0.0  # -0.0 spells as 0
    if kind == "usd":
        return _usd(value, decimals)
    if kind == "duration_ms":
        return _duration(value)
    if kind == "tokens":
        return _short(value, _KMB)
    if kind == "count":
        return _grouped(value, 0)
    if kind == "percent":
        places = max(0, decimals - 2) if decimals is not None else 1
        return trim(f"{value * 100:.{places}f}") + "%"
    if kind == "timestamp":
        return timestamp(value, span)
    if kind == "delta":
        body = _plain(abs(value), decimals)
        return body if value == 0 or body == "0" else ("+" if value > 0 else "-") + body
    return _plain(value, decimals)


def _plain(value: float, decimals: int | None) -> str:
    if decimals is not None:
        return _grouped(value, decimals) if abs(value) >= 10_000 else f"{value:.{decimals}f}"
    if abs(value) >= 1e6:
        return _short(value, _KMB, 2)
    return trim(_grouped(value, 2) if abs(value) >= 10_000 else f"{value:.2f}")
