"""`nika trace show`: a run journal as a readable timeline (rich).

One tree per task, in the order tasks first appear: its verb, then — for an agent — one
branch per turn (tools offered of the universe and the routing mode, the model call, each
tool call with its duration and error, nudges, stalls, compose verdicts, the budget
checkpoint), then the task's outcome. A task whose loop ran more than once — each `for_each`
iteration, each retried attempt — shows one subtree per run (its frames' `iteration` and
`attempt`), ordered by iteration then attempt, however their frames interleaved. A child
workflow's task (a frame with a `parent`) nests under the task that invoked it. Workflow
frames frame the whole; the chain verdict heads it. Every journal-derived string is escaped
before it reaches the terminal (15 §the verifier: control sequences are an attack on the
human), and a field the journal does not carry is shown as « unrecorded », never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from nika._term import printable
from nika.runtime.trace import Frame, TraceVerdict
from nika.runtime.trace_view import recovered_from, recovery_text

_OUTCOME_STYLE: Final = {"success": "green", "failure": "red", "cancelled": "magenta",
                         "skipped": "yellow", "paused": "cyan"}
_TASK_END: Final = {"task_completed": "success", "task_failed": "failure",
                    "task_skipped": "skipped", "task_cancelled": "cancelled"}
_VERDICT_STYLE: Final = {"clean": "green", "finding": "yellow", "forged": "bold red",
                         "incomplete": "yellow", "refused": "bold red"}


def _safe(value: Any) -> str:
    text = value if isinstance(value, str) else "unrecorded" if value is None else str(value)
    return escape(printable(text))


def _ms(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"
    return "unrecorded"


def _tokens(fields: Mapping[str, Any]) -> str:
    return f"{_safe(fields.get('input_tokens'))}→{_safe(fields.get('output_tokens'))} tokens"


def _key(value: Any) -> Any:
    """A journal value usable as a dict key (the journal is untrusted: it may hold anything)."""
    return value if value is None or isinstance(value, int | str) else repr(value)


def _order(run: tuple[Any, Any]) -> tuple[tuple[int, str, int], ...]:
    """Runs sort by iteration, then attempt; a number before anything else."""
    return tuple((0, "", v) if isinstance(v, int) else (1, str(v), 0) for v in run)


class _Task:
    """The tree of one task, built frame by frame; `finish` settles the order of its runs."""

    def __init__(self, name: str) -> None:
        self.tree = Tree(f"[bold]{_safe(name)}[/]")
        self.runs: dict[tuple[Any, Any], Tree] = {}
        self.turns: dict[tuple[Any, Any, Any], Tree] = {}
        self.labelled = False  # a fan-out invokes its verb per item: label the task once

    def run(self, f: Mapping[str, Any]) -> tuple[tuple[Any, Any], Tree]:
        key = (_key(f.get("iteration")), _key(f.get("attempt")))
        node = self.runs.get(key)
        if node is None:
            item = "" if key[0] is None else f" item {_safe(key[0])}"
            node = self.runs[key] = self.tree.add(
                f"[cyan]run{item} · attempt {_safe(key[1])}[/]")
        return key, node

    def turn(self, f: Mapping[str, Any]) -> Tree:
        key, run = self.run(f)
        number = _key(f.get("turn"))
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

    def add(self, frame: Frame) -> None:
        f, kind = frame.fields, frame.kind
        agent = f.get("agent_event")
        if agent == "run_started":
            self.run(f)
            if not self.labelled:
                self.labelled = True
                self.tree.label = (f"{self.tree.label} [dim]agent · {_safe(f.get('model'))} · "
                                   f"universe {_safe(f.get('universe'))}[/]")
        elif agent is not None and agent != "turn_started":
            self.turn(f).add(_agent_line(str(agent), f))
        elif kind == "verb_invoked" and agent is None and not self.labelled:
            self.labelled = True
            model = f" · {_safe(f['model'])}" if "model" in f else ""
            self.tree.label = f"{self.tree.label} [dim]{_safe(f.get('verb'))}{model}[/]"
        elif kind == "cost_incurred":
            self.tree.add(f"model {_safe(f.get('model'))} · {_tokens(f)}")
        elif kind == "permit_checked":
            style = "green" if f.get("decision") == "allow" else "red"
            self.tree.add(f"permit [{style}]{_safe(f.get('decision'))}[/] "
                          f"{_safe(f.get('plane'))} {_safe(f.get('gate'))}")
        elif kind == "task_cache_hit":
            item = "" if f.get("iteration") is None else f" item {_safe(f['iteration'])}"
            self.tree.add(f"[cyan]cache hit{item}[/] · served from line "
                          f"{_safe(f.get('matched_line'))} of the resumed journal")
        elif kind == "checkpoint_written":
            self.tree.add(f"[dim]checkpoint item {_safe(f.get('iteration'))}[/]")
        elif kind == "task_retrying":
            item = "" if f.get("iteration") is None else f"item {_safe(f['iteration'])} "
            self.tree.add(f"[yellow]retry[/] {item}attempt {_safe(f.get('attempt'))} · "
                          f"{_safe(f.get('code'))}")
        elif kind in _TASK_END:
            self.tree.add(_task_end(_TASK_END[kind], f))
        elif kind == "tool_invoked":
            self.tree.add(f"tool {_safe(f.get('tool'))}")


def _agent_line(agent: str, f: Mapping[str, Any]) -> str:
    if agent == "tools_selected":
        offered = f.get("offered")
        count = len(offered) if isinstance(offered, list) else "unrecorded"
        sources = f.get("by_source")
        split = (" · " + " ".join(f"{_safe(k)} {_safe(v)}" for k, v in sources.items() if v)
                 if isinstance(sources, dict) else "")
        return (f"offered {_safe(count)} of {_safe(f.get('universe'))} "
                f"([bold]{_safe(f.get('mode'))}[/]){split}")
    if agent == "model_called":
        return (f"model {_safe(f.get('model'))} · {_tokens(f)} · {_ms(f.get('duration_ms'))} · "
                f"{_safe(f.get('finish_reason'))}")
    if agent == "tool_completed":
        status = (f"[red]error {_safe(f.get('error_code') or '')}[/]" if f.get("is_error")
                  else f"[green]ok[/] {_safe(f.get('result_bytes'))} B")
        return (f"tool {_safe(f.get('name'))} [dim]{_safe(f.get('call_id'))}[/] · "
                f"{_ms(f.get('duration_ms'))} · {status}")
    if agent == "nudged":
        return (f"[yellow]nudge[/] {_safe(f.get('reason'))} · period {_safe(f.get('period'))}"
                f" · ×{_safe(f.get('repeats'))}")
    if agent == "stalled":
        return (f"[bold red]stalled[/] period {_safe(f.get('period'))} · "
                f"×{_safe(f.get('repeats'))}")
    if agent == "compose_checked":
        codes = f.get("error_codes")
        verdict = ("[green]valid[/]" if f.get("valid") else
                   f"[red]invalid[/] {_safe(', '.join(map(str, codes or [])))}")
        return (f"compose {verdict} · {_safe(f.get('draft_bytes'))} B draft · "
                f"{_safe(f.get('escapes'))} escapes")
    if agent == "budget_checkpoint":
        cap = f.get("max_tokens_total")
        return (f"[dim]budget turns {_safe(f.get('turns_used'))}/{_safe(f.get('max_turns'))}"
                f" · tokens {_safe(f.get('tokens_used'))}/{'∞' if cap is None else _safe(cap)}[/]")
    return f"{_safe(agent)}"  # an agent event this reader does not know (the additive law)


def _task_end(status: str, f: Mapping[str, Any]) -> str:
    style = _OUTCOME_STYLE.get(status, "bold")
    parts = [f"[{style}]■ {status}[/]", _ms(f.get("duration_ms"))]
    if "turns" in f:
        parts.append(f"{_safe(f.get('turns'))} turns · {_safe(f.get('tokens'))} tokens")
    error = f.get("error")
    if isinstance(error, dict):
        parts.append(f"{_safe(error.get('code'))} · {_safe(str(error.get('detail', ''))[:160])}")
    cause = recovered_from(f)
    if cause is not None:
        parts.append(f"[yellow]recovered by on_error from {_safe(recovery_text(cause))}[/]")
    return " · ".join(parts)


def render(frames: Iterable[Frame], verdict: TraceVerdict, name: str, console: Console) -> None:
    """Print the timeline of `frames` (the journal `name`) under its chain `verdict`."""
    tasks: dict[str, _Task] = {}
    roots: list[_Task] = []
    style = _VERDICT_STYLE[verdict.status]
    console.print(f"[bold]journal[/] {_safe(name)}")
    console.print(f"[{style}]{_safe(verdict.render())}[/]")
    end: Frame | None = None
    for frame in frames:
        if frame.kind == "workflow_started":
            f = frame.fields
            console.print(
                f"[bold]▶ {_safe(f.get('workflow'))}[/] · {_safe(f.get('tasks'))} tasks · "
                f"{_safe(f.get('engine_version'))} · {_safe(f.get('platform'))} · "
                f"trace_format {_safe(f.get('trace_format'))}")
        elif frame.task is not None:
            task = tasks.get(frame.task)
            if task is None:
                task = tasks[frame.task] = _Task(frame.task)
                invoker = frame.fields.get("parent")
                parent = tasks.get(invoker) if isinstance(invoker, str) else None
                if parent is not None:
                    parent.tree.children.append(task.tree)  # a child workflow's task
                else:
                    roots.append(task)
            task.add(frame)
        elif frame.kind.startswith("workflow_"):
            end = frame
    for task in tasks.values():
        task.finish()
    for task in roots:
        console.print(task.tree)
    if end is not None:
        state = str(end.fields.get("state", end.kind.removeprefix("workflow_")))
        console.print(f"[bold {_OUTCOME_STYLE.get(state, 'white')}]■ workflow {_safe(state)}[/]")
        if end.kind == "workflow_paused":
            f = end.fields
            console.print(f"  awaiting an answer for {_safe(f.get('task_id'))} "
                          f"({_safe(f.get('mode'))}): {_safe(f.get('message'))} — resume with "
                          f"--resume and --answer {_safe(f.get('task_id'))}=VALUE")
