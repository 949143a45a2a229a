"""Human progress for `nika run`: one line per task transition, then a summary (rich).

Written to stderr: stdout carries the workflow's `outputs` object (01 §what leaves a run).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from rich.console import Console
from rich.markup import escape

from nika._term import printable
from nika.runtime.bus import RunEvent

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
        if event.kind == "workflow_started":
            name = _shown(event.fields.get("workflow", ""))
            self._console.print(f"[bold]▶ {name}[/] · {event.fields.get('tasks', 0)} tasks")
            return
        if event.kind in ("workflow_completed", "workflow_failed", "workflow_cancelled",
                          "workflow_paused"):
            self._summary(event)
            return
        mark = _MARKS.get(event.kind)
        if mark is None or event.task is None or event.fields.get("cache_hit"):
            return  # a served task's terminal frame: its cache-hit line said it all
        symbol, word = mark
        item = event.fields.get("iteration")
        if event.kind == "task_cache_hit" and item is not None:
            word = f"cache hit · item {item}"  # one iteration served; the task still runs
        line = f"  {symbol} {_shown(event.task):<24} {word}"
        if event.kind not in _UNCOUNTED and item is None:
            self._counts[word] += 1
        line += self._tail(event)
        self._console.print(line)

    @staticmethod
    def _tail(event: RunEvent) -> str:
        fields = event.fields
        parts: list[str] = []
        if "duration_ms" in fields and event.kind != "task_retrying":
            parts.append(f"{fields['duration_ms']} ms")
        if event.kind == "task_retrying":
            parts.append(f"attempt {fields.get('attempt')} · {fields.get('code')}")
        error: Any = fields.get("error")
        if isinstance(error, dict) and event.kind in ("task_failed", "task_skipped"):
            detail = str(error.get("detail", ""))
            parts.append(f"{error.get('code')} · {detail[:160]}")
        return ("  [dim]" + _shown(" · ".join(parts)) + "[/]") if parts else ""

    def _summary(self, event: RunEvent) -> None:
        state = str(event.fields.get("state", ""))
        style = _STATE_STYLE.get(state, "bold")
        counts = " · ".join(f"{n} {w}" for w, n in sorted(self._counts.items()) if w != "retrying")
        self._console.print(f"[bold {style}]■ {_shown(state)}[/] · {counts or 'no tasks'}")

    def close(self) -> None:
        """Nothing buffered: rich writes each line as it is printed."""
