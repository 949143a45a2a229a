"""Live progress of an agent task: one line per loop turn on stderr (`nika run --progress`,
on by default when stderr is a terminal), beside the per-task lines of `progress.py`.

A turn's line is said once the turn is over — its model call made, its tools answered — so it
names the turn against its cap, the tools it called and the tokens used against the budget;
a nudge or a stall is the turn's last event and is said on its line as it happens. The frames
are the bus's (masked), so a line carries nothing the journal would not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape

from nika._term import printable
from nika.agent.observe import BudgetCheckpoint, Nudged, Stalled, ToolCompleted, TurnStarted
from nika.journal.bus import RunEvent
from nika.journal.frames import AgentStep, TaskEnded

_Key = tuple[str, int | None, int]
"""A loop run: its task, `for_each` item and attempt."""


@dataclass(slots=True)
class _Turn:
    """A turn being watched, until its line is said."""

    number: int
    max_turns: int | None = None
    tokens: int | None = None
    budget: int | None = None
    tools: Counter[str] = field(default_factory=Counter)
    failed: set[str] = field(default_factory=set)
    flag: str | None = None


def _tools(turn: _Turn) -> str:
    if not turn.tools:
        return "no tool call"
    return ", ".join(f"{name}{' ✗' if name in turn.failed else ''}"
                     f"{f' ×{n}' if n > 1 else ''}" for name, n in turn.tools.items())


def _line(task: str, turn: _Turn) -> str:
    """`draft · turn 3/8 · nika:compose ×2 · tokens 1,234/∞ · nudge (…)` (plain text)."""
    cap = "?" if turn.max_turns is None else str(turn.max_turns)
    tokens = "?" if turn.tokens is None else f"{turn.tokens:,}"
    budget = "∞" if turn.budget is None else f"{turn.budget:,}"
    parts = [task, f"turn {turn.number}/{cap}", _tools(turn), f"tokens {tokens}/{budget}"]
    if turn.flag is not None:
        parts.append(turn.flag)
    return " · ".join(parts)


class TurnLines:
    """An event sink: the turn lines of every agent loop run of the run, on `console`."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True, highlight=False)
        self._open: dict[_Key, _Turn] = {}

    def emit(self, event: RunEvent) -> None:
        frame = event.frame
        if isinstance(frame, TaskEnded):
            for key in [k for k in self._open if k[0] == frame.task]:
                self._say(key)
            return
        if not isinstance(frame, AgentStep):
            return
        unit, step = frame.unit, frame.event
        key = (unit.task, unit.iteration, unit.attempt)
        if isinstance(step, TurnStarted):
            self._say(key)
            self._open[key] = _Turn(step.turn)
            return
        turn = self._open.get(key)
        if turn is None:
            return
        if isinstance(step, BudgetCheckpoint):
            turn.max_turns, turn.tokens = step.max_turns, step.tokens_used
            turn.budget = step.max_tokens_total
        elif isinstance(step, ToolCompleted):
            turn.tools[step.name] += 1
            if step.is_error:
                turn.failed.add(step.name)
        elif isinstance(step, Nudged):
            turn.flag = "nudge: " + (
                f"every tool call failed, {step.repeats} turns in a row"
                if step.reason == "error_streak" else
                f"the same {step.period}-turn block repeated {step.repeats} times")
            self._say(key)
        elif isinstance(step, Stalled):
            turn.flag = (f"stall: the same {step.period}-turn block repeated "
                         f"{step.repeats} times; stopped")
            self._say(key)

    def _say(self, key: _Key) -> None:
        turn = self._open.pop(key, None)
        if turn is None:
            return
        task, item, attempt = key
        name = task if item is None else f"{task}[{item}]"
        name += "" if attempt == 1 else f" (attempt {attempt})"
        # One line however long: a log reader greps it, a terminal wraps it.
        self._console.print(f"    [dim]↳[/] {escape(printable(_line(name, turn)))}",
                            soft_wrap=True)

    def close(self) -> None:
        for key in list(self._open):
            self._say(key)
