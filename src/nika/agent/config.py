"""`AgentConfig`: engine-internal tuning of the loop, set by the embedder, never by YAML."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentConfig:
    """Production defaults for the loop's intelligence layer.

    Stall guard: `guard_window` signatures are scanned for back-to-back cycles; `nudge_after`
    repeats inject one corrective message (at most `max_reflections` per run); `stall_after`
    repeats stop the loop (`NIKA-AGENT-006`). `error_streak` all-error turns also earn the
    corrective message (None = `nudge_after`).

    Router: below `route_threshold` whitelisted tools all pass through; at or above it the
    BM25 top `top_k` plus pinned intrinsics plus tools used in the last `recent_turns` turns
    are offered.

    `default_max_turns` applies when the task declares no `max_turns` (spec 02: 10);
    `default_max_tokens_total` when it declares no `max_tokens_total` (None = no token cap).
    `compose_max_bytes` caps a `nika:compose` draft before it reaches the parser.
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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
