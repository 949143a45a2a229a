"""ToolRouter: passthrough, ranked, fail-open; stable order; pinned and recent; by_source."""

from __future__ import annotations

from collections.abc import Sequence

from tests._seeds import outputs_across_hash_seeds

from nika.agent.config import AgentConfig
from nika.agent.fakes import KeywordEmbedder
from nika.agent.router import (
    COPIES_MAX,
    EXTENSION_MIN,
    EXTENSION_SUFFIX,
    OBSERVATION_WEIGHT,
    PREAMBLE_WEIGHT,
    PREREQUISITE_WEIGHT,
    RouteContext,
    ToolRouter,
    context_query,
    copies_of,
    copy_key,
    document_fields,
    embedding_texts,
    reciprocal_rank_fusion,
    split_prompt,
    with_prerequisites,
    without_crowding,
)
from nika.agent.seams import ToolDefinition, ToolName, ToolSource
from nika.bm25 import ScoredDoc

# Distinct subjects, so every definition is findable by exactly one word.
SUBJECTS = (
    "invoice", "glacier", "meteor", "saffron", "turbine", "lantern", "quartz", "harbor",
    "orchid", "falcon", "pylon", "ember", "walrus", "cobalt", "tundra", "violin", "marble",
    "nectar", "canyon", "bishop", "zephyr", "ledger", "mosaic", "prism", "sonnet", "thimble",
    "vortex", "willow", "yonder", "zenith",
)  # fmt: skip


def _definition(i: int, source: ToolSource = "mcp") -> ToolDefinition:
    subject = SUBJECTS[i]
    return ToolDefinition(
        ToolName(f"mcp:srv/handle_{subject}"),
        f"Handles {subject} records.",
        {"type": "object", "properties": {"limit": {"type": "integer"}}},
        source,
    )


DONE = ToolDefinition(ToolName("nika:done"), "Finish.", {"type": "object"}, "builtin")
COMPOSE = ToolDefinition(ToolName("nika:compose"), "Draft a workflow.", {}, "builtin")


def _universe(n: int, *, done: bool = False) -> list[ToolDefinition]:
    """`n` definitions: nika:done first if `done`, then mcp tools, one `other` at the end."""
    head = [DONE] if done else []
    mcp = [_definition(i) for i in range(n - 1 - len(head))]
    return [*head, *mcp, _definition(n - 1 - len(head), "other")]


def _ctx(
    prompt: str = "",
    assistant: str = "",
    observations: Sequence[str] = (),
    recent: Sequence[str] = (),
) -> RouteContext:
    return RouteContext(prompt, assistant, tuple(observations), frozenset(recent))


def _names(defs: Sequence[ToolDefinition]) -> list[str]:
    return [d.name for d in defs]


def _is_subsequence(part: Sequence[str], whole: Sequence[str]) -> bool:
    it = iter(whole)
    return all(name in it for name in part)


def test_below_the_threshold_everything_passes_through_in_order() -> None:
    universe = _universe(23, done=True)
    router = ToolRouter(universe, AgentConfig())
    for ctx in (_ctx("handle the invoice"), _ctx(), _ctx("zzz unrelated")):
        decision = router.select(ctx)
        assert decision.mode == "passthrough"
        assert decision.offered == tuple(universe)
        assert decision.universe == 23
        assert decision.by_source == {"builtin": 1, "mcp": 21, "other": 1}


def test_at_the_threshold_the_offer_is_ranked_and_narrowed() -> None:
    universe = _universe(24, done=True)
    router = ToolRouter(universe, AgentConfig(), pinned=["nika:done"])
    decision = router.select(_ctx("please handle the walrus and the cobalt"))
    assert decision.mode == "ranked"
    offered = _names(decision.offered)
    assert "mcp:srv/handle_walrus" in offered
    assert "mcp:srv/handle_cobalt" in offered
    assert "nika:done" in offered
    assert len(offered) <= 12 + 1
    assert decision.universe == 24


def test_ranked_offer_keeps_universe_order_not_rank_order() -> None:
    universe = _universe(30)
    router = ToolRouter(universe, AgentConfig(top_k=3))
    # cobalt is named twice, so it outranks invoice; the offer still lists invoice first.
    decision = router.select(_ctx("cobalt cobalt", "also the invoice", ["walrus"]))
    assert _names(decision.offered) == [
        "mcp:srv/handle_invoice",
        "mcp:srv/handle_walrus",
        "mcp:srv/handle_cobalt",
    ]
    assert _is_subsequence(_names(decision.offered), _names(universe))


def test_top_k_bounds_the_ranked_part() -> None:
    universe = _universe(30)
    router = ToolRouter(universe, AgentConfig(top_k=2))
    decision = router.select(_ctx("handles records"))  # every tool matches equally
    # Ties break by name: the two alphabetically first of the tied tools.
    tied = sorted(n for n in _names(universe) if n.startswith("mcp:"))
    assert _names(decision.offered) == [n for n in _names(universe) if n in tied[:2]]


def test_pinned_intrinsics_are_always_offered() -> None:
    universe = [*_universe(30, done=True), COMPOSE]
    router = ToolRouter(universe, AgentConfig(top_k=1), pinned=["nika:done", "nika:compose"])
    offered = _names(router.select(_ctx("the ember")).offered)
    assert offered == ["nika:done", "mcp:srv/handle_ember", "nika:compose"]


def test_pinned_names_outside_the_universe_are_ignored() -> None:
    router = ToolRouter(_universe(30), AgentConfig(top_k=1), pinned=["nika:compose", "nika:done"])
    assert _names(router.select(_ctx("ember")).offered) == ["mcp:srv/handle_ember"]


def test_nika_done_is_pinned_even_when_the_caller_forgets() -> None:
    router = ToolRouter(_universe(30, done=True), AgentConfig(top_k=1))
    assert _names(router.select(_ctx("ember")).offered) == ["nika:done", "mcp:srv/handle_ember"]


def test_recently_used_tools_stay_offered() -> None:
    router = ToolRouter(_universe(30), AgentConfig(top_k=1))
    decision = router.select(_ctx("ember", recent=["mcp:srv/handle_zephyr", "mcp:gone/tool"]))
    assert _names(decision.offered) == ["mcp:srv/handle_ember", "mcp:srv/handle_zephyr"]


def test_zero_overlap_fails_open_with_the_full_universe() -> None:
    universe = _universe(30, done=True)
    router = ToolRouter(universe, AgentConfig(), pinned=["nika:done"])
    for ctx in (_ctx("xylophone quibble"), _ctx(), _ctx("the and of 123 4.5")):
        decision = router.select(ctx)
        assert decision.mode == "fail_open"
        assert decision.reason == "fail_open"
        assert decision.offered == tuple(universe)
        assert decision.by_source == {"builtin": 1, "mcp": 28, "other": 1}


def test_observations_and_assistant_text_feed_the_ranking() -> None:
    router = ToolRouter(_universe(30), AgentConfig(top_k=12))
    from_obs = router.select(_ctx("xylophone", observations=["error: see the quartz log"]))
    assert "mcp:srv/handle_quartz" in _names(from_obs.offered)
    from_text = router.select(_ctx("xylophone", assistant="Next I will use the prism tool."))
    assert "mcp:srv/handle_prism" in _names(from_text.offered)


def test_parameter_text_is_indexed() -> None:
    special = ToolDefinition(
        ToolName("mcp:srv/lookup"),
        "Looks things up.",
        {
            "type": "object",
            "properties": {"postcode": {"type": "string", "description": "A Norwegian fjord."}},
        },
        "mcp",
    )
    router = ToolRouter([*_universe(30), special], AgentConfig(top_k=1))
    assert _names(router.select(_ctx("which fjord?")).offered) == ["mcp:srv/lookup"]
    assert _names(router.select(_ctx("a postcode")).offered) == ["mcp:srv/lookup"]


def test_by_source_counts_offered_definitions_with_all_keys() -> None:
    router = ToolRouter(_universe(30), AgentConfig(top_k=1))
    decision = router.select(_ctx("ember"))
    assert decision.by_source == {"builtin": 0, "mcp": 1, "other": 0}
    other = router.select(_ctx(SUBJECTS[29]))  # the last definition has source "other"
    assert other.by_source == {"builtin": 0, "mcp": 0, "other": 1}


def test_custom_threshold() -> None:
    router = ToolRouter(_universe(5), AgentConfig(route_threshold=5, top_k=1))
    assert router.select(_ctx("ember")).mode == "fail_open"  # ember is not in a 5-tool universe
    assert _names(router.select(_ctx("invoice")).offered) == ["mcp:srv/handle_invoice"]


def test_same_context_same_decision() -> None:
    router = ToolRouter(_universe(30), AgentConfig())
    ctx = _ctx("handle records for the ember and quartz", "ok", ["limit reached"])
    assert router.select(ctx) == router.select(ctx)
    assert router.select(ctx) == ToolRouter(_universe(30), AgentConfig()).select(ctx)


def test_document_fields_are_name_description_and_parameters() -> None:
    d = ToolDefinition(
        ToolName("mcp:git/createBranch"),
        "Create a branch.",
        {"properties": {"z_name": {"description": "Branch name."}, "a_ref": {"type": "string"}}},
    )
    assert document_fields(d) == (
        ["mcp", "git", "creat", "branch"],
        ["creat", "branch"],
        ["ref", "name", "branch", "name"],
        [],  # Latin words have no subword terms
    )
    assert document_fields(ToolDefinition(ToolName("nika:x"), "X.", {"properties": 3})) == (
        ["nika"], [], [], []
    )
    arabic = ToolDefinition(ToolName("mcp:fx/convert"), "تحويل مبلغ", {})
    assert document_fields(arabic)[3] == ["#تح", "#حو", "#وي", "#يل", "#مب", "#بل", "#لغ"]


def test_context_query_weighs_observation_only_terms_down() -> None:
    ctx = _ctx("open IssueTracker", "then push", ["ok: merged, push", "failed: rebase"])
    w = OBSERVATION_WEIGHT
    assert context_query(ctx) == {
        "open": 1.0, "issu": 1.0, "tracker": 1.0, "push": 1.0,
        "merg": w, "fail": w, "rebas": w,
    }  # fmt: skip


def test_the_standing_preamble_weighs_down_and_the_request_up() -> None:
    prompt = "You are a careful assistant.\nUse tools wisely.\n\n  \nPlease handle the walrus."
    assert split_prompt(prompt) == (
        "You are a careful assistant.\nUse tools wisely.", "Please handle the walrus."
    )
    assert split_prompt("one paragraph\nonly") == ("", "one paragraph\nonly")
    query = context_query(_ctx(prompt, "", ["a walrus log, careful"]))
    assert query["walrus"] == 1.0  # in the request, whatever else mentions it
    assert query["tool"] == PREAMBLE_WEIGHT
    assert query["log"] == OBSERVATION_WEIGHT
    assert query["care"] == max(PREAMBLE_WEIGHT, OBSERVATION_WEIGHT)  # the heavier part wins
    assert PREAMBLE_WEIGHT < OBSERVATION_WEIGHT < 1.0


def test_a_long_preamble_does_not_drown_a_short_request() -> None:
    preamble = " ".join(f"{s} {s}" for s in SUBJECTS[:10])  # names ten tools, twice each
    router = ToolRouter(_universe(30), AgentConfig(top_k=1))
    decision = router.select(_ctx(f"{preamble}\n\nnow the zephyr please"))
    assert _names(decision.offered) == ["mcp:srv/handle_zephyr"]
    assert decision.reason == "bm25"


def test_ranked_and_passthrough_decisions_say_why() -> None:
    assert ToolRouter(_universe(5), AgentConfig()).select(_ctx("x")).reason == "below_threshold"
    assert ToolRouter(_universe(30), AgentConfig()).select(_ctx("ember")).reason == "bm25"


def test_rank_is_best_first_and_empty_when_failing_open() -> None:
    router = ToolRouter(_universe(30), AgentConfig(top_k=3))
    assert router.rank(_ctx("cobalt cobalt ember", "", ["walrus"])) == [
        "mcp:srv/handle_cobalt", "mcp:srv/handle_ember", "mcp:srv/handle_walrus"
    ]  # fmt: skip
    assert router.rank(_ctx("xylophone")) == []
    assert ToolRouter(_universe(5), AgentConfig()).rank(_ctx("ember")) == []


def test_small_talk_fails_open_in_any_language() -> None:
    router = ToolRouter(_universe(30), AgentConfig())
    for chat in ("thanks!", "hey, how are you?", "谢谢", "ありがとう", "감사합니다", "ขอบคุณครับ"):
        assert router.select(_ctx(chat)).reason == "fail_open", chat


def test_filler_in_a_tool_name_does_not_capture_chatty_requests() -> None:
    filler_tool = ToolDefinition(
        ToolName("mcp:desk/how_many_help_me"), "Help me with how many things.", {}, "mcp"
    )
    router = ToolRouter([*_universe(30), filler_tool], AgentConfig(top_k=12))
    chatty = "hey, could you please help me, how many embers are there?"
    ranked = router.rank(_ctx(chatty))
    assert ranked[0] == "mcp:srv/handle_ember"
    assert "mcp:desk/how_many_help_me" not in ranked


def test_a_cjk_request_finds_a_tool_described_in_its_language() -> None:
    weather = ToolDefinition(ToolName("mcp:amap/weather"), "根据城市名称查询天气预报", {}, "mcp")
    router = ToolRouter([*_universe(30), weather], AgentConfig(top_k=3))
    assert router.rank(_ctx("帮我查一下北京明天的天气")) == ["mcp:amap/weather"]
    # Latin names inside an unspaced run are found too.
    assert router.rank(_ctx("查询walrus状态"))[0] == "mcp:srv/handle_walrus"


def test_an_arabic_imperative_meets_its_tool_through_subwords() -> None:
    convert = ToolDefinition(
        ToolName("mcp:fx/convert"), "تحويل مبلغ بين العملات حسب سعر الصرف", {}, "mcp"
    )
    router = ToolRouter([*_universe(30), convert], AgentConfig(top_k=3))
    # "convert 100 dollars to riyals": no stem in common with the description, one root.
    ctx = _ctx("حول 100 دولار إلى ريال")
    assert context_query(ctx)["#حو"] == 1.0
    decision = router.select(ctx)
    assert decision.reason == "bm25"
    assert router.rank(ctx) == ["mcp:fx/convert"]
    # An exact term still outranks a shared bigram.
    exact = ToolDefinition(ToolName("mcp:fx/dollar"), "سعر دولار", {}, "mcp")
    both = ToolRouter([*_universe(30), convert, exact], AgentConfig(top_k=3))
    assert both.rank(ctx) == ["mcp:fx/dollar", "mcp:fx/convert"]


# --- prerequisites ----------------------------------------------------------------------------


def _needs(name: str, description: str, needs: str) -> ToolDefinition:
    params = {"id": {"type": "string", "description": f"Retrieved from {needs}."}}
    return ToolDefinition(ToolName(name), description, {"properties": params}, "mcp")


def test_a_ranked_tool_brings_the_tool_its_schema_names() -> None:
    packages = _needs("mcp:cars/Get_Packages", "Insurance packages of a rental.", "Search Cars")
    search = _needs("mcp:cars/Search_Cars", "Search rentals near a place.", "Find Car Location")
    location = ToolDefinition(ToolName("mcp:cars/Find_Car_Location"), "Places by name.", {})
    router = ToolRouter([*_universe(30), packages, search, location], AgentConfig(top_k=4))
    decision = router.select(_ctx("the insurance packages, and the ember"))
    scores = decision.scores
    assert list(scores)[:2] == ["mcp:cars/Get_Packages", "mcp:cars/Search_Cars"]
    assert set(scores) == {
        "mcp:cars/Get_Packages", "mcp:cars/Search_Cars", "mcp:cars/Find_Car_Location",
        "mcp:srv/handle_ember",
    }  # fmt: skip
    top = scores["mcp:cars/Get_Packages"]
    assert scores["mcp:cars/Search_Cars"] == PREREQUISITE_WEIGHT * top  # named by the pick
    assert scores["mcp:cars/Find_Car_Location"] == PREREQUISITE_WEIGHT * (PREREQUISITE_WEIGHT * top)
    assert set(_names(decision.offered)) == set(scores)
    # A ranking shorter than top_k still has room for what its picks name.
    alone = router.select(_ctx("insurance packages")).scores
    assert set(alone) == {
        "mcp:cars/Get_Packages", "mcp:cars/Search_Cars", "mcp:cars/Find_Car_Location"
    }
    # Nothing named: no cars tool rides along.
    plain = router.select(_ctx("the ember"))
    assert list(plain.scores)[0] == "mcp:srv/handle_ember"
    assert not any(name.startswith("mcp:cars/") for name in plain.scores)


def test_with_prerequisites_keeps_the_better_score_and_k() -> None:
    top = (ScoredDoc("a", 10.0), ScoredDoc("b", 9.5), ScoredDoc("c", 1.0))
    requires = {"a": ("c", "x"), "x": ("a", "y"), "b": ("y",)}
    got = with_prerequisites(top, requires, 4)
    w = PREREQUISITE_WEIGHT
    assert got == (
        ScoredDoc("a", 10.0), ScoredDoc("b", 9.5), ScoredDoc("c", w * 10.0),
        ScoredDoc("x", w * 10.0),
    )  # fmt: skip  (y: max(w * 9.5, w * w * 10.0) ranks fifth; a cycle back to a changes nothing)
    assert with_prerequisites(top, {}, 2) == top[:2]
    assert with_prerequisites((), requires, 3) == ()


def _scored(*names: str) -> list[ScoredDoc]:
    """A ranking of distinct scores, best first."""
    return [ScoredDoc(n, float(len(names) - i)) for i, n in enumerate(names)]


def test_reciprocal_rank_fusion() -> None:
    fused = reciprocal_rank_fusion([_scored("a", "b", "c"), _scored("c", "b", "d")], k=60)
    # b: 1/62 + 1/62; a: 1/61; c: 1/63 + 1/61; d: 1/63
    assert [d.name for d in fused] == ["c", "b", "a", "d"]
    assert [d.score for d in fused] == [1 / 63 + 1 / 61, 1 / 62 + 1 / 62, 1 / 61, 1 / 63]
    tie = reciprocal_rank_fusion([_scored("y", "x"), _scored("x", "y")])
    assert [d.name for d in tie] == ["x", "y"]  # a tie: by name
    assert reciprocal_rank_fusion([]) == []
    weighted = reciprocal_rank_fusion([_scored("a"), _scored("b")], k=1, weights=(1.0, 3.0))
    assert weighted == [ScoredDoc("b", 1.5), ScoredDoc("a", 0.5)]


def test_names_of_equal_score_share_their_mean_rank_in_the_fusion() -> None:
    # In the first ranking b, c and d tie (ranks 2-4): each counts as rank 3, so name order
    # gives b nothing over d, and e (ranked 2 by the second) beats all three.
    lexical = [ScoredDoc("a", 9.0), ScoredDoc("b", 1.0), ScoredDoc("c", 1.0), ScoredDoc("d", 1.0)]
    semantic = [ScoredDoc("a", 0.9), ScoredDoc("e", 0.8)]
    fused = reciprocal_rank_fusion([lexical, semantic], k=1)
    assert fused == [
        ScoredDoc("a", 1 / 2 + 1 / 2), ScoredDoc("e", 1 / 3), ScoredDoc("b", 1 / 4),
        ScoredDoc("c", 1 / 4), ScoredDoc("d", 1 / 4),
    ]  # fmt: skip
    unshared = reciprocal_rank_fusion([lexical[:1] + [ScoredDoc(n, 3.0 - i) for i, n in
                                                      enumerate("bcd")], semantic], k=1)
    assert [d.name for d in unshared][:3] == ["a", "b", "e"]  # distinct scores: b is rank 2


def test_a_long_observation_does_not_drown_the_prompt() -> None:
    router = ToolRouter(_universe(30), AgentConfig(top_k=1))
    # Unweighted, quartz and ember would tie with invoice and win on name order (ember first).
    noise = " ".join(["records", "handles"] * 200 + ["quartz", "ember"])
    decision = router.select(_ctx("invoice", observations=[noise]))
    assert _names(decision.offered) == ["mcp:srv/handle_invoice"]


def test_a_router_reused_across_turns_decides_as_a_fresh_one() -> None:
    # The router keeps the prompt's and the last observations' terms between turns: each turn
    # below changes one of them (or returns to an earlier value), so stale terms would show.
    router = ToolRouter(_universe(30), AgentConfig(top_k=2))
    turns = [
        _ctx("walrus", "", ["cobalt"]),
        _ctx("walrus", "", ["ember"]),
        _ctx("quartz", "", ["ember"]),
        _ctx("quartz", "falcon", ["ember", "invoice"]),
        _ctx("walrus", "", ["cobalt"]),
        _ctx("walrus"),
    ]
    offered = [_names(router.select(ctx).offered) for ctx in turns]
    fresh = [
        _names(ToolRouter(_universe(30), AgentConfig(top_k=2)).select(ctx).offered) for ctx in turns
    ]
    assert offered == fresh
    assert len({tuple(names) for names in offered}) == 5  # every change changed the offer


def test_a_ranked_decision_says_why_each_pick_was_offered() -> None:
    router = ToolRouter(_universe(30, done=True), AgentConfig(top_k=3), pinned=["nika:done"])
    decision = router.select(_ctx("cobalt cobalt and the invoice", recent=["mcp:srv/handle_ember"]))
    scores = decision.scores
    assert list(scores)[:2] == ["mcp:srv/handle_cobalt", "mcp:srv/handle_invoice"]  # best first
    assert list(scores.values()) == sorted(scores.values(), reverse=True)
    assert all(score > 0 for score in scores.values())
    # Pinned and recent tools are offered without a score: they did not rank.
    assert {"nika:done", "mcp:srv/handle_ember"} <= set(_names(decision.offered))
    assert "nika:done" not in scores and "mcp:srv/handle_ember" not in scores
    # Passthrough and fail-open rank nothing.
    assert router.select(_ctx("xylophone")).scores == {}
    assert ToolRouter(_universe(5), AgentConfig()).select(_ctx("cobalt")).scores == {}


# --- copies of one tool ---------------------------------------------------------------------


def _weather(name: str) -> ToolDefinition:
    return ToolDefinition(ToolName(name), "Current weather for a city.", {}, "mcp")


COPIES = [
    _weather(n) for n in
    ("mcp:a/get_weather", "mcp:b/getWeather", "mcp:c/get_weather_2", "mcp:a/GET_WEATHER#3")
]  # fmt: skip


def test_a_copy_key_reads_the_name_without_server_case_separators_or_numbering() -> None:
    keys = {copy_key(d.name) for d in COPIES}
    assert keys == {("get", "weather")}
    # A number inside the name or glued to a word is part of the tool's name.
    assert copy_key("mcp:x/Music_3_Lookup") != copy_key("mcp:x/Music_1_Lookup")
    assert copy_key("mcp:x/search_v2") == ("search", "v2")
    assert copy_key("mcp:x/42") == ("42",)
    # Only definitions that have a copy are keyed.
    assert set(copies_of([*COPIES, *_universe(3)])) == {d.name for d in COPIES}


def test_copies_of_one_tool_leave_room_for_the_other_tools_a_request_needs() -> None:
    alerts = ToolDefinition(
        ToolName("mcp:d/storm_alerts"), "Storm alerts by city, with the weather service.", {},
        "mcp",
    )
    router = ToolRouter([*COPIES, alerts, *_universe(30)], AgentConfig(top_k=3))
    ranked = router.rank(_ctx("weather for Paris"))
    # Four copies outscore the alerts; only COPIES_MAX of them stay ahead of it.
    assert COPIES_MAX == 2
    assert set(ranked[:2]) <= {d.name for d in COPIES}
    assert ranked[2] == "mcp:d/storm_alerts"
    scores = router.select(_ctx("weather for Paris")).scores
    assert list(scores) == ranked  # in rank order
    # With nothing else scoring, the remaining copies still fill the offer.
    assert len(ToolRouter([*COPIES, *_universe(30)], AgentConfig(top_k=3)).rank(
        _ctx("weather"))) == 3


def test_without_crowding_moves_later_copies_after_every_other_pick() -> None:
    ranked = [ScoredDoc(n, s) for n, s in
              (("a/x", 9.0), ("b/x", 8.0), ("c/x", 7.0), ("y", 6.0), ("d/x", 5.0), ("z", 4.0))]
    copies = {n: ("x",) for n in ("a/x", "b/x", "c/x", "d/x")}
    assert [d.name for d in without_crowding(ranked, copies, 4)] == ["a/x", "b/x", "y", "z"]
    assert [d.name for d in without_crowding(ranked, copies, 6)] == [
        "a/x", "b/x", "y", "z", "c/x", "d/x"
    ]
    assert without_crowding(ranked, {}, 2) == tuple(ranked[:2])


# --- the semantic leg ---------------------------------------------------------------------

CONCEPTS = (("walrus", "seal", "tusk", "海象"), ("cobalt", "metal", "blue"), ("ember", "fire"))


def test_the_semantic_leg_fuses_a_synonym_into_the_ranking() -> None:
    embedder = KeywordEmbedder(CONCEPTS)
    plain = ToolRouter(_universe(30), AgentConfig(top_k=2))
    fused = ToolRouter(_universe(30), AgentConfig(top_k=2, embedder=embedder))
    ctx = _ctx("the invoice, and the seal with a tusk")  # walrus only by meaning
    assert "mcp:srv/handle_walrus" not in plain.rank(ctx)
    assert fused.rank(ctx) == ["mcp:srv/handle_invoice", "mcp:srv/handle_walrus"]
    decision = fused.select(ctx)
    assert decision.reason == "fused" and decision.mode == "ranked"
    assert list(decision.scores) == fused.rank(ctx)  # the fused scores, best first


def test_document_vectors_are_embedded_once_per_run_and_queries_once_per_text() -> None:
    embedder = KeywordEmbedder(CONCEPTS)
    router = ToolRouter(_universe(30), AgentConfig(embedder=embedder))
    assert len(embedder.batches) == 1 and len(embedder.batches[0]) == 2 * 30  # two views each
    assert embedder.batches[0][0].startswith("mcp srv handle ")
    for _ in range(3):
        router.select(_ctx("the invoice and the seal"))
    router.select(_ctx("the invoice and the seal", "now the metal"))
    # The whole text and its clauses; the first clause was embedded already, as a request.
    assert embedder.batches[1:] == [
        ("the invoice and the seal",),
        ("now the metal", "the invoice and the seal\nnow the metal"),  # in sorted order
    ]


def test_the_semantic_leg_embeds_a_definition_as_two_views() -> None:
    seal = ToolDefinition(
        ToolName("mcp:zoo/feed"), "Feed an animal.",
        {"type": "object", "properties": {"species": {"description": "e.g. a seal"}}}, "mcp",
    )  # fmt: skip
    assert embedding_texts(seal) == ("mcp zoo feed: Feed an animal.",
                                     "feed: Feed an animal.\nspecies; e.g. a seal")
    assert embedding_texts(_definition(0))[1] == "handle invoice: Handles invoice records.\nlimit"
    bare = ToolDefinition(ToolName("mcp:zoo/nap"), "Sleep.", {}, "mcp")
    assert embedding_texts(bare) == ("mcp zoo nap: Sleep.", "nap: Sleep.")
    embedder = KeywordEmbedder(CONCEPTS)
    ToolRouter([*_universe(30), seal], AgentConfig(embedder=embedder))
    assert embedder.batches[0][-2:] == embedding_texts(seal)  # both views, once per run


def test_a_text_the_embedder_cannot_read_is_ranked_by_bm25_alone() -> None:
    embedder = KeywordEmbedder(CONCEPTS)
    router = ToolRouter(_universe(30), AgentConfig(top_k=2, embedder=embedder))
    plain = ToolRouter(_universe(30), AgentConfig(top_k=2))
    ctx = _ctx("the invoice and the quartz")  # no concept: the zero vector
    decision = router.select(ctx)
    assert decision.reason == "bm25"
    assert decision == plain.select(ctx)  # not fused with a ranking of ties by name


def test_fail_open_is_unchanged_by_the_semantic_leg() -> None:
    embedder = KeywordEmbedder(CONCEPTS)
    router = ToolRouter(_universe(30), AgentConfig(embedder=embedder))
    decision = router.select(_ctx("海象"))  # the embedder knows it, BM25 does not: no signal
    assert decision.mode == "fail_open" and decision.reason == "fail_open"
    assert len(embedder.batches) == 1  # nothing was embedded for a failing-open turn


def test_the_fused_ranking_is_deterministic_and_the_union_rule_holds() -> None:
    def decide() -> tuple[str, ...]:
        config = AgentConfig(top_k=3, embedder=KeywordEmbedder(CONCEPTS))
        router = ToolRouter(_universe(30, done=True), config, pinned=["nika:done"])
        ctx = _ctx("the ember and the metal", recent=["mcp:srv/handle_zephyr"])
        return tuple(_names(router.select(ctx).offered))

    first = decide()
    assert first == decide()
    assert {"nika:done", "mcp:srv/handle_zephyr"} <= set(first)
    assert {"mcp:srv/handle_ember", "mcp:srv/handle_cobalt"} <= set(first)
    assert len(first) == 3 + 2


def test_the_config_record_names_the_embedder() -> None:
    assert AgentConfig().as_dict()["embedder"] is None
    assert AgentConfig(embedder=KeywordEmbedder(CONCEPTS)).as_dict()["embedder"] == "keyword-fake"


def test_a_request_word_no_tool_has_meets_the_tool_words_it_begins() -> None:
    tourist = ToolDefinition(
        ToolName("mcp:trips/find_sights"), "Find tourist attractions in a city.", {}, "mcp"
    )
    cars = ToolDefinition(ToolName("mcp:trips/cars"), "Search car rental offers.", {}, "mcp")
    contest = ToolDefinition(ToolName("mcp:trips/cups"), "List tournament brackets.", {}, "mcp")
    router = ToolRouter([*_universe(30), tourist, cars, contest], AgentConfig(top_k=3))
    # No definition has "tour" or "rent": each meets the word it begins by at most
    # EXTENSION_SUFFIX letters (tourist, rental), not a longer one (tournament).
    assert router.rank(_ctx("book a tour of Rome")) == ["mcp:trips/find_sights"]
    assert router.rank(_ctx("I want to rent something")) == ["mcp:trips/cars"]
    assert len("nament") > EXTENSION_SUFFIX
    # A word some definition has is not extended; context_query alone knows no index.
    guides = ToolDefinition(ToolName("mcp:trips/guides"), "Hire a tour guide.", {}, "mcp")
    known = ToolRouter([*_universe(30), tourist, guides], AgentConfig(top_k=3))
    assert known.rank(_ctx("book a tour of Rome")) == ["mcp:trips/guides"]
    assert "tourist" not in context_query(_ctx("book a tour"))
    # Short words are never extended ("car" would meet "card", "cart", ...).
    short = ToolDefinition(ToolName("mcp:shop/cards"), "Print greeting card designs.", {}, "mcp")
    assert len("car") < EXTENSION_MIN
    assert ToolRouter([*_universe(30), short], AgentConfig()).rank(_ctx("a car")) == []


def test_extensions_rank_the_same_across_processes_and_hash_seeds() -> None:
    script = (
        "from nika.agent.config import AgentConfig\n"
        "from nika.agent.router import RouteContext, ToolRouter\n"
        "from nika.agent.seams import ToolDefinition, ToolName\n"
        "words = ['tourist', 'tourism', 'tourists', 'rental', 'rentals', 'banjo', 'lute']\n"
        "u = [ToolDefinition(ToolName(f'mcp:s/t{i}'), f'{w} {words[(i + 1) % 7]} item{i}', {},\n"
        "     'mcp') for i, w in enumerate(words * 5)]\n"
        "r = ToolRouter(u, AgentConfig(top_k=12))\n"
        "print(r.select(RouteContext('a tour to rent', '', (), frozenset())).scores)\n"
    )
    runs = outputs_across_hash_seeds(script)
    assert len(runs) == 1
    # Every tool but the banjo-and-lute ones is met through the extensions alone.
    assert "mcp:s/t0" in (scores := runs.pop()) and "mcp:s/t5'" not in scores
