"""The run's event bus: every observable fact of a run is one `RunEvent`, fanned out to sinks.

Kinds follow the 17-trace vocabulary (`workflow_started`, `task_started`, `task_completed`,
`tool_invoked`, `agent_nudge`, …). The bus owns the two things every sink must agree on: the
sequence number and the masking of secrets — a sink never sees an unmasked value. A sink that
raises is recorded (`EventBus.failures`) and skipped; it never changes the run's verdict
(17 §the journal: the infallible rider).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Protocol, runtime_checkable

from nika.masking import Masker

KINDS: Final = frozenset(
    {
        "workflow_started", "workflow_completed", "workflow_failed", "workflow_cancelled",
        "workflow_paused", "task_scheduled", "task_started", "task_completed", "task_failed",
        "task_skipped", "task_retrying", "task_recovered", "task_cancelled", "task_cache_hit",
        "verb_invoked", "tool_invoked", "checkpoint_written", "cost_incurred", "infer_chunk",
        "permit_checked", "lift", "run_sealed", "agent_tools_selected", "agent_nudge",
        "agent_stalled", "agent_compose_checked", "agent_budget_checkpoint",
    }
)
"""The closed kind vocabulary of `trace_format: 2` (spec 17 §the kind vocabulary)."""

TERMINAL_WORKFLOW_KINDS: Final = frozenset(
    {"workflow_completed", "workflow_failed", "workflow_cancelled"}
)


class Clock(Protocol):
    """Time as the run reads it: wall time for frames, a monotonic reading for durations."""

    def now_ns(self) -> int: ...

    def monotonic(self) -> float: ...


class SystemClock:
    """The real clock."""

    def now_ns(self) -> int:
        return time.time_ns()

    def monotonic(self) -> float:
        return time.monotonic()


@dataclass(frozen=True, slots=True)
class RunEvent:
    """One frame of the run: `seq` orders it, `task` is None for workflow-level frames."""

    seq: int
    kind: str
    task: str | None
    fields: Mapping[str, Any]
    timestamp: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape streamed by `--json` (fields flattened beside the frame keys)."""
        out: dict[str, Any] = {"seq": self.seq, "kind": self.kind, "timestamp": self.timestamp}
        if self.task is not None:
            out["task"] = self.task
        if self.fields:
            out["fields"] = dict(self.fields)
        return out


@runtime_checkable
class EventSink(Protocol):
    """Receives every event in order; `close` is called once, after the last event."""

    def emit(self, event: RunEvent) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class SinkFailure:
    """A sink that raised: which one, where (`emit` / `close`), and what it said."""

    sink: str
    stage: str
    error: str


@dataclass(slots=True)
class EventBus:
    """Assigns `seq` and `timestamp`, masks `fields`, and delivers to every sink in order."""

    sinks: list[EventSink] = field(default_factory=list)
    clock: Clock = field(default_factory=SystemClock)
    mask: Masker = field(default_factory=Masker)
    failures: list[SinkFailure] = field(default_factory=list)
    _seq: int = 0
    _closed: bool = False

    def attach(self, sink: EventSink) -> None:
        """Add a sink; it receives events emitted from now on."""
        self.sinks.append(sink)

    def emit(self, kind: str, task: str | None = None, **fields: Any) -> RunEvent:
        """Build, mask and deliver one event; returns it (as the sinks saw it)."""
        if kind not in KINDS:
            raise ValueError(f"event kind {kind!r} is outside the 17-trace vocabulary")
        self._seq += 1
        masked = self.mask(fields) if fields else fields
        event = RunEvent(self._seq, kind, task, MappingProxyType(masked), self.clock.now_ns())
        for sink in self.sinks:
            try:
                sink.emit(event)
            except Exception as exc:  # the infallible rider: a sink never changes the verdict
                self._fail(sink, "emit", exc)
        return event

    def close(self) -> None:
        """Close every sink once (later calls do nothing)."""
        if self._closed:
            return
        self._closed = True
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as exc:  # recorded, reported after the run
                self._fail(sink, "close", exc)

    def _fail(self, sink: EventSink, stage: str, exc: Exception) -> None:
        if len(self.failures) < 100:  # a sink failing on every event must not grow memory
            why = str(self.mask(f"{type(exc).__name__}: {exc}"))
            self.failures.append(SinkFailure(type(sink).__name__, stage, why))
