"""The bus, its sinks, the agent events adapter, the report, and masking."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from tests.run._harness import FixedClock, Recorder, run, wire_fields

from nika.agent.observe import (
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
from nika.errors import NikaError
from nika.journal.bus import EventBus, RunEvent
from nika.journal.content import CONTENT_CAP
from nika.journal.frames import (
    AgentSummary,
    TaskEnded,
    TaskNotes,
    TaskStarted,
    UnitAttempt,
    WorkflowStarted,
)
from nika.masking import MASK, Masker
from nika.run.events import AgentFrames
from nika.run.secrets import resolve_secrets
from nika.syntax.declarations import SecretRef
from nika.view.report import EventLog, build_report, to_json
from nika.view.stream import NdjsonSink


class Broken:
    def emit(self, event: RunEvent) -> None:
        raise RuntimeError("disk full")

    def close(self) -> None:
        raise RuntimeError("still full")


def test_bus_orders_masks_and_survives_a_failing_sink() -> None:
    recorder = Recorder()
    bus = EventBus(sinks=[Broken(), recorder], clock=FixedClock(), mask=Masker(["hunter2"]))
    bus.emit(TaskStarted(task="a", note="pw=hunter2"))
    bus.emit(TaskEnded(task="a", status="success", duration_ms=1, attempts=1, outcome="{}"))
    bus.close()
    assert [e.seq for e in recorder.events] == [1, 2]
    started = recorder.events[0].frame
    assert isinstance(started, TaskStarted) and started.note == f"pw={MASK}"
    assert [f.stage for f in bus.failures] == ["emit", "emit", "close"]


def test_ndjson_sink_writes_one_canonical_line_per_event() -> None:
    out = io.StringIO()
    bus = EventBus(sinks=[NdjsonSink(out)], clock=FixedClock())
    bus.emit(WorkflowStarted(workflow="w", tasks=1, inputs="{}"))
    bus.emit(TaskEnded(task="t", status="skipped", duration_ms=0, attempts=0, outcome="{}"))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["kind"] for line in lines] == ["workflow_started", "task_skipped"]
    assert lines[1]["task"] == "t" and "task" not in lines[0]


def test_agent_frames_map_every_event_without_loss() -> None:
    recorder = Recorder()
    notes = TaskNotes()
    frames = AgentFrames(EventBus(sinks=[recorder], clock=FixedClock()), UnitAttempt("t"), notes)
    events = [
        RunStarted(seq=1, turn=0, task="t", model="m", universe=2),
        TurnStarted(seq=2, turn=1),
        ToolsSelected(seq=3, turn=1, offered=("nika:a",), universe=2, by_source={"builtin": 2},
                      mode="fail_open", reason="fail_open"),
        ModelCalled(seq=4, turn=1, model="m", input_tokens=3, output_tokens=4, duration_ms=1.0,
                    finish_reason="tool_calls"),
        ToolCompleted(seq=5, turn=1, call_id="c", name="nika:a", source="builtin",
                      is_error=False, duration_ms=1.0, result_bytes=2),
        Nudged(seq=6, turn=2, reason="cycle", period=1, repeats=3),
        Stalled(seq=7, turn=3, period=1, repeats=5),
        ComposeChecked(seq=8, turn=3, valid=True, error_codes=(), draft_bytes=9, escapes=0),
        BudgetCheckpoint(seq=9, turn=3, turns_used=3, max_turns=4, tokens_used=7,
                         max_tokens_total=None),
        Finished(seq=10, turn=3, outcome="failure", turns=3, tokens=7,
                 error_code="NIKA-AGENT-006"),
    ]
    for event in events:
        frames.on_event(event)
    assert [e.kind for e in recorder.events] == [
        "verb_invoked", "verb_invoked", "agent_tools_selected", "cost_incurred", "tool_invoked",
        "agent_nudge", "agent_stalled", "agent_compose_checked", "agent_budget_checkpoint",
    ]
    nudge = wire_fields(recorder.events[5])
    assert (nudge["reason"], nudge["period"], nudge["repeats"], nudge["turn"]) == \
        ("cycle", 1, 3, 2)
    assert wire_fields(recorder.events[2])["offered"] == ["nika:a"]
    assert wire_fields(recorder.events[2])["reason"] == "fail_open"  # a fail-open shows
    assert notes.agent == AgentSummary("failure", 3, 7, "NIKA-AGENT-006")


def test_a_tool_frame_keeps_masked_arguments_and_a_capped_result() -> None:
    recorder = Recorder()
    bus = EventBus(sinks=[recorder], clock=FixedClock(), mask=Masker(["hunter2"]))
    frames = AgentFrames(bus, UnitAttempt("t"), TaskNotes())
    # The secret straddles the cut: masking first means no prefix of it survives, and the
    # size and digest are the masked text's.
    long = "x" * (CONTENT_CAP - 4) + "hunter2" + "y" * 5000
    frames.on_event(ToolCompleted(seq=1, turn=1, call_id="c", name="nika:a", source="builtin",
                                  is_error=False, duration_ms=1.0, result_bytes=len(long),
                                  arguments={"q": "hunter2", "n": 1}, result=long))
    fields = wire_fields(recorder.events[0])
    assert fields["arguments"] == {"n": 1, "q": MASK}
    result = fields["result"]
    shown = long.replace("hunter2", MASK).encode()
    assert result["truncated"] == "x" * (CONTENT_CAP - 4) + MASK[0]
    assert (result["bytes"], result["sha256"]) == (len(shown), hashlib.sha256(shown).hexdigest())
    assert "hunt" not in json.dumps(fields)


def test_report_shape_is_the_harness_contract() -> None:
    result, recorder = run("nika: r\ntasks:\n"
                           "  a:\n    invoke: { tool: nika:emit, args: { v: 1 } }\n"
                           "  b:\n    invoke: { tool: nika:assert, args: { condition: false } }\n")
    log = EventLog()
    for event in recorder.events:
        log.emit(event)
    report = build_report(result, log.entries, Masker())
    assert report["workflow_state"] == "failure"
    task_a = report["tasks"]["a"]
    assert task_a == {"status": "success", "output": {"v": 1}, "error": None,
                      "attempts": 1, "duration_ms": task_a["duration_ms"]}
    error = report["tasks"]["b"]["error"]
    assert error["code"] == "NIKA-BUILTIN-ASSERT-001" and error["message"] == error["detail"]
    assert {"kind": "task_started", "task": "a"} in report["events"]
    assert {"kind": "workflow_failed"} in report["events"]
    assert to_json(report) == json.dumps(report, sort_keys=True, separators=(",", ":"),
                                         ensure_ascii=False)


def test_a_secret_never_reaches_events_report_or_errors(tmp_path: Path) -> None:
    secret = "s3cr3t-value-42"
    text = ("nika: m\nsecrets: { token: { source: env, key: TOKEN } }\ntasks:\n"
            "  leak:\n    invoke: { tool: nika:assert, args: { condition: false, "
            "message: \"bad ${{ secrets.token }}\" } }\n"
            "  echo:\n    invoke: { tool: nika:emit, args: { v: \"${{ secrets.token }}\" } }\n")
    resolved = resolve_secrets(
        {"token": SecretRef("token", "env", (), key="TOKEN")},
        environ={"TOKEN": secret}, base_dir=tmp_path)
    result, recorder = run(text, secrets=resolved)
    log = EventLog()
    report = build_report(result, log.entries, Masker(resolved.values()))
    assert secret not in to_json(report)
    assert all(secret not in json.dumps(e.to_dict(), default=str) for e in recorder.events)
    error = result.records["leak"].error
    assert error is not None and secret not in error.detail and MASK in error.detail
    # the value still flows to the tool itself: masking is the engine's OWN surfaces only
    assert result.records["echo"].output == {"v": secret}


def test_secret_sources_env_and_file(tmp_path: Path) -> None:
    (tmp_path / "key.pem").write_text("from-file\n")
    refs = {"a": SecretRef("a", "env", (), key="A"),
            "b": SecretRef("b", "file", (), file="key.pem")}
    assert resolve_secrets(refs, environ={"A": "x"}, base_dir=tmp_path) == \
        {"a": "x", "b": "from-file"}
    with pytest.raises(NikaError) as missing:
        resolve_secrets(refs, environ={}, base_dir=tmp_path)
    assert missing.value.code == "NIKA-SECRET-001"
    assert Masker(["ab", "abcd"]).text("xabcdx ab") == f"x{MASK}x {MASK}"
