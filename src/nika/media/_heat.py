"""A heatmap's colours: a sequential ramp, or for `delta` values a diverging one anchored at
zero (white at 0, blue up, red down, by |value| against the largest |value|). Channels are
interpolated in integer thousandths, so every machine spells the same hex colour."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from nika.media._numfmt import format_value
from nika.media._text_metrics import fit

if TYPE_CHECKING:
    from nika.media._svg_doc import Doc

_LOW: Final = (0xF2, 0xF5, 0xFA)
_HIGH: Final = (0x1F, 0x4E, 0x8C)
_ZERO: Final = (0xF7, 0xF7, 0xF7)
_UP: Final = (0x2F, 0x7A, 0xB8)
_DOWN: Final = (0xC2, 0x47, 0x3D)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: int) -> str:
    r, g, bl = (x + (y - x) * t // 1000 for x, y in zip(a, b, strict=True))
    return f"#{r:02x}{g:02x}{bl:02x}"


def _share(part: float, whole: float) -> int:
    return 1000 if whole <= 0 else max(0, min(1000, round(part / whole * 1000)))


def colour_of(value: float, lo: float, hi: float, kind: str | None) -> str:
    """The fill of a cell holding `value`, of cells spanning [lo, hi]."""
    if kind == "delta":
        top = max(abs(lo), abs(hi))
        return _mix(_ZERO, _UP if value >= 0 else _DOWN, _share(abs(value), top))
    return _mix(_LOW, _HIGH, _share(value - lo, hi - lo) if hi > lo else 1000)


def heat_legend(doc: Doc, lo: float, hi: float, kind: str | None, x: int, y: int,
                name: str) -> None:
    """Five swatches from the lowest to the highest value, each labelled."""
    if kind == "delta":
        top = max(abs(lo), abs(hi))
        lo, hi = -top, top
    doc.add("text", fit(name, 11, 120), x=x, y=y, font_size=11, fill="#333333")
    for i in range(5):
        v = lo + (hi - lo) * i / 4 if i < 4 else hi
        row = y + 14 + i * 20
        doc.add("rect", x=x, y=row, width=18, height=14, fill=colour_of(v, lo, hi, kind))
        doc.add("text", fit(format_value(kind, v), 11, 100), x=x + 24, y=row + 11,
                font_size=11, fill="#333333")
