"""Rung: every literal `model:` string names a known provider (`<provider>/<name>`).

A model chosen by an expression (`${{ … }}`) is the run's to resolve; a workflow
with no model at all is legal here (the engine's default applies at run time).
"""

from __future__ import annotations

from collections.abc import Iterator

from nika.check.context import CheckContext, Finding
from nika.errors import NikaError
from nika.syntax.model import KeyPath


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Judge the workflow default and each task's own `model:`."""
    wf = ctx.workflow
    if wf.model is not None:
        yield from _judge(ctx, wf.model, ("model",))
    for task in wf.tasks.values():
        if task.model is not None:
            yield from _judge(ctx, task.model, (*task.path, task.verb, "model"))


def _judge(ctx: CheckContext, model: str, at: KeyPath) -> Iterator[NikaError]:
    if "${{" in model:
        return
    # The provider catalog loads with the first model a workflow names.
    from nika.syntax.providers import parse_model

    try:
        parse_model(model)
    except NikaError as exc:
        yield NikaError(exc.code, exc.detail, details=exc.details, location=ctx.locate(at))
