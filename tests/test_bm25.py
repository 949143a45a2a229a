"""BM25 index: hand-computed scores, BM25F fields, tie order, determinism, invariants."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika import bm25
from nika.bm25 import BM25Index, ScoredDoc

# --- hand-computed scores -------------------------------------------------------------------
#
# Corpus (k1 = 1.5, b = 0.75):  alpha = [cat, dog]  beta = [dog, dog, fish]  gamma = [bird]
# N = 3, avgdl = (2 + 3 + 1) / 3 = 2.
#
# idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
#   idf(dog)  : df 2 -> ln(1 + 1.5 / 2.5) = ln(1.6)
#   idf(cat), idf(fish), idf(bird): df 1 -> ln(1 + 2.5 / 1.5) = ln(8/3)
#
# w(t, d) = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))
#   length norm K(d) = 1.5 * (0.25 + 0.75 * |d| / 2)
#     K(alpha) = 1.5 * 1.0 = 1.5, K(beta) = 1.5 * 1.375 = 2.0625, K(gamma) = 1.5 * 0.625 = 0.9375
#   w(dog, alpha)  = ln(1.6) * 1 * 2.5 / (1 + 1.5)      = ln(1.6)
#   w(dog, beta)   = ln(1.6) * 2 * 2.5 / (2 + 2.0625)   = ln(1.6) * 16/13
#   w(cat, alpha)  = ln(8/3) * 2.5 / 2.5                 = ln(8/3)
#   w(fish, beta)  = ln(8/3) * 2.5 / (1 + 2.0625)        = ln(8/3) * 40/49
#   w(bird, gamma) = ln(8/3) * 2.5 / (1 + 0.9375)        = ln(8/3) * 40/31

CORPUS = [("alpha", ["cat", "dog"]), ("beta", ["dog", "dog", "fish"]), ("gamma", ["bird"])]
LN16 = math.log(1.6)
LN83 = math.log(8 / 3)


@pytest.fixture
def index() -> BM25Index:
    return BM25Index.build(CORPUS, k1=1.5, b=0.75)


def test_single_term_scores_match_the_arithmetic(index: BM25Index) -> None:
    scores = index.scores(["dog"])
    assert scores == {"alpha": pytest.approx(LN16), "beta": pytest.approx(LN16 * 16 / 13)}


def test_multi_term_scores_sum_per_distinct_term(index: BM25Index) -> None:
    scores = index.scores(["cat", "dog", "fish", "bird"])
    assert scores == {
        "alpha": pytest.approx(LN83 + LN16),
        "beta": pytest.approx(LN16 * 16 / 13 + LN83 * 40 / 49),
        "gamma": pytest.approx(LN83 * 40 / 31),
    }


def test_repeating_a_query_term_does_not_raise_its_weight(index: BM25Index) -> None:
    assert index.scores(["dog"] * 50 + ["cat"]) == index.scores(["cat", "dog"])


def test_weighted_query_scales_each_term(index: BM25Index) -> None:
    scores = index.scores({"dog": 0.5, "cat": 1.0, "zebra": 3.0})
    assert scores == {
        "alpha": pytest.approx(0.5 * LN16 + LN83),
        "beta": pytest.approx(0.5 * LN16 * 16 / 13),
    }
    assert index.scores({"dog": 1.0, "cat": 1.0}) == index.scores(["dog", "cat"])


def test_top_k_ranks_best_first_and_skips_non_matching(index: BM25Index) -> None:
    ranked = index.top_k(["dog", "bird"], 5)
    # gamma: ln(8/3)*40/31 = 1.2656 > beta: ln(1.6)*16/13 = 0.5785 > alpha: ln(1.6) = 0.4700
    assert [d.name for d in ranked] == ["gamma", "beta", "alpha"]
    assert ranked[0].score == pytest.approx(LN83 * 40 / 31)
    assert index.top_k(["dog"], 1) == (ScoredDoc("beta", index.scores(["dog"])["beta"]),)


def test_no_overlap_gives_nothing(index: BM25Index) -> None:
    assert index.top_k(["zebra"], 3) == ()
    assert index.scores(["zebra"]) == {}
    assert index.top_k([], 3) == ()


def test_k_zero_gives_nothing(index: BM25Index) -> None:
    assert index.top_k(["dog"], 0) == ()


def _reference_scores(
    docs: list[tuple[str, list[str]]], query: dict[str, float], k1: float = 1.5, b: float = 0.75
) -> dict[str, float]:
    """The Okapi formula, term by term, with no precomputation."""
    n = len(docs)
    avgdl = sum(len(tokens) for _, tokens in docs) / n
    out: dict[str, float] = {}
    for name, tokens in docs:
        total = 0.0
        for term, qw in query.items():
            tf = tokens.count(term)
            if tf:
                df = sum(term in other for _, other in docs)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += qw * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens) / avgdl))
        if total:
            out[name] = total
    return out


def test_large_corpus_matches_the_formula_through_dense_rows_too() -> None:
    # 120 documents: "common" is in every one and "half" in every other, so they take the
    # dense-row path (df >= N/4, N >= 64); "rare3" stays sparse.
    docs = [
        (f"doc{i:03}", ["common"] * (1 + i % 3) + ["half"] * (i % 2) + [f"rare{i % 7}", "pad"])
        for i in range(120)
    ]
    query = {"common": 1.0, "half": 0.5, "rare3": 1.0, "absent": 1.0}
    index = BM25Index.build(docs)
    expected = _reference_scores(docs, query)
    assert index.scores(query) == pytest.approx(expected)
    best = sorted(expected, key=lambda name: (-expected[name], name))[:5]
    assert [d.name for d in index.top_k(query, 5)] == best


def test_ties_rank_by_name_including_at_the_cut() -> None:
    same = ["shared", "words"]
    idx = BM25Index.build([("delta", same), ("bravo", same), ("charlie", same), ("x", ["other"])])
    assert [d.name for d in idx.top_k(["shared"], 2)] == ["bravo", "charlie"]
    assert [d.name for d in idx.top_k(["shared"], 10)] == ["bravo", "charlie", "delta"]


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ValueError, match="duplicate document name 'a'"):
        BM25Index.build([("a", ["x"]), ("a", ["y"])])


def test_empty_index_and_empty_documents() -> None:
    assert BM25Index.build([]).top_k(["x"], 3) == ()
    idx = BM25Index.build([("empty", []), ("full", ["x"])])
    assert [d.name for d in idx.top_k(["x"], 3)] == ["full"]
    assert idx.names == ("empty", "full")
    assert len(idx) == 2


# --- BM25F fields ---------------------------------------------------------------------------
#
# Two fields, weights (2, 1), k1 = 1.5, b = 0.75. Documents (name field | body field):
#   one = [cat] | [dog, dog]      two = [dog] | [cat, fish, fish, fish]
# avg name length 1, avg body length 3; norms 1 - b + b * len / avg:
#   one: name 1, body 0.25 + 0.75 * 2/3 = 0.75;  two: name 1, body 0.25 + 0.75 * 4/3 = 1.25
# tf~(cat, one) = 2 * 1 / 1 = 2;   tf~(cat, two) = 1 * 1 / 1.25 = 0.8
# idf(cat) = ln(1 + 0.5 / 2.5) = ln(1.2) (in both documents)
# w = idf * tf~ * 2.5 / (tf~ + 1.5)


def test_fields_are_normalised_apart_weighted_and_saturated_once() -> None:
    docs = [("one", (["cat"], ["dog", "dog"])), ("two", (["dog"], ["cat", "fish", "fish", "fish"]))]
    index = BM25Index.build_fields(docs, weights=(2.0, 1.0))
    ln12 = math.log(1.2)
    assert index.scores(["cat"]) == {
        "one": pytest.approx(ln12 * 2 * 2.5 / 3.5),
        "two": pytest.approx(ln12 * 0.8 * 2.5 / 2.3),
    }
    # The name field outweighs a longer body: "one" has cat in its name.
    assert [d.name for d in index.top_k(["cat"], 2)] == ["one", "two"]


def test_one_field_of_weight_one_is_classic_bm25() -> None:
    fielded = BM25Index.build_fields(((n, (t,)) for n, t in CORPUS), weights=(1.0,))
    assert fielded.scores(["cat", "dog", "fish", "bird"]) == BM25Index.build(CORPUS).scores(
        ["cat", "dog", "fish", "bird"]
    )


def test_missing_fields_are_empty_and_extra_fields_refused() -> None:
    index = BM25Index.build_fields([("a", (["x"],)), ("b", (["y"], ["x"]))], weights=(1.0, 1.0))
    assert set(index.scores(["x"])) == {"a", "b"}
    with pytest.raises(ValueError, match="document 'a' has 2 fields, weights name 1"):
        BM25Index.build_fields([("a", (["x"], ["y"]))], weights=(1.0,))


# --- determinism ----------------------------------------------------------------------------

_RANK_SCRIPT = """
from nika.analyzer import tokenize
from nika.bm25 import BM25Index
docs = [(f"mcp:srv{i % 7}/tool_{i}", tokenize(f"create issue {i % 5} list files in repo {i % 3} "
         + "common words shared " * (i % 4) + f"word{i % 11} extra{i % 13}")) for i in range(300)]
index = BM25Index.build(docs)
query = tokenize("please create an issue listing the files, word3 and extra7 and common words")
weighted = {t: (1.0 if i % 3 else 0.5) for i, t in enumerate(sorted(set(query)))}
for q in (query, weighted):
    print([(d.name, d.score.hex()) for d in index.top_k(q, 25)])
"""


def test_two_fresh_processes_rank_identically() -> None:
    outputs = []
    for seed in ("1", "2"):  # different hash seeds: no set/dict order may leak into ranking
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _RANK_SCRIPT], capture_output=True, env=env, check=True
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"mcp:") == 50


_docs = st.lists(
    st.tuples(
        st.text(alphabet="abcdef", min_size=1, max_size=4),
        st.lists(st.sampled_from(["x", "y", "z", "w", "v"]), max_size=6),
    ),
    min_size=1,
    max_size=25,
    unique_by=lambda doc: doc[0],
)


@given(data=st.data(), docs=_docs)
def test_ranking_is_invariant_under_input_order(
    data: st.DataObject, docs: list[tuple[str, list[str]]]
) -> None:
    shuffled = data.draw(st.permutations(docs))
    terms_ = st.sampled_from(["x", "y", "z", "w", "v", "u"])
    query = data.draw(
        st.lists(terms_, max_size=4)
        | st.dictionaries(terms_, st.sampled_from([0.25, 0.5, 1.0, 2.0]), max_size=4)
    )
    k = data.draw(st.integers(min_value=1, max_value=30))
    one = BM25Index.build(docs).top_k(query, k)
    two = BM25Index.build(shuffled).top_k(query, k)
    assert one == two  # bit-identical scores, same order
    ranked = [(-d.score, d.name) for d in one]
    assert ranked == sorted(ranked)  # best first, ties by name


# --- pure-Python and numpy scoring paths ----------------------------------------------------

_COMMON = [f"c{i}" for i in range(3)]  # in many documents: dense rows past 64 documents
_RARE = [f"r{i:02}" for i in range(30)]  # sparse, yet sorted after the dense: order shows
_path_docs = st.integers(min_value=1, max_value=140).flatmap(
    lambda n: st.lists(
        st.tuples(
            st.lists(st.sampled_from(_COMMON), max_size=3),
            st.lists(st.sampled_from(_RARE), max_size=4),
        ),
        min_size=n,
        max_size=n,
    ).map(lambda bodies: [(f"doc{i}", c + r) for i, (c, r) in enumerate(bodies)])
)
_path_weights = st.floats(min_value=0.01, max_value=10.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), docs=_path_docs)
def test_python_and_numpy_paths_agree_bit_for_bit(
    data: st.DataObject, docs: list[tuple[str, list[str]]]
) -> None:
    with mock.patch.object(bm25, "_PYTHON_MAX_DOCS", len(docs)):
        in_python = BM25Index.build(docs)
    with mock.patch.object(bm25, "_PYTHON_MAX_DOCS", len(docs) - 1):
        in_numpy = BM25Index.build(docs)
    terms_ = st.sampled_from([*_COMMON, *_RARE, "absent"])
    # Weights drawn from a few values, so several terms share a group and their order counts.
    weights = st.sampled_from(data.draw(st.lists(_path_weights, min_size=1, max_size=3)))
    query = data.draw(st.lists(terms_, max_size=10) | st.dictionaries(terms_, weights))
    k = data.draw(st.integers(min_value=1, max_value=len(docs) + 2))
    assert in_python.scores(query) == in_numpy.scores(query)  # == on floats: bit-identical
    assert in_python.top_k(query, k) == in_numpy.top_k(query, k)


def test_idf_is_the_one_the_scores_use() -> None:
    index = BM25Index.build([("a", ["x", "y"]), ("b", ["x"]), ("c", ["z"])])
    # N = 3: df(x) = 2, df(y) = 1, an unknown term has none.
    assert index.idf("x") == math.log(1.0 + (3 - 2 + 0.5) / (2 + 0.5))
    assert index.idf("y") == math.log(1.0 + (3 - 1 + 0.5) / (1 + 0.5))
    assert index.idf("nope") == 0.0
    # One field of weight 1, a document holding its term once: w = idf * (k1 + 1) / (tf~ + k1).
    only = BM25Index.build([("a", ["y"]), ("b", ["x"])], k1=1.5, b=0.0)
    assert only.scores(["y"])["a"] == only.idf("y") * (1.0 * 2.5) / (1.0 + 1.5)


def test_extensions_are_the_indexed_words_a_term_begins_within_a_suffix() -> None:
    index = BM25Index.build(
        [("a", ["tourist", "tour"]), ("b", ["tournament", "touring"]), ("c", ["tou", "rental"])]
    )
    assert index.extensions("tour", 3) == ["touring", "tourist"]  # lexical order
    assert index.extensions("tour", 6) == ["touring", "tourist", "tournament"]
    assert index.extensions("tour", 0) == []  # never the term itself
    assert index.extensions("rent", 2) == ["rental"]
    assert index.extensions("zebra", 3) == []
    assert "tour" in index and "rent" not in index
