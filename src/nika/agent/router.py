"""Per-turn tool routing: offer the model the tools this turn needs (issue #5).

Injecting every schema every turn crowds the context and degrades tool selection at scale, so
the loop asks a `ToolRouter` each turn which of the whitelisted definitions to offer. The
router is deterministic, makes no model call and has no YAML surface; `AgentConfig` tunes it:

* `route_threshold` (24): below this many whitelisted definitions every definition is offered,
  in universe order, every turn (mode `passthrough`): a stable tool list keeps provider prompt
  caches warm and a small universe does not crowd anything.
* `top_k` (12): at or above the threshold, the definitions are ranked with BM25 (`nika.bm25`)
  against the live context (task prompt + last assistant text + last tool observations), and
  the top `top_k` are offered together with the pinned intrinsics (`nika:done`,
  `nika:compose`, ...) and every tool called in the last `recent_turns` (2) turns (mode
  `ranked`). A tool in mid-use never disappears, and the model can always finish.
* Fail open: when the context shares no term with any definition, the ranking carries no
  signal, so the whole universe is offered (mode `fail_open`): a blind model is worse than a
  crowded one.

Offered definitions always keep universe order, never rank order, so the request changes only
where the selection does. The BM25 index is built once per run, over each definition's name
(split on `:/_-.` and camelCase), description, and parameter names and descriptions; the
parameter text lifts top-12 recall on the synthetic universes of `bench/router_bench.py`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from nika.agent.config import AgentConfig
from nika.agent.seams import ToolDefinition
from nika.bm25 import BM25Index, terms, tokenize

RouteMode = Literal["passthrough", "ranked", "fail_open"]


@dataclass(frozen=True, slots=True)
class RouteContext:
    """What the router ranks against this turn."""

    prompt: str
    last_assistant_text: str
    last_observations: tuple[str, ...]
    recent_tools: frozenset[str]
    """Tools called in the last `config.recent_turns` turns."""


@dataclass(frozen=True, slots=True)
class RoutingDecision:
    """What the router offered this turn, and why (the `ToolsSelected` event's payload)."""

    offered: tuple[ToolDefinition, ...]
    """In universe order, never rank order."""
    universe: int
    """Size of the whitelisted universe."""
    by_source: Mapping[str, int]
    """Counts of OFFERED definitions by source; `builtin`, `mcp` and `other` always present."""
    mode: RouteMode


def document_text(definition: ToolDefinition) -> str:
    """The text a definition is indexed by: name, description, parameter names and their
    descriptions (top-level properties, in sorted order)."""
    parts = [definition.name, definition.description]
    properties = definition.parameters.get("properties")
    if isinstance(properties, Mapping):
        for key in sorted(properties, key=str):
            parts.append(str(key))
            schema: Any = properties[key]
            if isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
                parts.append(schema["description"])
    return "\n".join(parts)


def context_terms(ctx: RouteContext) -> set[str]:
    """The distinct terms of the live context."""
    found = terms(ctx.prompt)
    found |= terms(ctx.last_assistant_text)
    for observation in ctx.last_observations:
        found |= terms(observation)
    return found


def _by_source(offered: Sequence[ToolDefinition]) -> dict[str, int]:
    counts = {"builtin": 0, "mcp": 0, "other": 0}
    for definition in offered:
        counts[definition.source] += 1
    return counts


class ToolRouter:
    """Chooses each turn's offered definitions from a fixed, whitelisted universe."""

    def __init__(
        self,
        universe: Sequence[ToolDefinition],
        config: AgentConfig,
        *,
        pinned: Collection[str] = (),
    ) -> None:
        self._universe = tuple(universe)
        self._config = config
        self._names = frozenset(d.name for d in self._universe)
        self._pinned = frozenset(pinned) & self._names
        self._index: BM25Index | None = None
        if len(self._universe) >= config.route_threshold:
            self._index = BM25Index.build(
                (d.name, tokenize(document_text(d))) for d in self._universe
            )

    def select(self, ctx: RouteContext) -> RoutingDecision:
        """The definitions to offer this turn."""
        if self._index is None:
            return self._decision(self._universe, "passthrough")
        top = self._index.top_k(context_terms(ctx), self._config.top_k)
        if not top:
            return self._decision(self._universe, "fail_open")
        chosen = {d.name for d in top} | self._pinned | (ctx.recent_tools & self._names)
        return self._decision(tuple(d for d in self._universe if d.name in chosen), "ranked")

    def _decision(self, offered: tuple[ToolDefinition, ...], mode: RouteMode) -> RoutingDecision:
        return RoutingDecision(offered, len(self._universe), _by_source(offered), mode)
