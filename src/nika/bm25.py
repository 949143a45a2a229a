"""Okapi BM25 (BM25F over weighted fields) for short documents: an index built once.

Written for ranking tool definitions against an agent's live context (see
`nika.agent.router`; the terms come from `nika.analyzer`), but it knows nothing about tools: a
document is a name and its fields, each a sequence of terms.

Scoring is the Okapi form with a never-negative idf, over fields as BM25F does it (each field's
term frequency normalised by that field's length, weighted, summed, then saturated once):

    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))     df: documents with t anywhere
    tf~(t, d)   = sum over fields f of  v_f * tf_f(t, d) / (1 - b + b * |d_f| / avgdl_f)
    w(t, d)     = idf(t) * tf~(t, d) * (k1 + 1) / (tf~(t, d) + k1)
    score(q, d) = sum of w(t, d) over the DISTINCT terms t of q    (times q's weight for t,
                                                                   when q is weighted)

With one field of weight 1 this is exactly classic Okapi BM25.

`w` is precomputed at build time into term-major postings (one view per term); a term found in
a quarter or more of the documents (of 64 or more) also gets a dense row of its weights. A
query concatenates the postings of its distinct sparse terms into one `bincount`, then adds the
dense rows of its common terms: one pass per distinct query weight. Repeating a term in the
query does not raise its weight; a query may instead weigh its terms (`Query`), which the router
uses to keep long tool observations from drowning the task prompt. A query may also be ranked
in two steps (`BM25Index.scoring`, then `Scoring.plus` with terms chosen from the first
ranking, as the router's feedback does): the second adds its sums to the first's scores. An
index of fewer than 64 documents does the same arithmetic in pure Python (numpy's cost per call
would dominate), in the same order, to the same bits.

Bit-reproducible: documents are numbered in name order and terms in lexical order; every
document's score is summed in one fixed order (weight groups heaviest first; within a group
sparse terms in ascending order, as `bincount` adds in input order, then dense rows in ascending
order); idf uses `math.log` (numpy's vectorised log may differ by an ulp across CPUs); only
IEEE-exact element-wise arithmetic is vectorised; ties rank by name. The result depends only on
the set of (name, fields) pairs and on the query's terms and weights, never on input or hash
order.

Why our own and not the `bm25s` package: measured in `bench/router_bench.py`, interleaved in
the same run, this index ranks a turn in 0.35-0.9x the time of `bm25s` at every size from 24 to
10,000 tools: `bm25s` pays one `np.add.at` call per query term, this one `bincount` plus a few
row additions per query weight. It also breaks ties by name (`bm25s` selects with
`argpartition`, ties in arbitrary order), scores in float64, takes weighted queries and needs
only numpy.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from operator import add
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt


class ScoredDoc(NamedTuple):
    """One ranked document. Immutable like the project's frozen dataclasses, but a named tuple:
    a ranked turn makes dozens of them, and a frozen dataclass costs twice the time to make
    (its `__init__` sets each field through `object.__setattr__`)."""

    name: str
    score: float


Query = Iterable[str] | Mapping[str, float]
"""Query terms (each distinct term counts once), or distinct terms with positive weights."""

_DENSE_MIN_DOCS: Final = 64
_PYTHON_MAX_DOCS: Final = 63
"""Largest index scored in pure Python: measured on the router bench's contexts and tools, a
turn ranks 1.2-1.7x faster so at 24 and 50 tools, 1.3-1.6x slower at 100, worse beyond."""

_Floats = npt.NDArray[np.float64]
_Ints = npt.NDArray[np.int64]


def _idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


class Scoring:
    """Every document's score for one query (`BM25Index.scoring`)."""

    __slots__ = ("_index", "_scores")

    def __init__(self, index: BM25Index, scores: list[float] | _Floats) -> None:
        self._index = index
        self._scores = scores

    def top_k(self, k: int) -> tuple[ScoredDoc, ...]:
        """The `k` best-scoring documents, best first, ties by name; only documents that share
        a term with the query (empty when none does)."""
        return self._index._top(self._scores, k)

    def plus(self, query: Query) -> Scoring:
        """These scores with `query`'s added to them (each document's sum for `query`, in the
        index's fixed order, then added to its score): a query ranked in two steps, the
        second chosen from the first's ranking, without summing the first again."""
        return Scoring(self._index, self._index._plus(self._scores, query))


class BM25Index:
    """An immutable BM25 index; build it with `BM25Index.build`."""

    __slots__ = (
        "_names", "_vocabulary", "_terms", "_df", "_docs", "_weights", "_rows", "_pairs", "_dense",
        "k1", "b",
    )  # fmt: skip

    def __init__(
        self,
        names: tuple[str, ...],
        vocabulary: dict[str, int],
        indptr: _Ints,
        docs: _Ints,
        weights: _Floats,
        *,
        k1: float,
        b: float,
    ) -> None:
        self._names = names
        self._vocabulary = vocabulary
        self._terms = sorted(vocabulary)
        bounds = indptr.tolist()
        spans = [slice(a, z) for a, z in zip(bounds, bounds[1:], strict=False)]
        self._df = [span.stop - span.start for span in spans]
        # A term in at least a quarter of the documents (of 64 or more) is summed after the
        # sparse terms of its query group, as a dense row on the numpy path: adding one row is
        # cheaper than gathering and scattering that many postings. Both paths keep that order.
        n_docs = len(names)
        self._dense = frozenset(
            term
            for term, span in enumerate(spans)
            if n_docs >= _DENSE_MIN_DOCS and 4 * (span.stop - span.start) >= n_docs
        )
        self._docs: list[_Ints] = []
        self._weights: list[_Floats] = []
        self._rows: dict[int, _Floats] = {}
        self._pairs: list[list[tuple[int, float]]] | None = None
        if n_docs <= _PYTHON_MAX_DOCS:
            # Small universe: numpy's fixed cost per call outweighs the few postings a query
            # touches, so queries are summed in Python over (doc, weight) pairs.
            doc_list, weight_list = docs.tolist(), weights.tolist()
            self._pairs = [list(zip(doc_list[s], weight_list[s], strict=True)) for s in spans]
        else:
            # One view per term, made once: a query then slices nothing.
            self._docs = [docs[s] for s in spans]
            self._weights = [weights[s] for s in spans]
            for term in sorted(self._dense):
                row = np.zeros(n_docs, dtype=np.float64)
                row[docs[spans[term]]] = weights[spans[term]]
                self._rows[term] = row
        self.k1 = k1
        self.b = b

    @classmethod
    def build(
        cls, docs: Iterable[tuple[str, Sequence[str]]], *, k1: float = 1.5, b: float = 0.75
    ) -> BM25Index:
        """Index `(name, tokens)` pairs, one field each. Names must be unique; tokens are used
        as given."""
        return cls.build_fields(((name, (tokens,)) for name, tokens in docs), k1=k1, b=b)

    @classmethod
    def build_fields(
        cls,
        docs: Iterable[tuple[str, Sequence[Sequence[str]]]],
        *,
        weights: Sequence[float] = (1.0,),
        k1: float = 1.5,
        b: float = 0.75,
    ) -> BM25Index:
        """Index `(name, fields)` pairs, each field a token sequence, `weights[f]` the weight of
        field `f` (BM25F: each field's term frequency is length-normalised within the field,
        weighted, and summed before saturation). Names must be unique; a document may have
        fewer fields than `weights` (the missing ones are empty)."""
        by_name: dict[str, Sequence[Sequence[str]]] = {}
        for name, fields in docs:
            if name in by_name:
                raise ValueError(f"duplicate document name {name!r}: names must be unique")
            if len(fields) > len(weights):
                raise ValueError(f"document {name!r} has {len(fields)} fields, weights name "
                                 f"{len(weights)}")
            by_name[name] = fields
        names = tuple(sorted(by_name))
        n_docs = len(names)
        width = max(n_docs, 1)
        vocabulary = {
            term: i
            for i, term in enumerate(sorted(set().union(*chain.from_iterable(by_name.values()))))
        }
        n_terms = len(vocabulary)

        # Per field: every token occurrence as a (term, doc) key and its share of the pseudo
        # term frequency, weight / the field's length norm in that document.
        keys: list[_Ints] = []
        shares: list[_Floats] = []
        for f, weight in enumerate(weights):
            bodies = [by_name[name][f] if f < len(by_name[name]) else () for name in names]
            lengths = np.array([len(body) for body in bodies], dtype=np.int64)
            total = int(lengths.sum())
            if not total:
                continue
            avgdl = total / n_docs  # an exact integer sum, one division
            norm = 1.0 - b + b * lengths.astype(np.float64) / avgdl
            term_of = np.fromiter(
                map(vocabulary.__getitem__, chain.from_iterable(bodies)), np.int64, count=total
            )
            doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
            keys.append(term_of * width + doc_of)
            shares.append(weight / norm[doc_of])
        all_keys = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
        # Unique keys come back sorted by (term, doc); bincount sums each key's shares in
        # input order (fields in order, documents in name order, tokens in order).
        unique, inverse = np.unique(all_keys, return_inverse=True)
        tf = np.bincount(
            inverse.reshape(-1), weights=np.concatenate(shares) if shares else None,
            minlength=len(unique),
        ).astype(np.float64, copy=False)
        post_terms, post_docs = np.divmod(unique, width)
        df = np.bincount(post_terms, minlength=n_terms)
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])

        # Over a list of ints: iterating a numpy array boxes every element as a numpy scalar.
        idf = np.array([_idf(n_docs, d) for d in df.tolist()], dtype=np.float64)
        saturated = idf[post_terms] * (tf * (k1 + 1.0) / (tf + k1))
        return cls(names, vocabulary, indptr, post_docs, saturated, k1=k1, b=b)

    def __len__(self) -> int:
        return len(self._names)

    @property
    def names(self) -> tuple[str, ...]:
        """Document names, sorted."""
        return self._names

    def idf(self, term: str) -> float:
        """The idf of `term` as the scores use it; 0.0 for a term no document has."""
        i = self._vocabulary.get(term)
        return 0.0 if i is None else _idf(len(self._names), self._df[i])

    def __contains__(self, term: object) -> bool:
        """Whether some document has `term`."""
        return term in self._vocabulary

    def extensions(self, term: str, longest: int) -> list[str]:
        """The indexed terms that are `term` followed by one to `longest` more characters, in
        lexical order (`tour` -> `tourist`, not `tournament` at 3)."""
        found: list[str] = []
        terms = self._terms
        i = bisect_left(terms, term)
        while i < len(terms) and terms[i].startswith(term):
            if 0 < len(terms[i]) - len(term) <= longest:
                found.append(terms[i])
            i += 1
        return found

    def scores(self, query: Query) -> dict[str, float]:
        """BM25 score of every document sharing at least one term with the query, by name."""
        names = self._names
        if self._pairs is not None:
            summed = self._summed(self._pairs, query)
            return {names[d]: score for d, score in enumerate(summed) if score}
        dense = self._dense_scores(query)
        return {names[d]: float(dense[d]) for d in np.flatnonzero(dense).tolist()}

    def top_k(self, query: Query, k: int) -> tuple[ScoredDoc, ...]:
        """The `k` best-scoring documents, best first, ties by name; only documents that share
        a term with the query (empty when none does)."""
        return self.scoring(query).top_k(k)

    def scoring(self, query: Query) -> Scoring:
        """Every document's score for `query`, to rank (`Scoring.top_k`) and to add more terms
        to once a first ranking is known (`Scoring.plus`)."""
        if self._pairs is not None:
            return Scoring(self, self._summed(self._pairs, query))
        return Scoring(self, self._dense_scores(query))

    def _top(self, scores: list[float] | _Floats, k: int) -> tuple[ScoredDoc, ...]:
        if k <= 0:
            return ()
        names = self._names
        if isinstance(scores, list):
            hit = [(-score, d) for d, score in enumerate(scores) if score]
            return tuple(ScoredDoc(names[d], -neg) for neg, d in sorted(hit)[:k])
        n = scores.size
        if n == 0:
            return ()
        hits: _Ints
        if n > k and (cut := np.partition(scores, n - k)[n - k]) > 0.0:
            # Everything at or above the k-th best score, so ties at the cut all compete.
            hits = np.flatnonzero(scores >= cut)
        else:
            hits = np.flatnonzero(scores)
        # Doc ids follow name order: sort by score descending, then id (= name) ascending.
        ranked = hits[np.lexsort((hits, -scores[hits]))][:k]
        # Converted in bulk: indexing a numpy array per document boxes a scalar each time.
        return tuple(map(ScoredDoc, map(names.__getitem__, ranked.tolist()),
                         scores[ranked].tolist()))

    def _plus(self, scores: list[float] | _Floats, query: Query) -> list[float] | _Floats:
        if isinstance(scores, list):
            assert self._pairs is not None  # a list of scores comes from the Python path
            return list(map(add, scores, self._summed(self._pairs, query)))
        return scores + self._dense_scores(query)

    def _groups(self, query: Query) -> list[tuple[float, list[int]]]:
        """The query's known term ids grouped by weight, heaviest group first, each group in
        ascending order: one fixed summation order whatever the query's iteration order."""
        get = self._vocabulary.get
        weighted = query if isinstance(query, Mapping) else dict.fromkeys(query, 1.0)
        groups: dict[float, list[int]] = {}
        for term, weight in weighted.items():
            if (i := get(term)) is not None:
                groups.setdefault(weight, []).append(i)
        return [(w, sorted(groups[w])) for w in sorted(groups, reverse=True)]

    def _summed(self, pairs: list[list[tuple[int, float]]], query: Query) -> list[float]:
        """`_dense_scores` in pure Python, bit for bit: per group, each document's postings
        summed from 0.0 in group order (as `bincount` and the dense rows add them), times the
        weight unless 1.0; groups added heaviest first. Adding 0.0 to a score is exact, so
        summing whole rows changes no bit."""
        n = len(self._names)
        # Dense terms after sparse ones, as `_sum_postings` adds them; the sort is stable, so
        # both halves stay ascending. (No dense terms below 64 documents: the sort is skipped.)
        dense = self._dense.__contains__ if self._dense else None
        totals = [0.0] * n
        for weight, term_ids in self._groups(query):
            group = [0.0] * n
            for i in sorted(term_ids, key=dense) if dense else term_ids:
                for d, w in pairs[i]:
                    group[d] += w
            if weight != 1.0:
                group = [score * weight for score in group]
            totals = list(map(add, totals, group))
        return totals

    def _dense_scores(self, query: Query) -> _Floats:
        """Scores of all documents (0.0 where no term is shared)."""
        groups = self._groups(query)
        if not groups:
            return np.zeros(len(self._names), dtype=np.float64)
        (heaviest, term_ids), *rest = groups
        scores = self._sum_postings(term_ids, heaviest)
        for weight, term_ids in rest:
            scores += self._sum_postings(term_ids, weight)
        return scores

    def _sum_postings(self, term_ids: list[int], weight: float) -> _Floats:
        """Per document, `weight` times the sum of its postings over `term_ids`: sparse terms
        first, then dense rows, each in ascending term order."""
        rows = self._rows
        sparse = [i for i in term_ids if i not in rows]
        scores: _Floats
        if sparse:
            docs = np.concatenate([self._docs[i] for i in sparse])
            weights = np.concatenate([self._weights[i] for i in sparse])
            # With weights, bincount already yields float64: the cast is a typed no-op.
            summed = np.bincount(docs, weights=weights, minlength=len(self._names))
            scores = summed.astype(np.float64, copy=False)
        else:
            scores = np.zeros(len(self._names), dtype=np.float64)
        for i in term_ids:
            if i in rows:
                scores += rows[i]
        if weight != 1.0:
            scores *= weight
        return scores
