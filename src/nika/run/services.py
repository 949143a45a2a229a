"""What a verb may use while it runs: one frozen bundle, built once per run.

Verbs reach the world only through these seams — the effect gate (permits re-judged at
dispatch), the tool executor, the provider pool, the bus — so a test swaps any of them for
a fake and drives the real verb code.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from nika.agent.config import AgentConfig
from nika.agent.seams import AgentObserver, Provider, ToolDefinition, ToolExecutor
from nika.errors import NikaError
from nika.journal.bus import EventBus
from nika.journal.frames import TaskNotes, UnitAttempt
from nika.masking import Masker
from nika.run.budget import SpendCap
from nika.run.children import ChildGuard
from nika.syntax.model import Workflow


class EffectGate(Protocol):
    """The runtime face of the permit judge: raises the refusal (`NIKA-SEC-004`, …) when an
    effect lies outside the declared boundary, returns when it is granted."""

    def exec_program(self, task: str, program: str, *, shell: bool) -> None: ...

    def tool(self, task: str, name: str) -> None: ...

    def child_env_names(self, task: str) -> tuple[str, ...]: ...


class McpServers(Protocol):
    """The MCP side of the tool universe (`McpExecutor`): servers start on demand; `None`
    starts every configured server."""

    async def load_definitions(
        self, servers: Collection[str] | None = None
    ) -> tuple[ToolDefinition, ...]: ...

    @property
    def failures(self) -> Mapping[str, NikaError]:
        """Servers that could not be used, by name, each with why (`NIKA-MCP-*`)."""
        ...


def servers_down(
    failures: Mapping[str, NikaError], servers: Collection[str], task: str, needs: str
) -> NikaError | None:
    """The error for a task that `needs` (says why) MCP servers of which some are down: the
    first down server's own error (code, why, stderr tail), naming the task and every down
    server; None when all of `servers` are up."""
    down = sorted(s for s in servers if s in failures)
    if not down:
        return None
    first = failures[down[0]]
    listed = ", ".join(repr(s) for s in down)
    return NikaError(
        first.code,
        f"task {task!r} {needs} MCP server(s) {listed}, and {down[0]!r} is unavailable: "
        f"{first.detail}",
        category=first.category,
        transient=first.transient,
        details={**first.details, "task": task, "servers_down": down},
    )


ToolsFactory = Callable[[str], ToolExecutor]
"""`task_id -> ToolExecutor`: the tool universe (builtins ∪ MCP) as one task sees it — the
builtins judge their own fs/net effects in that task's name."""

ObserverFactory = Callable[[UnitAttempt, TaskNotes], AgentObserver]
"""`(unit, notes) -> AgentObserver`: who follows one agent loop run. None (the default) is
the bus adapter `AgentFrames`; a cluster worker streams the typed events to the driver."""

ProviderFactory = Callable[[str, float | None], Provider]
"""`(model, timeout_seconds) -> Provider`: resolves (and may cache) a model's adapter."""


@dataclass(slots=True)
class ProviderPool:
    """One adapter per (model, deadline) for the whole run, resolved on first use."""

    factory: ProviderFactory
    _cache: dict[tuple[str, float | None], Provider] = field(default_factory=dict)

    def get(self, model: str, timeout: float | None) -> Provider:
        key = (model, timeout)
        provider = self._cache.get(key)
        if provider is None:
            provider = self._cache[key] = self.factory(model, timeout)
        return provider

    async def aclose(self) -> None:
        """Close every adapter that holds a connection pool (the SDK clients do)."""
        for provider in self._cache.values():
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
        self._cache.clear()


@dataclass(frozen=True, slots=True)
class RunServices:
    """Everything verbs share. `model` is the run's default model after `--model`;
    `base_dir` is where relative runtime paths resolve (the engine's working directory),
    `workflow_dir` where the file's own side files (skills, child workflows) live.
    `answers` are prompt answers supplied without a terminal (`--answer TASK=VALUE`);
    `pausable` lets an unanswerable prompt pause the run instead of failing (see `pause`)."""

    workflow: Workflow
    workflow_dir: Path
    base_dir: Path
    environ: Mapping[str, str]
    secrets: Mapping[str, str]
    mask: Masker
    bus: EventBus
    gate: EffectGate
    tools: ToolsFactory
    mcp: McpServers | None
    providers: ProviderPool
    model: str | None
    agent_config: AgentConfig = field(default_factory=AgentConfig)
    children: ChildGuard | None = None
    """The run's watchdog: every spawned process carries its marker (None: no watchdog)."""
    exec_keeper: tuple[str, ...] = ()
    """The argv prefix every exec body runs under (a Ray worker's, `cluster/keeper.py`),
    followed by a status descriptor, `--` and the command. Empty: the body runs directly."""
    answers: Mapping[str, str] = field(default_factory=dict)
    pausable: bool = False
    observe: ObserverFactory | None = None
    budget: SpendCap | None = None
    """`--max-cost-usd` (`budget.SpendCap`): None, no cap. Child workflows share it."""
