"""A run journal folded into what a reader looks at: tasks, their loop runs, and each run's turns.

`fold(frames, verdict)` walks the frames once and builds plain data — no rendering — for the
trace views (`nika trace show --html`). The journal is untrusted input: every value is read
through a type check, an absent or ill-typed field stays `None` (a renderer says
« unrecorded »), and nothing is repaired or guessed. Unknown kinds and fields are ignored
(17 §the additive law).

Evidence is attached where a reader needs it: a turn that nudged or stalled names the turns of
the cycle it saw (`period × repeats` turns ending at it), so their tool calls can be shown as
the repeated block, and a stalled run's task error (`NIKA-AGENT-006` with its signatures and
calls) is kept whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from nika.runtime.trace import Frame, TraceVerdict

TASK_END: Final = {"task_completed": "success", "task_failed": "failure",
                   "task_skipped": "skipped", "task_cancelled": "cancelled"}
"""Terminal task frame kind → the task's status."""

N = TypeVar("N", int, float)


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _key(value: Any) -> int | str | None:
    """A journal value usable as a key (the journal may hold anything)."""
    return value if value is None or isinstance(value, int | str) else repr(value)


@dataclass(slots=True)
class TracedCall:
    """One tool call of a turn, as its `tool_invoked` frame recorded it."""

    name: str | None
    call_id: str | None
    source: str | None
    ok: bool
    error_code: str | None
    duration_ms: float | None
    result_bytes: int | None
    arguments: str | None
    """Masked canonical-JSON excerpt (None: the journal did not record it)."""
    result: str | None
    """Masked excerpt of what the model read back."""


@dataclass(slots=True)
class Turn:
    """One turn of an agent loop run."""

    number: int | str | None
    offered: tuple[str, ...] | None = None
    universe: int | None = None
    mode: str | None = None
    """passthrough · ranked · fail_open"""
    reason: str | None = None
    """Why, when the journal says (below_threshold · bm25 · fused · fail_open)."""
    scores: dict[str, float] = field(default_factory=dict)
    by_source: dict[str, int] = field(default_factory=dict)
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: float | None = None
    finish_reason: str | None = None
    tools: list[TracedCall] = field(default_factory=list)
    compose: list[Mapping[str, Any]] = field(default_factory=list)
    nudge: Mapping[str, Any] | None = None
    stall: Mapping[str, Any] | None = None
    turns_used: int | None = None
    max_turns: int | None = None
    tokens_used: int | None = None
    max_tokens: int | None = None
    in_cycle: bool = False
    """Part of the repeated block a later nudge or stall saw."""

    @property
    def has_error(self) -> bool:
        return any(not t.ok for t in self.tools)


@dataclass(slots=True)
class AgentRun:
    """One run of an agent loop: the task's, or one `for_each` iteration's or retry's."""

    iteration: int | str | None
    attempt: int | str | None
    model: str | None = None
    universe: int | None = None
    turns: dict[int | str | None, Turn] = field(default_factory=dict)

    def turn(self, number: int | str | None) -> Turn:
        found = self.turns.get(number)
        if found is None:
            found = self.turns[number] = Turn(number)
        return found

    def mark_cycles(self) -> None:
        """Flag the turns each nudge and stall counted as the repeated block."""
        numbered = [t for t in self.turns.values() if isinstance(t.number, int)]
        for turn in numbered:
            for evidence in (turn.nudge, turn.stall):
                if evidence is None or not isinstance(turn.number, int):
                    continue
                period, repeats = as_int(evidence.get("period")), as_int(evidence.get("repeats"))
                span = (period or 0) * (repeats or 0)
                first = turn.number - span + 1
                for other in numbered:
                    if isinstance(other.number, int) and first <= other.number <= turn.number:
                        other.in_cycle = True


@dataclass(slots=True)
class TaskView:
    """One task: its verb, timing, outcome, notes, and agent loop runs."""

    name: str
    parent: str | None = None
    verb: str | None = None
    model: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    status: str | None = None
    duration_ms: float | None = None
    turns: int | None = None
    tokens: int | None = None
    error: Mapping[str, Any] | None = None
    recovered_from: Mapping[str, Any] | None = None
    """The error `on_error: recover` turned into a success (`recovered_from`), {} when the
    journal does not record it."""
    runs: dict[tuple[int | str | None, int | str | None], AgentRun] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Other facts in frame order (permit decisions, retries, model calls of `infer`)."""
    depth: int = 0
    started: bool = False

    @property
    def is_agent(self) -> bool:
        return bool(self.runs)

    def run(self, fields: Mapping[str, Any]) -> AgentRun:
        key = (_key(fields.get("iteration")), _key(fields.get("attempt")))
        found = self.runs.get(key)
        if found is None:
            found = self.runs[key] = AgentRun(*key)
        return found


@dataclass(slots=True)
class TraceView:
    """The whole journal, folded."""

    verdict: TraceVerdict
    frames: int = 0
    workflow: Mapping[str, Any] = field(default_factory=dict)
    state: str | None = None
    end_error: Mapping[str, Any] | None = None
    tasks: dict[str, TaskView] = field(default_factory=dict)
    first_ns: int | None = None
    last_ns: int | None = None

    def ordered(self) -> list[TaskView]:
        """Tasks in first-appearance order, each child workflow's tasks right after the task
        that invoked them."""
        children: dict[str, list[TaskView]] = {}
        roots: list[TaskView] = []
        for task in self.tasks.values():
            if task.parent is not None and task.parent in self.tasks and task.parent != task.name:
                children.setdefault(task.parent, []).append(task)
            else:
                roots.append(task)
        out: list[TaskView] = []
        seen: set[str] = set()

        def visit(task: TaskView, depth: int) -> None:
            if task.name in seen:  # a hostile journal may make parents a cycle
                return
            seen.add(task.name)
            task.depth = depth
            out.append(task)
            for child in children.get(task.name, ()):
                visit(child, depth + 1)

        for task in roots:
            visit(task, 0)
        for task in self.tasks.values():  # parents that form a cycle: shown, never dropped
            visit(task, 0)
        return out


def _payload_entry(fields: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    """`key` of the terminal frame, else of its `outcome` record's payload (13), if a mapping."""
    direct = fields.get(key)
    if isinstance(direct, Mapping):
        return direct
    outcome = fields.get("outcome")
    if isinstance(outcome, str) and len(outcome) < 1 << 20:
        try:
            outcome = json.loads(outcome)
        except ValueError:
            return None
    if isinstance(outcome, Mapping):
        payload = outcome.get("payload")
        if isinstance(payload, Mapping) and isinstance(payload.get(key), Mapping):
            found: Mapping[str, Any] = payload[key]
            return found
    return None


def _error(fields: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The task's error: the `error` mapping, else the `outcome` record's, when one is there."""
    return _payload_entry(fields, "error")


def recovered_from(fields: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """What a terminal frame says `on_error: recover` settled the task from: the original
    error record (`code` … `task_id`, `attempt`), `{}` when a recovered task's frame does not
    record it (an older journal), None when the task was not recovered."""
    found = _payload_entry(fields, "recovered_from")
    if found is not None:
        return found
    outcome = fields.get("outcome")
    return {} if isinstance(outcome, str) and '"cause":"recovered"' in outcome else None


def recovery_text(cause: Mapping[str, Any]) -> str:
    """`NIKA-X-001 · attempt 2 · item 3`, or « unrecorded » when the journal lacks it."""
    code = as_str(cause.get("code"))
    if code is None:
        return "unrecorded"
    parts = [code]
    attempt = as_int(cause.get("attempt"))
    if attempt is not None:
        parts.append(f"attempt {attempt}")
    details = cause.get("details")
    item = as_int(details.get("iteration")) if isinstance(details, Mapping) else None
    if item is not None:
        parts.append(f"item {item}")
    return " · ".join(parts)


def _numbers(value: Any, read: Callable[[Any], N | None]) -> dict[str, N]:
    """The entries of a journal mapping whose values read as numbers."""
    if not isinstance(value, Mapping):
        return {}
    out: dict[str, N] = {}
    for key, raw in value.items():
        number = read(raw)
        if number is not None:
            out[str(key)] = number
    return out


def _agent(task: TaskView, agent: str, f: Mapping[str, Any]) -> None:
    run = task.run(f)
    if agent == "run_started":
        run.model, run.universe = as_str(f.get("model")), as_int(f.get("universe"))
        task.verb = "agent"
        task.model = task.model or run.model
        return
    if agent == "turn_started":
        run.turn(_key(f.get("turn")))
        return
    turn = run.turn(_key(f.get("turn")))
    if agent == "tools_selected":
        offered = f.get("offered")
        if isinstance(offered, list):
            turn.offered = tuple(str(name) for name in offered)
        turn.universe = as_int(f.get("universe"))
        turn.mode, turn.reason = as_str(f.get("mode")), as_str(f.get("reason"))
        turn.scores = _numbers(f.get("scores"), as_num)
        turn.by_source = _numbers(f.get("by_source"), as_int)
    elif agent == "model_called":
        turn.model, turn.finish_reason = as_str(f.get("model")), as_str(f.get("finish_reason"))
        turn.input_tokens, turn.output_tokens = as_int(f.get("input_tokens")), as_int(
            f.get("output_tokens"))
        turn.latency_ms = as_num(f.get("duration_ms"))
    elif agent == "tool_completed":
        turn.tools.append(TracedCall(
            name=as_str(f.get("name")), call_id=as_str(f.get("call_id")),
            source=as_str(f.get("source")), ok=f.get("is_error") is False,
            error_code=as_str(f.get("error_code")), duration_ms=as_num(f.get("duration_ms")),
            result_bytes=as_int(f.get("result_bytes")), arguments=as_str(f.get("arguments")),
            result=as_str(f.get("result"))))
    elif agent == "budget_checkpoint":
        turn.turns_used, turn.max_turns = as_int(f.get("turns_used")), as_int(f.get("max_turns"))
        turn.tokens_used = as_int(f.get("tokens_used"))
        turn.max_tokens = as_int(f.get("max_tokens_total"))
    elif agent == "nudged":
        turn.nudge = dict(f)
    elif agent == "stalled":
        turn.stall = dict(f)
    elif agent == "compose_checked":
        turn.compose.append(dict(f))


def _note(kind: str, f: Mapping[str, Any]) -> str | None:
    if kind == "permit_checked":
        return f"permit {f.get('decision')} · {f.get('gate')} {f.get('target', '')}".rstrip()
    if kind == "task_retrying":
        return f"retry · attempt {f.get('attempt')} · {f.get('code')}"
    if kind == "cost_incurred":
        return (f"model {f.get('model')} · {f.get('input_tokens')}→{f.get('output_tokens')} "
                "tokens")
    if kind == "tool_invoked":
        return f"tool {f.get('tool')}"
    return None


def _task_frame(task: TaskView, frame: Frame) -> None:
    f, kind = frame.fields, frame.kind
    stamp = frame.timestamp
    if stamp is not None:
        # The bar spans the run of the task: from its (first) start, not its scheduling.
        if task.start_ns is None or (kind == "task_started" and not task.started):
            task.start_ns = stamp
        task.end_ns = stamp if task.end_ns is None else max(task.end_ns, stamp)
    task.started = task.started or kind == "task_started"
    agent = as_str(f.get("agent_event"))
    if agent is not None:
        _agent(task, agent, f)
        return
    if kind == "verb_invoked" and task.verb is None:
        task.verb, task.model = as_str(f.get("verb")), as_str(f.get("model"))
    elif kind in TASK_END:
        task.status = TASK_END[kind]
        task.duration_ms = as_num(f.get("duration_ms"))
        task.turns, task.tokens = as_int(f.get("turns")), as_int(f.get("tokens"))
        task.error = _error(f) if kind == "task_failed" else None
        task.recovered_from = recovered_from(f) or task.recovered_from
        if stamp is not None:
            task.end_ns = stamp
    elif kind == "task_recovered":
        task.recovered_from = {}  # the terminal frame names the cause
    elif (note := _note(kind, f)) is not None:
        task.notes.append(note)


def fold(frames: Iterable[Frame], verdict: TraceVerdict) -> TraceView:
    """Fold `frames` (in journal order) under their chain `verdict`."""
    view = TraceView(verdict)
    for frame in frames:
        view.frames += 1
        if frame.timestamp is not None:
            view.first_ns = frame.timestamp if view.first_ns is None else min(
                view.first_ns, frame.timestamp)
            view.last_ns = frame.timestamp if view.last_ns is None else max(
                view.last_ns, frame.timestamp)
        if frame.kind == "workflow_started" and not view.workflow:
            view.workflow = dict(frame.fields)
        elif frame.task is not None:
            task = view.tasks.get(frame.task)
            if task is None:
                task = view.tasks[frame.task] = TaskView(frame.task)
                task.parent = as_str(frame.fields.get("parent"))
            _task_frame(task, frame)
        elif frame.kind.startswith("workflow_") and frame.kind != "workflow_started":
            view.state = as_str(frame.fields.get("state")) or frame.kind.removeprefix("workflow_")
            error = frame.fields.get("error")
            view.end_error = error if isinstance(error, Mapping) else None
    for task in view.tasks.values():
        for run in task.runs.values():
            run.mark_cycles()
    return view
