"""Workflow `outputs:` (01 §outputs): evaluated once every task has settled.

Each entry resolves against the settled world (`tasks.*` reads are defined-null for a task
that did not succeed). A typed entry whose value misfits its `type:` fails the run
(`NIKA-VAR-009`) — the output half of the callable contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nika import codes
from nika.errors import NikaError
from nika.syntax.binding import interpolate
from nika.syntax.model import Workflow
from nika.syntax.typefit import conforms
from nika.syntax.types import render


def workflow_outputs(
    workflow: Workflow, base_env: Mapping[str, Any], views: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[str, Any], NikaError | None]:
    """The outputs object (declaration order) and the first refusal, if any."""
    env = {**base_env, "tasks": views}
    out: dict[str, Any] = {}
    first: NikaError | None = None
    for name, decl in workflow.outputs.items():
        try:
            value = interpolate(decl.value, env)
        except NikaError as exc:
            out[name] = None
            first = first or exc
            continue
        out[name] = value
        if decl.type is not None and not conforms(value, decl.type):
            first = first or NikaError(
                codes.VAR_009,
                f"output {name!r} is declared {render(decl.type)} but the run produced "
                f"{str(value)[:80]!r}; fix the producing task or the declared type",
                details={"output": name, "type": render(decl.type)},
            )
    return out, first
