"""The offer policy: how the ranked legs become the definitions offered this turn — the legs
fused by weighted reciprocal rank, a pick's prerequisites ranked in, and a tool's copies kept
from filling the head (the module docstring of `nika.agent.router` says why, with the
measurements beside each constant).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from nika.agent._prerequisites import local_name
from nika.agent.seams import ToolDefinition
from nika.analyzer import words
from nika.bm25 import ScoredDoc

RRF_K: Final = 10
"""Reciprocal rank fusion constant: rank r scores weight / (RRF_K + r). Chosen with
`SEMANTIC_WEIGHT` on the bench's dev split: Cormack et al.'s 60 flattens the head of each leg,
so a tool both legs rank middling beats one a leg ranks first, and all-gold recall@12 fell
below BM25 alone (ComplexFuncBench 0.80 -> 0.76, Glaive 0.92 -> 0.83); at 10 it rises above it
(0.84, 0.94). Measured again with the lexical leg's feedback and the clause-wise semantic leg
(k 2-60, weight 0.5-1.25, depth 30-300): 10 and 0.75 stay within 0.01 of the best. And again
with BFCL and the semantic leg's two views (k 5 and 10, weight 0.6-1.0): within 0.01 of the best
on each set's dev split. Ranking a tool's copies as one in each leg (a leg that ranks one tool
three times has found one tool) was measured too and loses BFCL points (dev 0.947 -> 0.929)."""
SEMANTIC_WEIGHT: Final = 0.75
"""The semantic leg's weight in the fusion (BM25's is 1)."""
FUSION_DEPTH: Final = 100
"""How deep each leg's ranking goes into the fusion."""
COPIES_MAX: Final = 2
"""At most this many copies of one tool (definitions whose names read the same words,
`copy_key`) rank among the first `top_k` while other definitions still score; the rest follow
them (see the module docstring)."""
COPIES_SPARE: Final = 24
"""How many definitions past `top_k` are ranked, when its head is crowded, to take the places
of the copies moved back (12 measured: BFCL's dev split 0.914 -> 0.909)."""
PREREQUISITE_WEIGHT: Final = 0.9
"""A prerequisite of a ranked definition ranks at this fraction of its dependent's score (or
at its own, if higher): chosen on the bench's dev split (0.5-1.0 measured)."""

CopyKey = tuple[str, ...]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[ScoredDoc]],
    k: int = RRF_K,
    *,
    weights: Sequence[float] | None = None,
) -> list[ScoredDoc]:
    """Names ranked by summed reciprocal rank (`weight / (k + rank)`, rank from 1, each
    ranking's weight 1 unless `weights` says) over `rankings` (each best first), best first,
    with their fused scores; a name absent from a ranking gains nothing from it; ties by name.
    Names of equal score in a ranking share their mean rank: their order there is only name
    order, which must not buy one of them a better fused rank (a feedback word shared by
    thirty definitions ties them all). Each name's terms are added in ranking order: the same
    bits every run."""
    fused: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        weight = 1.0 if weights is None else weights[i]
        start = 0
        while start < len(ranking):
            end = start + 1
            while end < len(ranking) and ranking[end].score == ranking[start].score:
                end += 1
            share = weight / (k + (start + 1 + end) / 2)  # ranks start+1 .. end
            for doc in ranking[start:end]:
                fused[doc.name] = fused.get(doc.name, 0.0) + share
            start = end
    return [ScoredDoc(n, fused[n]) for n in sorted(fused, key=lambda n: (-fused[n], n))]


def with_prerequisites(
    top: Sequence[ScoredDoc], requires: Mapping[str, Sequence[str]], k: int
) -> tuple[ScoredDoc, ...]:
    """`top` with the prerequisites of its picks ranked in (see `nika.agent._prerequisites`):
    a prerequisite scores `PREREQUISITE_WEIGHT` times the score of the pick that names it,
    transitively (a prerequisite's own prerequisites at that fraction of its score), or its
    own score if higher; the best `k`, ties by name. A definition outside `top` has no own
    score here: were its own score the higher one it could not outrank `top`'s k-th pick."""
    best = {d.name: d.score for d in top}
    pending = [d.name for d in top if d.name in requires]
    if not pending:
        return tuple(top[:k])
    while pending:
        name = pending.pop()
        share = PREREQUISITE_WEIGHT * best[name]
        for needed in requires.get(name, ()):
            if share > best.get(needed, 0.0):
                best[needed] = share
                pending.append(needed)
    ranked = sorted(best, key=lambda n: (-best[n], n))[:k]
    return tuple(ScoredDoc(n, best[n]) for n in ranked)


def copy_key(name: str) -> CopyKey:
    """The words a tool's name reads, without its server, case, separators or a trailing
    number: `mcp:a/get_weather`, `mcp:b/getWeather` and `get_weather#2` read get weather."""
    read = words(local_name(name))
    while len(read) > 1 and read[-1].isdigit():
        read.pop()
    return tuple(read)


def copies_of(universe: Iterable[ToolDefinition]) -> dict[str, CopyKey]:
    """The copy key of each definition that has a copy in `universe` (see `copy_key`)."""
    keys = {d.name: copy_key(d.name) for d in universe}
    counts = Counter(keys.values())
    return {name: key for name, key in keys.items() if counts[key] > 1}


def crowded(ranked: Sequence[ScoredDoc], copies: Mapping[str, CopyKey]) -> bool:
    """Whether `ranked` holds more than `COPIES_MAX` copies of one tool."""
    if not copies:
        return False
    seen: dict[CopyKey, int] = {}
    for doc in ranked:
        if (key := copies.get(doc.name)) is not None:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > COPIES_MAX:
                return True
    return False


def without_crowding(
    ranked: Sequence[ScoredDoc], copies: Mapping[str, CopyKey], k: int
) -> tuple[ScoredDoc, ...]:
    """The first `k` of `ranked` with each tool's copies beyond the `COPIES_MAX` best moved
    after every other definition of `ranked`, in their own order (see the module
    docstring)."""
    if not copies:
        return tuple(ranked[:k])
    seen: dict[CopyKey, int] = {}
    first: list[ScoredDoc] = []
    later: list[ScoredDoc] = []
    for doc in ranked:
        key = copies.get(doc.name)
        if key is not None:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > COPIES_MAX:
                later.append(doc)
                continue
        first.append(doc)
        if len(first) == k:
            break
    return tuple([*first, *later][:k])
