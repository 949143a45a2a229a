"""`InMemoryExecutor` and `CompositeExecutor`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from nika.agent import CompositeExecutor, InMemoryExecutor, ToolDefinition, ToolFailure, ToolResult
from nika.agent.fakes import RecordingExecutor, definition
from nika.errors import NikaError


def _add(args: Mapping[str, Any]) -> int:
    return int(args["a"]) + int(args["b"])


async def _shout(args: Mapping[str, Any]) -> str:
    return str(args["text"]).upper()


def _raise_nika(_: Mapping[str, Any]) -> str:
    raise NikaError("NIKA-INVOKE-002", "b must be an integer")


def _raise_bug(_: Mapping[str, Any]) -> str:
    raise KeyError("b")


EXECUTOR = InMemoryExecutor(
    [
        (definition("nika:add"), _add),
        (definition("nika:shout"), _shout),
        (definition("nika:fixed"), lambda _: ToolResult("fixed", structured=1)),
        (definition("nika:strict"), _raise_nika),
        (definition("nika:buggy"), _raise_bug),
        (definition("nika:add", "a duplicate"), lambda _: "never"),
    ]
)


def test_in_memory_definitions_keep_order_and_first_wins() -> None:
    names = [d.name for d in EXECUTOR.definitions()]
    assert names == ["nika:add", "nika:shout", "nika:fixed", "nika:strict", "nika:buggy"]
    assert EXECUTOR.definitions()[0].description != "a duplicate"


async def test_in_memory_serves_sync_and_async_callables() -> None:
    added = await EXECUTOR.call("nika:add", {"a": 2, "b": 3})
    assert (added.content, added.structured, added.is_error) == ("5", 5, False)
    assert (await EXECUTOR.call("nika:shout", {"text": "hi"})).content == "HI"
    assert await EXECUTOR.call("nika:fixed", {}) == ToolResult("fixed", structured=1)


async def test_in_memory_turns_raises_into_typed_error_results() -> None:
    strict = await EXECUTOR.call("nika:strict", {})
    assert strict.is_error and strict.error is not None
    assert (strict.error.code, strict.error.category) == ("NIKA-INVOKE-002", "validation_error")
    assert json.loads(strict.content)["detail"] == "b must be an integer"
    buggy = await EXECUTOR.call("nika:buggy", {})
    assert buggy.is_error and buggy.error is not None and buggy.error.code == "NIKA-IMPL-001"
    assert "KeyError" in buggy.error.detail and "'nika:buggy'" in buggy.error.detail


def _raise_transient(_: Mapping[str, Any]) -> str:
    raise NikaError("NIKA-TIMEOUT-001", "upstream slow", transient=True, details={"s": 3})


async def test_a_raised_error_is_one_typed_failure_with_its_transience_and_details() -> None:
    executor = InMemoryExecutor([(definition("nika:slow"), _raise_transient)])
    result = await executor.call("nika:slow", {})
    failure = result.error
    assert failure == ToolFailure("NIKA-TIMEOUT-001", "timeout_error", "upstream slow", True,
                                  {"s": 3})
    assert failure.to_error().to_dict() == json.loads(result.content)


def test_a_typed_error_makes_an_error_result() -> None:
    failure = ToolFailure("NIKA-INVOKE-002", "validation_error", "bad")
    assert ToolResult("text", error=failure).is_error
    assert ToolResult.failed(failure) == ToolResult(failure.to_json(), True, failure)


async def test_in_memory_unknown_tool_names_what_exists() -> None:
    result = await EXECUTOR.call("nika:nope", {})
    assert result.is_error and result.error is not None
    assert result.error.code == "NIKA-INVOKE-001" and "nika:add" in result.error.detail


async def test_composite_merges_in_order_first_wins_and_routes() -> None:
    first = RecordingExecutor(["mcp:a/x", "nika:read"], results={"nika:read": "from first"})
    second = RecordingExecutor(["nika:read", "mcp:b/y"], results={"nika:read": "from second"})
    composite = CompositeExecutor(first, second)
    assert [d.name for d in composite.definitions()] == ["mcp:a/x", "nika:read", "mcp:b/y"]
    assert (await composite.call("nika:read", {})).content == "from first"
    assert (await composite.call("mcp:b/y", {"k": 1})).content == "ok:mcp:b/y"
    assert first.dispatched == [("nika:read", {})]
    assert second.dispatched == [("mcp:b/y", {"k": 1})]


async def test_composite_routes_without_a_prior_definitions_call() -> None:
    composite = CompositeExecutor(RecordingExecutor(["nika:a"]))
    assert (await composite.call("nika:a", {})).content == "ok:nika:a"
    unknown = await composite.call("nika:zzz", {})
    assert unknown.error is not None and unknown.error.code == "NIKA-INVOKE-001"


class _Growing:
    """An upstream whose universe changes after the composite was built."""

    def __init__(self) -> None:
        self.tools: list[ToolDefinition] = []

    def definitions(self) -> Sequence[ToolDefinition]:
        return tuple(self.tools)

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        if name == "mcp:g/boom":
            raise OSError("pipe broke")
        return ToolResult(f"grown:{name}")


async def test_composite_sees_tools_that_appear_later_and_contains_raises() -> None:
    growing = _Growing()
    composite = CompositeExecutor(growing)
    assert composite.definitions() == ()
    growing.tools.extend([definition("mcp:g/new"), definition("mcp:g/boom")])
    assert (await composite.call("mcp:g/new", {})).content == "grown:mcp:g/new"
    boom = await composite.call("mcp:g/boom", {})
    assert boom.error is not None and boom.error.code == "NIKA-IMPL-001"
    assert "OSError: pipe broke" in boom.error.detail
