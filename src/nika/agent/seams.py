"""The agent loop's seams: what an embedder plugs in (`Provider`, `ToolExecutor`, `AgentObserver`)
and the plain data that crosses them.

Everything here is a frozen dataclass or a `typing.Protocol`; the loop depends on nothing else
from the outside world, so a provider SDK, an MCP client or a journal is always an adapter
behind one of these.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NewType, Protocol, runtime_checkable

from nika.canonical import loose_json
from nika.errors import NikaError

if TYPE_CHECKING:
    from nika.agent.observe import AgentEvent

ToolName = NewType("ToolName", str)
"""A canonical tool name: `nika:<path>` or `mcp:<server>/<tool>`."""

CallId = NewType("CallId", str)
"""A tool-call id, as the provider sent it or as the loop minted it."""

ToolSource = Literal["builtin", "mcp", "other"]

def non_json(value: Any, at: str = "args") -> str | None:
    """Where `value` stops being plain JSON data — string keys at every depth, finite numbers,
    strings, booleans, null, lists — as `"<path> is <what>"`; None when it is all JSON."""
    if value is None or isinstance(value, bool | str | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{at} is the non-finite number {value!r}"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{at} has the non-string key {key!r} ({type(key).__name__})"
            problem = non_json(item, f"{at}.{key}")
            if problem is not None:
                return problem
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = non_json(item, f"{at}[{index}]")
            if problem is not None:
                return problem
        return None
    return f"{at} is a {type(value).__name__}, which JSON has no form for"


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One tool as offered to a model: canonical name, description, JSON Schema of its args."""

    name: ToolName
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    source: ToolSource = "other"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A model's request to call one tool.

    `args_error` says why the model's arguments could not be taken (not a JSON object, not
    plain JSON data); `args` is then empty. Such a call is never dispatched: the model reads
    `args_error` as the tool's error (`NIKA-INVOKE-002`), and the transcript replays the call
    with empty arguments — never the engine's words as if the model had sent them.
    """

    id: CallId
    name: str
    args: Mapping[str, Any]
    args_error: str | None = None


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """Why a tool call failed: a `NikaError` as frozen data, the one shape every executor
    (builtins, MCP, in-memory, a verb attempt shipped to a Ray worker) hands to the loop and
    the runtime. `transient` is decided where the executor translates its failures (its
    boundary table), never read from what the tool returned."""

    code: str
    category: str
    detail: str
    transient: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, error: NikaError) -> ToolFailure:
        return cls(error.code, error.category, error.detail, error.transient, dict(error.details))

    def to_error(self) -> NikaError:
        """The `NikaError` this failure is, as the runtime raises it (retry reads `transient`)."""
        return NikaError(self.code, self.detail, category=self.category,
                         transient=self.transient, details=self.details)

    def to_json(self) -> str:
        """The failure as the model reads it: the error's wire shape (`NikaError.to_dict`)."""
        return loose_json(self.to_error().to_dict())


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool call produced. `content` is the text fed back to the model; a result with a
    typed `error` is an error result (`is_error` then always holds). `structured` is the tool's
    value, never read for the failure."""

    content: str
    is_error: bool = False
    error: ToolFailure | None = None
    structured: Any = None

    def __post_init__(self) -> None:
        if self.error is not None and not self.is_error:
            object.__setattr__(self, "is_error", True)

    @classmethod
    def failed(cls, failure: ToolFailure | NikaError, content: str | None = None,
               structured: Any = None) -> ToolResult:
        """An error result: `content` (default: the failure's JSON) is what the model reads."""
        if isinstance(failure, NikaError):
            failure = ToolFailure.of(failure)
        text = failure.to_json() if content is None else content
        return cls(text, True, failure, structured)


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int
    output_tokens: int

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class UserMessage:
    text: str
    role: Literal["user"] = "user"


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    call_id: CallId
    name: str
    content: str
    is_error: bool = False
    role: Literal["tool"] = "tool"


Message = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call. `tools` carries exactly the OFFERED definitions of this turn.

    `messages` is a read-only Sequence: the loop hands an O(1) view of its append-only
    transcript (frozen at this request's length) instead of copying the history every turn.
    """

    model: str
    system: str | None
    messages: Sequence[Message]
    tools: tuple[ToolDefinition, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None
    response_schema: Mapping[str, Any] | None = None


StopReason = Literal["end_turn", "tool_calls", "max_tokens", "other"]


@dataclass(frozen=True, slots=True)
class ModelResponse:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    stop_reason: StopReason = "end_turn"


@runtime_checkable
class Provider(Protocol):
    """A model behind one async call. Adapters translate their SDK errors into `NikaError`."""

    async def complete(self, request: ModelRequest) -> ModelResponse: ...


@runtime_checkable
class ToolExecutor(Protocol):
    """Serves a universe of tools. `call` never raises for a tool-side failure: it returns
    an error `ToolResult` carrying a `ToolFailure` (`ToolResult.failed`)."""

    def definitions(self) -> Sequence[ToolDefinition]: ...

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult: ...


@runtime_checkable
class AgentObserver(Protocol):
    """Receives the loop's typed events. Its failures are logged, never change the outcome."""

    def on_event(self, event: AgentEvent) -> None: ...


@runtime_checkable
class StopCheck(Protocol):
    """Asked before each turn whether the loop must stop: the error that stops it (a run's
    spend cap crossed, say), or None to go on. A turn already begun always completes: the
    loop never abandons a model call or its tool results half-way."""

    def __call__(self) -> NikaError | None: ...


@runtime_checkable
class Embedder(Protocol):
    """Texts to unit vectors (the router's optional semantic leg, `AgentConfig.embedder`).

    `embed` returns one L2-normalised vector per text, all of one length, the same vector for
    the same text; it runs on the loop's thread, so it must be local and fast (a small model
    on the CPU, never a network call). `name` identifies the model in the run's config record.
    """

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]: ...
