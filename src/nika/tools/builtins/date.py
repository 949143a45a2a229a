"""`nika:date` — timezone-aware timestamp arithmetic, op-discriminated (DATE-001).

Ops: `now {tz}` · `add`/`subtract {base, duration}` · `format {input, format}` ·
`parse {input, format}` · `diff {start, end, unit}`. Every op returns an ISO 8601 string
(UTC as `Z`) except `diff`, an integer count of whole `unit`s (truncated toward zero).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from nika.syntax.date_args import CODE, OP_ARGS, OP_REQUIRED, UNIT_NAMES, UNITS, step
from nika.syntax.durations import DurationError
from nika.tools.builtins._base import Builtin, Context, fail, obj

DATE_001 = CODE
_UNITS: Final = UNITS
_OP_ARGS: Final = OP_ARGS
_OP_REQUIRED: Final = OP_REQUIRED


def _zone(name: str) -> tzinfo:
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise fail(
            DATE_001,
            f'`tz: {name!r}` is not an IANA time zone; write e.g. "Europe/Paris" or "UTC"',
            tz=name,
        ) from None


def _instant(text: Any, arg: str, zone: tzinfo) -> datetime:
    try:
        when = datetime.fromisoformat(str(text))
    except ValueError:
        raise fail(
            DATE_001,
            f'`{arg}: {text!r}` is not an ISO 8601 timestamp; write e.g. "2026-05-23T09:00:00Z"',
            arg=arg,
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=zone)


def iso(when: datetime) -> str:
    """ISO 8601 with `Z` for UTC."""
    text = when.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _duration(text: Any) -> timedelta:
    try:
        ns = step(str(text)).nanoseconds
    except DurationError as err:
        raise fail(DATE_001, f"`duration:` {err}", duration=text) from None
    return timedelta(microseconds=ns // 1000)


async def run(args: Mapping[str, Any], ctx: Context) -> str | int:
    """Dispatch on `op:` (default `now`)."""
    op = args.get("op", "now")
    extra = sorted(set(args) - {"op", *_OP_ARGS[op]})
    if extra:
        raise fail(DATE_001, f"`op: {op}` takes {', '.join(_OP_ARGS[op])}; drop {extra}")
    missing = [k for k in _OP_REQUIRED.get(op, ()) if k not in args]
    if missing:
        raise fail(DATE_001, f"`op: {op}` needs `{missing[0]}:`")
    zone = _zone(args.get("tz", "UTC"))
    if op == "now":
        return iso(ctx.now().astimezone(zone))
    if op in ("add", "subtract"):
        base = _instant(args["base"], "base", zone) if "base" in args else ctx.now()
        step = _duration(args["duration"])
        return iso((base + step if op == "add" else base - step).astimezone(zone))
    if op == "format":
        return _instant(args["input"], "input", zone).astimezone(zone).strftime(args["format"])
    if op == "parse":
        try:
            parsed = datetime.strptime(str(args["input"]), args["format"])
        except ValueError as err:
            raise fail(
                DATE_001,
                f"`input: {args['input']!r}` does not match `format: {args['format']!r}` ({err})",
            ) from None
        return iso(parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=zone))
    start, end = _instant(args["start"], "start", UTC), _instant(args["end"], "end", UTC)
    seconds = (end - start).total_seconds()
    return int(seconds / _UNITS[UNIT_NAMES[args.get("unit", "s")]])


BUILTIN = Builtin(
    name="nika:date",
    description=(
        "Timestamp arithmetic (IANA time zones, UTC default, ISO 8601 out). op: now {tz} | "
        "add/subtract {base, duration: e.g. 90m, 7d, 1w2d} | format {input, format (strftime)} | "
        "parse {input, format} | diff {start, end, unit: ms|s|m|h|d|w or its name, e.g. "
        "minutes} (returns an integer)."
    ),
    schema=obj(
        {
            "op": {"enum": list(_OP_ARGS), "default": "now"},
            "tz": {"type": "string"},
            "base": {"type": "string"},
            "duration": {"type": "string"},
            "input": {"type": "string"},
            "format": {"type": "string"},
            "start": {"type": "string"},
            "end": {"type": "string"},
            "unit": {"enum": list(UNIT_NAMES), "default": "s"},
        }
    ),
    run=run,
    arg_code=DATE_001,
)
