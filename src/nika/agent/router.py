"""Per-turn tool routing: offer the model the tools this turn needs (issues #5, #16).

Injecting every schema every turn crowds the context and degrades tool selection at scale, so
the loop asks a `ToolRouter` each turn which of the whitelisted definitions to offer. The
router is deterministic and has no YAML surface; by default it makes no model call.
`AgentConfig` tunes it:

* `route_threshold` (24): below this many whitelisted definitions every definition is offered,
  in universe order, every turn (mode `passthrough`, reason `below_threshold`): a stable tool
  list keeps provider prompt caches warm and a small universe does not crowd anything.
* `top_k` (12): at or above the threshold, the definitions are ranked against the live context
  and the top `top_k` are offered together with the pinned intrinsics (`nika:done`,
  `nika:compose`, ...) and every tool called in the last `recent_turns` (2) turns (mode
  `ranked`, reason `bm25`, or `fused` with the semantic leg). A tool in mid-use never
  disappears, and the model can always finish.
* Fail open: when the context shares no term with any definition, the ranking carries no
  signal, so the whole universe is offered (mode and reason `fail_open`, both in the
  `ToolsSelected` event and so in the trace): a blind model is worse than a crowded one. Small
  talk ("thanks", "hey") is all filler and fails open by this rule.

Offered definitions always keep universe order, never rank order, so the request changes only
where the selection does.

**The index** (`nika.bm25`, built once per run) has four BM25F fields, weighted
`FIELD_WEIGHTS`: the name (split on `:/_-.` and camelCase), the description, the parameter
names and descriptions, and, weighted low, the subword terms of all three (character bigrams of
words in spaced scripts other than Latin, `nika.analyzer.subwords`: an Arabic imperative meets
the noun of its root instead of failing open). Terms come from `nika.analyzer` (Unicode
segmentation with CJK and Thai bigrams, chat-filler stop terms, compounds, Snowball stems), the
same for tools and contexts.

**Prerequisites.** A parameter description that names another tool of the same server ("the
`hotel_id` from **Search Hotels**") makes that tool a prerequisite (`nika.agent._prerequisites`,
found once per run). A pick's prerequisites rank at `PREREQUISITE_WEIGHT` times its score,
transitively, or at their own score if higher (`with_prerequisites`): a model offered
`Get_Hotel_Details` is offered the search that yields its `hotel_id` in the same turn, where it
would otherwise lose a turn (measured on the bench's dev split, ComplexFuncBench's all-gold
recall@12: 0.42 -> 0.80). Their score is what `RoutingDecision.scores` reports for them.

**Copies.** A universe can list one tool several times: two servers exposing the same
`get_weather`, a server's `search` beside its `search_2`, a pooled benchmark's variants of one
function. Definitions whose names read the same words (`copy_key`: without server, case,
separators or a trailing number) are copies, and they score alike, so a request for that tool
would fill the offer with them and leave no room for the rest of what it needs. At most
`COPIES_MAX` copies of one tool rank among the first `top_k`; the others follow every other
definition that scored (`without_crowding`; a crowded head is ranked `COPIES_SPARE` deeper
first, for definitions to take the copies' places). Two, not one: copies from two servers are
a real choice (`mcp:github/create_issue`, `mcp:gitlab/create_issue`). Measured on BFCL in
`bench/router_bench.py` (its 2,405 definitions are 1,287 names, a function repeated with
small variations): all-gold recall@12 0.87 -> 0.91 on dev, 0.87 -> 0.90 held out; one copy
gains a point more there but costs the multilingual set 5 points on dev; NESTFUL and the
multilingual set do not move.

**Feedback.** The best match shares the vocabulary of the tools a request needs beside it
(the airport lookup of a flight search, the exchange rate a "conversion rate" means), so when
the ranking's head is confident the context is ranked again with that match's most
distinctive words added (`nika.agent._feedback`, pseudo-relevance feedback), alone and as
the fused ranking's lexical leg.

**The query** is the distinct terms of the live context, each at the largest weight of the
parts it appears in. Newest text up, standing text down:

* 1.0: the request (the prompt's last paragraph: in a chat transcript or behind a system-style
  preamble, the newest user text comes last) and the last assistant text, with their subword
  terms;
* `PREAMBLE_WEIGHT` (0.25): the prompt's earlier paragraphs, the standing preamble that is the
  same every turn and names every capability the agent has;
* `OBSERVATION_WEIGHT` (0.5): the last tool observations, so a 2,000-token tool dump informs
  the ranking without drowning the task.

A one-paragraph prompt is all request. Measured in `bench/router_bench.py` (dev split): the
preamble weight lifts the multilingual set's MRR from 0.91 to 0.93 at 0.25 (0.1 changes nothing
more). Ranking each clause of a multi-intent request apart and merging the rankings
round-robin was measured too (the bench keeps the row) and lowers all-gold recall on NESTFUL
(dev 0.53 -> 0.38; keeping the first nine of the whole-context ranking and adding each clause's
best, 0.47-0.50), so the whole context is ranked as one query.

**Extensions.** A word of the newest text that no definition has, `EXTENSION_MIN` letters or
longer, also adds, at the same weight, the indexed words it begins with at most
`EXTENSION_SUFFIX` more letters (`tour` meets `tourist`, `rent` meets `rental`: derivations the
stemmer keeps apart). Only a word the universe lacks is extended, so the rule never changes
what an indexed word matches. Measured in `bench/router_bench.py`: on the dev split
ComplexFuncBench's all-gold recall@12 rises from 0.81 to 0.85 (two template families: "tour"
meets its "tourist attractions", "rent a car" its "car rental"); held out and on the other sets
nothing moves.

**The semantic leg** (off by default): with `AgentConfig.embedder` set, each definition is
embedded once per run as two views (`embedding_texts`): its name (split into words) with its
description, and its name without the server with its description and parameter text; and
each turn the request and the last assistant text, whole and clause by clause
(`nika.agent._semantic`: a definition scores its best cosine between either view and any of
them; observations and the preamble are left to BM25). Parameters say what a tool needs
("origin", "date of travel", "ticker symbol"), which a request names; one view with them
would let a long parameter list drown a short description (measured with them in the only
view: BFCL's semantic leg alone rises, NESTFUL's falls, all-gold recall@12 on its dev split
0.50 -> 0.43), and the better of two views lifts both: alone, BFCL 0.86 -> 0.89 on dev (held
out 0.84 -> 0.87), NESTFUL 0.50 -> 0.54 (0.49 -> 0.53); fused, BFCL 0.941 -> 0.947 on dev (held
out 0.931 -> 0.940), NESTFUL dev 0.912 -> 0.910 (held out 0.828 -> 0.819, ComplexFuncBench's
templates: about one family of them), the multilingual set unchanged. The `FUSION_DEPTH` best
of each leg are fused by weighted reciprocal rank (`reciprocal_rank_fusion`, `RRF_K`,
`SEMANTIC_WEIGHT`); the lexical leg is the BM25 ranking
with its feedback, the one BM25 alone would offer. Measured in `bench/router_bench.py`:
fused with BM25 before its feedback and on the whole request only, the leg lost to BM25 alone
(NESTFUL all-gold recall@12 held out 0.78 against 0.82); with both it was above it (dev 0.85
-> 0.92, held out 0.78 -> 0.86); retuning BM25 for BFCL (name weight 2, feedback at a quarter
weight) then moved the fused NESTFUL recall, one view per definition, to dev 0.91 and held out
0.83 (BM25 alone 0.85 and 0.81). A text the embedder maps to the zero vector (one it cannot
read, such as Chinese for an English-only model: `nika.agent.embed`) is ranked by BM25 alone
(reason `bm25`). Fail-open and the union with pinned and recent tools are unchanged: BM25
alone decides whether the context carries any signal.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Final

from nika.agent._feedback import Feedback
from nika.agent._offer import (
    COPIES_MAX,
    COPIES_SPARE,
    FUSION_DEPTH,
    PREREQUISITE_WEIGHT,
    RRF_K,
    SEMANTIC_WEIGHT,
    CopyKey,
    copies_of,
    copy_key,
    crowded,
    reciprocal_rank_fusion,
    with_prerequisites,
    without_crowding,
)
from nika.agent._prerequisites import prerequisites
from nika.agent._query import (
    BM25_B,
    BM25_K1,
    EXTENSION_MIN,
    EXTENSION_SUFFIX,
    FIELD_WEIGHTS,
    OBSERVATION_WEIGHT,
    PREAMBLE_WEIGHT,
    RouteContext,
    context_query,
    document_fields,
    embedding_texts,
    extensions,
    observed_terms,
    parameter_text,
    split_prompt,
    tokenize_words,
    weighted,
    with_subwords,
)
from nika.agent._semantic import SemanticLeg
from nika.agent.config import AgentConfig
from nika.agent.observe import RouteMode, RouteReason
from nika.agent.seams import ToolDefinition
from nika.analyzer import terms
from nika.bm25 import BM25Index, ScoredDoc

__all__ = [
    "BM25_B",
    "BM25_K1",
    "COPIES_MAX",
    "COPIES_SPARE",
    "CopyKey",
    "EXTENSION_MIN",
    "EXTENSION_SUFFIX",
    "FIELD_WEIGHTS",
    "FUSION_DEPTH",
    "OBSERVATION_WEIGHT",
    "PREAMBLE_WEIGHT",
    "PREREQUISITE_WEIGHT",
    "RRF_K",
    "RouteContext",
    "RoutingDecision",
    "SEMANTIC_WEIGHT",
    "ToolRouter",
    "context_query",
    "copies_of",
    "copy_key",
    "crowded",
    "document_fields",
    "embedding_texts",
    "extensions",
    "parameter_text",
    "reciprocal_rank_fusion",
    "split_prompt",
    "tokenize_words",
    "with_prerequisites",
    "without_crowding",
]

_EXTENSION_MEMO_MAX: Final = 1 << 16


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
    reason: RouteReason
    scores: Mapping[str, float] = field(default_factory=dict)
    """The ranking score of each ranked pick, in rank order (empty unless `mode` is `ranked`):
    best first, but for a tool's copies beyond `COPIES_MAX`, which follow the other picks;
    why a tool was offered. BM25 (of the query with its feedback words, when the head fed
    back), or the fused score when `reason` is `fused`; a prerequisite ranked in by a pick
    scores `PREREQUISITE_WEIGHT` times that pick's score. Pinned and recent tools that did not
    rank have no score."""


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
        self._feedback: Feedback | None = None
        self._semantic: SemanticLeg | None = None
        self._prerequisites: dict[str, tuple[str, ...]] = {}
        self._copies: dict[str, CopyKey] = {}
        # Tokenising is most of a small ranked turn: the prompt is the same every turn of a
        # run, and observations often repeat (no tool called), so their terms are kept, keyed
        # by their text. The query stays exactly `context_query(ctx)` with its extensions.
        self._prompt: tuple[str, frozenset[str], frozenset[str], str, frozenset[str]] = (
            "", frozenset(), frozenset(), "", frozenset()
        )
        self._observations: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
        self._extensions: dict[str, tuple[str, ...]] = {}
        if len(self._universe) >= config.route_threshold:
            fields = {d.name: document_fields(d) for d in self._universe}
            self._index = BM25Index.build_fields(
                fields.items(), weights=FIELD_WEIGHTS, k1=BM25_K1, b=BM25_B
            )
            self._feedback = Feedback(self._index, fields.items())
            self._prerequisites = prerequisites(self._universe)
            self._copies = copies_of(self._universe)
            if config.embedder is not None:
                by_name: dict[str, ToolDefinition] = {d.name: d for d in self._universe}
                self._semantic = SemanticLeg(
                    config.embedder,
                    self._index.names,
                    [embedding_texts(by_name[n]) for n in self._index.names],
                )

    def select(self, ctx: RouteContext) -> RoutingDecision:
        """The definitions to offer this turn."""
        if self._index is None:
            return self._decision(self._universe, "passthrough", "below_threshold")
        top, reason = self._ranked(ctx)
        if not top:
            return self._decision(self._universe, "fail_open", "fail_open")
        chosen = {d.name for d in top} | self._pinned | (ctx.recent_tools & self._names)
        offered = tuple(d for d in self._universe if d.name in chosen)
        return RoutingDecision(offered, len(self._universe), _by_source(offered), "ranked",
                               reason, {d.name: d.score for d in top})

    def rank(self, ctx: RouteContext) -> list[str]:
        """The best `config.top_k` names for this context, best first; empty when the context
        shares no term with any definition (the router then fails open) or the universe is
        under the routing threshold (it passes through)."""
        return [d.name for d in self.scored(ctx)]

    def scored(self, ctx: RouteContext) -> tuple[ScoredDoc, ...]:
        """`rank` with each pick's score (BM25, or the fused score with the semantic leg)."""
        return self._ranked(ctx)[0] if self._index is not None else ()

    def _ranked(self, ctx: RouteContext) -> tuple[tuple[ScoredDoc, ...], RouteReason]:
        """The scored picks and how they were ranked: `fused` only when the semantic leg had
        something to say (an embedder maps a text it cannot read to the zero vector)."""
        assert self._index is not None
        top_k = self._config.top_k
        query = self._query(ctx)
        semantic_text = "\n".join(t for t in (self._prompt[3], ctx.last_assistant_text) if t)
        semantic: Sequence[ScoredDoc] = ()
        if self._semantic is not None and semantic_text.strip():
            lexical = self._lexical(query, FUSION_DEPTH)
            if lexical:  # else: no term in common, fail open without embedding anything
                semantic = self._semantic.ranking(semantic_text, FUSION_DEPTH)
        if not semantic:
            ranked = self._lexical(query, top_k, COPIES_SPARE)
            if len(ranked) <= top_k:
                return with_prerequisites(ranked, self._prerequisites, top_k), "bm25"
            top = with_prerequisites(ranked, self._prerequisites, len(ranked))
            return without_crowding(top, self._copies, top_k), "bm25"
        fused = reciprocal_rank_fusion(
            [lexical, semantic], RRF_K, weights=(1.0, SEMANTIC_WEIGHT)
        )
        depth = top_k + COPIES_SPARE if crowded(fused[:top_k], self._copies) else top_k
        top = with_prerequisites(fused[:depth], self._prerequisites, depth)
        return without_crowding(top, self._copies, top_k), "fused"

    def _lexical(
        self, query: Mapping[str, float], k: int, spare: int = 0
    ) -> tuple[ScoredDoc, ...]:
        """The BM25 ranking of `query`, ranked again with feedback when its head is confident
        (`nika.agent._feedback`): alone, and as the fusion's lexical leg. Its best `k`, or
        `spare` more when those hold more than `COPIES_MAX` copies of a tool: the definitions
        that take the places of the copies moved back (`without_crowding`)."""
        assert self._index is not None
        scoring = self._index.scoring(query)
        top = scoring.top_k(k)
        # Deeper only when crowded (a universe rarely lists a tool three times); feedback
        # seldom uncrowds a head, so its ranking goes deep at once when the first was crowded.
        deep = spare > 0 and crowded(top, self._copies)
        more = self._feedback.words(query, top) if self._feedback is not None else None
        if more is not None:
            scoring = scoring.plus(more)
            top = scoring.top_k(k + spare if deep else k)
            deep = not deep and spare > 0 and crowded(top, self._copies)
        return scoring.top_k(k + spare) if deep else top

    def _query(self, ctx: RouteContext) -> dict[str, float]:
        assert self._index is not None
        if ctx.prompt != self._prompt[0]:
            preamble, request = split_prompt(ctx.prompt)
            asked = frozenset(terms(request))
            self._prompt = (ctx.prompt, asked, frozenset(terms(preamble)), request,
                            self._extended(asked))
        if ctx.last_observations != self._observations[0]:
            observations = ctx.last_observations
            self._observations = (observations, observed_terms(observations))
        said = terms(ctx.last_assistant_text)
        newest = with_subwords(self._prompt[1] | said) | self._prompt[4]
        if said:
            newest |= self._extended(said)
        return weighted(newest, self._prompt[2], self._observations[1])

    def _extended(self, words: AbstractSet[str]) -> frozenset[str]:
        """The extensions of `words` (`extensions`), memoised per router: the universe is
        fixed, and requests repeat their words turn after turn."""
        assert self._index is not None
        memo = self._extensions
        if len(memo) >= _EXTENSION_MEMO_MAX:
            memo.clear()
        found: list[str] = []
        for word in words:
            longer = memo.get(word)
            if longer is None:
                longer = memo[word] = extensions(word, self._index)
            found.extend(longer)
        return frozenset(found)

    def _decision(
        self, offered: tuple[ToolDefinition, ...], mode: RouteMode, reason: RouteReason
    ) -> RoutingDecision:
        return RoutingDecision(offered, len(self._universe), _by_source(offered), mode, reason)
