"""The argument vocabulary of `nika:date` (stdlib §nika:date).

One table for the two places that judge a date call: the static contract (`nika check`)
and the builtin itself at run time — so a literal the run would refuse is refused by the
check first, with the run's code (`NIKA-BUILTIN-DATE-001`).
"""

from __future__ import annotations

import re
from typing import Final

from nika.syntax.durations import Duration, DurationError, parse_duration

CODE: Final = "NIKA-BUILTIN-DATE-001"

OP_ARGS: Final = {
    "now": ("tz",),
    "add": ("base", "duration", "tz"),
    "subtract": ("base", "duration", "tz"),
    "format": ("input", "format", "tz"),
    "parse": ("input", "format", "tz"),
    "diff": ("start", "end", "unit"),
}
"""The args each `op:` takes (besides `op:` itself); `now` is the default op."""

OP_REQUIRED: Final = {
    "add": ("duration",),
    "subtract": ("duration",),
    "format": ("input", "format"),
    "parse": ("input", "format"),
    "diff": ("start", "end"),
}

UNITS: Final = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
"""`diff`'s `unit:` choices, in seconds."""

UNIT_NAMES: Final = {
    **{unit: unit for unit in UNITS},
    **{f"{name}{plural}": unit
       for name, unit in (("millisecond", "ms"), ("second", "s"), ("minute", "m"),
                          ("hour", "h"), ("day", "d"), ("week", "w"))
       for plural in ("", "s")},
}
"""Every spelling `unit:` accepts (the short unit, or its English name, as the spec's own
examples write `unit: minutes`) → the short unit."""

_CALENDAR: Final = re.compile(r"(?:([0-9]+)w)?(?:([0-9]+)d)?")
_DAY_NS: Final = 86_400 * 10**9


def step(text: str) -> Duration:
    """The `duration:` of an add/subtract: a Go duration with no 24h cap, led by whole weeks
    and days when the window counts them (`7d`, `1w2d`, `1d12h` — as the spec's examples
    write a window); raises `DurationError`."""
    calendar = _CALENDAR.match(text)
    assert calendar is not None  # every part of the pattern is optional
    days = 7 * int(calendar.group(1) or 0) + int(calendar.group(2) or 0)
    rest = text[calendar.end():]
    if days == 0:
        return parse_duration(text, max_ns=10**30)
    if not rest:
        return Duration(text, days * _DAY_NS)
    try:
        tail = parse_duration(rest, max_ns=10**30)
    except DurationError as err:
        raise DurationError(f"after the {days} day(s) of {text!r}: {err}") from None
    return Duration(text, days * _DAY_NS + tail.nanoseconds)
