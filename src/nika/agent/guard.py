"""`StallGuard`: stop no-progress agent loops early, with evidence.

Repetitive action cycles are a dominant agent failure class; a turn budget alone burns the
whole budget before it stops. The guard signs each turn that made tool calls and watches for
the tail of the run repeating itself back-to-back.

Signature. A turn's signature is a 64-bit BLAKE2b digest over its tool calls in call order —
each as (tool name, arguments as canonical JSON: keys sorted at every depth, no insignificant
whitespace, unicode kept) — AND their observations (result content and error flag). It is stable
across processes and Python versions (no `hash()`). Same calls with a different result sign
differently, so legitimate polling never trips the guard; only byte-identical action+outcome
cycles do. A poll whose result stays byte-identical ("still running") IS a repeat by design:
identical outcomes are no progress, and the corrective message then suggests backing off.

Cycle scan. For every period p in 1..W/2 the guard keeps the length of the trailing run of
positions j with sig[j] == sig[j-p], updated incrementally: one integer compare per period per
turn (W/2 compares, well under the W²/4 bound of a naive rescan). Within the window of the last
W signatures the period-p block then repeats `1 + min(run, W - p) // p` times back-to-back. The
best cycle is the one with most repeats, ties to the smaller period.

Ladder. At `nudge_after` repeats (default 3) the loop injects ONE Reflexion-style corrective
message naming the repeated calls (at most `max_reflections` per run, default 1). The message
names only tools the model was offered: the repeated calls, and the finishing tool
(`nika:done`) only when the whitelist grants it — otherwise it asks for a plain-text answer.
A streak of turns whose every call errored (`error_streak`, default `nudge_after`) earns the
same message and draws on the same reflection budget. At `stall_after` repeats (default 5)
the loop stops with the terminal verdict `NIKA-AGENT-006` — the seed document's "NIKA-467
Stalled{period, repeats}" — carrying the evidence. It is never retried: a blind rerun
replays the proof. When the turn (or token) budget ends on the very turn whose calls would
complete a stall, the stall verdict wins (`final`): `NIKA-AGENT-006` with its period and
repeats, not a bare `NIKA-AGENT-001` that loses the evidence.

Reach. A period-p cycle can show at most W // p repeats inside the window, so with the defaults
(W=16, stall_after=5, nudge_after=3) a stall is reachable for periods 1-3 and a nudge for
periods up to 5. Widen `guard_window` to reach longer cycles.

Text-only turns end the loop (a final answer) and are never signed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any, Literal

from nika import codes
from nika.agent.config import AgentConfig
from nika.agent.seams import ToolCall, ToolResult
from nika.canonical import loose_json
from nika.errors import NikaError

_SUMMARY_CHARS = 160


def turn_signature(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> int:
    """The 64-bit signature of one turn's actions and observations."""
    digest = blake2b(digest_size=8, person=b"nika-turn-sig")
    for call, result in zip(calls, results, strict=True):
        for part in (call.name, loose_json(dict(call.args)), result.content):
            data = part.encode("utf-8", "surrogatepass")
            # Length-prefixed framing: no two different turns encode to the same bytes.
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)
        digest.update(b"\x01" if result.is_error else b"\x00")
    return int.from_bytes(digest.digest(), "big")


@dataclass(frozen=True, slots=True)
class Nudge:
    """Inject `message` as a user turn before the next model call."""

    reason: Literal["cycle", "error_streak"]
    period: int
    repeats: int
    message: str


@dataclass(frozen=True, slots=True)
class Stall:
    """The loop made no progress: `period`-turn block repeated `repeats` times.

    `final_turn` marks a stall completed by the calls of a last turn that was not dispatched
    (the budget ended with it): its repeat is of the calls, its results were never produced.
    """

    period: int
    repeats: int
    signatures: tuple[str, ...]
    calls: tuple[Mapping[str, Any], ...]
    final_turn: bool = False

    def to_error(self, partial_output: str) -> NikaError:
        """The terminal verdict `NIKA-AGENT-006` (budget_error, never transient)."""
        names = ", ".join(sorted({str(c["name"]) for c in self.calls}))
        how = (
            "with identical results until the turn budget ended (the last repeat's calls were "
            "not run)"
            if self.final_turn
            else "with identical results"
        )
        return NikaError(
            codes.AGENT_006,
            f"the agent stalled: the same {self.period}-turn block of tool calls ({names}) "
            f"repeated {self.repeats} times {how}, so the loop was stopped "
            "before spending more turns; rephrase the prompt so the goal is reachable, give "
            "the agent a tool that makes progress, or recover the partial output via on_error",
            transient=False,
            details={
                "kind": "Stalled",
                "period": self.period,
                "repeats": self.repeats,
                "signatures": list(self.signatures),
                "calls": [dict(c) for c in self.calls],
                "final_turn": self.final_turn,
                "partial_output": partial_output,
            },
        )


@dataclass(frozen=True, slots=True)
class _Turn:
    signature: int
    calls: tuple[Mapping[str, Any], ...]
    all_errors: bool


class StallGuard:
    """Signs tool-call turns and decides when to nudge or stop the loop (see module doc)."""

    def __init__(self, config: AgentConfig, *, finish: str | None = None) -> None:
        self._finish = finish
        self._window = config.guard_window
        self._nudge_after = config.nudge_after
        self._stall_after = config.stall_after
        self._reflections_left = config.max_reflections
        self._error_streak_limit = (
            config.nudge_after if config.error_streak is None else config.error_streak
        )
        self._turns: deque[_Turn] = deque(maxlen=config.guard_window)
        self._runs = [0] * (config.guard_window // 2 + 1)  # index = period
        self._error_streak = 0
        self._cycle_nudged = False
        self._streak_nudged = False
        self.compares = 0
        """Integer compares made by the cycle scan so far (for the benchmark)."""

    def scan(self) -> tuple[int, int]:
        """The best back-to-back cycle at the tail of the window: (period, repeats).

        Most repeats wins, ties to the smaller period; (0, 0) when no block repeats.
        """
        best_period, best_repeats = 0, 0
        size = len(self._turns)
        for period in range(1, min(self._window // 2, size // 2) + 1):
            run = min(self._runs[period], size - period)
            repeats = 1 + run // period
            if repeats >= 2 and repeats > best_repeats:
                best_period, best_repeats = period, repeats
        return best_period, best_repeats

    def record(
        self, calls: Sequence[ToolCall], results: Sequence[ToolResult]
    ) -> Nudge | Stall | None:
        """Record one tool-call turn; say whether to nudge, stop, or carry on."""
        signature = turn_signature(calls, results)
        turns = self._turns
        # Update every period's trailing run before the new turn shifts the window.
        for period in range(1, len(self._runs)):
            if period <= len(turns):
                self.compares += 1
                if turns[-period].signature == signature:
                    self._runs[period] += 1
                    continue
            self._runs[period] = 0
        summary = tuple(_summarize(c) for c in calls)
        all_errors = bool(results) and all(r.is_error for r in results)
        turns.append(_Turn(signature, summary, all_errors))
        self._error_streak = self._error_streak + 1 if all_errors else 0
        if not all_errors:
            self._streak_nudged = False

        period, repeats = self.scan()
        if repeats < self._nudge_after:
            self._cycle_nudged = False
        if repeats >= self._stall_after:
            return _stall(turns, period, repeats)
        if repeats >= self._nudge_after and not self._cycle_nudged and self._reflections_left:
            self._cycle_nudged = True
            self._reflections_left -= 1
            block = list(turns)[-period:]
            message = _cycle_message(block, period, repeats, self._finish)
            return Nudge("cycle", period, repeats, message)
        if (
            self._error_streak >= self._error_streak_limit
            and not self._streak_nudged
            and self._reflections_left
        ):
            self._streak_nudged = True
            self._reflections_left -= 1
            recent = list(turns)[-self._error_streak :]
            message = _streak_message(recent, self._finish)
            return Nudge("error_streak", 1, self._error_streak, message)
        return None

    def final(self, calls: Sequence[ToolCall]) -> Stall | None:
        """Judge the calls of a last turn that will not be dispatched (the budget ends with it).

        If repeating them would complete a stall, that verdict — with its period and repeats —
        wins over the budget's: the evidence of the cycle is the more useful account. Nothing
        is recorded. The repeat is judged on the calls alone, since they never ran.
        """
        turns = self._turns
        summary = tuple(_summarize(c) for c in calls)
        size = min(len(turns) + 1, self._window)
        best_period, best_repeats = 0, 0
        for period in range(1, min(self._window // 2, size // 2, len(turns)) + 1):
            if turns[-period].calls != summary:
                continue
            run = min(self._runs[period] + 1, size - period)
            repeats = 1 + run // period
            if repeats > best_repeats:
                best_period, best_repeats = period, repeats
        if best_repeats < self._stall_after:
            return None
        return _stall(turns, best_period, best_repeats, final_turn=True)


def _stall(turns: deque[_Turn], period: int, repeats: int, *, final_turn: bool = False) -> Stall:
    """The stall whose repeated block is the last `period` turns."""
    block = list(turns)[-period:]
    return Stall(
        period=period,
        repeats=repeats,
        signatures=tuple(f"{t.signature:016x}" for t in block),
        calls=tuple(c for t in block for c in t.calls),
        final_turn=final_turn,
    )


def _summarize(call: ToolCall) -> Mapping[str, Any]:
    return {"name": call.name, "args": dict(call.args)}


def _describe(calls: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for call in calls:
        args = loose_json(call["args"])
        if len(args) > _SUMMARY_CHARS:
            args = args[: _SUMMARY_CHARS - 1] + "…"
        parts.append(f"{call['name']}({args})")
    return "; ".join(parts)


def _way_out(finish: str | None) -> str:
    """How the model can end the run: only ever a tool it was offered."""
    if finish is None:
        return "answer in plain text with no tool call, giving your best answer"
    return f"call {finish} with your best answer"


def _cycle_message(
    block: Sequence[_Turn], period: int, repeats: int, finish: str | None
) -> str:
    calls = _describe([c for t in block for c in t.calls])
    span = "the same tool call" if period == 1 else f"the same {period}-turn sequence of tool calls"
    return (
        f"Progress check: you have made {span} {repeats} times in a row — {calls} — and the "
        "results did not change. Repeating it again will not make progress. Take a different "
        "approach (other arguments, another tool, or reason from what you already have), or "
        f"{_way_out(finish)}. If you are waiting for something to finish, back off: its result "
        "has stayed identical."
    )


def _streak_message(turns: Sequence[_Turn], finish: str | None) -> str:
    calls = _describe([c for t in turns for c in t.calls])
    return (
        f"Progress check: every tool call in your last {len(turns)} turns failed — {calls}. "
        "Read the error messages, then take a different approach (fix the arguments, use "
        f"another tool), or {_way_out(finish)}."
    )
