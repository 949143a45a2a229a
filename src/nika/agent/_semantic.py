"""The router's semantic leg: cosine ranking of the definitions against the request, clause by
clause.

A request that asks for several things ("find a flight to Rome. Then book a hotel near the
station") is, embedded whole, a vector between its intents, near none of the tools it needs.
So the leg embeds the request whole and each of its clauses (`clauses`: sentences, and
sequence words such as "then", "also"), and a definition scores its best cosine to any of
them: a tool one clause asks for ranks as if that clause were the request. Measured in
`bench/router_bench.py` (dev split, fused with BM25): all-gold recall@12 on NESTFUL rises
from 0.86 to 0.92 (ComplexFuncBench 0.85 -> 0.93), the multilingual set is unchanged.

A definition can be embedded as several texts, its views (the router gives each two: see
`nika.agent.router.embedding_texts`), and scores its best cosine over views and clauses alike.

Each distinct text is embedded once while it is in use (the request's clauses recur every
turn of a run); a text the embedder maps to the zero vector (one it cannot read) scores
nothing, and when no text is readable the leg has no signal (an empty ranking).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from nika.agent.seams import Embedder
from nika.bm25 import ScoredDoc

_CLAUSE_RE: Final = re.compile(
    r"[.;!?]+(?=\s|$)|[。！？؟\n]+"
    r"|,?\s+(?:and then|then|after that|afterwards|also|as well as|finally|next)\s+"
    r"|然后|另外|并且|还有|それから|そして|그리고"
)
"""Where a clause ends: a sentence's end (a full stop followed by a space, so `3.5` and
`report.pdf` stay whole), a line break, or a word that starts the next step."""
_LETTER_RE: Final = re.compile(r"[^\W\d_]")
_MEMO_MAX: Final = 256
"""Query texts kept embedded (the request's clauses, the last assistant texts)."""


def clauses(text: str) -> list[str]:
    """The clauses of `text` that hold a letter, stripped, in order; one clause or none is
    `text` itself."""
    return [c.strip() for c in _CLAUSE_RE.split(text) if _LETTER_RE.search(c)]


class SemanticLeg:
    """Cosine ranking of a fixed set of documents against an embedded request. Each document
    is one or more texts (its views) and scores its best cosine to any of them; the vectors
    are computed once, when the leg is built (once per run)."""

    def __init__(
        self, embedder: Embedder, names: Sequence[str], views: Sequence[Sequence[str]]
    ) -> None:
        self._embedder = embedder
        self._names = tuple(names)
        texts = [text for texts in views for text in texts]
        self._vectors = np.asarray(embedder.embed(texts), dtype=np.float64)
        # Where each document's texts start among the rows (documents in name order).
        self._starts = np.cumsum([0, *map(len, views[:-1])])
        self._memo: dict[str, npt.NDArray[np.float64]] = {}
        self._last: tuple[str, int, tuple[ScoredDoc, ...]] = ("", 0, ())

    def ranking(self, text: str, depth: int) -> tuple[ScoredDoc, ...]:
        """The `depth` names with a view nearest to `text` or to one of its clauses, nearest
        first with that cosine, ties by name; empty when the embedder can read none of
        them."""
        if (text, depth) != self._last[:2]:
            self._last = (text, depth, self._rank(text, depth))
        return self._last[2]

    def queries(self, text: str) -> list[str]:
        """What `text` is ranked against: itself and, when it has more than one, its
        clauses."""
        parts = clauses(text)
        return [text, *parts] if len(parts) > 1 else [text]

    def _rank(self, text: str, depth: int) -> tuple[ScoredDoc, ...]:
        readable = [v for v in self._embedded(self.queries(text)) if v.any()]
        if not readable or not self._names:
            return ()
        cosine = np.maximum.reduceat((self._vectors @ np.stack(readable).T).max(axis=1),
                                     self._starts)
        # By (-cosine, name): ids follow name order; comparisons are exact.
        best = np.lexsort((np.arange(len(self._names)), -cosine))[:depth]
        return tuple(ScoredDoc(self._names[i], float(cosine[i])) for i in best.tolist())

    def _embedded(self, texts: Sequence[str]) -> list[npt.NDArray[np.float64]]:
        memo = self._memo
        new = sorted({t for t in texts if t not in memo})
        if new:
            if len(memo) + len(new) > _MEMO_MAX:
                memo.clear()
                new = sorted(set(texts))
            vectors = self._embedder.embed(new)
            memo.update(
                (t, np.asarray(v, dtype=np.float64)) for t, v in zip(new, vectors, strict=True)
            )
        return [memo[t] for t in texts]
