"""Pseudo-relevance feedback: who feeds back, with which words, and what it changes."""

from __future__ import annotations

import os
from typing import Any

from tests._seeds import outputs_across_hash_seeds

from nika.agent._feedback import FEEDBACK_TERMS, FEEDBACK_WEIGHT, Feedback
from nika.agent.config import AgentConfig
from nika.agent.fakes import KeywordEmbedder
from nika.agent.router import RouteContext, ToolRouter, context_query, document_fields
from nika.agent.seams import ToolDefinition, ToolName
from nika.bm25 import BM25Index, ScoredDoc


def _tool(name: str, description: str, params: dict[str, Any] | None = None) -> ToolDefinition:
    schema = {"type": "object", "properties": params or {}}
    return ToolDefinition(ToolName(name), description, schema, "mcp")


# Thirty unrelated tools, one subject each, so every word below is rare in the universe.
FILLERS = [
    _tool(f"mcp:misc/tool_{word}", f"Works on {word} items.")
    for word in (
        "anchor", "banjo", "cactus", "dune", "easel", "fjord", "gravel", "hammock", "igloo",
        "jigsaw", "kayak", "lagoon", "mango", "nozzle", "oyster", "pebble", "quiver", "raven",
        "sequoia", "tulip", "umbrella", "velvet", "wagon", "yarn", "zinnia", "acorn", "bonsai",
        "cricket", "dolphin", "eclipse",
    )
]  # fmt: skip
RATE = _tool("mcp:fx/exchange_rate", "Real time exchange rate between two currencies.")
CODES = _tool("mcp:fx/list_currencies", "Every currency code the exchange supports.")
FLIGHT = _tool("mcp:air/search_flights", "Search flights between two airports.")


def _ctx(prompt: str) -> RouteContext:
    return RouteContext(prompt, "", (), frozenset())


def _feedback(universe: list[ToolDefinition]) -> tuple[Feedback, BM25Index]:
    fields = {d.name: document_fields(d) for d in universe}
    index = BM25Index.build_fields(fields.items(), weights=(3.0, 1.0, 0.25, 0.3))
    return Feedback(index, fields.items()), index


def test_the_best_match_brings_a_sibling_that_shares_its_words() -> None:
    router = ToolRouter([*FILLERS, RATE, CODES], AgentConfig(top_k=4))
    ctx = _ctx("What is the conversion rate of the euro?")
    query = context_query(ctx)
    assert "currenc" not in query  # the sibling shares no word with the request
    ranked = router.rank(ctx)
    assert ranked[:2] == ["mcp:fx/exchange_rate", "mcp:fx/list_currencies"]
    assert router.select(ctx).scores["mcp:fx/list_currencies"] > 0.0


def test_the_added_words_come_from_the_head_and_weigh_less_than_the_request() -> None:
    feedback, index = _feedback([*FILLERS, RATE, CODES])
    query = {"rate": 1.0, "euro": 1.0}
    added = feedback.words(query, index.top_k(query, 4))
    assert added is not None and 0 < len(added) <= FEEDBACK_TERMS
    assert set(added.values()) == {FEEDBACK_WEIGHT}
    assert {"exchang", "currenc"} <= set(added)  # the best match's own words
    assert not set(added) & set(query)  # never a word the query has
    # The second ranking adds the words' scores to the first's.
    scoring = index.scoring(query)
    both = {d.name: d.score for d in scoring.plus(added).top_k(40)}
    first, more = index.scores(query), index.scores(added)
    assert both == {n: first.get(n, 0.0) + more.get(n, 0.0) for n in {*first, *more}}


def test_a_tie_between_two_servers_feeds_nothing_back() -> None:
    # "rates and flights": two intents, one tool each, tied at the top. Feeding either back
    # would crowd out the other intent with its siblings.
    feedback, _ = _feedback([*FILLERS, RATE, CODES, FLIGHT])
    query = {"exchang": 1.0, "flight": 1.0, "currenc": 1.0}
    two_servers = (ScoredDoc(FLIGHT.name, 5.0), ScoredDoc(RATE.name, 4.9))
    assert feedback.words(query, two_servers) is None
    # Clear of the runner-up, the best match feeds back alone; tied within one server, both.
    clear = (ScoredDoc(FLIGHT.name, 5.0), ScoredDoc(RATE.name, 4.0))
    alone = feedback.words(query, clear)
    assert alone is not None and "airport" in alone and "real" not in alone
    one_server = (ScoredDoc(RATE.name, 5.0), ScoredDoc(CODES.name, 4.9))
    both = feedback.words(query, one_server)
    assert both is not None and {"real", "code"} <= set(both)


def test_a_match_by_the_server_name_or_subwords_alone_feeds_nothing_back() -> None:
    feedback, _ = _feedback([*FILLERS, RATE, CODES])
    head = (ScoredDoc("mcp:fx/exchange_rate", 5.0),)
    assert feedback.words({"fx": 1.0}, head) is None  # only where the tool lives
    assert feedback.words({"#ab": 1.0}, head) is None  # only a subword
    assert feedback.words({"rate": 1.0}, ()) is None  # nothing ranked
    # Its own word, even once, is evidence enough.
    assert feedback.words({"fx": 1.0, "rate": 1.0}, head) is not None


def test_too_many_near_ties_at_the_top_feed_nothing_back() -> None:
    feedback, _ = _feedback([*FILLERS, RATE, CODES])
    three = tuple(ScoredDoc(d.name, 5.0) for d in FILLERS[:3])
    assert feedback.words({"anchor": 1.0, "banjo": 1.0, "cactus": 1.0}, three) is None


def test_the_fused_ranking_keeps_the_feedback() -> None:
    # The embedder knows the exchange rate, not the currency list: only feedback brings it.
    embedder = KeywordEmbedder((("euro", "exchange rate"),))
    fused = ToolRouter([*FILLERS, RATE, CODES], AgentConfig(top_k=4, embedder=embedder))
    decision = fused.select(_ctx("conversion rate of the euro"))
    assert decision.reason == "fused"
    scores = list(decision.scores.items())
    assert [name for name, _ in scores[:2]] == ["mcp:fx/exchange_rate", "mcp:fx/list_currencies"]
    # Above every definition the legs tie (BM25 without feedback would tie it with them).
    assert scores[1][1] > scores[2][1]


def test_feedback_ranks_the_same_across_processes_and_hash_seeds() -> None:
    here = os.path.dirname(__file__)
    script = (
        f"import sys; sys.path.insert(0, {here!r})\n"
        "from test_feedback import FILLERS, RATE, CODES, FLIGHT, _ctx\n"
        "from nika.agent.config import AgentConfig\n"
        "from nika.agent.router import ToolRouter\n"
        "r = ToolRouter([*FILLERS, RATE, CODES, FLIGHT], AgentConfig(top_k=12))\n"
        "print(r.select(_ctx('conversion rate of the euro')).scores)\n"
    )
    runs = outputs_across_hash_seeds(script)
    assert len(runs) == 1
    assert "mcp:fx/list_currencies" in runs.pop()
