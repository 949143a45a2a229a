"""Journals as a list, and their retention (ADR-100).

`runs(directory)` reads each journal under `.nika/traces/` by its first and last lines only —
the prologue names the workflow and the start, the terminal frame the outcome, the end and the
run's totals (spend, tokens, duration) — so listing a thousand runs never folds one. Only when
asked (`tokens=True`: `nika trace ls`, never the sweep at a run's start) is a journal whose end
does not carry the tokens (an older engine's, or one with no terminal frame) folded for them:
its model calls' frames summed. A journal with no terminal frame (a
crash, a kill) is `incomplete`: resumable, and kept like any other.

`collect(entries, policy, now_ns, keep=…)` is ADR-100's D1, deciding what a collection removes:
per workflow, the newest `policy.keep` runs survive the count; a run older than
`policy.max_age_days` goes; then, oldest first, runs go while the project is over
`policy.budget_bytes`. Never collected, whatever the caps: a run whose last state is `paused` (an
unanswered prompt is an obligation, not garbage), the newest run of each workflow (the standing
resume candidate), and any journal the caller names in `keep` (the one being resumed).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

_HEAD_BYTES: Final = 16 << 10
"""How much of each end of a journal is read first: a prologue and most terminal frames are
far smaller; a longer terminal frame (large outputs) is read whole, up to the line bound."""
_LINE_BOUND: Final = 1 << 20

_NS_PER_DAY: Final = 86_400 * 10**9

Reason = Literal["count", "aged", "over-budget"]


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One journal, as the run list shows it."""

    path: Path
    size: int
    workflow: str | None
    started_ns: int | None
    ended_ns: int | None
    state: str
    """`success` · `failure` · `cancelled` · `paused` · `incomplete` (no terminal frame)."""
    cost_usd: float | None
    paused: tuple[str, ...] = ()
    """The tasks whose prompts a paused run waits on."""
    input_tokens: int | None = None
    output_tokens: int | None = None
    ran_ms: int | None = None
    """The run's duration as its terminal frame records it."""

    @property
    def duration_ms(self) -> int | None:
        """The recorded duration, else the span from the first frame to the last."""
        if self.ran_ms is not None:
            return self.ran_ms
        if self.started_ns is None or self.ended_ns is None:
            return None
        return max(0, (self.ended_ns - self.started_ns) // 1_000_000)


@dataclass(frozen=True, slots=True)
class Policy:
    """ADR-100 D1's caps; `from_env` reads the `NIKA_TRACE_*` knobs (D4)."""

    keep: int = 10
    max_age_days: float = 30.0
    budget_bytes: int = 256 << 20

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Policy:
        """`NIKA_TRACE_KEEP` (runs per workflow), `NIKA_TRACE_MAX_AGE_DAYS`,
        `NIKA_TRACE_BUDGET_MB`; an unreadable value keeps the default (retention never fails a
        run)."""
        base = cls()
        return cls(
            keep=_number(environ.get("NIKA_TRACE_KEEP"), int, base.keep),
            max_age_days=_number(environ.get("NIKA_TRACE_MAX_AGE_DAYS"), float,
                                 base.max_age_days),
            budget_bytes=_number(environ.get("NIKA_TRACE_BUDGET_MB"), int,
                                 base.budget_bytes >> 20) << 20,
        )


def _number(text: str | None, kind: type[int] | type[float], default: Any) -> Any:
    try:
        value = kind(text) if text is not None else default
    except ValueError:
        return default
    return value if value >= 0 else default


def read_entry(path: Path, *, tokens: bool = False) -> RunEntry | None:
    """The run list's view of one journal; None when it is not a readable regular file.
    `tokens`: fold the model calls when the end lacks the totals (else they stay None)."""
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            head = handle.read(_HEAD_BYTES)
            if b"\n" not in head and info.st_size > len(head):  # a long prologue
                handle.seek(0)
                head = handle.read(_LINE_BOUND + 1)
            last = None
            for span in (_HEAD_BYTES, _LINE_BOUND + 2):
                handle.seek(max(0, info.st_size - span))
                lines = handle.read(span).rstrip(b"\n").rsplit(b"\n", 1)
                if len(lines) > 1 or info.st_size <= span:  # the last line is whole
                    last = _frame(lines[-1])
                    break
    except OSError:
        return None
    first = _frame(head.split(b"\n", 1)[0])
    fields = _fields(first)
    ending = _fields(last)
    kind = last.get("kind") if last is not None else None
    state = ending.get("state") if isinstance(kind, str) and kind.startswith("workflow_") \
        and kind != "workflow_started" else None
    cost = ending.get("total_cost_usd")
    paused = ending.get("paused")
    # Only a terminal frame's totals are the run's (a crashed journal ends on any frame).
    counts = ((_int(ending.get("input_tokens")), _int(ending.get("output_tokens")))
              if state is not None else (None, None))
    if tokens and None in counts:
        counts = _fold_tokens(path)
    return RunEntry(
        path=path,
        size=info.st_size,
        workflow=fields.get("workflow") if isinstance(fields.get("workflow"), str) else None,
        started_ns=_int(first.get("timestamp")) if first is not None else None,
        ended_ns=_int(last.get("timestamp")) if state is not None and last is not None else None,
        state=state if isinstance(state, str) else "incomplete",
        cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool)
        else None,
        paused=tuple(str(p) for p in paused) if isinstance(paused, list) else (),
        input_tokens=counts[0], output_tokens=counts[1],
        ran_ms=_int(ending.get("duration_ms")) if state is not None else None,
    )


def _fold_tokens(path: Path) -> tuple[int | None, int | None]:
    """The tokens of every model call a journal records (one whose end lacks its totals):
    `(None, None)` when it cannot be read."""
    totals = [0, 0]
    try:
        with open(path, "rb") as handle:
            while line := handle.readline(_LINE_BOUND + 1):  # never more than the bound
                if len(line) > _LINE_BOUND:  # an over-long line: skipped to its end, unread
                    while line and not line.endswith(b"\n"):
                        line = handle.readline(_LINE_BOUND + 1)
                    continue
                if b'"cost_incurred"' not in line:
                    continue
                fields = _fields(_frame(line))
                for i, key in enumerate(("input_tokens", "output_tokens")):
                    totals[i] += _int(fields.get(key)) or 0
    except OSError:
        return None, None
    return totals[0], totals[1]


def runs(directory: Path, *, tokens: bool = False) -> list[RunEntry]:
    """Every journal under `directory`, newest first (by start, then by name); `tokens` as
    `read_entry`'s."""
    try:
        names = sorted(p for p in directory.iterdir() if p.suffix == ".ndjson")
    except OSError:
        return []
    found = [e for p in names if (e := read_entry(p, tokens=tokens)) is not None]
    return sorted(found, key=lambda e: (e.started_ns or 0, e.path.name), reverse=True)


def collect(entries: Sequence[RunEntry], policy: Policy, now_ns: int,
            keep: Iterable[Path] = ()) -> dict[Path, Reason]:
    """What a collection removes and why (see the module docstring); `entries` newest first."""
    spared = {p.resolve() for p in keep}
    exempt: set[Path] = set()
    seen: dict[str | None, int] = {}
    doomed: dict[Path, Reason] = {}
    for entry in entries:
        rank = seen.get(entry.workflow, 0)
        seen[entry.workflow] = rank + 1
        if rank == 0 or entry.state == "paused" or entry.path.resolve() in spared:
            exempt.add(entry.path)
        elif rank >= policy.keep:
            doomed[entry.path] = "count"
        elif entry.started_ns is not None and \
                now_ns - entry.started_ns > policy.max_age_days * _NS_PER_DAY:
            doomed[entry.path] = "aged"
    total = sum(e.size for e in entries if e.path not in doomed)
    for entry in reversed(entries):  # oldest first
        if total <= policy.budget_bytes:
            break
        if entry.path not in exempt and entry.path not in doomed:
            doomed[entry.path] = "over-budget"
            total -= entry.size
    return doomed


def _frame(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _fields(frame: Mapping[str, Any] | None) -> dict[str, Any]:
    pairs = frame.get("fields") if frame is not None else None
    if not isinstance(pairs, list):
        return {}
    return {p["key"]: p.get("value") for p in pairs
            if isinstance(p, dict) and isinstance(p.get("key"), str)}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def sweep(directory: Path, policy: Policy, now_ns: int, keep: Iterable[Path] = ()) -> str | None:
    """Collect `directory` (ADR-100 D2): remove what `collect` decides and return the ONE line
    that says so, or None when nothing went. Fail-open: a journal that cannot be removed stays,
    and retention never stops a run."""
    entries = runs(directory)
    doomed = collect(entries, policy, now_ns, keep)
    removed: dict[Path, Reason] = {}
    for path, reason in doomed.items():
        try:
            path.unlink()
        except OSError:
            continue
        removed[path] = reason
    if not removed:
        return None
    kept = [e for e in entries if e.path not in removed]
    counts: dict[Reason, int] = {}
    for reason in removed.values():
        counts[reason] = counts.get(reason, 0) + 1
    why = " · ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))
    return (f"trace gc · removed {len(removed)} ({why}) · kept {len(kept)} · "
            f"{size_text(sum(e.size for e in kept))}")


def size_text(size: int) -> str:
    """A journal size for a person: `12KB`, `41.0MB` (the GC line and `nika trace ls`)."""
    return f"{size / (1 << 20):.1f}MB" if size >= 1 << 20 else f"{size // 1024}KB"
