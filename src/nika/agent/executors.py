"""Ready-made `ToolExecutor`s: `InMemoryExecutor` (Python callables) and `CompositeExecutor`
(several executors as one universe), plus the boundary that turns a raising tool into a
typed error result.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from nika import codes
from nika.agent.seams import ToolDefinition, ToolExecutor, ToolResult
from nika.canonical import loose_json
from nika.errors import NikaError

_DETAIL_CHARS = 500

ToolFunction = Callable[[Mapping[str, Any]], Any]
"""A Python tool: takes the call's args, returns (or awaits) a `ToolResult`, a string, or any
JSON value (serialised as the content and kept as `structured`)."""


def raised_result(name: str, exc: Exception) -> ToolResult:
    """Translate an exception a tool raised into a typed error result (the loop goes on)."""
    if isinstance(exc, NikaError):
        return ToolResult.failed(exc)
    message = str(exc)
    if len(message) > _DETAIL_CHARS:
        message = message[: _DETAIL_CHARS - 1] + "…"
    return ToolResult.failed(
        NikaError(
            codes.IMPL_001,
            f"tool {name!r} raised {type(exc).__name__}: {message}; the tool's implementation "
            "must return an error result instead of raising — report it to its author",
            details={"tool": name, "exception": type(exc).__name__},
        )
    )


def unknown_tool(name: str, known: Iterable[str]) -> ToolResult:
    """The result for a call to a name no executor serves."""
    names = sorted(known)
    shown = ", ".join(names[:20]) + (" …" if len(names) > 20 else "")
    return ToolResult.failed(
        NikaError(
            codes.INVOKE_001,
            f"no tool named {name!r} is available; call one of: {shown or '(none)'}",
            details={"tool": name},
        )
    )


def _as_result(value: Any) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(content=value)
    return ToolResult(
        content=loose_json(value),
        structured=value,
    )


class InMemoryExecutor:
    """Serves tools implemented as Python callables (sync or async), one per definition.

    Duplicate names: the first definition wins. A callable that raises becomes a typed error
    result (`NIKA-IMPL-001`, or the raised `NikaError` itself), never an exception.
    """

    def __init__(self, tools: Iterable[tuple[ToolDefinition, ToolFunction]] = ()) -> None:
        self._definitions: list[ToolDefinition] = []
        self._functions: dict[str, ToolFunction] = {}
        for definition, function in tools:
            if definition.name not in self._functions:
                self._definitions.append(definition)
                self._functions[definition.name] = function

    def definitions(self) -> Sequence[ToolDefinition]:
        return tuple(self._definitions)

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        function = self._functions.get(name)
        if function is None:
            return unknown_tool(name, self._functions)
        try:
            value = function(args)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # the boundary: a tool's crash is the model's feedback
            return raised_result(name, exc)
        return _as_result(value)


class CompositeExecutor:
    """Several executors as one universe.

    `definitions()` concatenates theirs in argument order; a name served by more than one
    goes to the first (deterministic), and later duplicates are dropped. `call` routes to the
    executor that owns the name.
    """

    def __init__(self, *executors: ToolExecutor) -> None:
        self._executors = executors
        self._owners: dict[str, ToolExecutor] = {}
        self._merged: tuple[ToolDefinition, ...] = ()
        self._refreshed = False

    def _refresh(self) -> None:
        owners: dict[str, ToolExecutor] = {}
        merged: list[ToolDefinition] = []
        for executor in self._executors:
            for definition in executor.definitions():
                if definition.name not in owners:
                    owners[definition.name] = executor
                    merged.append(definition)
        self._owners, self._merged, self._refreshed = owners, tuple(merged), True

    def definitions(self) -> Sequence[ToolDefinition]:
        self._refresh()
        return self._merged

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        if not self._refreshed or name not in self._owners:
            # Universes may change after construction (e.g. an MCP server's list_changed).
            self._refresh()
        owner = self._owners.get(name)
        if owner is None:
            return unknown_tool(name, self._owners)
        try:
            return await owner.call(name, args)
        except Exception as exc:  # an executor that breaks the no-raise contract
            return raised_result(name, exc)
