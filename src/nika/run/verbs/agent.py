"""`agent:` — the bounded loop (02 §agent), through `nika.agent.run_agent`.

The task becomes an `AgentSpec` (templates rendered, model defaulted, skills read into the
system context). The tool universe is the run's executor (builtins ∪ MCP), after starting only
the MCP servers the whitelist can reach; every call the loop dispatches is re-judged as a
`tool` effect (a refusal is a `security_error`, which ends the loop — 01 §permits: a boundary
is not negotiation material). Loop events reach the bus through `AgentFrames`. The run's
spend cap is the loop's `StopCheck`: crossed, the loop stops after its current turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nika import codes
from nika.agent.loop import run_agent
from nika.agent.seams import AgentObserver, ToolDefinition, ToolExecutor, ToolResult
from nika.agent.spec import AgentSpec
from nika.check.skills import MAX_SKILL_BYTES
from nika.errors import NikaError, task_error
from nika.guarded_read import Unreadable, read_capped
from nika.journal.frames import TaskNotes, UnitAttempt
from nika.run.events import AgentFrames
from nika.run.services import EffectGate, RunServices, servers_down
from nika.syntax.globs import glob_match
from nika.syntax.model import AgentBody, Task
from nika.syntax.resolved import resolve_body


class GatedExecutor:
    """A `ToolExecutor` that re-judges every call as a `tool` effect before dispatch."""

    def __init__(self, inner: ToolExecutor, gate: EffectGate, task: str) -> None:
        self._inner, self._gate, self._task = inner, gate, task

    def definitions(self) -> Sequence[ToolDefinition]:
        return self._inner.definitions()

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        try:
            self._gate.tool(self._task, name)
        except NikaError as refusal:
            return ToolResult.failed(refusal)
        return await self._inner.call(name, args)


def loop_observer(services: RunServices, unit: UnitAttempt, notes: TaskNotes) -> AgentObserver:
    """Who follows one loop run: the run's own factory, else the bus adapter."""
    if services.observe is not None:
        return services.observe(unit, notes)
    return AgentFrames(services.bus, unit, notes)


def reachable_servers(whitelist: Sequence[str]) -> set[str] | None:
    """MCP servers a whitelist can reach: named ones, or None (= every server) for a glob
    whose server segment is itself a pattern."""
    servers: set[str] = set()
    for pattern in whitelist:
        if pattern.startswith("!"):
            continue
        if pattern.startswith("mcp:"):
            server = pattern[len("mcp:"):].split("/", 1)[0]
            if any(ch in server for ch in "*?["):
                return None
            servers.add(server)
        elif pattern.startswith(("*", "?", "[")):
            return None
    return servers


def _skills(task: Task, paths: Sequence[str], workflow_dir: Path) -> str | None:
    sections: list[str] = []
    for raw in paths:
        path = Path(raw) if Path(raw).is_absolute() else workflow_dir / raw
        # The same guarded read as the check: a regular file only, never past the cap.
        data = read_capped(path, MAX_SKILL_BYTES)
        if isinstance(data, Unreadable):
            raise task_error(
                codes.AGENT_003, task.id,
                f"the skill file {raw!r} {data.why}; point `skills:` at a "
                "SKILL.md file",
                skill=raw,
            )
        sections.append(data.decode("utf-8", "replace").strip())
    return "## Skills\n\n" + "\n\n---\n\n".join(sections) if sections else None


def _needs_up(
    task: Task, whitelist: Sequence[str], servers: set[str] | None,
    failures: Mapping[str, NikaError], universe: ToolExecutor,
) -> None:
    """Refuse to run an agent without a server its whitelist needs: one it names outright,
    or — for a pattern over every server — any that is down while a pattern matches nothing.
    Left alone, the loop would run with a smaller universe (or none) and could end "success"."""
    if servers is None:
        names = [d.name for d in universe.definitions()]
        empty = any(not any(glob_match(p, n) for n in names)
                    for p in whitelist if not p.startswith("!"))
        servers = set(failures) if empty else set()
    error = servers_down(failures, servers, task.id, "has a `tools:` whitelist that needs")
    if error is not None:
        raise error


async def run_agent_task(
    task: Task, body: AgentBody, env: Mapping[str, Any], services: RunServices,
    timeout: float | None, notes: TaskNotes, unit: UnitAttempt,
) -> Any:
    """Run the loop and return its output; the loop's summary lands in `notes` (for the
    task's terminal frame) whichever way the loop ends."""
    resolved = resolve_body(task, body, env, services.model)
    spec = AgentSpec(
        prompt=resolved.prompt, model=resolved.model, task_id=task.id, system=resolved.system,
        tools=resolved.tools, max_turns=resolved.max_turns,
        max_tokens_total=resolved.max_tokens_total, temperature=resolved.temperature,
        schema=resolved.schema, extra_system=_skills(task, body.skills, services.workflow_dir))
    universe = services.tools(task.id) if body.tools else None
    if services.mcp is not None and universe is not None:
        servers = reachable_servers(body.tools)
        if servers is None or servers:
            await services.mcp.load_definitions(servers)
            _needs_up(task, body.tools, servers, services.mcp.failures, universe)
    frames = loop_observer(services, unit, notes)
    tools = GatedExecutor(universe, services.gate, task.id) if universe is not None else None
    result = await run_agent(
        spec,
        provider=services.providers.get(spec.model, timeout),
        tools=tools,
        observer=frames,
        config=services.agent_config,
        stop=services.budget,  # past --max-cost-usd: the turn under way ends the loop
    )
    return result.output
