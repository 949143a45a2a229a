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

_DAYS: Final = re.compile(r"\A([0-9]+)([dw])\Z")


def step(text: str) -> Duration:
    """The `duration:` of an add/subtract: a Go duration with no 24h cap; raises
    `DurationError` (a day or week count is told its spelling in hours)."""
    try:
        return parse_duration(text, max_ns=10**30)
    except DurationError as err:
        days = _DAYS.match(text)
        if days is None:
            raise
        hours = int(days.group(1)) * (24 if days.group(2) == "d" else 168)
        spelled = f'{err}; for {text!r} write "{hours}h" (a duration counts hours, not days)'
        raise DurationError(spelled) from None
