"""`nika:date` — timezone-aware timestamp arithmetic, op-discriminated (DATE-001).

Ops: `now {tz}` · `add`/`subtract {base, duration}` · `format {input, format}` ·
`parse {input, format}` · `diff {start, end, unit}`. Every op returns an ISO 8601 string
(UTC as `Z`) except `diff`, an integer count of whole `unit`s (truncated toward zero).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from nika.stdlib.date import CODE, DATE, UNIT_NAMES, UNITS, step
from nika.tools.builtins._base import Builtin, Context, fail

DATE_001 = CODE


def _zone(name: str) -> tzinfo:
    return UTC if name.upper() == "UTC" else ZoneInfo(name)


def _instant(text: str, zone: tzinfo) -> datetime:
    when = datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=zone)


def iso(when: datetime) -> str:
    """ISO 8601 with `Z` for UTC."""
    text = when.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _duration(text: str) -> timedelta:
    return timedelta(microseconds=step(text).nanoseconds // 1000)


async def run(args: Mapping[str, Any], ctx: Context) -> str | int:
    """Dispatch on `op:` (default `now`); its declaration judged the op's args, the zone, the
    timestamps and the duration."""
    op = args.get("op", "now")
    zone = _zone(args.get("tz", "UTC"))
    if op == "now":
        return iso(ctx.now().astimezone(zone))
    if op in ("add", "subtract"):
        base = _instant(args["base"], zone) if "base" in args else ctx.now()
        delta = _duration(args["duration"])
        return iso((base + delta if op == "add" else base - delta).astimezone(zone))
    if op == "format":
        return _instant(args["input"], zone).astimezone(zone).strftime(args["format"])
    if op == "parse":
        try:
            parsed = datetime.strptime(str(args["input"]), args["format"])
        except ValueError as err:
            raise fail(
                DATE_001,
                f"`input: {args['input']!r}` does not match `format: {args['format']!r}` ({err})",
            ) from None
        return iso(parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=zone))
    start, end = _instant(args["start"], UTC), _instant(args["end"], UTC)
    seconds = (end - start).total_seconds()
    return int(seconds / UNITS[UNIT_NAMES[args.get("unit", "s")]])


BUILTIN = Builtin(
    DATE,
    description=(
        "Timestamp arithmetic (IANA time zones, UTC default, ISO 8601 out). op: now {tz} | "
        "add/subtract {base, duration: e.g. 90m, 7d, 1w2d} | format {input, format (strftime)} | "
        "parse {input, format} | diff {start, end, unit: ms|s|m|h|d|w or its name, e.g. "
        "minutes} (returns an integer)."
    ),
    run=run,
)
