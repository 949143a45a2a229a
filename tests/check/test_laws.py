"""The order law's witness pass (`_laws`), against the definition it replaces.

The rung finds, per exec task, the first net task in declaration order among its
ancestors and a shortest path from it — in one O(V + E) pass. The reference below is
the definition read literally (ancestors per exec task, a fresh BFS per witness); the
property holds them equal on random DAGs.
"""

from __future__ import annotations

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from nika.check import check
from nika.check._laws import EGRESS_BUILTINS, egress_capable, may_reach
from nika.check._trifecta import is_ingress
from nika.check.graph import Graph, derive
from nika.syntax.loader import load_document
from nika.syntax.model import TaskId, Workflow, build_workflow

HEAD = "nika: x\npermits:\n  exec: [echo]\n  net: { http: [a.example] }\n  tools: ['nika:fetch']\n"
FETCH = "    invoke: { tool: nika:fetch, args: { url: 'https://a.example/' } }\n"
EXEC = "    exec: { command: [echo, hi] }\n"
INFER = "    infer: { prompt: hi }\n"


def source(kinds: list[str], parents: list[list[int]]) -> str:
    lines = [HEAD, "tasks:\n"]
    for i, (kind, ps) in enumerate(zip(kinds, parents, strict=True)):
        lines.append(f"  t{i}:\n")
        if ps:
            lines.append("    after: { " + ", ".join(f"t{p}: terminal" for p in ps) + " }\n")
        lines.append({"fetch": FETCH, "exec": EXEC, "infer": INFER}[kind])
    return "".join(lines)


def reference(workflow: Workflow, graph: Graph) -> list[tuple[str, list[str]]]:
    net = [t.id for t in workflow.tasks.values() if t.tool == "nika:fetch"]
    found: list[tuple[str, list[str]]] = []
    for task in workflow.tasks.values():
        if task.verb != "exec":
            continue
        ancestors = graph.ancestors(task.id)
        first = next((n for n in net if n in ancestors), None)
        if first is not None:
            found.append((task.id, _bfs_path(graph, first, task.id)))
    return found


def _bfs_path(graph: Graph, start: TaskId, goal: TaskId) -> list[str]:
    back: dict[TaskId, TaskId] = {}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur == goal:
            break
        for nxt in graph.consumers(cur):
            if nxt not in back and nxt != start:
                back[nxt] = cur
                queue.append(nxt)
    out = [goal]
    while out[-1] != start:
        out.append(back[out[-1]])
    return [str(t) for t in reversed(out)]


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[str], list[list[int]]]:
    n = draw(st.integers(2, 14))
    kinds = draw(st.lists(st.sampled_from(["fetch", "exec", "infer"]), min_size=n, max_size=n))
    parents = [
        sorted(set(draw(st.lists(st.integers(0, i - 1), max_size=3)))) if i else []
        for i in range(n)
    ]
    return kinds, parents


@settings(max_examples=150, deadline=None)
@given(dag=dags())
def test_the_order_law_names_the_first_net_ancestor_and_a_shortest_path(
    dag: tuple[list[str], list[list[int]]],
) -> None:
    src = source(*dag)
    workflow, errors = build_workflow(load_document(src))
    assert workflow is not None and not errors
    want = reference(workflow, derive(workflow))
    got = [
        (e.details["path"][-1], e.details["path"])
        for e in check(src).errors
        if e.code == "NIKA-SEC-015"
    ]
    assert got == want


def test_an_earlier_declared_net_task_owns_the_exec_even_when_a_later_one_is_closer() -> None:
    # t1 (fetch, declared second) feeds the exec directly; t0 (fetch, declared first)
    # reaches it only through t1 → t2. The first-declared ancestor is the witness.
    kinds = ["fetch", "fetch", "infer", "exec"]
    parents: list[list[int]] = [[], [0], [1], [1, 2]]
    (err,) = [e for e in check(source(kinds, parents)).errors if e.code == "NIKA-SEC-015"]
    assert err.details["path"] == ["t0", "t1", "t3"]
    assert "network task `t0`" in err.detail


def test_an_unclosed_island_in_a_gated_binding_is_reported_once_not_as_a_crash() -> None:
    # issue 14: NIKA-VAR-008 once escaped the authority rung as NIKA-IMPL-001.
    verdict = check(
        'nika: c4\npermits: { tools: ["nika:prompt", "nika:write"], fs: { write: ["out/**"] } }\n'
        "tasks:\n  ask:\n    invoke: { tool: nika:prompt, args: { message: go? } }\n"
        '  w:\n    with: { go: "${{ tasks.ask.output }}", c: "${{ )" }\n'
        '    when: "${{ with.go == true }}"\n'
        '    invoke: { tool: nika:write, args: { path: out/x, content: "${{ with.c }}" } }\n'
    )
    assert [e.code for e in verdict.errors] == ["NIKA-VAR-008"]


def test_may_reach_judges_each_verb_by_what_it_can_touch() -> None:
    wf = build_workflow(load_document(
        "nika: x\ntasks:\n"
        "  sh:\n    exec: { command: [echo, hi] }\n"
        "  get:\n    invoke: { tool: nika:fetch, args: { url: 'https://a.example/' } }\n"
        "  put:\n    invoke: { tool: nika:write, args: { path: o.txt, content: x } }\n"
        "  mcp:\n    invoke: { tool: mcp:db/query }\n"
        "  wide:\n    agent: { prompt: go, tools: ['nika:*'] }\n"
        "  reader:\n    agent: { prompt: go, tools: ['nika:read'] }\n"
        "  think:\n    infer: { prompt: hi }\n"
    ))[0]
    assert wf is not None
    t = wf.tasks
    reach = {tid: may_reach(t[TaskId(tid)], frozenset({"nika:fetch"})) for tid in
             ("sh", "get", "put", "mcp", "wide", "reader", "think")}
    assert reach == {"sh": True, "get": True, "put": False, "mcp": True, "wide": True,
                     "reader": False, "think": False}
    # the two laws read the one judgement through their own builtin sets
    assert all(is_ingress(task) == may_reach(task, frozenset({"nika:fetch"}))
               for task in t.values())
    assert all(egress_capable(task) == may_reach(task, EGRESS_BUILTINS) for task in t.values())
    assert egress_capable(t[TaskId("put")]) and not is_ingress(t[TaskId("put")])
