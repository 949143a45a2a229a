"""`nika:wait` — a temporal pause: relative `duration:` XOR absolute `until:` (WAIT-001..003)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from nika.syntax.durations import DurationError, parse_duration
from nika.tools.builtins._base import Builtin, Context, fail, obj

WAIT_001 = "NIKA-BUILTIN-WAIT-001"
WAIT_002 = "NIKA-BUILTIN-WAIT-002"
WAIT_003 = "NIKA-BUILTIN-WAIT-003"
_NO_CAP: Final = 10**30  # `timeout:`'s 24h ceiling is not a wait's: a wait may span days


def _seconds(text: str, arg: str) -> float:
    try:
        return parse_duration(text, max_ns=_NO_CAP).seconds
    except DurationError as err:
        raise fail("NIKA-INVOKE-002", f"`{arg}:` {err}", arg=arg) from None


def _instant(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise fail(
            "NIKA-INVOKE-002",
            f'`until: {text!r}` is not an ISO 8601 timestamp; write e.g. "2026-05-23T09:00:00Z"',
            arg="until",
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


async def run(args: Mapping[str, Any], ctx: Context) -> None:
    """Sleep for the relative duration, or until the absolute instant (capped by `timeout:`)."""
    modes = [k for k in ("duration", "until") if k in args]
    if len(modes) != 1:
        raise fail(
            WAIT_003,
            'set exactly one of `duration:` (relative, e.g. "30s") or '
            "`until:` (an ISO 8601 timestamp)" + (" — both are set" if modes else ""),
        )
    if "timeout" in args and "until" not in args:
        raise fail(
            "NIKA-INVOKE-002",
            "`timeout:` caps an absolute wait; use it with `until:`",
            arg="timeout",
        )
    if "duration" in args:
        await ctx.sleep(_seconds(args["duration"], "duration"))
        return None
    until = _instant(args["until"])
    remaining = (until - ctx.now()).total_seconds()
    if remaining < 0:
        raise fail(
            WAIT_002,
            f"`until: {args['until']}` is already in the past; pass a future "
            "timestamp (or drop the wait)",
            until=args["until"],
        )
    if "timeout" in args and remaining > _seconds(args["timeout"], "timeout"):
        raise fail(
            WAIT_001,
            f"`until: {args['until']}` is {remaining:.0f}s away, beyond "
            f"`timeout: {args['timeout']}`; raise the timeout or pick an earlier instant",
            until=args["until"],
            timeout=args["timeout"],
        )
    await ctx.sleep(remaining)
    return None


BUILTIN = Builtin(
    name="nika:wait",
    description=(
        'Pause: either a relative `duration` (Go duration, e.g. "30s", "1h30m") or until an '
        "absolute ISO 8601 `until` timestamp, optionally capped by `timeout`. Returns null."
    ),
    schema=obj(
        {
            "duration": {"type": "string"},
            "until": {"type": "string"},
            "timeout": {"type": "string"},
        }
    ),
    run=run,
)
