"""The run's facts as typed frames: one frozen dataclass per kind of spec 17's vocabulary.

Every observable fact of a run is one `Frame` handed to the bus (`EventBus.emit`), which
stamps it (`seq`, `timestamp`), masks it (`wire.mask_frame`), and delivers it to every sink.
Sinks read the typed fields — a renamed field is a type error, never a silently missing
attribute — and the sinks that write the wire go through ONE serializer, `wire.wire`.

How a field reaches the wire is said once, on the field:

- a plain field is always written (`None` as `null`);
- `absent()` — written only when it is not `None` (a fact some frames of the kind carry);
- `spliced()` — a group (a nested dataclass, or a mapping) whose own pairs stand in its place,
  the whole group absent when it is `None`;
- `content()` — a run's content (a prompt, a reply, a task's inputs): written like `absent()`,
  but capped (`content.captured`) after the bus masked it whole.

An agent loop event becomes an `AgentStep`: the typed event itself, with the loop run it
belongs to (`UnitAttempt`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal, Protocol, TypeVar

from nika.agent.observe import (
    DECISIONS,
    AgentEvent,
    ModelCalled,
    RunStarted,
    ToolCompleted,
    TurnStarted,
)
from nika.check.graph import Status
from nika.errors import NikaError

KINDS: Final = frozenset(
    {
        "workflow_started", "workflow_completed", "workflow_failed", "workflow_cancelled",
        "workflow_paused", "task_scheduled", "task_started", "task_completed", "task_failed",
        "task_skipped", "task_retrying", "task_recovered", "task_cancelled", "task_cache_hit",
        "verb_invoked", "tool_invoked", "checkpoint_written", "cost_incurred", "infer_chunk",
        "permit_checked", "lift", "run_sealed", "agent_tools_selected", "agent_nudge",
        "agent_stalled", "agent_compose_checked", "agent_budget_checkpoint",
    }
)
"""The closed kind vocabulary of `trace_format: 2` (spec 17 §the kind vocabulary): every
frame's `kind` is one of these (a test walks every frame class)."""

WorkflowState = Literal["success", "failure", "cancelled", "paused"]
Pair = tuple[str, Any]


class _Dataclass(Protocol):
    """Any dataclass instance (what `dataclasses.fields` and `replace` take)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


_D = TypeVar("_D", bound=_Dataclass)

INPUT_ORIGINS: Final = ("cli-operator", "ci-context", "env", "file")
"""04's closed vocabulary of where a bound input came from: `--var` typed by a human at a
terminal · `--var` from a caller that is not one (a pipeline) · `--var name=@env:VAR` · the
workflow's declared `default:`."""

_RULE: Final = "wire"
_ABSENT: Final = "absent"
_SPLICED: Final = "spliced"
_CONTENT: Final = "content"


def absent() -> Any:
    """A field written only when it is not None."""
    return field(default=None, metadata={_RULE: _ABSENT})


def spliced(*, optional: bool = True) -> Any:
    """A group whose own pairs stand in its place (nothing when it is None)."""
    if optional:
        return field(default=None, metadata={_RULE: _SPLICED})
    return field(metadata={_RULE: _SPLICED})


def content() -> Any:
    """A content field: written only when it is not None, capped at the journal's
    `CONTENT_CAP` (the whole value masked first)."""
    return field(default=None, metadata={_RULE: _CONTENT})


@dataclass(frozen=True, slots=True)
class UnitAttempt:
    """One verb attempt of one unit (03: the plain task, or one `for_each` iteration): what
    tells apart the concurrent or successive verb runs of a single task."""

    task: str
    iteration: int | None = None
    attempt: int = 1

    @property
    def path(self) -> str:
        """The unit as a task-id prefix (`task`, or `task[i]` for an iteration): task ids
        match `^[a-z][a-z0-9_]*$`, so a prefixed id never collides with a real one."""
        return self.task if self.iteration is None else f"{self.task}[{self.iteration}]"


# -- the frames ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """One fact of a run. `task` is None for workflow-level frames."""

    KIND: ClassVar[str] = ""
    task: str | None = None
    node: str | None = absent()
    """The Ray worker node that produced the frame (`--executor ray`)."""
    parent: str | None = absent()
    """The invoking task of a child workflow's frame (`runtime/nested.py`)."""
    depth: int | None = absent()
    """How deep that child workflow is nested (1: a child of the root workflow)."""

    @property
    def kind(self) -> str:
        """The frame's 17-trace kind."""
        return self.KIND


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkflowStarted(Frame):
    KIND: ClassVar[str] = "workflow_started"
    workflow: str
    tasks: int
    inputs: str | None = absent()
    """Each bound input's ORIGIN (04 · one of `INPUT_ORIGINS`), as a canonical JSON object
    name → origin — where a value came from, never the value; absent when the caller states
    no origins (a child workflow's folded prologue, an embedder's `Runner`)."""


@dataclass(frozen=True, slots=True)
class RunTotals:
    """The run's totals on its terminal frame, so a run list reads them without folding the
    journal: priced dollars (absent when no call was priced), unpriced calls and why, the
    tokens of every model call (infer and agent alike) and the run's wall-clock time."""

    total_cost_usd: float | None = absent()
    unpriced_calls: int | None = absent()
    cost_unpriced: str | None = absent()
    input_tokens: int | None = absent()
    output_tokens: int | None = absent()
    duration_ms: int | None = absent()


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkflowEnded(Frame):
    """The run's terminal frame (`workflow_completed` · `_failed` · `_cancelled` · `_paused`)."""

    workflow: str
    state: WorkflowState
    prompt: Mapping[str, Any] | None = spliced()
    """The first pending prompt's journaled face (`pause.prompt_payload`), when paused."""
    paused: tuple[str, ...] | None = absent()
    outputs: str | None = content()
    """The workflow's outputs as canonical JSON text (masked); absent when paused."""
    totals: RunTotals | None = spliced()
    error: NikaError | None = absent()
    forced: bool | None = absent()
    """A second signal ended the run before the scheduler could settle it."""
    signal: str | None = absent()

    @property
    def kind(self) -> str:
        return WORKFLOW_END_KINDS[self.state]


WORKFLOW_END_KINDS: Final[Mapping[WorkflowState, str]] = {
    "success": "workflow_completed", "failure": "workflow_failed",
    "cancelled": "workflow_cancelled", "paused": "workflow_paused"}
"""The run's end state → the kind of its terminal frame."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskScheduled(Frame):
    KIND: ClassVar[str] = "task_scheduled"


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskStarted(Frame):
    KIND: ClassVar[str] = "task_started"
    verb: str | None = absent()
    note: str | None = absent()
    """The one-line reading of the task's verb (`exec · echo`)."""
    unwinds: str | None = absent()
    """The producer a cleanup unit runs after."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskCacheHit(Frame):
    """A task (or one iteration) served from the resumed journal's record."""

    KIND: ClassVar[str] = "task_cache_hit"
    iteration: int | None = absent()
    def_hash: str
    input_hash: str
    matched_line: int
    matched_uuid: str | None


@dataclass(frozen=True, slots=True)
class Replayed:
    """What a later resume needs of a settled value (`replay.replayed`): the value as
    JSON text, or why it cannot come back (`replayable: false`)."""

    output: Any = absent()
    """The value as JSON text; a value that cannot be replayed is captured instead
    (`content.captured`: its head, size and digest when long)."""
    bindings: str | None = absent()
    output_bytes: int | None = absent()
    output_sha256: str | None = absent()
    replayable: bool | None = absent()
    replay_why: str | None = absent()


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointWritten(Frame):
    """One `for_each` iteration settled with success."""

    KIND: ClassVar[str] = "checkpoint_written"
    iteration: int
    def_hash: str
    input_hash: str
    attempts: int
    replay: Replayed = spliced(optional=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRetrying(Frame):
    KIND: ClassVar[str] = "task_retrying"
    attempt: int
    code: str
    delay_ms: int
    iteration: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRecovered(Frame):
    KIND: ClassVar[str] = "task_recovered"
    code: str
    """The code of the error `on_error: recover` turned into a success."""


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """How a task's agent loop ended (its `Finished` event), on the task's terminal frame."""

    agent_outcome: str
    turns: int
    tokens: int
    agent_error_code: str | None


@dataclass(slots=True)
class TaskNotes:
    """What a task's terminal frame says beyond its record, gathered while the task runs
    (the runner, the pipeline and the agent adapter each add their part)."""

    note: str | None = None
    def_hash: str | None = None
    unwinds: str | None = None
    input_hash: str | None = None
    agent: AgentSummary | None = None
    cache_hit: bool = False
    inputs: Mapping[str, Any] | None = None
    """The task's resolved `with:` bindings (the pipeline sets them)."""
    assets: tuple[Mapping[str, Any], ...] | None = None
    """A success's files (the runner collects them off the event loop before settling)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskEnded(Frame):
    """A task's terminal frame (`task_completed` · `_failed` · `_skipped` · `_cancelled`)."""

    note: str | None = absent()
    status: Status
    duration_ms: int
    attempts: int
    def_hash: str | None = absent()
    unwinds: str | None = absent()
    input_hash: str | None = absent()
    inputs: Mapping[str, Any] | None = content()
    """The resolved `with:` bindings the task ran with (masked, capped)."""
    agent: AgentSummary | None = spliced()
    cache_hit: bool | None = absent()
    recovered_from: Mapping[str, Any] | None = absent()
    """The error `on_error: recover` settled the task from (`records.error_record`)."""
    cost_usd: float | None = absent()
    unpriced_calls: int | None = absent()
    cost_unpriced: str | None = absent()
    replay: Replayed | None = spliced()
    error: NikaError | None = absent()
    assets: tuple[Mapping[str, Any], ...] | None = absent()
    """The files the task produced (`journal.assets.collect`): `{path, sha256, bytes}` and
    `width`/`height` or `duration_s` where a header says so. Additive: absent when none."""
    outcome: str
    """`{cause, class, payload}` as canonical JSON text (17's outcome record)."""

    @property
    def kind(self) -> str:
        return TASK_END_KINDS[self.status]


TASK_END_KINDS: Final[Mapping[Status, str]] = {
    "success": "task_completed", "failure": "task_failed", "skipped": "task_skipped",
    "cancelled": "task_cancelled"}
"""A task's status → the kind of its terminal frame."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VerbInvoked(Frame):
    """A verb begins its work: what it runs (one of tool · workflow · program · model)."""

    KIND: ClassVar[str] = "verb_invoked"
    verb: str
    tool: str | None = absent()
    workflow: str | None = absent()
    program: str | None = absent()
    shell: bool | None = absent()
    model: str | None = absent()


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInvoked(Frame):
    """An `invoke:` tool call returned (or a prompt was answered with `--answer`)."""

    KIND: ClassVar[str] = "tool_invoked"
    tool: str
    is_error: bool
    error_code: str | None
    duration_ms: float | None = absent()
    answered: str | None = absent()
    arguments: Mapping[str, Any] | None = content()
    """The args the tool was called with (resolved, masked, capped)."""
    result: Any = content()
    """What the tool returned: its structured value, else its text (masked, capped)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEntry(Frame):
    """A `nika:log` or `nika:emit` entry, as the builtin wrote it (its own fields)."""

    KIND: ClassVar[str] = "tool_invoked"
    tool: str
    channel: Literal["log", "emit"]
    entry: Mapping[str, Any] = spliced(optional=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CostIncurred(Frame):
    """One model call of an `infer:` (an agent's calls are `AgentStep`s of `ModelCalled`), or
    a tool's own reported spend: then `cost_usd` is set and `model` names the tool (stdlib
    §image_generate · invoke-cost metering: a top-level numeric `cost_usd` in its output)."""

    KIND: ClassVar[str] = "cost_incurred"
    model: str
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None = absent()
    """Written only for a tool's spend: a model call's line stays as it always was."""
    prompt: str | None = content()
    """The resolved prompt of this call (a schema repair's: the repair request)."""
    system: str | None = content()
    reply: str | None = content()
    """The model's reply text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PermitChecked(Frame):
    """One permit decision (NEP-0007's witness)."""

    KIND: ClassVar[str] = "permit_checked"
    plane: str
    gate: str
    decision: Literal["allow", "deny"]
    bound: str
    why: str


_SPEC_NAMES: Final = {"nudged": "nudge"}  # spec 17 names the nudge's kind by the noun

AGENT_KINDS: Final[Mapping[type[AgentEvent], str]] = {
    RunStarted: "verb_invoked",
    TurnStarted: "verb_invoked",
    ModelCalled: "cost_incurred",
    ToolCompleted: "tool_invoked",
    **{event: f"agent_{_SPEC_NAMES.get(event.kind, event.kind)}" for event in DECISIONS},
}
"""AgentEvent type → 17-trace kind: a decision is its own `agent_*` kind (`Finished` folds into
the task's terminal frame; an event type the loop adds later is still framed, as `verb_invoked`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentStep(Frame):
    """One agent loop event as a frame, with the loop run (`unit`) it belongs to."""

    unit: UnitAttempt
    event: AgentEvent

    @property
    def kind(self) -> str:
        return AGENT_KINDS.get(type(self.event), "verb_invoked")


def kinds_of(cls: type[Frame]) -> tuple[str, ...]:
    """The 17-trace kinds the frames of `cls` are written as: a terminal frame's is its
    state's (an `AgentStep`'s kind is its event's, `AGENT_KINDS`, not its class's)."""
    if cls is WorkflowEnded:
        return tuple(WORKFLOW_END_KINDS.values())
    if cls is TaskEnded:
        return tuple(TASK_END_KINDS.values())
    return (cls.KIND,)


PricedCall = tuple[str, int | None, int | None]
"""One model call as the price table reads it: `(model, input_tokens, output_tokens)`."""


def model_call(frame: Frame) -> PricedCall | None:
    """`(model, input_tokens, output_tokens)` of a `cost_incurred` frame — an `infer:` call
    or an agent's `ModelCalled` — else None (a tool's reported spend included): what the
    ledger and `nika:inspect` price."""
    if isinstance(frame, CostIncurred):
        if frame.cost_usd is not None:
            return None  # a tool's spend, reported as dollars: nothing to price
        return frame.model, frame.input_tokens, frame.output_tokens
    if isinstance(frame, AgentStep) and isinstance(frame.event, ModelCalled):
        event = frame.event
        return event.model, event.input_tokens, event.output_tokens
    return None
