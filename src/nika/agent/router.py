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
where the selection does.

The BM25 index is built once per run, over each definition's name (split on `:/_-.` and
camelCase, counted twice), description, and parameter names and descriptions. The query is the
distinct terms of the context; a term found only in the observations weighs
`OBSERVATION_WEIGHT` (0.5), so a 2,000-token tool dump informs the ranking without drowning the
task. Each choice is measured by top-12 recall in `bench/router_bench.py` (1,000 tools):
identifier splitting beats whitespace splitting on 100-token contexts (0.55 -> 0.85), but on
2,000-token ones the identifiers of an observation dump match many tools (0.62 -> 0.55), which
the observation weight more than repairs (0.75). Parameter text costs a little on the synthetic
set, whose parameter descriptions are generic; the doubled name wins part of that back. It stays:
real schemas name what the model asks for (`repo`, `issue_number`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Final

from nika.agent.config import AgentConfig
from nika.agent.observe import RouteMode
from nika.agent.seams import ToolDefinition
from nika.bm25 import BM25Index, terms, tokenize

OBSERVATION_WEIGHT: Final = 0.5
"""Query weight of a term found only in the tool observations (see the module docstring)."""


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
    scores: Mapping[str, float] = field(default_factory=dict)
    """The BM25 score of each ranked pick, best first (empty unless `mode` is `ranked`):
    why a tool was offered. Pinned and recent tools that did not rank have no score."""


def document_text(definition: ToolDefinition) -> str:
    """The text a definition is indexed by: its name twice (the name is the most specific
    field; counting it twice is measured better in the bench), description, parameter names
    and their descriptions (top-level properties, in sorted order)."""
    parts = [definition.name, definition.name, definition.description]
    properties = definition.parameters.get("properties")
    if isinstance(properties, Mapping):
        for key in sorted(properties, key=str):
            parts.append(str(key))
            schema: Any = properties[key]
            if isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
                parts.append(schema["description"])
    return "\n".join(parts)


def context_query(ctx: RouteContext) -> dict[str, float]:
    """The weighted BM25 query of the live context: each distinct term of the prompt and the
    last assistant text weighs 1, a term found only in the observations `OBSERVATION_WEIGHT`."""
    primary = terms(ctx.prompt) | terms(ctx.last_assistant_text)
    return _weighted(primary, _observed_terms(ctx.last_observations))


def _observed_terms(observations: tuple[str, ...]) -> frozenset[str]:
    return frozenset().union(*map(terms, observations))


def _weighted(primary: AbstractSet[str], observed: AbstractSet[str]) -> dict[str, float]:
    query = dict.fromkeys(observed - primary, OBSERVATION_WEIGHT)
    query.update(dict.fromkeys(primary, 1.0))
    return query


def _by_source(offered: Sequence[ToolDefinition]) -> dict[str, int]:
    counts = {"builtin": 0, "mcp": 0, "other": 0}
    for definition in offered:
        counts[definition.source] += 1
    return counts


class ToolRouter:
    """Chooses each turn's offered definitions from a fixed, whitelisted universe.

    `pinned` names (the loop-served intrinsics) are offered on every ranked turn; `nika:done`
    is always among them when the universe holds it.
    """

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
        # `nika:done` is pinned whenever granted, whoever builds the router: the model must
        # always be able to finish.
        self._pinned = (frozenset(pinned) | {"nika:done"}) & self._names
        self._index: BM25Index | None = None
        # Tokenising is most of a small ranked turn: the prompt is the same every turn of a
        # run, and observations often repeat (no tool called), so their terms are kept, keyed
        # by their text. The query stays exactly `context_query(ctx)`.
        self._prompt: tuple[str, frozenset[str]] = ("", frozenset())
        self._observations: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
        if len(self._universe) >= config.route_threshold:
            self._index = BM25Index.build(
                (d.name, tokenize(document_text(d))) for d in self._universe
            )

    def select(self, ctx: RouteContext) -> RoutingDecision:
        """The definitions to offer this turn."""
        if self._index is None:
            return self._decision(self._universe, "passthrough")
        top = self._index.top_k(self._query(ctx), self._config.top_k)
        if not top:
            return self._decision(self._universe, "fail_open")
        chosen = {d.name for d in top} | self._pinned | (ctx.recent_tools & self._names)
        offered = tuple(d for d in self._universe if d.name in chosen)
        return RoutingDecision(offered, len(self._universe), _by_source(offered), "ranked",
                               {d.name: d.score for d in top})

    def _query(self, ctx: RouteContext) -> dict[str, float]:
        if ctx.prompt != self._prompt[0]:
            self._prompt = (ctx.prompt, frozenset(terms(ctx.prompt)))
        if ctx.last_observations != self._observations[0]:
            observations = ctx.last_observations
            self._observations = (observations, _observed_terms(observations))
        primary = self._prompt[1] | terms(ctx.last_assistant_text)
        return _weighted(primary, self._observations[1])

    def _decision(self, offered: tuple[ToolDefinition, ...], mode: RouteMode) -> RoutingDecision:
        return RoutingDecision(offered, len(self._universe), _by_source(offered), mode)
