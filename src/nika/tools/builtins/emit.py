"""`nika:emit` — a machine event on the run's event stream, shape-validated (EMIT-001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika.tools.builtins._base import Builtin, Context, obj

EMIT_001 = "NIKA-BUILTIN-EMIT-001"


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
    name="nika:emit",
    description=(
        "Emit a custom machine event `{event_type, payload}` to the workflow's event stream "
        "(journal, subscribers). `event_type` matches ^[a-z][a-z0-9_.-]*$. Returns null."
    ),
    schema=obj(
        {
            "event_type": {"type": "string", "pattern": "^[a-z][a-z0-9_.-]*$"},
            "payload": {"description": "Any JSON value."},
        },
        ("event_type",),
    ),
    run=run,
    arg_code=EMIT_001,
)
