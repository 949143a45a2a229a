"""The typed frames (`nika.journal.frames`): every kind in the 17-trace vocabulary, the one
serializer, typed masking, and the decoder (`nika.journal.decoded`) reading back every field
the frames write."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

import pytest

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
from nika.errors import NikaError
from nika.journal import frames
from nika.journal.bus import EventBus, RunEvent
from nika.journal.decoded import BY_AGENT_EVENT, BY_KIND, Read, decode
from nika.journal.frames import (
    AGENT_KINDS,
    KINDS,
    AgentStep,
    AgentSummary,
    CheckpointWritten,
    CostIncurred,
    Frame,
    PermitChecked,
    Replayed,
    RunTotals,
    TaskCacheHit,
    TaskEnded,
    TaskRecovered,
    TaskRetrying,
    TaskScheduled,
    TaskStarted,
    ToolEntry,
    ToolInvoked,
    UnitAttempt,
    VerbInvoked,
    WorkflowEnded,
    WorkflowStarted,
)
from nika.journal.wire import mask_frame, wire
from nika.masking import MASK, Masker
from nika.run.pause import prompt_payload

ERROR = NikaError("NIKA-EXEC-001", "program exited 1")
EVENTS: tuple[AgentEvent, ...] = (
    RunStarted(seq=1, turn=0, task="t", model="mock/m", universe=3, config={"max_turns": 4},
               prompt="p", system="s"),
    TurnStarted(seq=2, turn=1),
    ToolsSelected(seq=3, turn=1, offered=("nika:a",), universe=3, by_source={"builtin": 3},
                  mode="ranked", reason="bm25", scores={"nika:a": 1.5}),
    ModelCalled(seq=4, turn=1, model="mock/m", input_tokens=10, output_tokens=5,
                duration_ms=1.5, finish_reason="tool_calls", reply="r"),
    ToolCompleted(seq=5, turn=1, call_id="c1", name="nika:a", source="builtin", is_error=True,
                  duration_ms=2.0, result_bytes=4, error_code="NIKA-EXEC-001",
                  arguments={"q": 1}, result="boom"),
    Nudged(seq=6, turn=2, reason="cycle", period=1, repeats=3),
    Stalled(seq=7, turn=3, period=1, repeats=4, signatures=("ab",)),
    ComposeChecked(seq=8, turn=3, valid=False, error_codes=("NIKA-PARSE-019",), draft_bytes=9,
                   escapes=1, lint_rules=("native-first/001",)),
    BudgetCheckpoint(seq=9, turn=3, turns_used=3, max_turns=4, tokens_used=15,
                     max_tokens_total=100),
)
UNIT = UnitAttempt("t", iteration=2, attempt=2)

SAMPLES: tuple[Frame, ...] = (
    WorkflowStarted(workflow="w", tasks=2, inputs='{"a":1}'),
    WorkflowEnded(workflow="w", state="failure", outputs="{}",
                  totals=RunTotals(total_cost_usd=0.5, unpriced_calls=1, cost_unpriced="mock/m",
                                   input_tokens=3, output_tokens=4, duration_ms=5),
                  error=ERROR, forced=True, signal="SIGINT"),
    WorkflowEnded(workflow="w", state="paused", paused=("g",),
                  prompt=prompt_payload("g", {"message": "go?"})),
    TaskScheduled(task="t"),
    TaskStarted(task="t", verb="exec", note="exec · echo", unwinds="p"),
    TaskCacheHit(task="t", iteration=1, def_hash="d", input_hash="i", matched_line=7,
                 matched_uuid="u"),
    CheckpointWritten(task="t", iteration=1, def_hash="d", input_hash="i", attempts=1,
                      replay=Replayed(output='"x"', bindings="{}", output_bytes=3,
                                      output_sha256="s", replayable=True, replay_why="-")),
    TaskRetrying(task="t", attempt=1, code="NIKA-EXEC-001", delay_ms=10, iteration=0),
    TaskRecovered(task="t", code="NIKA-EXEC-001"),
    TaskEnded(task="t", note="n", status="failure", duration_ms=3, attempts=2, def_hash="d",
              unwinds="p", input_hash="i", inputs={"a": 1},
              agent=AgentSummary("failure", 3, 15, "NIKA-AGENT-006"),
              cache_hit=False, recovered_from={"code": "NIKA-EXEC-001"}, cost_usd=0.1,
              unpriced_calls=0, cost_unpriced="", replay=Replayed(output='"x"', bindings="{}",
                                                                  replayable=True),
              error=ERROR, outcome='{"cause":"error"}',
              assets=({"path": "out/a.wav", "sha256": "0" * 64, "bytes": 44, "duration_s": 0.0},)),
    VerbInvoked(task="t", verb="exec", tool="nika:a", workflow="c.yaml", program="echo",
                shell=False, model="mock/m"),
    ToolInvoked(task="t", tool="nika:a", is_error=True, error_code="NIKA-EXEC-001", duration_ms=1.0,
                answered="yes", arguments={"q": 1}, result={"ok": True}),
    ToolEntry(task="t", tool="nika:log", channel="log", entry={"level": "info", "msg": "hi"}),
    CostIncurred(task="t", model="mock/m", input_tokens=1, output_tokens=2, prompt="p",
                 system="s", reply="r"),
    CostIncurred(task="t", model="nika:image_generate", input_tokens=1, output_tokens=2,
                 cost_usd=0.07),
    PermitChecked(task="t", plane="exec", gate="echo", decision="allow", bound="permits.exec",
                  why="granted"),
    *(AgentStep(task="t", unit=UNIT, event=event) for event in EVENTS),
)

# Fields a record reads that no frame of this engine writes: the prologue's boot manifest
# (written by the journal, not the bus) and another engine's spelling of a tool's name.
NOT_FRAMED = {"engine_version", "platform", "trace_format", "name", "parent"}


def _subclasses(cls: type[Any]) -> set[type[Any]]:
    """The classes a module exports under their name (`slots=True` leaves each dataclass's
    first, replaced class behind among the subclasses)."""
    found = set(cls.__subclasses__())
    found = found.union(*(_subclasses(c) for c in found))
    return {c for c in found if vars(sys.modules[c.__module__]).get(c.__name__) is c}


def test_every_frame_class_and_agent_event_has_a_kind_of_the_vocabulary() -> None:
    assert {type(f) for f in SAMPLES} == _subclasses(Frame)  # a new frame class gets a sample
    for frame in SAMPLES:
        assert frame.kind in KINDS, frame
    assert set(frames.WORKFLOW_END_KINDS.values()) | set(frames.TASK_END_KINDS.values()) <= KINDS
    assert set(AGENT_KINDS) == _subclasses(AgentEvent) - {Finished}
    assert set(AGENT_KINDS.values()) <= KINDS
    assert {type(e) for e in EVENTS} == set(AGENT_KINDS)


def test_wire_writes_the_rules_of_each_field() -> None:
    started = dict(wire(TaskStarted(task="t", verb="exec")))
    assert started == {"verb": "exec"}  # `absent()` fields left out, `task` is the address
    checkpoint = wire(SAMPLES[6])
    assert [k for k, _ in checkpoint][:5] == ["iteration", "def_hash", "input_hash", "attempts",
                                              "output"]  # the replay group spliced in place
    nested = dict(wire(dataclasses.replace(SAMPLES[3], node="n1", parent="p", depth=1)))
    assert list(nested) == ["node", "parent", "depth"]  # provenance closes the pairs
    ended = dict(wire(SAMPLES[1]))
    assert ended["error"] == ERROR.to_dict() and ended["state"] == "failure"
    retry = dict(wire(TaskRetrying(task="t", attempt=1, code="c", delay_ms=0, iteration=None)))
    assert retry["iteration"] is None  # a plain field is always written


def test_an_agent_step_writes_every_field_of_its_event() -> None:
    for event in EVENTS:
        pairs = dict(wire(AgentStep(task="t", unit=UNIT, event=event)))
        assert (pairs["agent_event"], pairs["agent_seq"]) == (event.kind, event.seq)
        assert (pairs["attempt"], pairs["iteration"]) == (2, 2)
        for f in dataclasses.fields(event):
            assert f.name in ("seq", "task") or f.name in pairs, (event.kind, f.name)
    tool = dict(wire(AgentStep(task="t", unit=UNIT, event=EVENTS[4])))
    assert (tool["arguments"], tool["result"], tool["tool"]) == ({"q": 1}, "boom", "nika:a")


@pytest.mark.parametrize("frame", SAMPLES, ids=lambda f: f"{type(f).__name__}-{f.kind}")
def test_every_record_field_reads_back_what_the_frame_wrote(frame: Frame) -> None:
    pairs = json.loads(json.dumps(dict(wire(frame))))  # through JSON, as a journal holds it
    if frame.task is not None:
        pairs["task"] = frame.task
    record = decode(frame.kind, pairs)
    expected = BY_AGENT_EVENT[frame.event.kind] if isinstance(frame, AgentStep) else \
        BY_KIND.get(frame.kind, Read)
    assert type(record) is expected
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if f.name in NOT_FRAMED or f.name not in pairs:
            continue
        assert value is not None and value != {}, f"{type(record).__name__}.{f.name}"


def test_every_record_field_is_written_by_some_frame() -> None:
    written: dict[type[Read], set[str]] = {}
    for frame in SAMPLES:
        pairs = dict(wire(frame))
        record = decode(frame.kind, pairs)
        written.setdefault(type(record), {"task"}).update(pairs)
    for cls in written:
        for f in dataclasses.fields(cls):
            # a field is read from the frames of the record declaring it and of its subclasses
            owner = next(c for c in cls.__mro__ if f.name in vars(c).get("__annotations__", {}))
            keys = set().union(*(k for c, k in written.items() if issubclass(c, owner)))
            assert f.name in keys | NOT_FRAMED, \
                f"{owner.__name__}.{f.name} is read, but no frame writes it"


def test_masking_is_typed_and_reaches_every_depth() -> None:
    mask = Masker(["hunter2"])
    step = AgentStep(task="t", unit=UNIT, event=ToolCompleted(
        seq=1, turn=1, call_id="c", name="nika:a", source="builtin", is_error=False,
        duration_ms=1.0, result_bytes=7, arguments={"k": ["hunter2"]}, result="hunter2"))
    masked = mask_frame(step, mask)
    assert type(masked) is AgentStep and isinstance(masked.event, ToolCompleted)
    assert masked.event.arguments == {"k": [MASK]} and masked.event.result == MASK
    ended = mask_frame(TaskEnded(task="t", status="failure", duration_ms=1, attempts=1,
                                 error=NikaError("NIKA-EXEC-001", "pw hunter2"),
                                 replay=Replayed(output='"hunter2"'), outcome="hunter2"), mask)
    assert ended.error is not None and "hunter2" not in ended.error.detail
    assert ended.replay is not None and ended.replay.output == f'"{MASK}"'
    assert ended.outcome == MASK
    clean = TaskStarted(task="t", note="nothing secret")
    assert mask_frame(clean, mask) is clean and mask_frame(step, Masker()) is step


def test_the_stream_and_the_journal_write_the_same_pairs() -> None:
    seen: list[RunEvent] = []

    class Keep:
        def emit(self, event: RunEvent) -> None:
            seen.append(event)

        def close(self) -> None:
            pass

    bus = EventBus(sinks=[Keep()])
    for frame in SAMPLES:
        bus.emit(frame)
    for event in seen:
        streamed = event.to_dict()
        assert streamed.get("task") == event.task and streamed["kind"] == event.kind
        assert list(streamed.get("fields", {}).items()) == [
            (k, v) for k, v in wire(event.frame)]
