"""`nika trace ls`: the run list, one line per journal, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from nika._term import printable
from nika.journal.runs import RunEntry, size_text
from nika.view.figures import usd_text


def render(entries: Sequence[RunEntry], base: Path) -> list[str]:
    """The table's lines: when it started (UTC), the workflow, the outcome, how long it ran,
    its tokens (input→output), what it cost, its size and its path; `*` marks each workflow's
    newest run (the standing resume candidate), a paused run names the prompts it waits on."""
    if not entries:
        return ["no journals yet: `nika run FILE` writes one under .nika/traces/"]
    lines = [f"  {'started (UTC)':<20} {'workflow':<24} {'outcome':<11} {'duration':>9} "
             f"{'tokens':>13} {'cost':>10} {'size':>8}  journal"]
    newest: set[str | None] = set()
    for entry in entries:
        mark = " " if entry.workflow in newest else "*"
        newest.add(entry.workflow)
        started = (datetime.fromtimestamp(entry.started_ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M:%S")
                   if entry.started_ns is not None else "?")
        outcome = entry.state + (f" ({', '.join(entry.paused)})" if entry.paused else "")
        lines.append(
            f"{mark} {started:<20} {printable(entry.workflow or '?'):<24} {printable(outcome):<11} "
            f"{_duration(entry.duration_ms):>9} {_tokens(entry):>13} {_cost(entry.cost_usd):>10} "
            f"{size_text(entry.size):>8}  {printable(_shown(entry.path, base))}")
    return lines


def _duration(ms: int | None) -> str:
    if ms is None:
        return "—"
    return f"{ms} ms" if ms < 10_000 else f"{ms / 1000:.1f} s"


def _tokens(entry: RunEntry) -> str:
    if entry.input_tokens is None or entry.output_tokens is None:
        return "—"
    return f"{_count(entry.input_tokens)}→{_count(entry.output_tokens)}"


def _count(n: int) -> str:
    """A token count in at most five characters: `812`, `12.3k`, `4.1M`."""
    if n < 10_000:
        return str(n)
    return f"{n / 1000:.1f}k" if n < 1_000_000 else f"{n / 1_000_000:.1f}M"


def _cost(usd: float | None) -> str:
    return "unpriced" if usd is None else usd_text(usd)


def _shown(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
