"""A workflow run as OpenTelemetry: the `invoke_workflow {name}` span above its agent spans.

`OtelSink` is a bus sink (it sees the run's masked events) and an `AgentTap` (the runtime's
agent adapter opens one `OtelObserver` per loop run through it, parented under the workflow
span). Given the run's journal (`frames`), every span and decision event carries the frame's
line number and hash — the sink runs after the journal on the bus, so the frame of the event
it handles is the one just written.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from opentelemetry import trace
from opentelemetry._logs import LoggerProvider
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider

from nika import __version__
from nika.agent.observe import AgentEvent
from nika.journal.bus import RunEvent
from nika.journal.frames import AgentStep, WorkflowEnded, WorkflowStarted
from nika.journal.writer import FrameRef
from nika.telemetry.otel import (
    ERROR_TYPE,
    GEN_AI_OPERATION_NAME,
    GEN_AI_WORKFLOW_NAME,
    OP_INVOKE_WORKFLOW,
    OtelObserver,
    journal_attributes,
)


class FrameSource(Protocol):
    """Where a bus event landed in the journal (`JournalSink.frame`)."""

    def frame(self, seq: int) -> FrameRef | None: ...


class _RunListener:
    """One agent loop run, forwarded to its own `OtelObserver` with the journal join."""

    def __init__(self, observer: OtelObserver, frames: FrameSource | None) -> None:
        self._observer = observer
        self._frames = frames

    def on_agent(self, event: AgentEvent, stamped: RunEvent | None) -> None:
        ref = self._frames.frame(stamped.seq) if stamped and self._frames else None
        step = stamped.frame if stamped is not None else None
        self._observer.record(event, at_ns=stamped.timestamp if stamped else None, frame=ref,
                              unit=step.unit if isinstance(step, AgentStep) else None)


class OtelSink:
    """An `EventSink` + `AgentTap` exporting a workflow run through the OpenTelemetry API.

    `mirror_span_events` mirrors the agents' decision events as span events (module doc of
    `nika.telemetry.otel`); providers default to the global ones the embedder configured.
    """

    def __init__(
        self,
        *,
        frames: FrameSource | None = None,
        tracer_provider: TracerProvider | None = None,
        logger_provider: LoggerProvider | None = None,
        mirror_span_events: bool = False,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self._frames = frames
        self._tracer_provider = tracer_provider
        self._logger_provider = logger_provider
        self._mirror = mirror_span_events
        self._clock = clock
        self._tracer = trace.get_tracer("nika", __version__, tracer_provider=tracer_provider)
        self._span: Span | None = None
        self._context: Context | None = None

    def emit(self, event: RunEvent) -> None:
        frame = event.frame
        if isinstance(frame, WorkflowStarted):
            name = frame.workflow
            ref = self._frames.frame(event.seq) if self._frames else None
            self._span = self._tracer.start_span(
                f"{OP_INVOKE_WORKFLOW} {name}", kind=SpanKind.INTERNAL, start_time=event.timestamp,
                attributes={GEN_AI_OPERATION_NAME: OP_INVOKE_WORKFLOW, GEN_AI_WORKFLOW_NAME: name,
                            **journal_attributes(ref)})
            self._context = trace.set_span_in_context(self._span)
        elif isinstance(frame, WorkflowEnded) and self._span is not None:
            state = frame.state
            if state in ("failure", "cancelled"):
                code = frame.error.code if frame.error is not None else None
                self._span.set_attribute(ERROR_TYPE, code or state)
                self._span.set_status(Status(StatusCode.ERROR, f"workflow {state}"))
            self._span.end(end_time=event.timestamp)
            self._span = None

    def open_run(self, task: str) -> _RunListener:
        """The listener of one agent loop run of `task` (the runtime's `AgentTap` seam)."""
        observer = OtelObserver(
            tracer_provider=self._tracer_provider, logger_provider=self._logger_provider,
            parent=self._context, agent_name=task, mirror_span_events=self._mirror,
            clock=self._clock)
        return _RunListener(observer, self._frames)

    def close(self) -> None:
        """End a workflow span the run never closed (an engine crash), so it is exported."""
        if self._span is not None:
            self._span.set_attribute(ERROR_TYPE, "incomplete")
            self._span.set_status(Status(StatusCode.ERROR, "the run ended without a verdict"))
            self._span.end(end_time=self._clock())
            self._span = None
