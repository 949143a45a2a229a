"""The run's spend, folded from its `cost_incurred` frames (one per model call, or one per tool
call that reported its own spend).

A tool's spend (`tool_spend`: a top-level numeric `cost_usd` in its output, e.g. xai's billed
ticks through `nika:image_generate`) is counted as the dollars it says — real spend, so
`--max-cost-usd` counts it too. Each model call is priced at the shipped rate table
(`nika.prices.call_cost`) or counted unpriced with its reason — never as zero (07 §the
spend-honesty law). The ledger is a bus sink, so a child workflow's calls (forwarded onto the
parent's bus under `call/fetch`) count toward the invoking task. The runner reads it to put
`cost_usd` on each task's terminal frame and the run's totals on its own (`totals`: dollars,
unpriced calls, tokens, wall-clock time, so a run list never re-folds a journal); `nika trace
verify` re-prices the same frames to replay them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final

from nika.journal.bus import RunEvent
from nika.journal.decoded import ReadCostIncurred
from nika.journal.frames import CostIncurred, PricedCall, RunTotals, model_call
from nika.prices import call_cost


def top_task(task: str) -> str:
    """The workflow-level task a (possibly nested, possibly iterated) frame belongs to."""
    return task.split("/", 1)[0].split("[", 1)[0]


NOT_COUNTED: Final = "not counted: no real bill"
"""Why a tool's journaled spend counts no dollars (see `reported`)."""


@dataclass(frozen=True, slots=True)
class Counted:
    """What one `cost_incurred` frame counted (`Spend.count`)."""

    cost: Decimal | str
    """Its dollars, or why it has none."""
    tool: bool
    """A tool's own reported spend (no model call), not a model call."""


@dataclass(slots=True)
class Spend:
    """Priced dollars and unpriced calls (by reason) of one task or one run — THE fold of a
    run's spend: the ledger, `nika trace verify`, `nika trace show` and its page all sum
    through it."""

    usd: Decimal = Decimal(0)
    priced: int = 0
    """Calls with dollars: model calls the table priced, and tools' reported spend."""
    unpriced: Counter[str] = field(default_factory=Counter)
    input_tokens: int = 0
    output_tokens: int = 0
    reported: int = 0
    """How many of the `priced` are a tool's own reported spend (no model call)."""

    def add(self, cost: Decimal | str, call: PricedCall | None = None) -> None:
        """Count one priced entry — a model call (its price, or why it has none, and, given, its
        tokens) or a tool's reported dollars (`report`)."""
        if call is not None:
            self.input_tokens += call[1] or 0
            self.output_tokens += call[2] or 0
        if isinstance(cost, Decimal):
            self.usd += cost
            self.priced += 1
        else:
            self.unpriced[cost] += 1

    def price(self, model: str | None, input_tokens: int | None,
              output_tokens: int | None) -> Decimal | str:
        """Price one model call at the shipped table (a call whose model the journal lacks
        has no price), count it, and return its cost or why it has none."""
        cost = ("model unrecorded" if model is None
                else call_cost(model, input_tokens, output_tokens))
        self.add(cost, (model or "", input_tokens, output_tokens))
        return cost

    def count(self, record: ReadCostIncurred) -> Counted:
        """Count one journaled `cost_incurred` frame — the views' one fold of it: a tool's
        own reported spend (when `reported` accepts it), else a model call priced at the
        shipped table."""
        if record.cost_usd is not None:
            dollars = reported(record.cost_usd)
            if dollars is None:
                return Counted(NOT_COUNTED, tool=True)
            self.report(dollars)
            return Counted(dollars, tool=True)
        return Counted(self.price(record.model, record.input_tokens, record.output_tokens),
                       tool=False)

    def report(self, dollars: Decimal) -> None:
        """Count a tool's own reported spend: real dollars, no model call, no tokens."""
        self.add(dollars)
        self.reported += 1

    def absorb(self, other: Spend) -> None:
        """Add `other`'s calls to these (a run's spend from its tasks')."""
        self.usd += other.usd
        self.priced += other.priced
        self.unpriced.update(other.unpriced)
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.reported += other.reported

    @property
    def calls(self) -> int:
        """The model calls counted, priced or not (a tool's reported spend is none)."""
        return self.priced - self.reported + sum(self.unpriced.values())

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def usd_figure(self) -> float | None:
        """The dollars a frame carries: only when some call was priced (never a made-up
        zero)."""
        return round(float(self.usd), 6) if self.priced else None

    @property
    def unpriced_count(self) -> int | None:
        return sum(self.unpriced.values()) if self.unpriced else None

    @property
    def unpriced_reasons(self) -> str | None:
        return "; ".join(sorted(self.unpriced)) if self.unpriced else None


MAX_REPORTED_USD: Final = 1e9
"""The most dollars one tool call may report: past it no bill is real (a hostile or broken
journal's `1e300`), so the amount counts as not reported — never clamped to a made-up one."""


def reported(cost: Any) -> Decimal | None:
    """A tool's reported spend as dollars: a finite number in `[0, MAX_REPORTED_USD]`; None
    otherwise (absent, not a number, infinite, negative or absurd — never a guess). Every
    reader of a journal's `cost_usd` goes through it: the journal is untrusted input."""
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        return None
    if not math.isfinite(cost) or not 0 <= cost <= MAX_REPORTED_USD:
        return None
    return Decimal(str(cost))


def tool_spend(value: Any) -> Decimal | None:
    """The real spend a tool's output reports: its top-level `cost_usd` when `reported`
    accepts it; None otherwise."""
    return reported(value.get("cost_usd")) if isinstance(value, dict) else None


def fold(calls: Iterable[PricedCall], spent: Iterable[Decimal] = ()) -> Spend:
    """Re-price model calls (a journal's `cost_incurred` frames, in `nika trace verify`),
    plus the tools' reported spend as it was journaled."""
    spend = Spend()
    for call in calls:
        spend.add(call_cost(*call), call)
    for dollars in spent:
        spend.report(dollars)
    return spend


class CostLedger:
    """An `EventSink` keeping the spend of every task and of the whole run."""

    def __init__(self) -> None:
        self.run = Spend()
        self._tasks: dict[str, Spend] = {}
        self._first_ns: int | None = None

    def emit(self, event: RunEvent) -> None:
        if self._first_ns is None:
            self._first_ns = event.timestamp  # the prologue: where the run's clock starts
        frame = event.frame
        if event.task is None:
            return
        if isinstance(frame, CostIncurred) and frame.cost_usd is not None:
            dollars = reported(frame.cost_usd)  # a tool's own reported spend: no tokens
            if dollars is not None:
                self.run.report(dollars)
                self._task(event.task).report(dollars)
            return
        call = model_call(frame)
        if call is not None:
            cost = call_cost(*call)
            for spend in (self.run, self._task(event.task)):
                spend.add(cost, call)

    def _task(self, task: str) -> Spend:
        return self._tasks.setdefault(top_task(task), Spend())

    def totals(self, now_ns: int) -> RunTotals:
        """The run's totals for its terminal frame, its clock read at `now_ns` (the tokens
        always written: a run list folds only a journal whose end lacks them)."""
        run = self.run
        return RunTotals(
            total_cost_usd=run.usd_figure, unpriced_calls=run.unpriced_count,
            cost_unpriced=run.unpriced_reasons,
            input_tokens=run.input_tokens, output_tokens=run.output_tokens,
            duration_ms=max(0, (now_ns - self._first_ns) // 1_000_000)
            if self._first_ns is not None else None)

    def task(self, task: str) -> Spend | None:
        """The spend of `task`, None when it made no model call and reported no spend."""
        return self._tasks.get(task)

    def close(self) -> None:
        """Nothing to release: the figures are read during and after the run."""
