"""`nika:inspect` — the running workflow's own state, one of four views (INSPECT-001).

The runtime plugs an `InspectSource` in; without one (a bare executor, an embedder with no
run around it) the answer is `{available: false}` rather than invented numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika.stdlib.core import INSPECT
from nika.tools.builtins._base import Builtin, Context


async def run(args: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """The view's data with `available: true`, or `{available: false}` outside a run."""
    if ctx.inspect is None:
        return {"available": False, "view": args["view"]}
    return {**ctx.inspect.view(args["view"]), "available": True}


BUILTIN = Builtin(
    INSPECT,
    description=(
        "Introspect the running workflow. view: cost {total_usd, by_task, by_provider} | "
        "records {tasks} | dag_info {nodes, edges, waves} | threads {active, queued, completed}."
    ),
    run=run,
)
