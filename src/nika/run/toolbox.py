"""The tool universe of a run: the `nika:*` builtins (one executor, re-bound per task so
each fs/net effect is judged in that task's name) plus the MCP servers, as one executor."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from nika.agent.executors import CompositeExecutor
from nika.agent.seams import ToolExecutor
from nika.journal.bus import EventBus
from nika.journal.frames import ToolEntry
from nika.masking import Masker
from nika.run.inspect_cell import LiveInspect
from nika.run.permits import PermitGate
from nika.run.verbs.agent import reachable_servers
from nika.syntax.model import AgentBody, InvokeBody, Task, Workflow
from nika.tools.builtins import BuiltinExecutor, Context, PromptIO


class Toolbox:
    """Builds each task's `ToolExecutor`. `nika:log` / `nika:emit` entries reach the bus as
    `tool_invoked` frames carrying their `channel` (`log` · `emit`). `environ` is the engine's
    environment the provider-backed builtins read their keys and endpoints from."""

    def __init__(
        self,
        workflow: Workflow,
        gate: PermitGate,
        *,
        base_dir: Path,
        mask: Masker,
        bus: EventBus,
        mcp: ToolExecutor | None = None,
        prompt_io: PromptIO | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._workflow = workflow
        self._bus = bus
        self._mcp = mcp
        cell = LiveInspect(workflow)  # `nika:inspect` reads the run, seeded before task one
        bus.attach(cell)
        self._builtins = BuiltinExecutor(Context(
            base_dir=base_dir, judge=gate.judge, prompt_io=prompt_io, events=self._entry,
            loopback_grants=gate.judge.loopback_hosts(), inspect=cell,
            engine_env=dict(environ or {}),
        ), masker=mask)

    def _entry(self, kind: Literal["log", "emit"], fields: Mapping[str, Any]) -> None:
        entry = dict(fields)
        task = entry.pop("task", None)
        self._bus.emit(ToolEntry(task=task if isinstance(task, str) else None,
                                 tool=f"nika:{kind}", channel=kind, entry=entry))

    def for_task(self, task_id: str) -> ToolExecutor:
        """The universe as `task_id` sees it."""
        task = self._workflow.tasks.get(task_id)  # type: ignore[call-overload]
        lifted = task is not None and any(lift.law == "data-as-code" for lift in task.lift)
        builtins = self._builtins.for_task(task_id, data_as_code_lifted=lifted)
        return CompositeExecutor(builtins, self._mcp) if self._mcp is not None else builtins


def needs_mcp(task: Task) -> bool:
    """Can this task reach an MCP tool? (Loading the MCP client costs seconds of imports.)"""
    body = task.body
    if isinstance(body, InvokeBody):
        return body.workflow is not None or (body.tool or "").startswith("mcp:")
    if isinstance(body, AgentBody) and body.tools:
        servers = reachable_servers(body.tools)
        return servers is None or bool(servers)
    return False
