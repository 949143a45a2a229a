"""The agent loop as OpenTelemetry, following the GenAI semantic conventions.

`OtelObserver` is an `AgentObserver`. Per loop run it writes

- an INTERNAL `invoke_agent {name}` span (operation, provider, requested model, the run's
  usage totals, `error.type` when the run did not succeed);
- a CLIENT `chat {model}` span per model call (`ModelCalled`: input/output tokens, finish
  reason), timed backwards from the event by its measured duration;
- an INTERNAL `execute_tool {name}` span per tool call (`ToolCompleted`: tool name, call id,
  tool type, `error.type` on failure), timed the same way.

What content is captured: none. Spans and events carry names, sizes, counts and codes — never
prompts, tool arguments or results (`ToolCompleted` holds a call's arguments and result for the
journal; this module reads neither) — so `gen_ai.tool.call.arguments` / `.result` and the
message attributes are never set; a tool's result size rides as `nika.tool.result_bytes`.

The decisions no convention covers go out as log-based events tied to the run's span, through
the OpenTelemetry logs API (`nika.agent.tools_selected` · `nika.agent.nudged` ·
`nika.agent.stalled` at WARN · `nika.agent.compose_checked` · `nika.agent.budget_checkpoint`),
each field as a `nika.agent.<field>` attribute; `mirror_span_events=True` also records them
as span events, for backends that drop logs. Given a journal `FrameRef`, every span and event
carries `nika.journal.seq` and `nika.journal.hash` so the two can be joined.

The attribute names are kept here as constants (the conventions are still incubating). The
SDK, its exporters and sampling are the embedder's: this module only calls the API.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from opentelemetry import trace
from opentelemetry._logs import LoggerProvider, LogRecord, SeverityNumber, get_logger_provider
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider
from opentelemetry.util.types import AttributeValue

from nika import __version__
from nika.agent.observe import (
    DECISIONS,
    AgentEvent,
    Finished,
    ModelCalled,
    RunStarted,
    Stalled,
    ToolCompleted,
)
from nika.journal.frames import UnitAttempt
from nika.journal.writer import FrameRef

# --- GenAI semantic conventions (the names we use) ---
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_PROVIDER_NAME: Final = "gen_ai.provider.name"
GEN_AI_REQUEST_MODEL: Final = "gen_ai.request.model"
GEN_AI_RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
GEN_AI_USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_TOOL_TYPE: Final = "gen_ai.tool.type"
GEN_AI_WORKFLOW_NAME: Final = "gen_ai.workflow.name"
ERROR_TYPE: Final = "error.type"
ERROR_TYPE_OTHER: Final = "_OTHER"
OP_INVOKE_AGENT: Final = "invoke_agent"
OP_CHAT: Final = "chat"
OP_EXECUTE_TOOL: Final = "execute_tool"
OP_INVOKE_WORKFLOW: Final = "invoke_workflow"

# --- nika's own attributes and events ---
NIKA_JOURNAL_SEQ: Final = "nika.journal.seq"
NIKA_JOURNAL_HASH: Final = "nika.journal.hash"
NIKA_AGENT_PREFIX: Final = "nika.agent."
NIKA_AGENT_TURN: Final = "nika.agent.turn"
NIKA_AGENT_TURNS: Final = "nika.agent.turns"
NIKA_AGENT_OUTCOME: Final = "nika.agent.outcome"
NIKA_AGENT_UNIVERSE: Final = "nika.agent.universe"
NIKA_TOOL_SOURCE: Final = "nika.tool.source"
NIKA_TOOL_RESULT_BYTES: Final = "nika.tool.result_bytes"
DECISION_EVENTS: Final[Mapping[type[AgentEvent], tuple[str, SeverityNumber]]] = {
    event: (NIKA_AGENT_PREFIX + event.kind,
            SeverityNumber.WARN if event is Stalled else SeverityNumber.INFO)
    for event in DECISIONS
}
"""AgentEvent type → (log event name, severity) for the decisions no convention covers (a
stall is the one warning)."""

_TOOL_TYPES: Final = {"mcp": "extension"}  # builtins and loop-served tools run in-process


def journal_attributes(frame: FrameRef | None) -> dict[str, AttributeValue]:
    """The join keys of a journal frame (empty without a journal)."""
    return {} if frame is None else {NIKA_JOURNAL_SEQ: frame.seq, NIKA_JOURNAL_HASH: frame.hash}


def _provider(model: str) -> str | None:
    return model.split("/", 1)[0] if "/" in model else None


def _attribute(value: Any) -> AttributeValue | None:
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    return None if value is None else str(value)


def decision_attributes(event: AgentEvent,
                        unit: UnitAttempt | None = None) -> dict[str, AttributeValue]:
    """A decision as attributes: the loop run it belongs to (`attempt`, `iteration`), each
    field of the event as `nika.agent.<field>` (mappings flattened one level, `None`
    dropped), then the turn and the loop's own sequence number."""
    out: dict[str, AttributeValue] = {}
    if unit is not None:
        out[f"{NIKA_AGENT_PREFIX}attempt"] = unit.attempt
        if unit.iteration is not None:
            out[f"{NIKA_AGENT_PREFIX}iteration"] = unit.iteration
    for f in dataclasses.fields(event):
        if f.name in ("seq", "turn"):
            continue
        value = getattr(event, f.name)
        items = value.items() if isinstance(value, Mapping) else [(None, value)]
        for sub, item in items:
            converted = _attribute(item)
            if converted is not None:
                out[f"{NIKA_AGENT_PREFIX}{f.name}" + (f".{sub}" if sub else "")] = converted
    out[NIKA_AGENT_TURN] = event.turn
    out[f"{NIKA_AGENT_PREFIX}seq"] = event.seq
    return out


@dataclass(slots=True)
class _Run:
    span: Span
    context: Context
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    usage: bool = False
    attributes: dict[str, AttributeValue] = field(default_factory=dict)


class OtelObserver:
    """An `AgentObserver` writing spans and decision events (module doc).

    One observer follows one run at a time (a new `RunStarted` starts a new run). `parent` is
    the context the agent span hangs under (default: the current one); `agent_name` overrides
    the task id as `gen_ai.agent.name`; providers default to the global ones.
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        logger_provider: LoggerProvider | None = None,
        parent: Context | None = None,
        agent_name: str | None = None,
        mirror_span_events: bool = False,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self._tracer = trace.get_tracer("nika", __version__, tracer_provider=tracer_provider)
        self._logger = (logger_provider or get_logger_provider()).get_logger("nika", __version__)
        self._parent = parent
        self._name = agent_name
        self._mirror = mirror_span_events
        self._clock = clock
        self._run: _Run | None = None

    def on_event(self, event: AgentEvent) -> None:
        """The `AgentObserver` seam: record `event` as of now, with no journal to join."""
        self.record(event)

    def record(self, event: AgentEvent, *, at_ns: int | None = None,
               frame: FrameRef | None = None, unit: UnitAttempt | None = None) -> None:
        """Record one loop event at `at_ns` (default: now), joined to the journal `frame`
        when there is one; `unit` names the loop run among a task's several (runtime)."""
        at = self._clock() if at_ns is None else at_ns
        if isinstance(event, RunStarted):
            self._start(event, at, frame)
            return
        run = self._run
        if run is None:  # attached mid-run: nothing to hang the event on
            return
        if isinstance(event, ModelCalled):
            self._chat(run, event, at, frame)
        elif isinstance(event, ToolCompleted):
            self._tool(run, event, at, frame)
        elif isinstance(event, Finished):
            self._finish(run, event, at)
        elif type(event) in DECISION_EVENTS:
            self._decision(run, event, unit, at, frame)

    def _start(self, event: RunStarted, at: int, frame: FrameRef | None) -> None:
        model = event.model
        name = self._name or event.task or "agent"
        attributes: dict[str, AttributeValue] = {
            GEN_AI_OPERATION_NAME: OP_INVOKE_AGENT, GEN_AI_AGENT_NAME: name,
            GEN_AI_REQUEST_MODEL: model, **journal_attributes(frame),
        }
        provider = _provider(model)
        if provider is not None:
            attributes[GEN_AI_PROVIDER_NAME] = provider
        attributes[NIKA_AGENT_UNIVERSE] = event.universe
        span = self._tracer.start_span(f"{OP_INVOKE_AGENT} {name}", context=self._parent,
                                       kind=SpanKind.INTERNAL, attributes=attributes,
                                       start_time=at)
        self._run = _Run(span, trace.set_span_in_context(span, self._parent), model,
                         attributes={k: v for k, v in attributes.items()
                                     if k in (GEN_AI_PROVIDER_NAME, GEN_AI_REQUEST_MODEL)})

    def _child(self, run: _Run, name: str, kind: SpanKind, at: int, duration_ms: float,
               attributes: dict[str, AttributeValue]) -> Span:
        took = int(duration_ms * 1_000_000)
        return self._tracer.start_span(name, context=run.context, kind=kind,
                                       attributes=attributes, start_time=at - max(took, 0))

    def _chat(self, run: _Run, event: ModelCalled, at: int, frame: FrameRef | None) -> None:
        model = event.model or run.model
        attributes: dict[str, AttributeValue] = {
            **run.attributes, GEN_AI_OPERATION_NAME: OP_CHAT, GEN_AI_REQUEST_MODEL: model,
            GEN_AI_RESPONSE_FINISH_REASONS: [event.finish_reason],
            **journal_attributes(frame), NIKA_AGENT_TURN: event.turn,
        }
        for tokens, name in ((event.input_tokens, GEN_AI_USAGE_INPUT_TOKENS),
                             (event.output_tokens, GEN_AI_USAGE_OUTPUT_TOKENS)):
            if tokens is not None:  # None: the provider reported no usage
                attributes[name] = tokens
                run.usage = True
        run.input_tokens += event.input_tokens or 0
        run.output_tokens += event.output_tokens or 0
        span = self._child(run, f"{OP_CHAT} {model}", SpanKind.CLIENT, at, event.duration_ms,
                           attributes)
        span.end(end_time=at)

    def _tool(self, run: _Run, event: ToolCompleted, at: int, frame: FrameRef | None) -> None:
        attributes: dict[str, AttributeValue] = {
            GEN_AI_OPERATION_NAME: OP_EXECUTE_TOOL, GEN_AI_TOOL_NAME: event.name,
            GEN_AI_TOOL_CALL_ID: event.call_id,
            GEN_AI_TOOL_TYPE: _TOOL_TYPES.get(event.source, "function"),
            NIKA_TOOL_SOURCE: event.source, **journal_attributes(frame),
            NIKA_TOOL_RESULT_BYTES: event.result_bytes, NIKA_AGENT_TURN: event.turn,
        }
        span = self._child(run, f"{OP_EXECUTE_TOOL} {event.name}", SpanKind.INTERNAL, at,
                           event.duration_ms, attributes)
        if event.is_error:
            span.set_attribute(ERROR_TYPE, event.error_code or ERROR_TYPE_OTHER)
            span.set_status(Status(StatusCode.ERROR))
        span.end(end_time=at)

    def _decision(self, run: _Run, event: AgentEvent, unit: UnitAttempt | None, at: int,
                  frame: FrameRef | None) -> None:
        name, severity = DECISION_EVENTS[type(event)]
        attributes = {**decision_attributes(event, unit), **journal_attributes(frame)}
        self._logger.emit(LogRecord(timestamp=at, context=run.context, event_name=name,
                                    severity_number=severity, severity_text=severity.name,
                                    attributes=attributes))
        if self._mirror:
            run.span.add_event(name, attributes=attributes, timestamp=at)

    def _finish(self, run: _Run, event: Finished, at: int) -> None:
        span = run.span
        if run.usage:
            span.set_attribute(GEN_AI_USAGE_INPUT_TOKENS, run.input_tokens)
            span.set_attribute(GEN_AI_USAGE_OUTPUT_TOKENS, run.output_tokens)
        span.set_attribute(NIKA_AGENT_OUTCOME, event.outcome)
        span.set_attribute(NIKA_AGENT_TURNS, event.turns)
        if event.outcome != "success":
            span.set_attribute(ERROR_TYPE, event.error_code or ERROR_TYPE_OTHER)
            span.set_status(Status(StatusCode.ERROR, f"agent run ended: {event.outcome}"))
        span.end(end_time=at)
        self._run = None
