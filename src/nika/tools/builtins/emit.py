"""`nika:emit` — a machine event on the run's event stream; its shape is judged by its
declaration (`NIKA-BUILTIN-EMIT-001`, `nika.stdlib.core`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika.stdlib.core import EMIT
from nika.tools.builtins._base import Builtin, Context


async def run(args: Mapping[str, Any], ctx: Context) -> None:
    """Deliver `{event_type, payload}`; delivery is best-effort once the shape is valid."""
    fields: dict[str, Any] = {"event_type": args["event_type"], "payload": args.get("payload")}
    if ctx.task is not None:
        fields["task"] = ctx.task
    if ctx.events is not None:
        try:
            ctx.events("emit", fields)
        except Exception:  # best-effort delivery: the shape gate is the only failure
            return None
    return None


BUILTIN = Builtin(
    EMIT,
    description=(
        "Emit a custom machine event `{event_type, payload}` to the workflow's event stream "
        "(journal, subscribers). `event_type` matches ^[a-z][a-z0-9_.-]*$. Returns null."
    ),
    run=run,
)
