"""`nika:assert` — the fail-fast guard: a false `condition` fails the task (ASSERT-001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.stdlib.core import ASSERT
from nika.tools.builtins._base import Builtin, Context, fail


async def run(args: Mapping[str, Any], ctx: Context) -> bool:
    """True when the (already evaluated) condition holds; raise ASSERT-001 otherwise."""
    if args["condition"] is True:
        return True
    message = args.get("message") or "assertion failed"
    raise fail(
        codes.BUILTIN_ASSERT_001, f"{message} (the condition evaluated to false)", message=message
    )


BUILTIN = Builtin(
    ASSERT,
    description=(
        "Fail the task unless `condition` is true (the fail-fast guard). `condition` is a "
        "boolean — in a workflow, a `${{ }}` CEL expression; `message` lands in the error. "
        "Returns true on pass."
    ),
    run=run,
)
