"""A run journal folded into what a reader looks at: tasks, their loop runs, and each run's turns.

`fold(frames, verdict)` walks the frames once and builds plain data — no rendering — for the
trace views (`nika trace show --html`). The journal is untrusted input: every frame is read
through its typed record (`decoded`), so an absent or ill-typed field stays `None` (a
renderer says « unrecorded »), and nothing is repaired or guessed. Unknown kinds and fields
are ignored (17 §the additive law).

Evidence is attached where a reader needs it: a turn that nudged or stalled names the turns of
the cycle it saw (`period × repeats` turns ending at it), so their tool calls can be shown as
the repeated block, and a stalled run's task error (`NIKA-AGENT-006` with its signatures and
calls) is kept whole.

What was said is kept as `values`: ordered label → value maps a renderer folds (`_page.values`)
— a task's `output`, an agent run's `system` and `prompt`, each tool call's (an agent's or an
`invoke:`'s) `arguments` and `result`, the workflow's `outputs` — and every model call is
priced once, at the engine's table (`Spend`: per turn, per task, per run).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from nika.journal.content import Captured
from nika.journal.decoded import (
    TASK_END,
    Read,
    ReadAgentStep,
    ReadBudgetCheckpoint,
    ReadComposeChecked,
    ReadCostIncurred,
    ReadModelCalled,
    ReadNudged,
    ReadPermitChecked,
    ReadRetrying,
    ReadRunStarted,
    ReadStalled,
    ReadTaskEnded,
    ReadTaskRecovered,
    ReadToolCompleted,
    ReadToolInvoked,
    ReadToolsSelected,
    ReadVerbInvoked,
    ReadWorkflowEnded,
    ReadWorkflowStarted,
)
from nika.journal.ledger import Spend
from nika.journal.verify import Frame, TraceVerdict
from nika.view.assets import AssetRow, rows
from nika.view.figures import counted_text
from nika.view.recovery import recovered_from, task_error

Values = dict[str, Any]
"""Labelled captured values in order (`output`, `arguments`, `result`, …): each the value,
or the journal's capture of a long one (`{"truncated", "bytes", "sha256"}`)."""

RunKey = tuple[int | str | None, int | str | None]
"""A loop run's `(iteration, attempt)`, as the journal recorded them."""


@dataclass(slots=True)
class TracedCall:
    """One tool call of a turn, as its `tool_invoked` frame recorded it."""

    name: str | None
    call_id: str | None
    ok: bool
    error_code: str | None
    duration_ms: float | None
    result_bytes: int | None
    values: Values = field(default_factory=dict)
    """The masked `arguments` and what the model read back (`result`), captured, as the page
    folds them (None: the journal did not record it)."""


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
    cost: Decimal | str | None = None
    """The model call's USD cost at the engine's table, or why it has none (None: no call)."""
    values: Values = field(default_factory=dict)
    """What the turn said (the model's `reply`, when the journal records it)."""
    tools: list[TracedCall] = field(default_factory=list)
    compose: list[ReadComposeChecked] = field(default_factory=list)
    nudge: ReadNudged | None = None
    stall: ReadStalled | None = None
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
    values: Values = field(default_factory=dict)
    """What the run was told (its `system` text and `prompt`), shown before its turns."""
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
                span = (evidence.period or 0) * (evidence.repeats or 0)
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
    spend: Spend = field(default_factory=Spend)
    """The task's model calls, every verb's, priced."""
    values: Values = field(default_factory=dict)
    """What the task read and said (its `output`, …)."""
    error: Mapping[str, Any] | None = None
    recovered_from: Mapping[str, Any] | None = None
    """The error `on_error: recover` turned into a success (`recovered_from`), {} when the
    journal does not record it."""
    runs: dict[RunKey, AgentRun] = field(default_factory=dict)
    assets: tuple[AssetRow, ...] = ()
    """The files the task produced, as its terminal frame recorded them."""
    notes: list[str] = field(default_factory=list)
    """Other facts in frame order (permit decisions, retries, model calls of `infer`)."""
    said: Counter[str] = field(default_factory=Counter)
    """How many model calls (`model`) and tool invocations (`tool`) put their content among
    the values, so the second one's reads `prompt (2)`, `result (2)`."""
    depth: int = 0
    started: bool = False

    def run(self, step: ReadAgentStep) -> AgentRun:
        key = (step.iteration, step.attempt)
        found = self.runs.get(key)
        if found is None:
            found = self.runs[key] = AgentRun(*key)
        return found


@dataclass(slots=True)
class TraceView:
    """The whole journal, folded."""

    verdict: TraceVerdict
    frames: int = 0
    workflow: ReadWorkflowStarted = field(default_factory=ReadWorkflowStarted)
    state: str | None = None
    end_error: Mapping[str, Any] | None = None
    message: str | None = None
    """A paused run's prompt message."""
    tasks: dict[str, TaskView] = field(default_factory=dict)
    values: Values = field(default_factory=dict)
    """The workflow's `outputs`, when its terminal frame records them."""
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


def _agent(task: TaskView, step: ReadAgentStep) -> None:
    run = task.run(step)
    if isinstance(step, ReadRunStarted):
        run.model, run.universe = step.model, step.universe
        run.values.update((label, text) for label, text in
                          (("system", step.system), ("prompt", step.prompt)) if text is not None)
        task.verb = "agent"
        task.model = task.model or run.model
        return
    turn = run.turn(step.turn)
    if isinstance(step, ReadToolsSelected):
        turn.offered, turn.universe = step.offered, step.universe
        turn.mode, turn.reason = step.mode, step.reason
        turn.scores, turn.by_source = dict(step.scores), dict(step.by_source)
    elif isinstance(step, ReadModelCalled):
        turn.model, turn.finish_reason = step.model, step.finish_reason
        turn.input_tokens, turn.output_tokens = step.input_tokens, step.output_tokens
        turn.latency_ms = step.duration_ms
        turn.cost = task.spend.price(step.model, step.input_tokens, step.output_tokens)
        if step.reply is not None:
            turn.values["reply"] = step.reply
    elif isinstance(step, ReadToolCompleted):
        turn.tools.append(TracedCall(
            name=step.name, call_id=step.call_id,
            ok=step.is_error is False, error_code=step.error_code,
            duration_ms=step.duration_ms, result_bytes=step.result_bytes,
            values={"arguments": step.arguments, "result": step.result}))
    elif isinstance(step, ReadBudgetCheckpoint):
        turn.turns_used, turn.max_turns = step.turns_used, step.max_turns
        turn.tokens_used, turn.max_tokens = step.tokens_used, step.max_tokens_total
    elif isinstance(step, ReadNudged):
        turn.nudge = step
    elif isinstance(step, ReadStalled):
        turn.stall = step
    elif isinstance(step, ReadComposeChecked):
        turn.compose.append(step)


def _note(record: Read) -> str | None:
    if isinstance(record, ReadPermitChecked):
        return f"permit {record.decision} · {record.gate}".rstrip()
    if isinstance(record, ReadRetrying):
        return f"retry · attempt {record.attempt} · {record.code}"
    return None


def _task_frame(task: TaskView, frame: Frame, record: Read) -> None:
    kind, stamp = frame.kind, frame.timestamp
    if stamp is not None:
        # The bar spans the run of the task: from its (first) start, not its scheduling.
        if task.start_ns is None or (kind == "task_started" and not task.started):
            task.start_ns = stamp
        task.end_ns = stamp if task.end_ns is None else max(task.end_ns, stamp)
    task.started = task.started or kind == "task_started"
    if isinstance(record, ReadAgentStep):
        _agent(task, record)
    elif isinstance(record, ReadVerbInvoked):
        if task.verb is None:
            task.verb, task.model = record.verb, record.model
    elif isinstance(record, ReadTaskEnded):
        task.status = TASK_END[kind]
        task.duration_ms = record.duration_ms
        task.turns, task.tokens = record.turns, record.tokens
        task.error = task_error(record) if kind == "task_failed" else None
        task.recovered_from = recovered_from(record) or task.recovered_from
        # inputs first, then what the calls said, then the output: the order a reader follows
        task.values = {**({"inputs": record.inputs} if record.inputs is not None else {}),
                       **task.values,
                       **({"output": record.output} if record.output is not None else {})}
        task.assets = rows(record.assets)
        if stamp is not None:
            task.end_ns = stamp
    elif isinstance(record, ReadTaskRecovered):
        task.recovered_from = {}  # the terminal frame names the cause
    elif isinstance(record, ReadCostIncurred):
        task.notes.append(_call(task, record))
    elif isinstance(record, ReadToolInvoked):  # an `invoke:`: what it was given and returned
        _said(task, "tool", arguments=record.arguments, result=record.result)
        task.notes.append(f"tool {record.tool}")
    elif (note := _note(record)) is not None:
        task.notes.append(note)


def _call(task: TaskView, record: ReadCostIncurred) -> str:
    """Count one `cost_incurred` frame (a model call, or a tool's own reported spend), keep
    what the model call said among the task's values, and return its note."""
    counted = task.spend.count(record)
    if not counted.tool:
        _said(task, "model", prompt=record.prompt, system=record.system, reply=record.reply)
    return counted_text(record, counted, record.model or "unrecorded")


def _said(task: TaskView, kind: str, **said: Captured | None) -> None:
    """Keep what one model call or tool invocation said among the task's values, numbered
    from its second of the `kind`."""
    task.said[kind] += 1
    n = task.said[kind]
    for label, text in said.items():
        if text is not None:
            task.values[label if n == 1 else f"{label} ({n})"] = text


def fold(frames: Iterable[Frame], verdict: TraceVerdict) -> TraceView:
    """Fold `frames` (in journal order) under their chain `verdict`."""
    view = TraceView(verdict)
    started = False
    for frame in frames:
        view.frames += 1
        if frame.timestamp is not None:
            view.first_ns = frame.timestamp if view.first_ns is None else min(
                view.first_ns, frame.timestamp)
            view.last_ns = frame.timestamp if view.last_ns is None else max(
                view.last_ns, frame.timestamp)
        record = frame.read()
        if isinstance(record, ReadWorkflowStarted):
            if not started:
                view.workflow, started = record, True
        elif frame.task is not None:
            task = view.tasks.get(frame.task)
            if task is None:
                task = view.tasks[frame.task] = TaskView(frame.task, parent=record.parent)
            _task_frame(task, frame, record)
        elif isinstance(record, ReadWorkflowEnded):
            view.state = record.state or frame.kind.removeprefix("workflow_")
            view.end_error, view.message = record.error, record.message
            if record.outputs is not None:
                view.values["outputs"] = record.outputs
    for task in view.tasks.values():
        for run in task.runs.values():
            run.mark_cycles()
    return view
