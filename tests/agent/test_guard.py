"""StallGuard: signatures, the cycle scan, and the nudge/stall ladder."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from nika.agent.config import AgentConfig
from nika.agent.guard import Nudge, Stall, StallGuard, turn_signature
from nika.agent.seams import CallId, ToolCall, ToolResult


def call(name: str = "nika:read", **args: Any) -> ToolCall:
    return ToolCall(CallId("c"), name, args)


def ok(content: str = "same") -> ToolResult:
    return ToolResult(content)


def err(content: str = "boom") -> ToolResult:
    return ToolResult(content, is_error=True)


def feed(guard: StallGuard, steps: list[tuple[ToolCall, ToolResult]]) -> list[Nudge | Stall | None]:
    return [guard.record([c], [r]) for c, r in steps]


# --- signatures ---------------------------------------------------------------------------


def test_signature_does_not_depend_on_argument_key_order() -> None:
    assert turn_signature([call(b=1, a=2)], [ok("x")]) == turn_signature(
        [call(a=2, b=1)], [ok("x")]
    )


def test_signature_covers_observation_and_error_flag() -> None:
    base = turn_signature([call(path="a")], [ok("x")])
    assert turn_signature([call(path="a")], [ok("y")]) != base
    assert turn_signature([call(path="a")], [err("x")]) != base
    assert turn_signature([call(path="b")], [ok("x")]) != base
    assert turn_signature([call("nika:glob", path="a")], [ok("x")]) != base
    assert turn_signature([call(path="a")], [ok("x")]) == base


def test_signature_framing_is_unambiguous() -> None:
    # Moving bytes between name, args and content must change the signature.
    assert turn_signature([call("ab")], [ok("c")]) != turn_signature([call("a")], [ok("bc")])


def test_signature_is_stable_across_processes() -> None:
    code = (
        "from nika.agent.guard import turn_signature;"
        "from nika.agent.seams import ToolCall, ToolResult;"
        "print(turn_signature([ToolCall('c','nika:read',{'path':'a','n':[1,2]})],"
        "[ToolResult('x')]))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1
    expected = turn_signature([call(path="a", n=[1, 2])], [ok("x")])
    assert outs == {f"{expected}\n"}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def _reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4), json_values, max_size=4), st.text(max_size=20))
def test_signature_invariant_under_key_order(args: dict[str, Any], content: str) -> None:
    a = turn_signature([call(x=args)], [ok(content)])
    b = turn_signature([call(x=_reversed_keys(args))], [ok(content)])
    assert a == b


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=40), st.data())
def test_signature_changes_when_any_observation_byte_changes(
    raw: bytes, data: st.DataObject
) -> None:
    content = raw.decode("latin-1")
    index = data.draw(st.integers(0, len(content) - 1))
    flipped = content[:index] + chr((ord(content[index]) + 1) % 256) + content[index + 1 :]
    assert turn_signature([call()], [ok(content)]) != turn_signature([call()], [ok(flipped)])


# --- cycle scan ---------------------------------------------------------------------------


def _distinct_steps(prefix: str, n: int) -> list[tuple[ToolCall, ToolResult]]:
    return [(call(path=f"{prefix}{i}"), ok()) for i in range(n)]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 40), st.data())
def test_scan_detects_any_injected_cycle_with_its_period(window: int, data: st.DataObject) -> None:
    period = data.draw(st.integers(1, window // 2))
    repeats = data.draw(st.integers(2, 8))
    noise = data.draw(st.integers(0, 5))
    config = AgentConfig(guard_window=window, max_reflections=0, stall_after=10**6)
    guard = StallGuard(config)
    feed(guard, _distinct_steps("noise", noise))
    block = _distinct_steps("block", period)
    feed(guard, block * repeats)
    found_period, found_repeats = guard.scan()
    assert found_period == period
    assert found_repeats == min(repeats, window // period)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5), st.integers(5, 8), st.integers(0, 4))
def test_guard_stalls_on_a_cycle_the_window_can_hold(
    period: int, stall_after: int, noise: int
) -> None:
    config = AgentConfig(guard_window=period * stall_after, stall_after=stall_after, nudge_after=3)
    guard = StallGuard(config)
    feed(guard, _distinct_steps("noise", noise))
    outcomes = feed(guard, _distinct_steps("block", period) * stall_after)
    stall = outcomes[-1]
    assert isinstance(stall, Stall)
    assert (stall.period, stall.repeats) == (period, stall_after)
    assert len(stall.signatures) == period
    assert not any(isinstance(o, Stall) for o in outcomes[:-1])


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 64), st.integers(1, 80))
def test_unique_signatures_never_fire(window: int, turns: int) -> None:
    guard = StallGuard(AgentConfig(guard_window=window))
    assert all(o is None for o in feed(guard, _distinct_steps("u", turns)))
    assert guard.scan() == (0, 0)


def test_scan_costs_at_most_half_the_window_compares_per_turn() -> None:
    for window in (16, 64):
        guard = StallGuard(AgentConfig(guard_window=window, max_reflections=0, stall_after=10**6))
        turns = 500
        feed(guard, [(call(path=str(i % 7)), ok()) for i in range(turns)])
        assert guard.compares <= turns * (window // 2) <= turns * window * window // 4


def test_ties_go_to_the_smaller_period() -> None:
    guard = StallGuard(AgentConfig(max_reflections=0, stall_after=100))
    feed(guard, [(call(), ok())] * 8)
    assert guard.scan() == (1, 8)


# --- ladder -------------------------------------------------------------------------------


def test_ladder_nudges_once_at_three_and_stalls_at_five() -> None:
    guard = StallGuard(AgentConfig(), finish="nika:done")
    outcomes = feed(guard, [(call(path="a"), ok("running"))] * 5)
    assert outcomes[:2] == [None, None]
    nudge = outcomes[2]
    assert isinstance(nudge, Nudge)
    assert (nudge.reason, nudge.period, nudge.repeats) == ("cycle", 1, 3)
    assert 'nika:read({"path":"a"})' in nudge.message
    assert "did not change" in nudge.message and "nika:done" in nudge.message
    assert "back off" in nudge.message
    assert outcomes[3] is None
    stall = outcomes[4]
    assert isinstance(stall, Stall) and (stall.period, stall.repeats) == (1, 5)


def test_stall_error_carries_the_evidence() -> None:
    guard = StallGuard(AgentConfig())
    steps = [(call(path="a"), ok()), (call("nika:glob", pattern="*"), ok())] * 5
    stall = feed(guard, steps)[-1]
    assert isinstance(stall, Stall)
    error = stall.to_error("half an answer")
    assert error.code == "NIKA-AGENT-006"
    assert error.category == "budget_error" and error.transient is False
    assert error.details["kind"] == "Stalled"
    assert (error.details["period"], error.details["repeats"]) == (2, 5)
    assert [c["name"] for c in error.details["calls"]] == ["nika:read", "nika:glob"]
    assert len(error.details["signatures"]) == 2
    assert error.details["partial_output"] == "half an answer"


def test_polling_with_changing_results_never_fires() -> None:
    guard = StallGuard(AgentConfig())
    outcomes = feed(guard, [(call("mcp:ci/status", id=7), ok(f"running {i}%")) for i in range(40)])
    assert outcomes == [None] * 40


def test_changing_course_after_a_nudge_resets_the_cycle() -> None:
    guard = StallGuard(AgentConfig())
    outcomes = feed(guard, [(call(path="a"), ok())] * 3 + _distinct_steps("new", 6))
    assert isinstance(outcomes[2], Nudge)
    assert outcomes[3:] == [None] * 6


def test_error_streak_nudges_once_and_shares_the_reflection_budget() -> None:
    guard = StallGuard(AgentConfig())
    streak = [(call(path=f"missing{i}"), err(f"not found {i}")) for i in range(3)]
    outcomes = feed(guard, streak)
    nudge = outcomes[2]
    assert isinstance(nudge, Nudge) and nudge.reason == "error_streak" and nudge.repeats == 3
    assert "failed" in nudge.message
    # The budget (max_reflections=1) is spent: a later cycle earns no second nudge.
    later = feed(guard, [(call(path="z"), ok())] * 4)
    assert not any(isinstance(o, Nudge) for o in later)


def test_more_reflections_allow_a_second_episode() -> None:
    guard = StallGuard(AgentConfig(max_reflections=2))
    first = feed(guard, [(call(path="a"), ok())] * 3)
    feed(guard, _distinct_steps("break", 2))
    second = feed(guard, [(call(path="b"), ok())] * 3)
    assert isinstance(first[2], Nudge) and isinstance(second[2], Nudge)


def test_multi_call_turns_are_signed_as_a_whole() -> None:
    guard = StallGuard(AgentConfig())
    pair = ([call(path="a"), call(path="b")], [ok(), ok()])
    outcomes = [guard.record(*pair) for _ in range(5)]
    assert isinstance(outcomes[-1], Stall)
    assert [c["args"]["path"] for c in outcomes[-1].calls] == ["a", "b"]
