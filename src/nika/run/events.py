"""The ONE adapter from the agent loop's typed events (`nika.agent.observe`) to typed frames.

Each agent event becomes exactly one `AgentStep` frame carrying the event itself, so no
decision is lost and every field reaches every sink typed (`frames.AGENT_KINDS` names the
17-trace kind of each event type):

- `RunStarted` / `TurnStarted` → `verb_invoked` (the run, then each model turn);
- `ModelCalled` → `cost_incurred` (tokens and latency of the call);
- `ToolCompleted` → `tool_invoked` (and, when a builtin's result reports its own real spend —
  a top-level numeric `cost_usd` — one `cost_incurred` frame naming the tool, which the
  run's ledger counts: `spend_frame`, the same an `invoke:` emits);
- `ToolsSelected` · `Nudged` · `Stalled` · `ComposeChecked` · `BudgetCheckpoint` →
  `agent_tools_selected` · `agent_nudge` · `agent_stalled` · `agent_compose_checked` ·
  `agent_budget_checkpoint`.

Every frame also names the loop run it belongs to (`UnitAttempt`: the `for_each`
`iteration`, when there is one, and the 1-based `attempt`), because one task may run its loop
several times — concurrently under `for_each`, successively under `retry:` — and a reader
must tell those runs apart (`nika trace show` renders one subtree per run).

`Finished` is not a frame of its own: the runner's terminal task frame (`task_completed` /
`task_failed`) carries its outcome, turns and tokens (an `AgentSummary` on the `TaskNotes`
the runner passes in), so a task still has exactly one terminal frame.

A bus sink that also wants each loop run as a whole (OpenTelemetry: one span per run, exact
under retries and `for_each`) implements `AgentTap`: every `AgentFrames` asks it for one
`RunListener` and hands that listener each event, masked, with the event it was stamped into
(`Finished` included, with no event). A listener that raises is logged, never fatal.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final, Protocol, runtime_checkable

from nika.agent.observe import AgentEvent, Finished, ToolCompleted
from nika.journal.bus import EventBus, RunEvent
from nika.journal.frames import AgentStep, AgentSummary, CostIncurred, TaskNotes, UnitAttempt
from nika.journal.ledger import tool_spend
from nika.journal.wire import mask_frame

logger = logging.getLogger("nika.run")
_SPEND_SCAN: Final = 1 << 20
"""A tool result longer than this is not parsed for its spend (builtin records are small)."""


def spend_frame(task: str, tool: str, value: Any) -> CostIncurred | None:
    """The `cost_incurred` frame of a tool call whose output reports its real spend (None when
    it reports none): the tool is named where a model call names its model."""
    spend = tool_spend(value)
    if spend is None:
        return None
    return CostIncurred(task=task, model=tool, input_tokens=None, output_tokens=None,
                        cost_usd=float(spend))


def _agent_spend(task: str, event: ToolCompleted) -> CostIncurred | None:
    if event.is_error or not event.name.startswith("nika:") or '"cost_usd"' not in event.result \
            or len(event.result) > _SPEND_SCAN:
        return None
    try:
        value = json.loads(event.result)
    except ValueError:
        return None
    return spend_frame(task, event.name, value)


class RunListener(Protocol):
    """Follows one agent loop run: `event` is the loop's event (masked), `stamped` the bus
    event its frame became (None for `Finished`, which folds into the task's terminal
    frame)."""

    def on_agent(self, event: AgentEvent, stamped: RunEvent | None) -> None: ...


@runtime_checkable
class AgentTap(Protocol):
    """A bus sink that follows agent loop runs: `open_run` is called once per run."""

    def open_run(self, task: str) -> RunListener: ...


class AgentFrames:
    """An `AgentObserver` for one loop run (`unit`): re-emits each loop event on the bus."""

    def __init__(self, bus: EventBus, unit: UnitAttempt, notes: TaskNotes) -> None:
        self._bus = bus
        self._unit = unit
        self._notes = notes
        self._listeners = [s.open_run(unit.task) for s in bus.sinks if isinstance(s, AgentTap)]

    def on_event(self, event: AgentEvent) -> None:
        step = AgentStep(task=self._unit.task, unit=self._unit, event=event)
        if isinstance(event, Finished):
            self._notes.agent = AgentSummary(event.outcome, event.turns, event.tokens,
                                             event.error_code)
            self._tell(mask_frame(step, self._bus.mask).event, None)
            return
        stamped = self._bus.emit(step)
        frame = stamped.frame
        assert isinstance(frame, AgentStep)
        self._tell(frame.event, stamped)
        if isinstance(event, ToolCompleted):
            spent = _agent_spend(self._unit.task, event)
            if spent is not None:
                self._bus.emit(spent)

    def _tell(self, event: AgentEvent, stamped: RunEvent | None) -> None:
        for listener in self._listeners:
            try:
                listener.on_agent(event, stamped)
            except Exception:  # watching a run never changes it
                logger.warning("agent run listener %s failed on %s", type(listener).__name__,
                               event.kind, exc_info=True)
