"""Pseudo-relevance feedback: a confident best match lends the query its own words.

A request names what it wants in its own words, and often only one of the tools it needs
shares them: "flights from New York to London and hotels there" meets the flight search and
the hotel search, not the airport and location lookups their inputs come from, nor
"conversion rate" the tool described as an "exchange rate". The definition that ranks first
does share the vocabulary of its siblings. So, as RM3-style feedback does with its top
documents, the router ranks a second time with the best match's most distinctive words added
to the query at `FEEDBACK_WEIGHT` (their scores added to the first ranking's,
`nika.bm25.Scoring.plus`).

Which definitions feed back (`Feedback.words`):

* those scoring within `FEEDBACK_MARGIN` of the best one, at most `FEEDBACK_DOCS`, all of one
  server: when more tie at the top, the query did not single out a tool, and which of them
  ranks first is only name order; when tools of two servers tie, the request has two intents
  ("the time in Tokyo, then the git log"), and one intent's siblings would crowd out the
  other's tools;
* each of which shares a whole term of the request with its own text (its name without the
  server's, description, parameters): a match by the server's name alone ("Slack") or by
  subword terms alone is too weak to say what the request is about, and feeding it back
  would only pull in that match's near-duplicates.

A definition's feedback words are the terms of its name (without the server's) and its
description, each weighed by its share of those terms times its idf; weights are summed over
the feeding definitions and the best `FEEDBACK_TERMS` per feeding definition are added,
unless the query has them already. Measured in `bench/router_bench.py` (chosen on the dev
splits): all-gold recall@12 on NESTFUL rises from 0.845 to 0.849 on dev (RapidAPI 0.64 ->
0.69) and from 0.782 to 0.813 held out (RapidAPI 0.49 -> 0.63, above the seed's 0.57); on
BFCL, whose requests mostly need one tool, it moves dev 0.919 -> 0.914 and held out 0.896 ->
0.901. At half weight (its first value) NESTFUL's dev split gained more (0.863), but BFCL's
dev split lost (0.906) and so did NESTFUL held out (0.796): words that outweigh half a request
word drag the best match's neighbours into a short single-intent request's offer.
Without the own-word and
margin conditions the multilingual set loses queries held out.

Deterministic: words are ranked by (-weight, term), feeding definitions in rank order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from nika.agent._prerequisites import local_name, server_of
from nika.analyzer import tokenize
from nika.bm25 import BM25Index, ScoredDoc

FEEDBACK_WEIGHT: Final = 0.25
"""Query weight of an added word (a request term weighs 1)."""
FEEDBACK_TERMS: Final = 8
"""Words added per feeding definition."""
FEEDBACK_MARGIN: Final = 1.05
"""A definition feeds back when its score times this exceeds the best score."""
FEEDBACK_DOCS: Final = 2
"""More definitions within the margin than this: no feedback (the top is a tie)."""


class Feedback:
    """Each definition's feedback words and own terms, computed once per index."""

    def __init__(
        self, index: BM25Index, fields: Iterable[tuple[str, Sequence[Sequence[str]]]]
    ) -> None:
        """`fields`: (name, fields) of each definition, fields starting with its name,
        description and parameter terms (the router's `document_fields`)."""
        self._words: dict[str, tuple[tuple[str, float], ...]] = {}
        self._own: dict[str, frozenset[str]] = {}
        for name, (_, description, parameters, *_rest) in fields:
            server = frozenset(tokenize(server_of(name)))
            bag = [*tokenize(local_name(name)), *description]
            self._own[name] = frozenset((*bag, *parameters)) - server
            self._words[name] = _weighed(bag, index)

    def words(
        self, query: Mapping[str, float], top: Sequence[ScoredDoc]
    ) -> dict[str, float] | None:
        """The feedback words of `top`'s confident head that `query` lacks, at their weight
        (see the module docstring); None when no definition qualifies."""
        if not top:
            return None
        best = top[0].score
        head = [d.name for d in top[: FEEDBACK_DOCS + 1] if d.score * FEEDBACK_MARGIN > best]
        if len(head) > FEEDBACK_DOCS or len({server_of(name) for name in head}) > 1:
            return None
        request = {t for t, w in query.items() if w >= 1.0}
        if not all(self._own[name] & request for name in head):
            return None
        gained: dict[str, float] = {}
        for name in head:
            for term, weight in self._words[name]:
                if term not in query:
                    gained[term] = gained.get(term, 0.0) + weight
        chosen = sorted(gained, key=lambda t: (-gained[t], t))[: FEEDBACK_TERMS * len(head)]
        if not chosen:
            return None
        return dict.fromkeys(chosen, FEEDBACK_WEIGHT)


def _weighed(bag: Sequence[str], index: BM25Index) -> tuple[tuple[str, float], ...]:
    """The distinct terms of `bag` with their feedback weight (share of the bag times idf),
    best first, ties by term."""
    if not bag:
        return ()
    counts: dict[str, int] = {}
    for term in bag:
        counts[term] = counts.get(term, 0) + 1
    weights = {t: n / len(bag) * index.idf(t) for t, n in counts.items()}
    return tuple((t, weights[t]) for t in sorted(weights, key=lambda t: (-weights[t], t)))
