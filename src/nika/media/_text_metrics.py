"""Text widths from a fixed table, so a chart's layout never depends on the fonts a machine has.

The SVG names a generic sans-serif stack; the viewer's actual font may be a little wider or
narrower, which is why every layout decision built on these widths keeps a margin. What
matters for byte identity is that the *layout* is a pure function of the text: the same label
truncates at the same character on every machine.

Advance widths are in thousandths of an em, set by hand for a plain humanist sans (ASCII by
class; every other character one class by its East Asian width).
"""

from __future__ import annotations

import unicodedata
from typing import Final

_NARROW: Final = frozenset("ijl|!.,:;'`")
_THIN: Final = frozenset("fIrt()[]{}-/\\ \"")
_WIDE_LOWER: Final = frozenset("mw")
_WIDE_UPPER: Final = frozenset("MW@%")
_ROUND_UPPER: Final = frozenset("CDGHKNOQRUV&")
_DIGITS: Final = frozenset("0123456789$#_+=<>~^*?")

_UNITS: Final = {
    "narrow": 250,
    "thin": 320,
    "lower": 530,
    "digit": 560,
    "upper": 640,
    "round_upper": 720,
    "wide_lower": 830,
    "wide_upper": 900,
    "other": 600,
    "fullwidth": 1000,
}

ELLIPSIS: Final = "…"


def _units(ch: str) -> int:
    if ch in _NARROW:
        return _UNITS["narrow"]
    if ch in _THIN:
        return _UNITS["thin"]
    if ch in _DIGITS:
        return _UNITS["digit"]
    if ch in _WIDE_LOWER:
        return _UNITS["wide_lower"]
    if ch in _WIDE_UPPER:
        return _UNITS["wide_upper"]
    if ch in _ROUND_UPPER:
        return _UNITS["round_upper"]
    if "a" <= ch <= "z":
        return _UNITS["lower"]
    if "A" <= ch <= "Z":
        return _UNITS["upper"]
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return _UNITS["fullwidth"]
    if unicodedata.combining(ch):
        return 0
    return _UNITS["other"]


def text_width(text: str, size: int) -> int:
    """The width of `text` at font size `size` (px), in whole pixels, rounded up."""
    milli = sum(_units(ch) for ch in text) * size
    return -(-milli // 1000)


def fit(text: str, size: int, room: int) -> str:
    """`text` as it fits in `room` pixels at `size`: whole, or cut with an ellipsis (which may
    leave the ellipsis alone when nothing else fits)."""
    if text_width(text, size) <= room:
        return text
    budget = room * 1000 - _units(ELLIPSIS[0]) * size
    used = 0
    for i, ch in enumerate(text):
        used += _units(ch) * size
        if used > budget:
            return text[:i] + ELLIPSIS
    return text  # unreachable: the whole text did not fit
