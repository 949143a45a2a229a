"""The run's event bus: every observable fact of a run is one typed `Frame`
(`nika.journal.frames`), stamped into a `RunEvent` and fanned out to sinks.

Kinds follow the 17-trace vocabulary (`workflow_started`, `task_started`, `task_completed`,
`tool_invoked`, `agent_nudge`, …). The bus owns the two things every sink must agree on: the
sequence number and the masking of secrets — the mask applies to the typed frame's value
fields before any sink sees it. A sink that raises is recorded (`EventBus.failures`) and
skipped; it never changes the run's verdict (17 §the journal: the infallible rider).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from nika.journal.frames import Frame
from nika.journal.wire import mask_frame, wire
from nika.masking import Masker


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
    """One stamped frame of the run: `seq` orders it, `frame` is the (masked) fact."""

    seq: int
    frame: Frame
    timestamp: int

    @property
    def kind(self) -> str:
        return self.frame.kind

    @property
    def task(self) -> str | None:
        """None for workflow-level frames."""
        return self.frame.task

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape streamed by `--json` (the frame's pairs under `fields`)."""
        out: dict[str, Any] = {"seq": self.seq, "kind": self.kind, "timestamp": self.timestamp}
        if self.task is not None:
            out["task"] = self.task
        pairs = wire(self.frame)
        if pairs:
            out["fields"] = dict(pairs)
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
    """Assigns `seq` and `timestamp`, masks the frame, and delivers to every sink in order."""

    sinks: list[EventSink] = field(default_factory=list)
    clock: Clock = field(default_factory=SystemClock)
    mask: Masker = field(default_factory=Masker)
    failures: list[SinkFailure] = field(default_factory=list)
    _seq: int = 0
    _closed: bool = False

    def attach(self, sink: EventSink) -> None:
        """Add a sink; it receives events emitted from now on."""
        self.sinks.append(sink)

    def emit(self, frame: Frame) -> RunEvent:
        """Stamp, mask and deliver one frame; returns the event (as the sinks saw it)."""
        self._seq += 1
        event = RunEvent(self._seq, mask_frame(frame, self.mask), self.clock.now_ns())
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
            why = self.mask.text(f"{type(exc).__name__}: {exc}")
            self.failures.append(SinkFailure(type(sink).__name__, stage, why))
