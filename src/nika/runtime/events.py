"""The ONE adapter from the agent loop's typed events (`nika.agent.observe`) to run events.

Each agent event becomes exactly one run event (`_KINDS`), carrying every field of the
agent event plus `agent_event` (its own kind) and `agent_seq`, so no decision is lost:

- `RunStarted` / `TurnStarted` → `verb_invoked` (the run, then each model turn);
- `ModelCalled` → `cost_incurred` (tokens and latency of the call);
- `ToolCompleted` → `tool_invoked`;
- `ToolsSelected` · `Nudged` · `Stalled` · `ComposeChecked` · `BudgetCheckpoint` →
  `agent_tools_selected` · `agent_nudge` · `agent_stalled` · `agent_compose_checked` ·
  `agent_budget_checkpoint`.

A tool call's `arguments` (as canonical JSON text) and `result` are framed as excerpts of at
most `EXCERPT_CHARS` characters, masked BEFORE they are cut (a cut must never split a secret
the mask would have caught); `result_bytes` keeps the whole size. A journal line stays far
below the verifier's 1 MiB bound whatever a tool returns.

Every frame also names the loop run it belongs to (`UnitAttempt.fields`: the `for_each`
`iteration`, when there is one, and the 1-based `attempt`), because one task may run its loop
several times — concurrently under `for_each`, successively under `retry:` — and a reader
must tell those runs apart (`nika trace show` renders one subtree per run).

`Finished` is not a frame of its own: the runner's terminal task frame (`task_completed` /
`task_failed`) carries its outcome, turns and tokens (written into the `notes` mapping the
runner passes in), so a task still has exactly one terminal frame.

A bus sink that also wants each loop run as a whole (OpenTelemetry: one span per run, exact
under retries and `for_each`) implements `AgentTap`: every `AgentFrames` asks it for one
`RunListener` and hands that listener each event's masked fields with the frame it became
(`Finished` included, with no frame). A listener that raises is logged, never fatal.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from nika.agent.observe import (
    AgentEvent,
    BudgetCheckpoint,
    ComposeChecked,
    Finished,
    ModelCalled,
    Nudged,
    RunStarted,
    Stalled,
    ToolCompleted,
    ToolsSelected,
    TurnStarted,
)
from nika.canonical import loose_json
from nika.masking import Masker
from nika.runtime.bus import EventBus, RunEvent

logger = logging.getLogger("nika.runtime")

EXCERPT_CHARS: Final = 2000
"""How much of a tool call's arguments and result a frame keeps (see the module doc)."""

_KINDS: Final[Mapping[type[AgentEvent], str]] = {
    RunStarted: "verb_invoked",
    TurnStarted: "verb_invoked",
    ModelCalled: "cost_incurred",
    ToolCompleted: "tool_invoked",
    ToolsSelected: "agent_tools_selected",
    Nudged: "agent_nudge",
    Stalled: "agent_stalled",
    ComposeChecked: "agent_compose_checked",
    BudgetCheckpoint: "agent_budget_checkpoint",
}
"""AgentEvent type → 17-trace kind. `Finished` folds into the task's terminal frame."""


@dataclass(frozen=True, slots=True)
class UnitAttempt:
    """One verb attempt of one unit (03: the plain task, or one `for_each` iteration): what
    tells apart the concurrent or successive verb runs of a single task."""

    task: str
    iteration: int | None = None
    attempt: int = 1

    @property
    def fields(self) -> dict[str, Any]:
        """The frame fields naming this attempt (`iteration` only inside a fan-out)."""
        out: dict[str, Any] = {"attempt": self.attempt}
        if self.iteration is not None:
            out["iteration"] = self.iteration
        return out

    @property
    def path(self) -> str:
        """The unit as a task-id prefix (`task`, or `task[i]` for an iteration): task ids
        match `^[a-z][a-z0-9_]*$`, so a prefixed id never collides with a real one."""
        return self.task if self.iteration is None else f"{self.task}[{self.iteration}]"


def _fields(event: AgentEvent, unit: UnitAttempt, mask: Masker) -> dict[str, Any]:
    out: dict[str, Any] = {"agent_event": event.kind, "agent_seq": event.seq, **unit.fields}
    for f in dataclasses.fields(event):
        if f.name in ("seq", "task"):  # `task` is the frame's own task id
            continue
        value = getattr(event, f.name)
        out[f.name] = dict(value) if isinstance(value, Mapping) else (
            list(value) if isinstance(value, tuple) else value)
    if isinstance(event, ToolCompleted):
        out["arguments"] = excerpt(loose_json(mask(dict(event.arguments))))
        out["result"] = excerpt(str(mask(event.result)))
    return out


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` cut to `limit` characters, the cut marked with `…`."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RunListener(Protocol):
    """Follows one agent loop run: `kind` is the `AgentEvent` kind, `fields` its masked
    fields as framed (`agent_seq`, `turn`, …), `frame` the run event it became (None for
    `finished`, which folds into the task's terminal frame)."""

    def on_agent(self, kind: str, fields: Mapping[str, Any], frame: RunEvent | None) -> None: ...


@runtime_checkable
class AgentTap(Protocol):
    """A bus sink that follows agent loop runs: `open_run` is called once per run."""

    def open_run(self, task: str) -> RunListener: ...


class AgentFrames:
    """An `AgentObserver` for one loop run (`unit`): re-emits each loop event on the bus."""

    def __init__(self, bus: EventBus, unit: UnitAttempt, notes: dict[str, Any]) -> None:
        self._bus = bus
        self._unit = unit
        self._notes = notes
        self._listeners = [s.open_run(unit.task) for s in bus.sinks if isinstance(s, AgentTap)]

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, Finished):
            self._notes.update(agent_outcome=event.outcome, turns=event.turns,
                               tokens=event.tokens, agent_error_code=event.error_code)
            self._tell(event, self._bus.mask(_fields(event, self._unit, self._bus.mask)), None)
            return
        # An event type the loop adds later still reaches the trace (its `agent_event` names it).
        kind = _KINDS.get(type(event), "verb_invoked")
        fields = _fields(event, self._unit, self._bus.mask)
        if isinstance(event, RunStarted | TurnStarted):
            fields["verb"] = "agent"
        if isinstance(event, ToolCompleted):
            fields["tool"] = event.name
        frame = self._bus.emit(kind, self._unit.task, **fields)
        self._tell(event, frame.fields, frame)

    def _tell(self, event: AgentEvent, fields: Mapping[str, Any], frame: RunEvent | None) -> None:
        for listener in self._listeners:
            try:
                listener.on_agent(event.kind, fields, frame)
            except Exception:  # watching a run never changes it
                logger.warning("agent run listener %s failed on %s", type(listener).__name__,
                               event.kind, exc_info=True)
