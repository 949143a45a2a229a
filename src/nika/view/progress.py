"""Human progress for `nika run`: one line per task transition, then a summary (rich).

Written to stderr: stdout carries the workflow's `outputs` object (01 §what leaves a run).
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from rich.console import Console
from rich.markup import escape

from nika._term import printable
from nika.journal.bus import RunEvent
from nika.journal.frames import (
    Frame,
    TaskCacheHit,
    TaskEnded,
    TaskRetrying,
    WorkflowEnded,
    WorkflowStarted,
)

_MARKS: Final = {
    "task_started": ("[cyan]…[/]", "running"),
    "task_completed": ("[green]✓[/]", "done"),
    "task_skipped": ("[yellow]↷[/]", "skipped"),
    "task_failed": ("[red]✗[/]", "failed"),
    "task_cancelled": ("[magenta]⊘[/]", "cancelled"),
    "task_retrying": ("[yellow]↻[/]", "retrying"),
    "task_cache_hit": ("[cyan]⟲[/]", "cache hit"),
}
_STATE_STYLE: Final = {"success": "green", "failure": "red", "cancelled": "magenta",
                       "paused": "cyan"}
_UNCOUNTED: Final = frozenset({"task_started", "task_retrying"})


def _shown(value: object) -> str:
    """Run text (a task's error may quote the document or a tool) as inert rich markup."""
    return escape(printable(str(value)))


class ProgressSink:
    """Renders task transitions as they happen and the run's verdict at the end."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True, highlight=False)
        self._counts: Counter[str] = Counter()

    def emit(self, event: RunEvent) -> None:
        frame = event.frame
        if isinstance(frame, WorkflowStarted):
            noun = "task" if frame.tasks == 1 else "tasks"
            self._console.print(f"[bold]▶ {_shown(frame.workflow)}[/] · {frame.tasks} {noun}")
            return
        if isinstance(frame, WorkflowEnded):
            self._summary(frame.state, frame.paused or ())
            return
        mark = _MARKS.get(frame.kind)
        if mark is None or frame.task is None or (isinstance(frame, TaskEnded)
                                                   and frame.cache_hit):
            return  # a served task's terminal frame: its cache-hit line said it all
        symbol, word = mark
        item = frame.iteration if isinstance(frame, TaskCacheHit | TaskRetrying) else None
        if isinstance(frame, TaskCacheHit) and item is not None:
            word = f"cache hit · item {item}"  # one iteration served; the task still runs
        line = f"  {symbol} {_shown(frame.task):<24} {word}"
        if frame.kind not in _UNCOUNTED and item is None:
            self._counts[word] += 1
        line += self._tail(frame)
        self._console.print(line)

    @staticmethod
    def _tail(frame: Frame) -> str:
        parts: list[str] = []
        if isinstance(frame, TaskEnded):
            parts.append(f"{frame.duration_ms} ms")
            if frame.error is not None and frame.status in ("failure", "skipped"):
                parts.append(f"{frame.error.code} · {frame.error.detail}")  # whole: the fix ends it
        elif isinstance(frame, TaskRetrying):
            parts.append(f"attempt {frame.attempt} · {frame.code}")
        return ("  [dim]" + _shown(" · ".join(parts)) + "[/]") if parts else ""

    def _summary(self, state: str, paused: tuple[str, ...]) -> None:
        style = _STATE_STYLE.get(state, "bold")
        parts = [f"{n} {w}" for w, n in sorted(self._counts.items()) if w != "retrying"]
        if paused:  # a gate waiting for its answer is not "no tasks"
            parts.append(f"{len(paused)} waiting for an answer ({_shown(', '.join(paused))})")
        counts = " · ".join(parts)
        self._console.print(f"[bold {style}]■ {_shown(state)}[/] · {counts or 'no tasks'}")

    def close(self) -> None:
        """Nothing buffered: rich writes each line as it is printed."""
