"""The semantic leg: clauses, the best cosine to any of them, a document's views, the query
memo."""

from __future__ import annotations

import pytest

from nika.agent._semantic import _MEMO_MAX, SemanticLeg, clauses
from nika.agent.fakes import KeywordEmbedder
from nika.bm25 import ScoredDoc

CONCEPTS = (("walrus", "seal", "tusk"), ("cobalt", "metal"), ("ember", "fire"))
DOCS = {
    "a_walrus": "the walrus",
    "b_ember": "an ember",
    "c_metal_seal": "a seal of metal",
    "d_nothing": "nothing at all",
}


def _leg() -> tuple[SemanticLeg, KeywordEmbedder]:
    embedder = KeywordEmbedder(CONCEPTS)
    return SemanticLeg(embedder, list(DOCS), [(text,) for text in DOCS.values()]), embedder


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Find a flight to Rome. Then a hotel!", ["Find a flight to Rome", "Then a hotel"]),
        ("search flights, then book the hotel", ["search flights", "book the hotel"]),
        ("rate 3.5 for report.pdf", ["rate 3.5 for report.pdf"]),  # no space after the stop
        ("list files\nand read them; also count them", ["list files", "and read them",
                                                        "count them"]),
        ("查天气。然后订酒店", ["查天气", "订酒店"]),
        ("what? ... 42!", ["what"]),  # a fragment without a letter is no clause
        ("", []),
    ],
)
def test_clauses(text: str, expected: list[str]) -> None:
    assert clauses(text) == expected


def test_a_definition_scores_its_best_cosine_to_any_clause() -> None:
    leg, _ = _leg()
    # Whole, the text is mostly walrus: (3, 0, 1) / sqrt(10) ranks the seal of metal (0.67)
    # above the ember (0.32). Clause by clause, the ember meets its own clause at 1.
    ranked = leg.ranking("seal tusk walrus and more. Then the ember", 10)
    assert [d.name for d in ranked[:3]] == ["a_walrus", "b_ember", "c_metal_seal"]
    assert ranked[0].score == pytest.approx(1.0) and ranked[1].score == pytest.approx(1.0)
    assert ranked[3] == ScoredDoc("d_nothing", 0.0)
    assert len(leg.ranking("seal tusk walrus and more. Then the ember", 2)) == 2


def test_one_clause_is_the_text_and_an_unreadable_text_has_no_ranking() -> None:
    leg, embedder = _leg()
    assert [d.name for d in leg.ranking("the seal", 2)] == ["a_walrus", "c_metal_seal"]
    assert embedder.batches[-1] == ("the seal",)  # not twice, as text and as its clause
    assert leg.ranking("quartz and granite", 4) == ()  # the zero vector: no signal
    # An unreadable clause is dropped, not scored as a zero cosine.
    assert leg.ranking("quartz. the ember", 4) == leg.ranking("the ember", 4)


def test_each_text_is_embedded_once_while_the_memo_holds_it() -> None:
    leg, embedder = _leg()
    leg.ranking("the walrus. then the ember", 3)
    leg.ranking("the walrus. then the ember", 3)
    leg.ranking("the walrus", 3)  # a clause already embedded
    assert embedder.batches[1:] == [("the ember", "the walrus", "the walrus. then the ember")]
    for i in range(_MEMO_MAX):  # fill the memo: the next new text clears it
        leg.ranking(f"ember {i}", 1)
    before = len(embedder.batches)
    ranked = leg.ranking("ember 0\nthe walrus", 2)
    assert embedder.batches[before:] == [("ember 0", "ember 0\nthe walrus", "the walrus")]
    assert [d.name for d in ranked] == ["a_walrus", "b_ember"]


def test_a_document_scores_its_best_cosine_to_any_of_its_views() -> None:
    embedder = KeywordEmbedder(CONCEPTS)
    views = [("the walrus", "the walrus and its ember"), ("an ember",), ("metal", "nothing")]
    leg = SemanticLeg(embedder, ["a", "b", "c"], views)
    assert embedder.batches == [("the walrus", "the walrus and its ember", "an ember", "metal",
                                 "nothing")]  # every view, once, in one batch
    # "a" meets the ember by its second view (1 / sqrt(2)), "b" by its only one (1).
    ranked = leg.ranking("the ember", 3)
    assert [d.name for d in ranked] == ["b", "a", "c"]
    assert [d.score for d in ranked] == pytest.approx([1.0, 0.5**0.5, 0.0])
    assert [d.name for d in leg.ranking("metal", 3)] == ["c", "a", "b"]  # "c" by its first view
    assert [d.name for d in leg.ranking("the tusk", 1)] == ["a"]
