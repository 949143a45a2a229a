"""A journal's frames decoded into typed records: one tolerant record class per kind.

The journal is untrusted input (a reader may be handed anything), so decoding never raises
and never guesses: each record field is read through the type its annotation names, and an
absent or ill-typed value stays `None` (a renderer says « unrecorded »). Unknown kinds,
agent events and keys are tolerated (17 §the additive law): an unknown kind decodes to the
bare `Read`, an unknown agent event to `ReadAgentStep`.

A record's field names are the wire keys the typed frames write (`wire.wire`): a test
walks every record against the frame it reads, so a field renamed on the writing side fails
there instead of reading « unrecorded » forever. Each record names the class it reads
(`READS`: a frame class, or an agent event class), and the kind tables (`BY_KIND`,
`BY_AGENT_EVENT`, `TASK_END`) are derived from those classes: a kind is spelled once, where
the frame or the event is declared. The trace views (`trace_view`,
`trace_show`), the witness of the chain walk (`trace`), the resume fold (`resume`) and the
cost replay (`verify_report`) all read frames through `decode`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeVar

from nika.agent import observe
from nika.journal import frames
from nika.journal.content import Captured


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_key(value: Any) -> int | str | None:
    """A journal value usable as a key (the journal may hold anything)."""
    return value if value is None or isinstance(value, int | str) else repr(value)


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _strings(value: Any) -> tuple[str, ...] | None:
    return tuple(str(v) for v in value) if isinstance(value, list) else None


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _numbers(read: Callable[[Any], float | int | None]) -> Callable[[Any], dict[str, Any]]:
    """The entries of a journal mapping whose values read as numbers."""
    def entries(value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            return {}
        return {str(k): n for k, raw in value.items() if (n := read(raw)) is not None}
    return entries


def _raw(value: Any) -> Any:
    return value


def _objects(value: Any) -> tuple[Mapping[str, Any], ...] | None:
    """The objects of a journal list (anything else in it dropped)."""
    if not isinstance(value, list):
        return None
    return tuple(v for v in value if isinstance(v, Mapping))


_READERS: Final[Mapping[str, Callable[[Any], Any]]] = {
    "str | None": as_str,
    "int | None": as_int,
    "float | None": as_num,
    "bool | None": _bool,
    "int | str | None": as_key,
    "tuple[str, ...] | None": _strings,
    "Mapping[str, Any] | None": _mapping,
    "Mapping[str, int]": _numbers(as_int),
    "Mapping[str, float]": _numbers(as_num),
    "Captured | None": Captured.from_wire,
    "tuple[Mapping[str, Any], ...] | None": _objects,
    "Any": _raw,
}
"""A record field's annotation → how a journal value is read into it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Read:
    """Any frame: where it belongs (`task`; a child workflow's `parent`)."""

    READS: ClassVar[type[Any] | None] = None
    """The frame class (or, for an agent step, the event class) whose wire keys the record
    reads: the kinds it decodes are that class's (`frames.kinds_of`, the event's `kind`)."""
    task: str | None = None
    parent: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadWorkflowStarted(Read):
    """The prologue's own fields (the boot manifest around them stays in `Frame.fields`)."""

    READS = frames.WorkflowStarted
    workflow: str | None = None
    tasks: int | None = None
    engine_version: str | None = None
    platform: str | None = None
    trace_format: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadWorkflowEnded(Read):
    READS = frames.WorkflowEnded
    state: str | None = None
    error: Mapping[str, Any] | None = None
    task_id: str | None = None
    mode: str | None = None
    message: str | None = None
    outputs: Captured | None = None
    """The workflow's outputs (JSON text), captured."""
    total_cost_usd: float | None = None
    unpriced_calls: int | None = None
    cost_unpriced: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    duration_ms: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadTaskStarted(Read):
    READS = frames.TaskStarted
    verb: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadSettled(Read):
    """A settled value a resume may serve (`checkpoint_written`; `task_completed` adds the
    rest of a terminal frame)."""

    READS: ClassVar[type[Any] | None] = frames.CheckpointWritten  # a subclass reads another
    iteration: int | None = None
    def_hash: str | None = None
    input_hash: str | None = None
    attempts: int | None = None
    duration_ms: float | None = None
    output: Captured | None = None
    """The settled value as JSON text (a value that cannot be replayed: masked, captured)."""
    bindings: str | None = None
    replayable: bool | None = None
    output_bytes: int | None = None
    """The size of an output too large to journal whole (an older journal's only trace)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadTaskEnded(ReadSettled):
    READS = frames.TaskEnded
    inputs: Captured | None = None
    """The task's resolved `with:` bindings, captured."""
    cost_usd: float | None = None
    unpriced_calls: int | None = None
    agent_outcome: str | None = None
    turns: int | None = None
    tokens: int | None = None
    agent_error_code: str | None = None
    recovered_from: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    assets: tuple[Mapping[str, Any], ...] | None = None
    outcome: Any = None
    """17's outcome record: JSON text as this engine writes it (a mapping is tolerated)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadTaskRecovered(Read):
    READS = frames.TaskRecovered
    code: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadCacheHit(Read):
    READS = frames.TaskCacheHit
    iteration: int | None = None
    matched_line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadRetrying(Read):
    READS = frames.TaskRetrying
    attempt: int | None = None
    code: str | None = None
    iteration: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadVerbInvoked(Read):
    READS = frames.VerbInvoked
    verb: str | None = None
    model: str | None = None
    program: str | None = None
    tool: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadToolInvoked(Read):
    READS = frames.ToolInvoked
    tool: str | None = None
    name: str | None = None
    """Where another engine names the tool (this one writes `tool`)."""
    is_error: bool | None = None
    error_code: str | None = None
    duration_ms: float | None = None
    arguments: Captured | None = None
    result: Captured | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadCostIncurred(Read):
    READS = frames.CostIncurred
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    prompt: Captured | None = None
    system: Captured | None = None
    reply: Captured | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadPermitChecked(Read):
    READS = frames.PermitChecked
    plane: str | None = None
    gate: str | None = None
    decision: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadAgentStep(Read):
    """One agent loop event: the loop run it belongs to and its turn (keys: any value)."""

    agent_event: str | None = None
    iteration: int | str | None = None
    attempt: int | str | None = None
    turn: int | str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadRunStarted(ReadAgentStep):
    READS = observe.RunStarted
    model: str | None = None
    universe: int | None = None
    prompt: Captured | None = None
    system: Captured | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadTurnStarted(ReadAgentStep):
    READS = observe.TurnStarted


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadToolsSelected(ReadAgentStep):
    READS = observe.ToolsSelected
    offered: tuple[str, ...] | None = None
    universe: int | None = None
    by_source: Mapping[str, int] = dataclasses.field(default_factory=dict)
    mode: str | None = None
    reason: str | None = None
    scores: Mapping[str, float] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadModelCalled(ReadAgentStep):
    READS = observe.ModelCalled
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    duration_ms: float | None = None
    finish_reason: str | None = None
    reply: Captured | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadToolCompleted(ReadAgentStep):
    READS = observe.ToolCompleted
    call_id: str | None = None
    name: str | None = None
    source: str | None = None
    is_error: bool | None = None
    duration_ms: float | None = None
    result_bytes: int | None = None
    error_code: str | None = None
    arguments: Captured | None = None
    """The call's arguments, masked and captured (an older journal: a JSON excerpt)."""
    result: Captured | None = None
    """What the model read back, masked and captured (an older journal: an excerpt)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadNudged(ReadAgentStep):
    READS = observe.Nudged
    reason: str | None = None
    period: int | None = None
    repeats: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadStalled(ReadAgentStep):
    READS = observe.Stalled
    period: int | None = None
    repeats: int | None = None
    signatures: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadComposeChecked(ReadAgentStep):
    READS = observe.ComposeChecked
    valid: bool | None = None
    error_codes: tuple[str, ...] | None = None
    draft_bytes: int | None = None
    escapes: int | None = None
    lint_rules: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadBudgetCheckpoint(ReadAgentStep):
    READS = observe.BudgetCheckpoint
    turns_used: int | None = None
    max_turns: int | None = None
    tokens_used: int | None = None
    max_tokens_total: int | None = None


TASK_END: Final = {kind: status for status, kind in frames.TASK_END_KINDS.items()}
"""Terminal task frame kind → the task's status."""


R = TypeVar("R", bound=Read)


def _records(cls: type[R]) -> Iterator[type[R]]:
    """Every record class below `cls`."""
    for sub in cls.__subclasses__():
        yield sub
        yield from _records(sub)


BY_KIND: Final[Mapping[str, type[Read]]] = {
    kind: record for record in _records(Read)
    if isinstance(record.READS, type) and issubclass(record.READS, frames.Frame)
    for kind in frames.kinds_of(record.READS)
}
"""A frame's kind → its record (an agent loop event is read by `BY_AGENT_EVENT` instead)."""

BY_AGENT_EVENT: Final[Mapping[str, type[ReadAgentStep]]] = {
    str(record.READS.kind): record for record in _records(ReadAgentStep)
    if record.READS is not None
}
"""An agent frame's `agent_event` → its record."""

_plans: dict[type[Read], tuple[tuple[str, Callable[[Any], Any]], ...]] = {}


def _plan(cls: type[Read]) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    found = _plans.get(cls)
    if found is None:
        found = _plans[cls] = tuple((f.name, _READERS[str(f.type)])
                                    for f in dataclasses.fields(cls))
    return found


def read_as(cls: type[R], fields: Mapping[str, Any]) -> R:
    """`fields` (a frame's pairs as a mapping) read into the record `cls`."""
    return cls(**{name: read(fields.get(name)) for name, read in _plan(cls)})


def decode(kind: str, fields: Mapping[str, Any]) -> Read:
    """The typed record of one frame (its `kind` and its `fields` pairs as a mapping)."""
    cls: type[Read] = BY_KIND.get(kind, Read)
    if "agent_event" in fields:
        event = fields["agent_event"]
        cls = BY_AGENT_EVENT.get(event, ReadAgentStep) if isinstance(event, str) \
            else ReadAgentStep
    return read_as(cls, fields)
