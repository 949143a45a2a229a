"""OpenTelemetry through the real loop and the real runtime, read back from the SDK's
in-memory span and log exporters."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from tests.run._harness import RESEARCH_AGENT

from nika.agent import AgentSpec, ToolFailure, ToolResult, Usage, run_agent
from nika.agent.fakes import RecordingExecutor, ScriptedProvider, answer, call, calling
from nika.errors import NikaError
from nika.journal.writer import JournalSink, line_hash
from nika.run.launch import RunOptions, Streams, run_command
from nika.telemetry.otel import OtelObserver
from nika.telemetry.otel_sink import OtelSink
from nika.view.console import Console


@dataclass
class Otel:
    spans: InMemorySpanExporter
    logs: InMemoryLogRecordExporter
    tracer_provider: TracerProvider
    logger_provider: LoggerProvider

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def span(self, name: str) -> ReadableSpan:
        [span] = [s for s in self.finished() if s.name == name]
        return span

    def records(self) -> list[ReadableLogRecord]:
        return list(self.logs.get_finished_logs())


@pytest.fixture
def otel() -> Otel:
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, logger_provider = TracerProvider(), LoggerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    return Otel(spans, logs, tracer_provider, logger_provider)


def _observer(otel: Otel, **kw: Any) -> OtelObserver:
    return OtelObserver(tracer_provider=otel.tracer_provider,
                        logger_provider=otel.logger_provider, **kw)


async def _run(observer: OtelObserver, script: Sequence[Any], tools: Sequence[str],
               executor: RecordingExecutor, **spec: Any) -> Any:
    agent = AgentSpec(prompt="research", model="mock/scripted", task_id="scout",
                      tools=tools, **spec)
    try:
        return await run_agent(agent, provider=ScriptedProvider(script), tools=executor,
                               observer=observer)
    except NikaError as exc:
        return exc


async def test_spans_follow_the_genai_conventions(otel: Otel) -> None:
    broken = ToolResult("boom", is_error=True,
                        error=ToolFailure("NIKA-MCP-002", "tool_error", "boom"))
    executor = RecordingExecutor(["nika:fetch", "mcp:srv/x"], results={"mcp:srv/x": broken})
    script = [calling(call("nika:fetch", id="c1"), call("mcp:srv/x", id="c2"),
                      usage=Usage(10, 5)),
              answer("done", usage=Usage(3, 2))]
    await _run(_observer(otel), script, ["nika:fetch", "mcp:srv/*"], executor)
    agent = otel.span("invoke_agent scout")
    chats = [s for s in otel.finished() if s.name == "chat mock/scripted"]
    fetch, failed = otel.span("execute_tool nika:fetch"), otel.span("execute_tool mcp:srv/x")
    assert agent.kind == SpanKind.INTERNAL and agent.parent is None
    assert dict(agent.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "scout",
        "gen_ai.request.model": "mock/scripted", "gen_ai.provider.name": "mock",
        "nika.agent.universe": 2, "gen_ai.usage.input_tokens": 13,
        "gen_ai.usage.output_tokens": 7, "nika.agent.outcome": "success", "nika.agent.turns": 2,
    }
    assert len(chats) == 2 and all(c.kind == SpanKind.CLIENT for c in chats)
    for child in (*chats, fetch, failed):
        assert child.parent is not None
        assert child.parent.span_id == agent.context.span_id
    first = dict(chats[0].attributes or {})
    assert first["gen_ai.operation.name"] == "chat"
    assert (first["gen_ai.usage.input_tokens"], first["gen_ai.usage.output_tokens"]) == (10, 5)
    assert first["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert fetch.attributes is not None and failed.attributes is not None
    assert (fetch.attributes["gen_ai.tool.call.id"], fetch.attributes["gen_ai.tool.type"]) == \
        ("c1", "function")
    assert "error.type" not in fetch.attributes and fetch.status.status_code != StatusCode.ERROR
    assert failed.attributes["error.type"] == "NIKA-MCP-002"
    assert failed.attributes["gen_ai.tool.type"] == "extension"
    assert failed.status.status_code == StatusCode.ERROR
    assert not any("arguments" in k or k.rsplit(".", 1)[-1] == "result"
                   for s in otel.finished() for k in (s.attributes or {}))  # no content


async def test_decisions_are_log_events_tied_to_the_agent_span(otel: Otel) -> None:
    executor = RecordingExecutor(["nika:fetch"])
    script = [calling(call("nika:fetch", {"page": 1}))] * 10
    err = await _run(_observer(otel), script, ["nika:fetch"], executor, max_turns=10)
    assert err.code == "NIKA-AGENT-006"
    agent = otel.span("invoke_agent scout")
    records = [r.log_record for r in otel.records()]
    names = [r.event_name for r in records]
    assert names.count("nika.agent.tools_selected") == names.count(
        "nika.agent.budget_checkpoint") == 5
    assert names.index("nika.agent.nudged") < names.index("nika.agent.stalled")
    assert all(r.span_id == agent.context.span_id for r in records)
    stalled = next(r for r in records if r.event_name == "nika.agent.stalled")
    nudged = next(r for r in records if r.event_name == "nika.agent.nudged")
    assert stalled.severity_number is not None and stalled.severity_number.name == "WARN"
    assert nudged.severity_number is not None and nudged.severity_number.name == "INFO"
    assert stalled.attributes is not None and nudged.attributes is not None
    assert stalled.attributes["nika.agent.period"] == nudged.attributes["nika.agent.period"] == 1
    selected = next(r for r in records if r.event_name == "nika.agent.tools_selected")
    assert selected.attributes is not None
    assert selected.attributes["nika.agent.offered"] == ("nika:fetch",)
    assert (selected.attributes["nika.agent.universe"],
            selected.attributes["nika.agent.by_source.builtin"],
            selected.attributes["nika.agent.mode"]) == (1, 1, "passthrough")
    assert agent.status.status_code == StatusCode.ERROR
    assert agent.attributes is not None and agent.attributes["error.type"] == "NIKA-AGENT-006"
    assert agent.events == ()  # mirroring is off by default


async def test_the_switch_mirrors_decisions_as_span_events(otel: Otel) -> None:
    executor = RecordingExecutor(["nika:fetch"])
    script = [calling(call("nika:fetch")), answer("ok")]
    await _run(_observer(otel, mirror_span_events=True), script, ["nika:fetch"], executor)
    agent = otel.span("invoke_agent scout")
    assert [e.name for e in agent.events] == [
        "nika.agent.tools_selected", "nika.agent.budget_checkpoint",
        "nika.agent.tools_selected", "nika.agent.budget_checkpoint",
    ]
    logged = [r.log_record.event_name for r in otel.records()]
    assert logged == [e.name for e in agent.events]


WORKFLOW = "nika: otel-demo\n" + RESEARCH_AGENT + """\
  check:
    after: { research: success }
    invoke: { tool: nika:assert, args: { condition: false, message: "nope" } }
"""


def test_a_workflow_run_is_one_trace_joined_to_its_journal(otel: Otel, tmp_path: Path) -> None:
    source = tmp_path / "flow.nika.yaml"
    source.write_text(WORKFLOW, encoding="utf-8")

    def sink(journal: JournalSink) -> OtelSink:
        return OtelSink(frames=journal, tracer_provider=otel.tracer_provider,
                        logger_provider=otel.logger_provider)

    code = run_command(RunOptions(file=source, trace_dir=tmp_path / "traces"),
                       Streams(io.StringIO(), io.StringIO()), Console(out=io.StringIO()),
                       environ={}, extra_sinks=[sink])
    assert code == 1
    workflow, agent = otel.span("invoke_workflow otel-demo"), otel.span("invoke_agent research")
    assert agent.parent is not None and agent.parent.span_id == workflow.context.span_id
    assert workflow.attributes is not None
    assert workflow.attributes["gen_ai.operation.name"] == "invoke_workflow"
    assert workflow.attributes["gen_ai.workflow.name"] == "otel-demo"
    assert workflow.status.status_code == StatusCode.ERROR
    assert workflow.attributes["error.type"] == "failure"
    [journal] = (tmp_path / "traces").glob("*.ndjson")
    lines = journal.read_bytes().rstrip(b"\n").split(b"\n")
    joined = [(s.attributes["nika.journal.seq"], s.attributes["nika.journal.hash"])
              for s in otel.finished() if s.attributes and "nika.journal.seq" in s.attributes]
    joined += [(r.log_record.attributes["nika.journal.seq"],
                r.log_record.attributes["nika.journal.hash"])
               for r in otel.records() if r.log_record.attributes]
    assert len(joined) >= 6  # workflow, agent, chat, tool spans; two decision events
    for seq, digest in joined:
        assert isinstance(seq, int) and line_hash(lines[seq - 1]) == digest
    started = workflow.attributes["nika.journal.seq"]
    assert isinstance(started, int) and b'"kind":"workflow_started"' in lines[started - 1]
