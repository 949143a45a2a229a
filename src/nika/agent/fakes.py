"""Test doubles for the loop's seams, shipped beside them: a scripted model, a recording tool
executor and a recording observer. Tests drive the REAL loop with these (never mocks of our
own code); embedders may use them to test their own wiring offline.
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from nika.agent.executors import raised_result, unknown_tool
from nika.agent.observe import AgentEvent
from nika.agent.seams import (
    CallId,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolDefinition,
    ToolName,
    ToolResult,
    ToolSource,
    Usage,
)

ScriptStep = ModelResponse | Callable[[ModelRequest], ModelResponse | Awaitable[ModelResponse]]
"""A queued reply, or a function of the request that produces (or awaits) one."""

ToolBehaviour = ToolResult | str | Callable[[Mapping[str, Any]], Any]
"""What a `RecordingExecutor` tool does: a fixed result or text, or a function of the args that
returns (or awaits) a `ToolResult` or text — it may also raise, to test the boundary."""

E = TypeVar("E", bound=AgentEvent)


def call(name: str, args: Mapping[str, Any] | None = None, *, id: str = "") -> ToolCall:
    """A tool call for a scripted reply (an empty id lets the loop mint one)."""
    return ToolCall(CallId(id), name, dict(args or {}))


def answer(text: str, *, usage: Usage | None = None) -> ModelResponse:
    """A scripted final reply: text, no tool calls."""
    return ModelResponse(text=text, usage=usage, stop_reason="end_turn")


def calling(*calls: ToolCall, text: str = "", usage: Usage | None = None) -> ModelResponse:
    """A scripted reply that makes `calls` (in this order)."""
    return ModelResponse(text=text, tool_calls=calls, usage=usage, stop_reason="tool_calls")


class ScriptExhaustedError(AssertionError):
    """The loop asked a `ScriptedProvider` for more turns than the test scripted."""


class ScriptedProvider:
    """A fake model that plays a script and records every request it receives.

    Named as a mock on purpose: it never calls a model. Running out of script raises
    `ScriptExhaustedError`, so a loop that asks for one turn too many fails the test loudly.
    """

    def __init__(self, script: Iterable[ScriptStep]) -> None:
        self._script: deque[ScriptStep] = deque(script)
        self.requests: list[ModelRequest] = []

    @property
    def offered(self) -> list[tuple[str, ...]]:
        """The tool names each request offered, one tuple per model call."""
        return [tuple(d.name for d in r.tools) for r in self.requests]

    @property
    def remaining(self) -> int:
        return len(self._script)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if not self._script:
            raise ScriptExhaustedError(
                f"ScriptedProvider ran out of script: the loop asked for model call "
                f"#{len(self.requests)} but only {len(self.requests) - 1} were scripted; "
                "queue more responses or check why the loop did not stop"
            )
        step = self._script.popleft()
        if isinstance(step, ModelResponse):
            return step
        reply = step(request)
        return await reply if inspect.isawaitable(reply) else reply


def _source_of(name: str) -> ToolSource:
    if name.startswith("nika:"):
        return "builtin"
    return "mcp" if name.startswith("mcp:") else "other"


def definition(
    name: str, description: str = "", parameters: Mapping[str, Any] | None = None
) -> ToolDefinition:
    """A tool definition with its source read off the name's namespace."""
    return ToolDefinition(
        name=ToolName(name),
        description=description or f"The {name} tool.",
        parameters=dict(parameters or {"type": "object"}),
        source=_source_of(name),
    )


class RecordingExecutor:
    """A fake `ToolExecutor` that records every dispatch.

    `tools` are names or definitions; `results` maps a name to its behaviour (default: the
    text `ok:<name>`). `dispatched` lists `(name, args)` in dispatch order.
    """

    def __init__(
        self,
        tools: Iterable[str | ToolDefinition] = (),
        *,
        results: Mapping[str, ToolBehaviour] | None = None,
    ) -> None:
        self._definitions = tuple(
            t if isinstance(t, ToolDefinition) else definition(t) for t in tools
        )
        self._names = {d.name for d in self._definitions}
        self._results = dict(results or {})
        self.dispatched: list[tuple[str, dict[str, Any]]] = []

    @property
    def names(self) -> list[str]:
        """The dispatched tool names, in dispatch order."""
        return [name for name, _ in self.dispatched]

    def definitions(self) -> Sequence[ToolDefinition]:
        return self._definitions

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        self.dispatched.append((name, dict(args)))
        if name not in self._names:
            return unknown_tool(name, self._names)
        behaviour = self._results.get(name, f"ok:{name}")
        if isinstance(behaviour, ToolResult):
            return behaviour
        if isinstance(behaviour, str):
            return ToolResult(content=behaviour)
        try:
            value = behaviour(args)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # mirror a real executor's boundary
            return raised_result(name, exc)
        return value if isinstance(value, ToolResult) else ToolResult(content=str(value))


class RecordingObserver:
    """A fake `AgentObserver` that keeps every event, in order."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def on_event(self, event: AgentEvent) -> None:
        self.events.append(event)

    def kinds(self) -> list[str]:
        """The event kinds in order, e.g. ['run_started', 'turn_started', …]."""
        return [e.kind for e in self.events]

    def of(self, event_type: type[E]) -> list[E]:
        """The events of one type, in order."""
        return [e for e in self.events if isinstance(e, event_type)]


class KeywordEmbedder:
    """A fake `Embedder` for offline tests: one dimension per concept, a concept being a group
    of words (synonyms, in any script); a text's vector counts the concept words it contains
    (case-folded substrings), L2-normalised (zero when it names none). Records every batch."""

    def __init__(self, concepts: Sequence[Iterable[str]], *, name: str = "keyword-fake") -> None:
        self._concepts = [tuple(w.casefold() for w in group) for group in concepts]
        self._name = name
        self.batches: list[tuple[str, ...]] = []

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(tuple(texts))
        vectors = []
        for text in texts:
            folded = text.casefold()
            counts = [float(sum(w in folded for w in group)) for group in self._concepts]
            norm = sum(c * c for c in counts) ** 0.5
            vectors.append([c / norm for c in counts] if norm else counts)
        return vectors
