"""Declared builtins this engine does not serve (`nika.check.capability.UNSERVED`).

Each name still answers, with a definite refusal naming what is missing — `NIKA-IMPL-002`,
the one code for "valid Nika this engine does not run", the same the check warns with and
the run's pre-flight refuses with — so a workflow learns it before its first task, and an
agent at its first call rather than as an unknown tool. Their definitions say so, so a model
reading them does not call them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika.check.capability import CODE, UNSERVED, refusal_detail
from nika.stdlib import DECLARATIONS
from nika.tools.builtins._base import Builtin, BuiltinRun, Context, fail


def _refuse(name: str) -> BuiltinRun:
    async def run(args: Mapping[str, Any], ctx: Context) -> None:
        why = f"{name} is a stdlib builtin this engine does not implement: {UNSERVED[name]}"
        raise fail(CODE, refusal_detail(why), tool=name)

    return run


UNSERVED_BUILTINS: Final = tuple(
    Builtin(
        DECLARATIONS[name],
        description=f"{name} — NOT supported by this engine: every call is refused.",
        run=_refuse(name),
    )
    for name in sorted(UNSERVED)
)
"""Their args are judged by their declarations first: an authoring error is named as the
check names it, and only a well-formed call meets the capability refusal."""
