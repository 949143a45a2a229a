"""`nika:date` (stdlib §nika:date): op-discriminated timestamp arithmetic.

Every refusal of its args is `NIKA-BUILTIN-DATE-001` — an unknown op, an arg the op does not
take, a missing one, a duration, a timestamp or a time zone that does not parse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.stdlib._declare import Declaration, Problem, Rule
from nika.stdlib._shapes import choice, obj, text
from nika.stdlib.core import NO_CAP, iso_instant
from nika.syntax.durations import Duration, DurationError, parse_duration

CODE: Final = codes.BUILTIN_DATE_001

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
        return parse_duration(text, max_ns=NO_CAP)
    if not rest:
        return Duration(text, days * _DAY_NS)
    try:
        tail = parse_duration(rest, max_ns=NO_CAP)
    except DurationError as err:
        raise DurationError(f"after the {days} day(s) of {text!r}: {err}") from None
    return Duration(text, days * _DAY_NS + tail.nanoseconds)


def zone_problem(name: str) -> str | None:
    """Why `name` is not an IANA time zone (None when it is one, or `UTC`)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if name.upper() == "UTC":
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return f'`tz: {name!r}` is not an IANA time zone; write e.g. "Europe/Paris" or "UTC"'
    return None


def _op_takes(a: Mapping[str, Any]) -> Problem | None:
    op = a.get("op", "now")
    extra = [k for k in a if k not in ("op", *OP_ARGS[op])]
    if extra:
        return Problem(f"unknown arg `{extra[0]}:` under `op: {op}`; the args are "
                       f"{', '.join(sorted(('op', *OP_ARGS[op])))} (remove or rename it)",
                       extra[0])
    return None


def _op_needs(a: Mapping[str, Any]) -> Problem | None:
    op = a.get("op", "now")
    missing = [k for k in OP_REQUIRED.get(op, ()) if k not in a]
    return Problem(f"`op: {op}` needs `{missing[0]}:`") if missing else None


def _is_a_step(a: Mapping[str, Any]) -> Problem | None:
    if "duration" not in a:
        return None
    try:
        step(a["duration"])
    except DurationError as exc:
        return Problem(f"`duration:` {exc}", "duration")
    return None


def _instant(key: str) -> Rule:
    def test(a: Mapping[str, Any]) -> Problem | None:
        op = a.get("op", "now")  # `parse` reads its `input:` through `format:`, not as ISO
        if key in a and key in OP_ARGS[op] and op != "parse" and not iso_instant(a[key]):
            return Problem(f'`{key}: {a[key]!r}` is not an ISO 8601 timestamp; write e.g. '
                           '"2026-05-23T09:00:00Z"', key)
        return None

    return Rule(f"{key}-is-an-instant", ("op", key), test)


def _is_a_zone(a: Mapping[str, Any]) -> Problem | None:
    problem = zone_problem(a["tz"]) if "tz" in a else None
    return None if problem is None else Problem(problem, "tz")


DATE = Declaration("nika:date", obj({
    "op": choice(*OP_ARGS, default="now"),
    "tz": text(),
    "base": text(),
    "duration": text(),
    "input": text(),
    "format": text(),
    "start": text(),
    "end": text(),
    "unit": choice(*UNIT_NAMES, default="s"),
}), rules=(
    Rule("op-takes-its-args", ("op",), _op_takes),
    Rule("op-needs-its-args", ("op",), _op_needs),
    Rule("duration-is-a-step", ("duration",), _is_a_step),
    *(_instant(key) for key in ("base", "input", "start", "end")),
    Rule("tz-is-a-zone", ("tz",), _is_a_zone),
), code=CODE)  # fmt: skip

DECLARATIONS: Final = (DATE,)
