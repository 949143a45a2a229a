"""`nika:log` — a human diagnostic on the run's event stream (best-effort: it never fails)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika.stdlib.core import LOG
from nika.syntax.template import stringify
from nika.tools.builtins._base import Builtin, Context


async def run(args: Mapping[str, Any], ctx: Context) -> None:
    """Hand the entry to the event sink; a sink failure is swallowed (no failure codes)."""
    message = args["message"]
    fields: dict[str, Any] = {
        "level": args.get("level", "info"),
        "message": message if isinstance(message, str) else _text(message),
    }
    if "data" in args:
        fields["data"] = args["data"]
    if ctx.task is not None:
        fields["task"] = ctx.task
    if ctx.events is not None:
        try:
            ctx.events("log", fields)
        except Exception:  # the spec's contract: a log that cannot land never fails its task
            return None
    return None


def _text(value: Any) -> str:
    try:
        return stringify(value)
    except Exception:  # an unrenderable message still logs, as its repr
        return repr(value)


BUILTIN = Builtin(
    LOG,
    description=(
        "Write a human-readable log entry (debug/info/warn/error) to the workflow's event "
        "stream. Returns null and never fails the task."
    ),
    run=run,
)
