"""The journal fold behind the trace views: untrusted frames in, plain data out."""

from __future__ import annotations

import json
from typing import Any

from nika.journal.verify import Frame, TraceVerdict
from nika.view.recovery import recovery_text
from nika.view.trace_view import fold

OK = TraceVerdict("clean", 0, None)


def _frames(*specs: tuple[str, dict[str, Any]]) -> list[Frame]:
    return [Frame(n, kind, 1_000_000 * n, fields) for n, (kind, fields) in enumerate(specs, 1)]


def _agent(task: str, event: str, turn: int, **fields: Any) -> tuple[str, dict[str, Any]]:
    return ("verb_invoked", {"task": task, "agent_event": event, "turn": turn, "attempt": 1,
                             **fields})


def test_a_nudge_and_a_stall_mark_the_turns_they_counted() -> None:
    turns = [_agent("a", "tool_completed", n, name="nika:poll", is_error=False)
             for n in range(1, 8)]
    view = fold(_frames(
        ("task_started", {"task": "a"}),
        *turns,
        _agent("a", "nudged", 5, reason="cycle", period=1, repeats=2),
        _agent("a", "stalled", 7, period=1, repeats=2, signatures=["ab"]),
    ), OK)
    run = next(iter(view.tasks["a"].runs.values()))
    assert [t.in_cycle for t in run.turns.values()] == [False] * 3 + [True] * 4
    assert run.turns[7].stall is not None and run.turns[7].stall.signatures == ("ab",)
    assert run.turns[5].nudge is not None


def test_ill_typed_fields_stay_unrecorded_and_never_raise() -> None:
    view = fold(_frames(
        ("workflow_started", {"workflow": ["not", "a", "name"]}),
        _agent("a", "tools_selected", 1, offered="nika:x", universe="many", scores={"x": "high",
               "y": 2}, by_source=[1]),
        _agent("a", "model_called", 1, input_tokens=True, output_tokens=3.5, duration_ms="fast"),
        _agent("a", "tool_completed", 1, name=7, is_error="no", result_bytes=None),
        ("task_failed", {"task": "a", "duration_ms": "?", "error": "oops"}),
    ), OK)
    turn = view.tasks["a"].runs[(None, 1)].turns[1]
    assert (turn.offered, turn.universe) == (None, None)
    assert (turn.scores, turn.by_source) == ({"y": 2.0}, {})
    assert (turn.input_tokens, turn.output_tokens, turn.latency_ms) == (None, None, None)
    [call] = turn.tools
    assert (call.name, call.ok, call.result_bytes) == (None, False, None)
    task = view.tasks["a"]
    assert (task.status, task.duration_ms, task.error) == ("failure", None, None)


def test_the_routing_mode_and_its_reason_are_both_kept() -> None:
    view = fold(_frames(
        _agent("a", "tools_selected", 1, mode="ranked", reason="bm25", offered=["x"]),
        _agent("a", "tools_selected", 2, mode="fail_open", offered=["x", "y"]),
    ), OK)
    turns = view.tasks["a"].runs[(None, 1)].turns
    assert (turns[1].mode, turns[1].reason) == ("ranked", "bm25")
    assert (turns[2].mode, turns[2].reason) == ("fail_open", None)  # an older journal


def test_an_error_recorded_only_in_the_outcome_is_read_from_it() -> None:
    outcome = json.dumps({"class": "failure", "payload": {"error": {"code": "NIKA-X-001"}}})
    view = fold(_frames(("task_failed", {"task": "a", "outcome": outcome})), OK)
    assert view.tasks["a"].error == {"code": "NIKA-X-001"}


def test_child_tasks_nest_under_their_invoker_and_parent_cycles_cannot_loop() -> None:
    view = fold(_frames(
        ("task_started", {"task": "call"}),
        ("task_started", {"task": "inner", "parent": "call"}),
        ("task_started", {"task": "x", "parent": "y"}),
        ("task_started", {"task": "y", "parent": "x"}),
        ("task_completed", {"task": "call"}),
        ("workflow_completed", {"state": "success"}),
    ), OK)
    ordered = view.ordered()
    assert [(t.name, t.depth) for t in ordered[:2]] == [("call", 0), ("inner", 1)]
    assert [t.name for t in ordered[2:]] == ["x", "y"]  # a parent cycle is shown, not dropped
    assert view.state == "success" and view.frames == 6


def test_recovered_tasks_name_what_they_recovered_from() -> None:
    cause = {"code": "NIKA-AGENT-006", "task_id": "a", "attempt": 2,
             "details": {"iteration": 3}}
    view = fold(_frames(
        ("task_recovered", {"task": "a"}),
        ("task_completed", {"task": "a", "agent_error_code": "NIKA-AGENT-006",
                            "recovered_from": cause}),
        ("task_completed", {"task": "b", "agent_error_code": "NIKA-AGENT-006"}),
        ("task_completed", {"task": "c", "outcome": json.dumps(
            {"cause": "recovered", "class": "success",
             "payload": {"attempts": 1, "recovered_from": {"code": "NIKA-EXEC-001"}}})}),
        ("task_recovered", {"task": "old"}),  # a journal from before the cause was recorded
        ("task_completed", {"task": "old", "recovered_from": None}),
    ), OK)
    assert view.tasks["a"].recovered_from == cause
    assert recovery_text(cause) == "NIKA-AGENT-006 · attempt 2 · item 3"
    assert view.tasks["b"].recovered_from is None  # an agent's error code alone is no recovery
    assert view.tasks["c"].recovered_from == {"code": "NIKA-EXEC-001"}
    assert view.tasks["old"].recovered_from == {}
    assert recovery_text({}) == "unrecorded"


def test_the_runs_content_is_folded_where_it_happened() -> None:
    head = {"truncated": "abc", "bytes": 9000, "sha256": "ff"}
    view = fold(_frames(
        ("cost_incurred", {"task": "i", "model": "mock/echo", "input_tokens": 1,
                           "output_tokens": 2, "prompt": "ask", "reply": head}),
        ("task_completed", {"task": "i", "inputs": {"x": 1}, "output": '"ok"'}),
        _agent("a", "run_started", 0, model="mock/echo", prompt="go", system="be brief"),
        _agent("a", "model_called", 1, model="mock/echo", reply="done"),
        _agent("a", "tool_completed", 1, name="nika:read", arguments={"path": "n"},
               result="text"),
        ("workflow_completed", {"state": "success", "outputs": '{"a":1}', "input_tokens": 3,
                                "output_tokens": 4, "duration_ms": 5}),
    ), OK)
    infer = view.tasks["i"]
    assert list(infer.values) == ["inputs", "prompt", "reply", "output"]  # the reading order
    assert infer.values["prompt"].text == "ask"
    assert infer.values["reply"].truncated and infer.values["reply"].bytes == 9000
    assert json.loads(infer.values["inputs"].text) == {"x": 1}
    assert infer.values["output"].text == '"ok"'
    run = next(iter(view.tasks["a"].runs.values()))
    assert list(run.values) == ["system", "prompt"]
    assert run.values["system"].text == "be brief" and run.values["prompt"].text == "go"
    turn = run.turns[1]
    assert turn.values["reply"].text == "done"
    [tool] = turn.tools
    assert tool.values["arguments"].text == '{"path":"n"}'
    assert tool.values["result"].text == "text"
    assert view.values["outputs"].text == '{"a":1}'


def test_an_invoke_keeps_each_calls_arguments_and_result_numbered() -> None:
    view = fold(_frames(
        ("tool_invoked", {"task": "v", "tool": "nika:read", "arguments": {"path": "a"},
                          "result": "first"}),
        ("tool_invoked", {"task": "v", "tool": "nika:read", "arguments": {"path": "b"},
                          "result": "second"}),
        ("task_completed", {"task": "v", "output": '"second"'}),
    ), OK)
    task = view.tasks["v"]
    assert list(task.values) == ["arguments", "result", "arguments (2)", "result (2)", "output"]
    assert task.values["result (2)"].text == "second"
    assert task.notes == ["tool nika:read", "tool nika:read"]
