"""`AgentConfig`: engine-internal tuning of the loop, set by the embedder, never by YAML."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from nika.agent.seams import Embedder

_FLOORS: Final = {
    "default_max_turns": 1,
    "default_max_tokens_total": 1,
    "guard_window": 2,
    "nudge_after": 2,
    "stall_after": 2,
    "max_reflections": 0,
    "error_streak": 1,
    "route_threshold": 0,
    "top_k": 1,
    "recent_turns": 0,
    "compose_max_bytes": 1,
    "tool_concurrency": 1,
}
"""The smallest meaningful value of each count (a repeat count starts at 2: one block seen
twice is the first repeat)."""

_OPTIONAL: Final = frozenset({"default_max_tokens_total", "error_streak"})
_HINTS: Final = {
    "nudge_after": " (a block seen twice is the first repeat); to switch nudges off, set "
    "max_reflections=0",
    "error_streak": " (None means: the same as nudge_after)",
    "default_max_tokens_total": " (None means: no token cap)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentConfig:
    """Production defaults for the loop's intelligence layer.

    Stall guard: `guard_window` signatures are scanned for back-to-back cycles; `nudge_after`
    repeats inject one corrective message (at most `max_reflections` per run); `stall_after`
    repeats stop the loop (`NIKA-AGENT-006`). `error_streak` all-error turns also earn the
    corrective message (None = `nudge_after`).

    Router: below `route_threshold` whitelisted tools all pass through; at or above it the
    BM25 top `top_k` plus pinned intrinsics plus tools used in the last `recent_turns` turns
    are offered. `embedder` (None: pure BM25, no model call) adds a semantic leg: BM25 and
    cosine ranks fused by reciprocal rank (`nika.agent.router`).

    `default_max_turns` applies when the task declares no `max_turns` (spec 02: 10);
    `default_max_tokens_total` when it declares no `max_tokens_total` (None = no token cap).
    `compose_max_bytes` caps a `nika:compose` draft before it reaches the parser.

    Values that cannot mean what they say are refused at construction (`ValueError` naming the
    field, the value and the fix): counts below their floor, a nudge that could never come
    before the stall (`nudge_after >= stall_after`), a bool where a count belongs.
    To switch the nudges off, set `max_reflections=0`.
    """

    default_max_turns: int = 10
    default_max_tokens_total: int | None = None
    guard_window: int = 16
    nudge_after: int = 3
    stall_after: int = 5
    max_reflections: int = 1
    error_streak: int | None = None
    route_threshold: int = 24
    top_k: int = 12
    recent_turns: int = 2
    compose_max_bytes: int = 256 * 1024
    tool_concurrency: int = 8
    embedder: Embedder | None = None

    def __post_init__(self) -> None:
        for name, floor in _FLOORS.items():
            value = getattr(self, name)
            if value is None and name in _OPTIONAL:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"AgentConfig.{name} must be an integer, got {value!r}")
            if value < floor:
                hint = _HINTS.get(name, "")
                raise ValueError(
                    f"AgentConfig.{name} must be at least {floor}, got {value}{hint}"
                )
        if self.embedder is not None and not isinstance(self.embedder, Embedder):
            raise ValueError(
                f"AgentConfig.embedder must be an Embedder (a `name` and `embed(texts)` "
                f"returning unit vectors) or None, got {self.embedder!r}"
            )
        if self.nudge_after >= self.stall_after:
            raise ValueError(
                f"AgentConfig.nudge_after ({self.nudge_after}) must be below stall_after "
                f"({self.stall_after}): the corrective nudge has to come before the loop is "
                "stopped; to switch nudges off, set max_reflections=0"
            )

    def as_dict(self) -> dict[str, Any]:
        """The settings as plain data (the embedder by its `name`)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["embedder"] = self.embedder.name if self.embedder is not None else None
        return out
