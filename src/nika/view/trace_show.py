"""`nika trace show`: a run journal as a readable timeline (rich).

One tree per task, in the order tasks first appear: its verb, then — for an agent — one
branch per turn (tools offered of the universe and the routing mode, the model call, each
tool call with its duration and error, nudges, stalls, compose verdicts, the budget
checkpoint), then the task's outcome and the files it produced (its recorded assets). A task
whose loop ran more than once — each `for_each` iteration, each retried attempt — shows one
subtree per run (its frames' `iteration` and `attempt`), ordered by iteration then attempt,
however their frames interleaved. A child
workflow's task (a frame with a `parent`) nests under the task that invoked it. Workflow
frames frame the whole; the chain verdict heads it.

The run's content is shown where it happened (`_show_content`: long values folded, `--full`
shows them whole): a task's inputs (its resolved `with:`) first, each model call's prompt,
system text and reply, each tool call's arguments and result, the task's output under its
outcome, the workflow's outputs at the end. Each model call, each task and the run carry
their tokens and cost at the shipped price table (`unpriced` when it has no rate, never $0),
and the run ends with its totals over every verb. Every journal-derived string is escaped
before it reaches the terminal (15 §the verifier: control sequences are an attack on the
human), and a field the journal does not carry is shown as « unrecorded », never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from nika._term import printable
from nika.journal.content import Captured
from nika.journal.decoded import (
    TASK_END,
    Read,
    ReadAgentStep,
    ReadBudgetCheckpoint,
    ReadCacheHit,
    ReadComposeChecked,
    ReadCostIncurred,
    ReadModelCalled,
    ReadNudged,
    ReadPermitChecked,
    ReadRetrying,
    ReadRunStarted,
    ReadSettled,
    ReadStalled,
    ReadTaskEnded,
    ReadToolCompleted,
    ReadToolInvoked,
    ReadToolsSelected,
    ReadTurnStarted,
    ReadVerbInvoked,
    ReadWorkflowEnded,
    ReadWorkflowStarted,
)
from nika.journal.ledger import Spend
from nika.journal.verify import Frame, TraceVerdict
from nika.view._show_content import content_label
from nika.view.assets import rows, text_line
from nika.view.figures import (
    cost_text,
    counted_text,
    duration_text,
    spend_text,
    tokens_text,
)
from nika.view.recovery import recovered_from, recovery_text

_OUTCOME_STYLE: Final = {"success": "green", "failure": "red", "cancelled": "magenta",
                         "skipped": "yellow", "paused": "cyan"}
_VERDICT_STYLE: Final = {"clean": "green", "finding": "yellow", "forged": "bold red",
                         "incomplete": "yellow", "refused": "bold red"}


def _safe(value: Any) -> str:
    text = value if isinstance(value, str) else "unrecorded" if value is None else str(value)
    return escape(printable(text))


def _ms(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"
    return "unrecorded"


def _call(call: ReadCostIncurred | ReadModelCalled, spend: Spend) -> str:
    """`model M · in→out tokens · cost`, the call counted into `spend` (its task's)."""
    cost = spend.price(call.model, call.input_tokens, call.output_tokens)
    return f"model {_safe(call.model)} · {tokens_text(call.input_tokens, call.output_tokens)}" \
        f" · {cost_text(cost)}"


def _contents(node: Tree, full: bool, **values: Captured | None) -> None:
    """A child of `node` per recorded value (an older journal records none of them)."""
    for name, value in values.items():
        if value is not None:
            node.add(content_label(name, value, full=full))


def _order(run: tuple[Any, Any]) -> tuple[tuple[int, str, int], ...]:
    """Runs sort by iteration, then attempt; a number before anything else."""
    return tuple((0, "", v) if isinstance(v, int) else (1, str(v), 0) for v in run)


class _Task:
    """The tree of one task, built frame by frame; `finish` settles the order of its runs."""

    def __init__(self, name: str, full: bool) -> None:
        self.tree = Tree(f"[bold]{_safe(name)}[/]")
        self.full = full
        self.spend = Spend()
        """The task's own model calls (a child workflow's are its tasks')."""
        self.runs: dict[tuple[Any, Any], Tree] = {}
        self.turns: dict[tuple[Any, Any, Any], Tree] = {}
        self.labelled = False  # a fan-out invokes its verb per item: label the task once

    def run(self, step: ReadAgentStep) -> tuple[tuple[Any, Any], Tree]:
        key = (step.iteration, step.attempt)
        node = self.runs.get(key)
        if node is None:
            item = "" if key[0] is None else f" item {_safe(key[0])}"
            node = self.runs[key] = self.tree.add(
                f"[cyan]run{item} · attempt {_safe(key[1])}[/]")
        return key, node

    def turn(self, step: ReadAgentStep) -> Tree:
        key, run = self.run(step)
        number = step.turn
        node = self.turns.get((*key, number))
        if node is None:
            node = self.turns[(*key, number)] = run.add(f"[cyan]turn {_safe(number)}[/]")
        return node

    def finish(self) -> None:
        """Put the runs in iteration-then-attempt order, in the places they opened (the
        task's other lines keep their time order); a single run needs no subtree."""
        children = self.tree.children
        slots = sorted(children.index(node) for node in self.runs.values())
        if len(slots) == 1:
            children[slots[0]:slots[0] + 1] = children[slots[0]].children
            return
        for slot, key in zip(slots, sorted(self.runs, key=_order), strict=True):
            children[slot] = self.runs[key]

    def add(self, frame: Frame, record: Read) -> None:
        full = self.full
        if isinstance(record, ReadRunStarted):
            _, run = self.run(record)
            _contents(run, full, system=record.system, prompt=record.prompt)
            if not self.labelled:
                self.labelled = True
                self.tree.label = (f"{self.tree.label} [dim]agent · {_safe(record.model)} · "
                                   f"universe {_safe(record.universe)}[/]")
        elif isinstance(record, ReadAgentStep):
            if isinstance(record, ReadModelCalled):
                line = (f"{_call(record, self.spend)} · {_ms(record.duration_ms)} · "
                        f"{_safe(record.finish_reason)}")
                _contents(self.turn(record).add(line), full, reply=record.reply)
            elif isinstance(record, ReadToolCompleted):
                _contents(self.turn(record).add(_agent_line(record)), full,
                          arguments=record.arguments, result=record.result)
            elif not isinstance(record, ReadTurnStarted):
                self.turn(record).add(_agent_line(record))
        elif isinstance(record, ReadVerbInvoked):
            if not self.labelled:
                self.labelled = True
                model = f" · {_safe(record.model)}" if record.model is not None else ""
                self.tree.label = f"{self.tree.label} [dim]{_safe(record.verb)}{model}[/]"
        elif isinstance(record, ReadCostIncurred):
            counted = self.spend.count(record)  # a tool's bill counts in the task's cost too
            node = self.tree.add(counted_text(record, counted, _safe(record.model)))
            if not counted.tool:
                _contents(node, full, system=record.system, prompt=record.prompt,
                          reply=record.reply)
        elif isinstance(record, ReadPermitChecked):
            style = "green" if record.decision == "allow" else "red"
            # An env composition that passes no declared name has no target to show.
            gate = _safe(record.gate) if record.gate else "(no declared passthrough)"
            self.tree.add(f"permit [{style}]{_safe(record.decision)}[/] "
                          f"{_safe(record.plane)} {gate}")
        elif isinstance(record, ReadCacheHit):
            item = "" if record.iteration is None else f" item {_safe(record.iteration)}"
            self.tree.add(f"[cyan]cache hit{item}[/] · served from line "
                          f"{_safe(record.matched_line)} of the resumed journal")
        elif isinstance(record, ReadTaskEnded):
            if record.inputs is not None:  # what the task ran with heads its tree
                self.tree.children.insert(0, Tree(content_label("inputs", record.inputs,
                                                                full=full)))
            line = _task_end(TASK_END[frame.kind], record)
            spend = self.spend
            if spend.priced or spend.unpriced:  # a model call, or a tool's reported spend
                if record.tokens is None and spend.calls:  # an agent's end line has them
                    line += f" · {tokens_text(spend.input_tokens, spend.output_tokens)}"
                line += f" · cost {spend_text(spend)}"
            _contents(self.tree.add(line), full, output=record.output)
            for asset in rows(record.assets):
                self.tree.add(f"[blue]{escape(text_line(asset))}[/]")
        elif isinstance(record, ReadSettled):
            _contents(self.tree.add(f"[dim]checkpoint item {_safe(record.iteration)}[/]"),
                      full, output=record.output)
        elif isinstance(record, ReadRetrying):
            item = "" if record.iteration is None else f"item {_safe(record.iteration)} "
            self.tree.add(f"[yellow]retry[/] {item}attempt {_safe(record.attempt)} · "
                          f"{_safe(record.code)}")
        elif isinstance(record, ReadToolInvoked):
            status = (f" · [red]error {_safe(record.error_code or '')}[/]" if record.is_error
                      else "")
            _contents(self.tree.add(f"tool {_safe(record.tool)}{status}"), full,
                      arguments=record.arguments, result=record.result)


def _agent_line(step: ReadAgentStep) -> str:
    if isinstance(step, ReadToolsSelected):
        count = len(step.offered) if step.offered is not None else "unrecorded"
        split = (" · " + " ".join(f"{_safe(k)} {_safe(v)}" for k, v in step.by_source.items()
                                  if v) if step.by_source else "")
        return (f"offered {_safe(count)} of {_safe(step.universe)} "
                f"([bold]{_safe(step.mode)}[/]){split}")
    if isinstance(step, ReadToolCompleted):
        status = (f"[red]error {_safe(step.error_code or '')}[/]" if step.is_error
                  else f"[green]ok[/] {_safe(step.result_bytes)} B")
        return (f"tool {_safe(step.name)} [dim]{_safe(step.call_id)}[/] · "
                f"{_ms(step.duration_ms)} · {status}")
    if isinstance(step, ReadNudged):
        return (f"[yellow]nudge[/] {_safe(step.reason)} · period {_safe(step.period)}"
                f" · ×{_safe(step.repeats)}")
    if isinstance(step, ReadStalled):
        return f"[bold red]stalled[/] period {_safe(step.period)} · ×{_safe(step.repeats)}"
    if isinstance(step, ReadComposeChecked):
        verdict = ("[green]valid[/]" if step.valid else
                   f"[red]invalid[/] {_safe(', '.join(step.error_codes or ()))}")
        return (f"compose {verdict} · {_safe(step.draft_bytes)} B draft · "
                f"{_safe(step.escapes)} escapes")
    if isinstance(step, ReadBudgetCheckpoint):
        cap = step.max_tokens_total
        return (f"[dim]budget turns {_safe(step.turns_used)}/{_safe(step.max_turns)}"
                f" · tokens {_safe(step.tokens_used)}/{'∞' if cap is None else _safe(cap)}[/]")
    return f"{_safe(step.agent_event)}"  # an agent event this reader does not know (additive)


def _task_end(status: str, end: ReadTaskEnded) -> str:
    style = _OUTCOME_STYLE.get(status, "bold")
    parts = [f"[{style}]■ {status}[/]", _ms(end.duration_ms)]
    if end.turns is not None:
        turns = "turn" if end.turns == 1 else "turns"
        parts.append(f"{_safe(end.turns)} {turns} · {_safe(end.tokens)} tokens")
    error = end.error
    if error is not None:
        parts.append(f"{_safe(error.get('code'))} · {_safe(str(error.get('detail', ''))[:160])}")
    cause = recovered_from(end)
    if cause is not None:
        parts.append(f"[yellow]recovered by on_error from {_safe(recovery_text(cause))}[/]")
    return " · ".join(parts)


def render(frames: Iterable[Frame], verdict: TraceVerdict, name: str, console: Console, *,
           full: bool = False) -> None:
    """Print the timeline of `frames` (the journal `name`) under its chain `verdict`; `full`
    shows every value whole instead of folding the long ones."""
    tasks: dict[str, _Task] = {}
    roots: list[_Task] = []
    style = _VERDICT_STYLE[verdict.status]
    console.print(f"[bold]journal[/] {_safe(name)}")
    console.print(f"[{style}]{_safe(verdict.render())}[/]")
    end: tuple[str, ReadWorkflowEnded] | None = None
    stamps: tuple[int, int] | None = None
    for frame in frames:
        record = frame.read()
        if frame.timestamp is not None:
            stamps = (min(stamps[0], frame.timestamp), max(stamps[1], frame.timestamp)) \
                if stamps else (frame.timestamp, frame.timestamp)
        if isinstance(record, ReadWorkflowStarted):
            console.print(
                f"[bold]▶ {_safe(record.workflow)}[/] · {_safe(record.tasks)} "
                f"{'task' if record.tasks == 1 else 'tasks'} · "
                f"{_safe(record.engine_version)} · {_safe(record.platform)} · "
                f"trace_format {_safe(record.trace_format)}")
        elif frame.task is not None:
            task = tasks.get(frame.task)
            if task is None:
                task = tasks[frame.task] = _Task(frame.task, full)
                invoker = record.parent
                parent = tasks.get(invoker) if invoker is not None else None
                if parent is not None:
                    parent.tree.children.append(task.tree)  # a child workflow's task
                else:
                    roots.append(task)
            task.add(frame, record)
        elif isinstance(record, ReadWorkflowEnded):
            end = frame.kind, record
    for task in tasks.values():
        task.finish()
    for task in roots:
        console.print(task.tree)
    if end is not None:
        kind, last = end
        state = last.state or kind.removeprefix("workflow_")
        console.print(f"[bold {_OUTCOME_STYLE.get(state, 'white')}]■ workflow {_safe(state)}[/]")
        if kind == "workflow_paused":
            console.print(f"  awaiting an answer for {_safe(last.task_id)} "
                          f"({_safe(last.mode)}): {_safe(last.message)} — resume with "
                          f"--resume and --answer {_safe(last.task_id)}=VALUE")
        if last.outputs is not None:
            console.print(content_label("outputs", last.outputs, full=full))
    span = (stamps[1] - stamps[0]) / 1e6 if stamps else None
    console.print(_totals([t.spend for t in tasks.values()], end[1] if end else None, span))


def _totals(spends: list[Spend], end: ReadWorkflowEnded | None, span: float | None) -> str:
    """The run's totals over every verb: its model calls re-priced, its wall-clock time (the
    terminal frame's; an older journal's: the span of its timestamps)."""
    run = Spend()
    for spend in spends:
        run.absorb(spend)
    calls = run.calls
    took = end.duration_ms if end is not None and end.duration_ms is not None else span
    return (f"[bold]totals[/] · {calls} model call{'' if calls == 1 else 's'} · "
            f"{tokens_text(run.input_tokens, run.output_tokens)} · cost {spend_text(run)} · "
            f"{duration_text(took)}")
