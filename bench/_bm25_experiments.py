"""BM25-alone router variants measured for issue 16 and not shipped, for `_quality.py`'s
experiments table (each ranks the same pools as the shipped router; dev decides, held-out is
reported). Each is built from `ToolRouter` and changes one step; the figures are all-gold
recall@12 as first measured against the shipped router (dev, then held-out):

* coverage: the head of the ranking re-ranked so that no one request word fills it (a
  candidate loses part of a request word's weight once more than six better candidates hold
  the word, 1 - 0.4^n for the n-th beyond them; 24 candidates). Better on both splits (NESTFUL
  0.849 -> 0.853 and 0.815 -> 0.819, RapidAPI 0.72 -> 0.78 and 0.63 -> 0.65, Glaive 0.92 ->
  0.93 and 0.93 -> 0.94), and the same when only the candidates' names are compared, but
  even that version, with the head checked first, costs 15-50 µs a turn on the router bench's
  100-word contexts (the latency section's ratio to the seed 1.3x -> 1.55-1.65x, over the
  1.5x limit): not shipped;
* prerequisites that add their own score to their share of the dependent's (own + 0.5 x
  dependent, at least 0.6 x dependent) instead of the higher of the two: dev ComplexFuncBench
  0.85 -> 0.91 (RapidAPI 0.72 -> 0.69), held out 0.81 -> 0.77: the dev gain is four of its
  template families, it does not carry over;
* RM3-style feedback from the best three definitions within 80% of the best, weighed by score,
  instead of a confident head of at most two: dev NESTFUL MRR 0.80 -> 0.74, recall no better;
* feedback from the best definition whatever ties it: dev RapidAPI 0.72 -> 0.78, held out
  0.63 -> 0.51 (the tie rule of `nika.agent._feedback` is what keeps it);
* query term frequency: a request word said n times weighs 2n / (1 + n) (BM25's k3 = 1): dev
  NESTFUL 0.849 -> 0.837.

Measured and not in the table (it needs a per-field b the index does not have): a name field
normalised less than the others (b 0.3 against 0.9): dev RapidAPI 0.72 -> 0.78, held out
0.63 -> 0.61 and ComplexFuncBench 0.81 -> 0.78.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from nika.agent._feedback import FEEDBACK_TERMS, FEEDBACK_WEIGHT, Feedback
from nika.agent.config import AgentConfig
from nika.agent.router import RouteContext, ToolRouter, document_fields, split_prompt
from nika.agent.seams import ToolDefinition
from nika.analyzer import tokenize
from nika.bm25 import ScoredDoc

Ranker = Callable[[RouteContext], list[str]]


def _request(query: Mapping[str, float]) -> frozenset[str]:
    return frozenset(t for t, w in query.items() if w >= 1.0)


class _Coverage(ToolRouter):
    FREE, DECAY, DEPTH = 6, 0.4, 2

    def _lexical(
        self, query: Mapping[str, float], k: int, spare: int = 0
    ) -> tuple[ScoredDoc, ...]:
        assert self._index is not None
        ranked = super()._lexical(query, self.DEPTH * k, spare)
        request = _request(query)
        weights: dict[str, dict[str, float]] = {}

        def weight(term: str, name: str) -> float:
            if term not in weights:
                assert self._index is not None
                weights[term] = self._index.scores([term])
            return weights[term].get(name, 0.0)

        held = [[t for t in sorted(request) if weight(t, d.name)] for d in ranked]
        before: Counter[str] = Counter()
        scored = []
        for doc, words in zip(ranked, held, strict=True):
            discount = 0.0
            for word in words:
                beyond = before[word] - self.FREE
                before[word] += 1
                if beyond > 0:
                    discount += weight(word, doc.name) * (1.0 - self.DECAY**beyond)
            scored.append(ScoredDoc(doc.name, doc.score - discount))
        # `spare` more, as the shipped ranking gives them: the copies rule's candidates.
        return tuple(sorted(scored, key=lambda d: (-d.score, d.name))[: k + spare])


class _AdditivePrerequisites(ToolRouter):
    OWN_SHARE, FLOOR = 0.5, 0.6

    def __init__(self, universe: Sequence[ToolDefinition], config: AgentConfig) -> None:
        super().__init__(universe, config)
        self._requires, self._prerequisites = self._prerequisites, {}

    def _lexical(
        self, query: Mapping[str, float], k: int, spare: int = 0
    ) -> tuple[ScoredDoc, ...]:
        assert self._index is not None
        own = {d.name: d.score for d in super()._lexical(query, len(self._index))}
        best = {name: own[name] for name in list(own)[:k]}
        pending = [name for name in best if name in self._requires]
        while pending:
            name = pending.pop()
            for needed in self._requires.get(name, ()):
                share = max(own.get(needed, 0.0) + self.OWN_SHARE * best[name],
                            self.FLOOR * best[name])
                if share > best.get(needed, 0.0):
                    best[needed] = share
                    pending.append(needed)
        ranked = sorted(best, key=lambda n: (-best[n], n))[:k]
        # `spare` more, in their own order: the copies rule's candidates.
        ranked += [n for n in own if n not in best][:spare]
        return tuple(ScoredDoc(n, best[n] if n in best else own[n]) for n in ranked)


class _RM3(Feedback):
    DOCS, SHARE = 3, 0.8

    def words(
        self, query: Mapping[str, float], top: Sequence[ScoredDoc]
    ) -> dict[str, float] | None:
        if not top:
            return None
        request = _request(query)
        head = [d for d in top[: self.DOCS] if d.score >= self.SHARE * top[0].score
                and self._own[d.name] & request]
        total = sum(d.score for d in head)
        gained: dict[str, float] = {}
        for d in head:
            for term, weight in self._words[d.name]:
                if term not in query:
                    gained[term] = gained.get(term, 0.0) + weight * d.score / total
        chosen = sorted(gained, key=lambda t: (-gained[t], t))[:FEEDBACK_TERMS]
        return dict.fromkeys(chosen, FEEDBACK_WEIGHT) if chosen else None


class _BestAlone(Feedback):
    def words(
        self, query: Mapping[str, float], top: Sequence[ScoredDoc]
    ) -> dict[str, float] | None:
        return super().words(query, top[:1])


class _QueryTermFrequency(ToolRouter):
    def _query(self, ctx: RouteContext) -> dict[str, float]:
        query = super()._query(ctx)
        for term, n in Counter(tokenize(split_prompt(ctx.prompt)[1])).items():
            if n > 1 and query.get(term) == 1.0:
                query[term] = 2 * n / (1 + n)
        return query


def _feedback(kind: type[Feedback]) -> Callable[[list[ToolDefinition]], Ranker]:
    def make(pool: list[ToolDefinition]) -> Ranker:
        router = ToolRouter(pool, AgentConfig())
        assert router._index is not None
        router._feedback = kind(router._index, [(d.name, document_fields(d)) for d in pool])
        return router.rank

    return make


EXPERIMENTS: dict[str, Callable[[list[ToolDefinition]], Ranker]] = {
    "after, BM25, coverage re-ranking (not shipped: latency)":
        lambda pool: _Coverage(pool, AgentConfig()).rank,
    "after, BM25, additive prerequisites (not shipped)":
        lambda pool: _AdditivePrerequisites(pool, AgentConfig()).rank,
    "after, BM25, RM3 feedback from the top 3 (not shipped)": _feedback(_RM3),
    "after, BM25, feedback from the best alone (not shipped)": _feedback(_BestAlone),
    "after, BM25, query term frequency (not shipped)":
        lambda pool: _QueryTermFrequency(pool, AgentConfig()).rank,
}  # fmt: skip
"""Label -> a ranker built for one pool."""
