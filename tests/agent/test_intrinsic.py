"""Loop-served builtins: the registry, `nika:done`, and the context intrinsics receive."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from nika.agent import (
    INTRINSICS,
    AgentConfig,
    AgentSpec,
    ComposeChecked,
    DoneIntrinsic,
    Finish,
    LoopContext,
    ToolResult,
    is_loop_only,
    run_agent,
)
from nika.agent.fakes import RecordingExecutor, ScriptedProvider, answer, call, calling
from nika.agent.intrinsic import intrinsic_named
from nika.agent.observe import AgentEvent
from nika.errors import NikaError
from nika.stdlib import LOOP_ONLY


def _context(sink: Any = None) -> LoopContext:
    return LoopContext(
        config=AgentConfig(),
        task_id="t",
        model="mock/echo",
        turn=4,
        sink=sink or (lambda _type, _fields: None),
    )


def test_the_registry_holds_done_as_a_builtin_with_unique_names() -> None:
    names = [i.definition.name for i in INTRINSICS]
    assert "nika:done" in names and len(names) == len(set(names))
    assert all(i.definition.source == "builtin" for i in INTRINSICS)
    assert all(intrinsic_named(n) is i for n, i in zip(names, INTRINSICS, strict=True))


@pytest.mark.parametrize(
    ("name", "loop_only"),
    [("nika:done", True), ("nika:read", False), ("mcp:x/nika:done", False), ("done", False)],
)
def test_is_loop_only_names_exactly_the_intrinsics(name: str, loop_only: bool) -> None:
    assert is_loop_only(name) is loop_only


def test_every_intrinsic_has_its_standalone_refusal_code_and_nothing_else_does() -> None:
    # check and run read the refusal code from LOOP_ONLY: an intrinsic without a row would
    # be invoked standalone at check time without a finding
    assert sorted(LOOP_ONLY) == sorted(i.definition.name for i in INTRINSICS)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, Finish()),
        ({"result": {"a": 1}}, Finish(result={"a": 1}, has_result=True)),
        ({"result": None}, Finish(result=None, has_result=True)),
        ({"result": [1, "x"]}, Finish(result=[1, "x"], has_result=True)),
    ],
)
async def test_done_finishes_with_its_optional_result(
    args: Mapping[str, Any], expected: Finish
) -> None:
    assert await DoneIntrinsic().serve(args, _context()) == expected


async def test_done_refuses_unknown_arguments_as_a_tool_error() -> None:
    outcome = await DoneIntrinsic().serve({"result": 1, "why": "x", "answer": 2}, _context())
    assert isinstance(outcome, ToolResult) and outcome.is_error and outcome.error is not None
    assert outcome.error.code == "NIKA-INVOKE-002"
    assert "unknown arg `why:`" in outcome.content and "unknown arg `answer:`" in outcome.content


def test_done_accepts_only_result_in_its_schema() -> None:
    params = DoneIntrinsic.definition.parameters
    assert set(params["properties"]) == {"result"} and params["additionalProperties"] is False
    assert "required" not in params


def test_the_context_hands_events_to_the_sink_with_their_fields() -> None:
    seen: list[tuple[type[AgentEvent], Mapping[str, Any]]] = []
    ctx = _context(lambda t, f: seen.append((t, f)))
    ctx.emit(ComposeChecked, valid=False, error_codes=("NIKA-X-001",), draft_bytes=3, escapes=0)
    assert seen == [
        (
            ComposeChecked,
            {"valid": False, "error_codes": ("NIKA-X-001",), "draft_bytes": 3, "escapes": 0},
        )
    ]


async def test_done_not_whitelisted_is_neither_offered_nor_callable() -> None:
    provider = ScriptedProvider([calling(call("nika:done"))])
    ex = RecordingExecutor(["nika:read"])
    with pytest.raises(NikaError) as info:
        await run_agent(
            AgentSpec(prompt="p", model="mock/x", tools=["nika:read"]), provider=provider, tools=ex
        )
    assert info.value.code == "NIKA-SEC-002"
    assert provider.offered == [("nika:read",)]


async def test_an_empty_registry_leaves_done_unserved() -> None:
    """With no intrinsics registered, `nika:done` is just a name nobody serves."""
    provider = ScriptedProvider([calling(call("nika:done")), answer("ok")])
    result = await run_agent(
        AgentSpec(prompt="p", model="mock/x", tools=["nika:done"]),
        provider=provider,
        intrinsics=(),
    )
    assert provider.offered == [(), ()] and result.output == "ok"
