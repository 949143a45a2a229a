"""The agent's decisions as typed events (the `AgentObserver` seam's vocabulary).

Every event carries the turn it belongs to (0 before the first turn) and a monotonic
`seq` within the run. The loop brackets every run: exactly one `RunStarted` first and one
`Finished` last, whatever the path out (success, budget, stall, security stop, provider
failure, cancellation).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

Outcome = Literal["success", "failure", "cancelled"]
RouteMode = Literal["passthrough", "ranked", "fail_open"]
RouteReason = Literal["below_threshold", "bm25", "fused", "fail_open"]
"""Why the router offered what it did: the universe is under the routing threshold; BM25
ranked it; BM25 and the semantic leg ranked it, fused; the context shared no term with any
definition, so the whole universe is offered (fail-open)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEvent:
    kind: ClassVar[str] = "event"
    seq: int
    turn: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStarted(AgentEvent):
    kind: ClassVar[str] = "run_started"
    task: str
    model: str
    universe: int
    config: Mapping[str, Any] = field(default_factory=dict)
    prompt: str | None = None
    """The run's resolved prompt (a sink bounds what it keeps)."""
    system: str | None = None
    """The system context sent with every call (`AgentSpec.system_text`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(AgentEvent):
    kind: ClassVar[str] = "turn_started"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolsSelected(AgentEvent):
    kind: ClassVar[str] = "tools_selected"
    offered: tuple[str, ...]
    universe: int
    by_source: Mapping[str, int]
    mode: RouteMode
    reason: RouteReason | None = None
    """Why the offer is what it is (see `RouteReason`); the loop always says, a hand-built
    event may not."""
    scores: Mapping[str, float] = field(default_factory=dict)
    """The ranking score of each ranked pick, best first (`ranked` turns only): BM25, or the
    reciprocal-rank-fusion score when `reason` is `fused`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelCalled(AgentEvent):
    kind: ClassVar[str] = "model_called"
    model: str
    input_tokens: int | None
    output_tokens: int | None
    duration_ms: float
    finish_reason: str
    reply: str | None = None
    """The model's reply text (a sink bounds what it keeps)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCompleted(AgentEvent):
    kind: ClassVar[str] = "tool_completed"
    call_id: str
    name: str
    source: str
    is_error: bool
    duration_ms: float
    result_bytes: int
    error_code: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    """The call's arguments as the model sent them."""
    result: str = ""
    """The result content the model reads back (whole: a sink bounds what it keeps)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ComposeChecked(AgentEvent):
    kind: ClassVar[str] = "compose_checked"
    valid: bool
    error_codes: tuple[str, ...]
    draft_bytes: int
    escapes: int
    lint_rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Nudged(AgentEvent):
    kind: ClassVar[str] = "nudged"
    reason: Literal["cycle", "error_streak"]
    period: int
    repeats: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Stalled(AgentEvent):
    kind: ClassVar[str] = "stalled"
    period: int
    repeats: int
    signatures: tuple[str, ...] = ()
    """The repeated block's turn signatures (hex), oldest first: the evidence, with no content."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetCheckpoint(AgentEvent):
    kind: ClassVar[str] = "budget_checkpoint"
    turns_used: int
    max_turns: int
    tokens_used: int
    max_tokens_total: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Finished(AgentEvent):
    kind: ClassVar[str] = "finished"
    outcome: Outcome
    turns: int
    tokens: int
    error_code: str | None = None


DECISIONS: Final[tuple[type[AgentEvent], ...]] = (
    ToolsSelected, Nudged, Stalled, ComposeChecked, BudgetCheckpoint)
"""The loop's own decisions (routing, the stall guard, the self-check, the budget): the events
no trace verb and no GenAI convention covers, so every sink records each under a name of its
own (the journal's `agent_*` kinds, OpenTelemetry's `nika.agent.*` log events)."""
