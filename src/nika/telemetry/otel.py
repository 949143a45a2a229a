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
from nika.agent.observe import AgentEvent
from nika.runtime.journal import FrameRef

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
DECISION_EVENTS: Final[Mapping[str, tuple[str, SeverityNumber]]] = {
    "tools_selected": ("nika.agent.tools_selected", SeverityNumber.INFO),
    "nudged": ("nika.agent.nudged", SeverityNumber.INFO),
    "stalled": ("nika.agent.stalled", SeverityNumber.WARN),
    "compose_checked": ("nika.agent.compose_checked", SeverityNumber.INFO),
    "budget_checkpoint": ("nika.agent.budget_checkpoint", SeverityNumber.INFO),
}
"""AgentEvent kind → (log event name, severity) for the decisions no convention covers."""

_BOOKKEEPING: Final = frozenset({"agent_event", "agent_seq", "turn", "verb", "tool", "task"})
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


def decision_attributes(fields: Mapping[str, Any]) -> dict[str, AttributeValue]:
    """A decision's fields as `nika.agent.<field>` attributes (mappings flattened one level,
    `None` dropped) plus the turn and the loop's own sequence number."""
    out: dict[str, AttributeValue] = {}
    for key, value in fields.items():
        if key in _BOOKKEEPING:
            continue
        items = value.items() if isinstance(value, Mapping) else [(None, value)]
        for sub, item in items:
            converted = _attribute(item)
            if converted is not None:
                out[f"{NIKA_AGENT_PREFIX}{key}" + (f".{sub}" if sub else "")] = converted
    for key, name in (("turn", NIKA_AGENT_TURN), ("agent_seq", f"{NIKA_AGENT_PREFIX}seq")):
        if isinstance(fields.get(key), int):
            out[name] = fields[key]
    return out


def event_fields(event: AgentEvent) -> dict[str, Any]:
    """An `AgentEvent` in the shape the journal frames it (`agent_seq`, `turn`, fields)."""
    out: dict[str, Any] = {"agent_seq": event.seq}
    for f in dataclasses.fields(event):
        if f.name != "seq":
            out[f.name] = getattr(event, f.name)
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
        self.record(event.kind, event_fields(event))

    def record(self, kind: str, fields: Mapping[str, Any], *, at_ns: int | None = None,
               frame: FrameRef | None = None) -> None:
        """Record one loop event given as its kind and framed fields, at `at_ns` (default:
        now), joined to the journal `frame` when there is one."""
        at = self._clock() if at_ns is None else at_ns
        if kind == "run_started":
            self._start(fields, at, frame)
            return
        run = self._run
        if run is None:  # attached mid-run: nothing to hang the event on
            return
        if kind == "model_called":
            self._chat(run, fields, at, frame)
        elif kind == "tool_completed":
            self._tool(run, fields, at, frame)
        elif kind in DECISION_EVENTS:
            self._decision(run, kind, fields, at, frame)
        elif kind == "finished":
            self._finish(run, fields, at)

    def _start(self, fields: Mapping[str, Any], at: int, frame: FrameRef | None) -> None:
        model = str(fields.get("model", ""))
        name = self._name or str(fields.get("task") or "agent")
        attributes: dict[str, AttributeValue] = {
            GEN_AI_OPERATION_NAME: OP_INVOKE_AGENT, GEN_AI_AGENT_NAME: name,
            GEN_AI_REQUEST_MODEL: model, **journal_attributes(frame),
        }
        provider = _provider(model)
        if provider is not None:
            attributes[GEN_AI_PROVIDER_NAME] = provider
        if isinstance(fields.get("universe"), int):
            attributes[NIKA_AGENT_UNIVERSE] = fields["universe"]
        span = self._tracer.start_span(f"{OP_INVOKE_AGENT} {name}", context=self._parent,
                                       kind=SpanKind.INTERNAL, attributes=attributes,
                                       start_time=at)
        self._run = _Run(span, trace.set_span_in_context(span, self._parent), model,
                         attributes={k: v for k, v in attributes.items()
                                     if k in (GEN_AI_PROVIDER_NAME, GEN_AI_REQUEST_MODEL)})

    def _child(self, run: _Run, name: str, kind: SpanKind, at: int, duration_ms: Any,
               attributes: dict[str, AttributeValue]) -> Span:
        took = int(duration_ms * 1_000_000) if isinstance(duration_ms, int | float) else 0
        return self._tracer.start_span(name, context=run.context, kind=kind,
                                       attributes=attributes, start_time=at - max(took, 0))

    def _chat(self, run: _Run, fields: Mapping[str, Any], at: int,
              frame: FrameRef | None) -> None:
        model = str(fields.get("model") or run.model)
        attributes: dict[str, AttributeValue] = {
            **run.attributes, GEN_AI_OPERATION_NAME: OP_CHAT, GEN_AI_REQUEST_MODEL: model,
            GEN_AI_RESPONSE_FINISH_REASONS: [str(fields.get("finish_reason", ""))],
            **journal_attributes(frame),
        }
        if isinstance(fields.get("turn"), int):
            attributes[NIKA_AGENT_TURN] = fields["turn"]
        for key, name in (("input_tokens", GEN_AI_USAGE_INPUT_TOKENS),
                          ("output_tokens", GEN_AI_USAGE_OUTPUT_TOKENS)):
            tokens = fields.get(key)
            if isinstance(tokens, int):  # None: the provider reported no usage
                attributes[name] = tokens
                run.usage = True
                if key == "input_tokens":
                    run.input_tokens += tokens
                else:
                    run.output_tokens += tokens
        span = self._child(run, f"{OP_CHAT} {model}", SpanKind.CLIENT, at,
                           fields.get("duration_ms"), attributes)
        span.end(end_time=at)

    def _tool(self, run: _Run, fields: Mapping[str, Any], at: int,
              frame: FrameRef | None) -> None:
        name = str(fields.get("name", ""))
        source = str(fields.get("source", "other"))
        attributes: dict[str, AttributeValue] = {
            GEN_AI_OPERATION_NAME: OP_EXECUTE_TOOL, GEN_AI_TOOL_NAME: name,
            GEN_AI_TOOL_CALL_ID: str(fields.get("call_id", "")),
            GEN_AI_TOOL_TYPE: _TOOL_TYPES.get(source, "function"), NIKA_TOOL_SOURCE: source,
            **journal_attributes(frame),
        }
        if isinstance(fields.get("result_bytes"), int):
            attributes[NIKA_TOOL_RESULT_BYTES] = fields["result_bytes"]
        if isinstance(fields.get("turn"), int):
            attributes[NIKA_AGENT_TURN] = fields["turn"]
        span = self._child(run, f"{OP_EXECUTE_TOOL} {name}", SpanKind.INTERNAL, at,
                           fields.get("duration_ms"), attributes)
        if fields.get("is_error"):
            span.set_attribute(ERROR_TYPE, str(fields.get("error_code") or ERROR_TYPE_OTHER))
            span.set_status(Status(StatusCode.ERROR))
        span.end(end_time=at)

    def _decision(self, run: _Run, kind: str, fields: Mapping[str, Any], at: int,
                  frame: FrameRef | None) -> None:
        name, severity = DECISION_EVENTS[kind]
        attributes = {**decision_attributes(fields), **journal_attributes(frame)}
        self._logger.emit(LogRecord(timestamp=at, context=run.context, event_name=name,
                                    severity_number=severity, severity_text=severity.name,
                                    attributes=attributes))
        if self._mirror:
            run.span.add_event(name, attributes=attributes, timestamp=at)

    def _finish(self, run: _Run, fields: Mapping[str, Any], at: int) -> None:
        span = run.span
        if run.usage:
            span.set_attribute(GEN_AI_USAGE_INPUT_TOKENS, run.input_tokens)
            span.set_attribute(GEN_AI_USAGE_OUTPUT_TOKENS, run.output_tokens)
        outcome = str(fields.get("outcome", ""))
        span.set_attribute(NIKA_AGENT_OUTCOME, outcome)
        if isinstance(fields.get("turns"), int):
            span.set_attribute(NIKA_AGENT_TURNS, fields["turns"])
        if outcome != "success":
            span.set_attribute(ERROR_TYPE, str(fields.get("error_code") or ERROR_TYPE_OTHER))
            span.set_status(Status(StatusCode.ERROR, f"agent run ended: {outcome}"))
        span.end(end_time=at)
        self._run = None
