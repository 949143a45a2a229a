"""`nika:wait` — a temporal pause: relative `duration:` XOR absolute `until:` (WAIT-001..002
here; WAIT-003, neither or both, is its declaration's)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from nika import codes
from nika.stdlib.core import NO_CAP, WAIT
from nika.syntax.durations import parse_duration
from nika.tools.builtins._base import Builtin, Context, fail


def _seconds(text: str) -> float:
    return parse_duration(text, max_ns=NO_CAP).seconds


def _instant(text: str) -> datetime:
    when = datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


async def run(args: Mapping[str, Any], ctx: Context) -> None:
    """Sleep for the relative duration, or until the absolute instant (capped by `timeout:`);
    its declaration judged the one mode, the durations and the instant."""
    if "duration" in args:
        await ctx.sleep(_seconds(args["duration"]))
        return None
    until = _instant(args["until"])
    remaining = (until - ctx.now()).total_seconds()
    if remaining < 0:
        raise fail(
            codes.BUILTIN_WAIT_002,
            f"`until: {args['until']}` is already in the past; pass a future "
            "timestamp (or drop the wait)",
            until=args["until"],
        )
    if "timeout" in args and remaining > _seconds(args["timeout"]):
        raise fail(
            codes.BUILTIN_WAIT_001,
            f"`until: {args['until']}` is {remaining:.0f}s away, beyond "
            f"`timeout: {args['timeout']}`; raise the timeout or pick an earlier instant",
            until=args["until"],
            timeout=args["timeout"],
        )
    await ctx.sleep(remaining)
    return None


BUILTIN = Builtin(
    WAIT,
    description=(
        'Pause: either a relative `duration` (Go duration, e.g. "30s", "1h30m") or until an '
        "absolute ISO 8601 `until` timestamp, optionally capped by `timeout`. Returns null."
    ),
    run=run,
)
