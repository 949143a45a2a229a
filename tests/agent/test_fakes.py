"""The shipped test doubles behave as documented (other tests lean on them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from nika.agent import (
    ModelRequest,
    ModelResponse,
    RunStarted,
    ToolResult,
    TurnStarted,
    UserMessage,
)
from nika.agent.fakes import (
    RecordingExecutor,
    RecordingObserver,
    ScriptedProvider,
    ScriptExhaustedError,
    answer,
    call,
    calling,
    definition,
)


def _request(*tools: str) -> ModelRequest:
    return ModelRequest(
        model="mock/x",
        system=None,
        messages=(UserMessage("hi"),),
        tools=tuple(definition(t) for t in tools),
    )


async def test_scripted_provider_plays_replies_and_functions_in_order() -> None:
    async def later(request: ModelRequest) -> ModelResponse:
        return answer(f"async saw {len(request.tools)}")

    provider = ScriptedProvider(
        [answer("one"), lambda r: answer(f"sync saw {r.model}"), later],
    )
    texts = [(await provider.complete(_request("nika:a", "mcp:s/b"))).text for _ in range(3)]
    assert texts == ["one", "sync saw mock/x", "async saw 2"]
    assert provider.offered == [("nika:a", "mcp:s/b")] * 3
    assert provider.remaining == 0


async def test_scripted_provider_running_out_is_a_loud_error() -> None:
    provider = ScriptedProvider([answer("only")])
    await provider.complete(_request())
    with pytest.raises(ScriptExhaustedError, match="model call #2 but only 1 were scripted"):
        await provider.complete(_request())
    assert len(provider.requests) == 2


def test_scripted_reply_builders() -> None:
    reply = calling(call("nika:a", {"x": 1}, id="c1"), text="t")
    assert (reply.text, reply.stop_reason) == ("t", "tool_calls")
    assert reply.tool_calls[0].id == "c1" and dict(reply.tool_calls[0].args) == {"x": 1}
    assert answer("x").tool_calls == () and answer("x").stop_reason == "end_turn"
    assert call("nika:a").id == ""


def test_definition_reads_the_source_off_the_namespace() -> None:
    sources = [definition(n).source for n in ("nika:read", "mcp:s/t", "local_tool")]
    assert sources == ["builtin", "mcp", "other"]


async def test_recording_executor_records_and_answers_per_tool() -> None:
    def echo(args: Mapping[str, Any]) -> str:
        return f"echo {args['v']}"

    async def fail(_: Mapping[str, Any]) -> ToolResult:
        return ToolResult("no", is_error=True)

    def crash(_: Mapping[str, Any]) -> str:
        raise RuntimeError("kaput")

    ex = RecordingExecutor(
        ["nika:a", "nika:b", "nika:c", "nika:d", "nika:e"],
        results={"nika:b": "fixed", "nika:c": echo, "nika:d": fail, "nika:e": crash},
    )
    assert [d.name for d in ex.definitions()] == ["nika:a", "nika:b", "nika:c", "nika:d", "nika:e"]
    assert (await ex.call("nika:a", {})).content == "ok:nika:a"
    assert (await ex.call("nika:b", {})).content == "fixed"
    assert (await ex.call("nika:c", {"v": 7})).content == "echo 7"
    assert (await ex.call("nika:d", {})).is_error
    crashed = await ex.call("nika:e", {})
    assert crashed.error is not None and crashed.error.code == "NIKA-IMPL-001"
    unknown = await ex.call("nika:zz", {"q": 1})
    assert unknown.error is not None and unknown.error.code == "NIKA-INVOKE-001"
    assert ex.names == ["nika:a", "nika:b", "nika:c", "nika:d", "nika:e", "nika:zz"]
    assert ex.dispatched[2] == ("nika:c", {"v": 7})


def test_recording_observer_collects_and_filters() -> None:
    observer = RecordingObserver()
    observer.on_event(RunStarted(seq=0, turn=0, task="t", model="m", universe=0))
    observer.on_event(TurnStarted(seq=1, turn=1))
    assert observer.kinds() == ["run_started", "turn_started"]
    assert observer.of(TurnStarted) == [TurnStarted(seq=1, turn=1)]
