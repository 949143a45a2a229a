"""The four verbs (02-verbs): one module each, one entry point here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nika import codes
from nika.errors import NikaError
from nika.journal.frames import TaskNotes, UnitAttempt
from nika.run.services import RunServices
from nika.run.verbs.agent import run_agent_task
from nika.run.verbs.exec import run_exec
from nika.run.verbs.infer import run_infer
from nika.run.verbs.invoke import ChildRunner, run_invoke
from nika.syntax.model import AgentBody, ExecBody, InferBody, InvokeBody, Task
from nika.syntax.typefit import conforms
from nika.syntax.types import render

__all__ = ["ChildRunner", "VerbAttempt", "run_verb"]


@dataclass(frozen=True, slots=True)
class VerbAttempt:
    """One attempt of a task's verb, as the scheduler hands it to a placement.

    `env` is the task's resolved environment; `timeout` (seconds) also bounds a provider's
    HTTP deadline (03 §timeout); `notes` collects fields for the task's terminal frame;
    `child` runs an `invoke: workflow:` child; `unit` names this attempt in the frames of the
    verbs that may run more than once per task (the agent loop, a child workflow).
    """

    task: Task
    env: Mapping[str, Any]
    services: RunServices
    timeout: float | None
    notes: TaskNotes
    child: ChildRunner | None
    unit: UnitAttempt


async def run_verb(attempt: VerbAttempt) -> Any:
    """Run the task's verb once; returns the raw output or raises `NikaError`."""
    task, env, services, timeout = attempt.task, attempt.env, attempt.services, attempt.timeout
    body = task.body
    if isinstance(body, InferBody):  # `returns:` is the reply's schema (lowered), judged there
        return await run_infer(task, body, env, services, timeout)
    if isinstance(body, AgentBody):
        return await run_agent_task(task, body, env, services, timeout, attempt.notes,
                                    attempt.unit)
    if isinstance(body, ExecBody):
        output = await run_exec(task, body, env, services)
    elif isinstance(body, InvokeBody):
        output = await run_invoke(task, body, env, services, attempt.child, attempt.unit)
    else:
        raise AssertionError(f"unknown verb body {type(body).__name__}")
    if task.returns is not None and not conforms(output, task.returns):
        raise NikaError(
            codes.TYPE_101,
            f"task {task.id!r} returned {_shown(output)}, which does not fit its "
            f"`returns: {render(task.returns)}`; fix the producer or the declared type",
            details={"task": task.id},
        )
    return output


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:119] + "…"
