"""The quoted Go-duration contract of `timeout:` (spec 03 §timeout).

`"1h30m"`, `"2.5s"`, `"500ms"` · units `ns us µs ms s m h` · compound parts in
strictly descending unit order · positive · at most 24h.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

_PART: Final = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)")
DURATION_PATTERN: Final = (
    r"^[0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h)([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))*$"
)
"""The shape of a `duration` value (the type's JSON Schema pattern, its static fit): unit
parts only — the order, sign and 24h bound are `parse_duration`'s to judge."""
_NS_PER_UNIT: Final = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
MAX_NS: Final = 24 * _NS_PER_UNIT["h"]


@dataclass(frozen=True, slots=True)
class Duration:
    """A parsed duration: the authored text and its exact length in nanoseconds."""

    text: str
    nanoseconds: int

    @property
    def seconds(self) -> float:
        return self.nanoseconds / 1e9


class DurationError(ValueError):
    """The text violates the duration contract; the message says how."""


def parse_duration(text: str, *, max_ns: int = MAX_NS) -> Duration:
    """Parse a Go-duration string or raise `DurationError` naming the violated rule."""
    pos = 0
    total = Fraction(0)
    last_unit_ns: int | None = None
    if not text:
        raise DurationError('an empty duration; write e.g. "30s"')
    while pos < len(text):
        m = _PART.match(text, pos)
        if m is None:
            raise DurationError(
                f"{text!r} is not a Go duration at offset {pos}; "
                'write <number><unit> parts with units ns, us, µs, ms, s, m, h (e.g. "1h30m")'
            )
        unit_ns = _NS_PER_UNIT[m.group(2)]
        if last_unit_ns is not None and unit_ns >= last_unit_ns:
            raise DurationError(
                f"{text!r} combines units out of order; "
                'compound parts must descend ("1h30m", not "30m1h")'
            )
        last_unit_ns = unit_ns
        total += Fraction(m.group(1)) * unit_ns
        pos = m.end()
    if total <= 0:
        raise DurationError(f"{text!r} is not positive; a timeout must be > 0")
    if total > max_ns:
        raise DurationError(
            f"{text!r} exceeds the 24h maximum; split the work into a workflow chain"
        )
    return Duration(text, int(total))
