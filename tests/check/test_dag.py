"""The DAG-topology rung: one refused and one clean workflow per code, plus the plan."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.check import dag
from nika.check.context import CheckContext, Section
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def _run(source: str) -> tuple[list[NikaError], dict[str, object]]:
    doc = load_document(textwrap.dedent(source))
    workflow, shape = build_workflow(doc)
    assert workflow is not None and not shape, [e.to_dict() for e in shape]
    ctx = CheckContext(document=doc, workflow=workflow, path=None, base_dir=Path("."))
    errors: list[NikaError] = []
    sections: dict[str, object] = {}
    for finding in dag.run(ctx):
        if isinstance(finding, Section):
            sections[finding.name] = finding.value
        elif isinstance(finding, NikaError):
            errors.append(finding)
    return errors, sections


def _codes(source: str) -> list[str]:
    return sorted(e.code for e in _run(source)[0])


def _one(source: str, code: str) -> NikaError:
    errors, _ = _run(source)
    assert [e.code for e in errors] == [code], [e.to_dict() for e in errors]
    return errors[0]


def test_plan_waves_for_a_diamond() -> None:
    errors, sections = _run(
        """
        nika: diamond
        tasks:
          d:
            with: { b: "${{ tasks.b.output }}", c: "${{ tasks.c.output }}" }
            infer: { prompt: "merge ${{ with.b }} ${{ with.c }}" }
          c: { after: { a: success }, infer: { prompt: "c" } }
          b: { after: { a: success }, infer: { prompt: "b" } }
          a: { infer: { prompt: "a" } }
        """
    )
    assert errors == []
    assert sections["plan"] == {"waves": [["a"], ["b", "c"], ["d"]]}


def test_cycle_names_its_path_and_points_at_an_edge() -> None:
    err = _one(
        """
        nika: t
        tasks:
          a:
            with: { x: "${{ tasks.b.output }}" }
            infer: { prompt: "${{ with.x }}" }
          b:
            after: { a: success }
            infer: { prompt: "b" }
        """,
        "NIKA-DAG-001",
    )
    assert "a → b → a" in err.detail
    assert err.location is not None and err.location.line == 8  # `after: { a: success }`
    assert err.details["cycle"] == ["a", "b", "a"]


def test_self_dependency_is_a_cycle() -> None:
    err = _one(
        "nika: t\ntasks:\n  a: { after: { a: success }, infer: { prompt: a } }\n",
        "NIKA-DAG-001",
    )
    assert "a → a" in err.detail and "itself" in err.detail


def test_folding_a_group_one_belongs_to_is_a_one_cycle() -> None:
    err = _one(
        """
        nika: t
        tasks:
          a:
            group: g
            with: { legs: "${{ group.g }}" }
            infer: { prompt: "${{ with.legs }}" }
        """,
        "NIKA-DAG-001",
    )
    assert "a → a" in err.detail


def test_undeclared_after_target_suggests_the_close_name() -> None:
    err = _one(
        """
        nika: t
        tasks:
          build: { infer: { prompt: b } }
          deploy: { after: { buidl: success }, infer: { prompt: d } }
        """,
        "NIKA-DAG-002",
    )
    assert "`buidl`" in err.detail and "did you mean `build`" in err.detail


def test_undeclared_with_producer() -> None:
    err = _one(
        """
        nika: t
        tasks:
          a:
            with: { x: "${{ tasks.ghost.output }}" }
            infer: { prompt: "${{ with.x }}" }
        """,
        "NIKA-DAG-002",
    )
    assert "`with: { x: … }`" in err.detail


def test_recover_from_downstream_deadlocks() -> None:
    source = """
        nika: t
        tasks:
          fetch:
            exec: { command: ["true"] }
            on_error: { recover: "${{ tasks.fallback.output }}" }
          fallback:
            after: { fetch: {pred} }
            exec: { command: ["true"] }
        """
    err = _one(source.replace("{pred}", "terminal"), "NIKA-DAG-004")
    assert "`fallback`" in err.detail
    assert _codes(source.replace("after: { fetch: {pred} }", "group: g")) == []


def test_mutual_recovery_is_a_cycle_of_the_resolution_graph() -> None:
    errors, _ = _run(
        """
        nika: t
        tasks:
          a:
            exec: { command: ["false"] }
            on_error: { recover: "${{ tasks.b.output }}" }
          b:
            exec: { command: ["false"] }
            on_error: { recover: "${{ tasks.a.output }}" }
        """
    )
    # one finding per cycle, not one per recovery edge on it
    assert [(e.code, e.details["task"], e.details["source"]) for e in errors] == [
        ("NIKA-DAG-004", "a", "b")]
    assert errors[0].details["cycle"] == ["a", "b", "a"]
    assert errors[0].details["recovering"] == ["a", "b"]
    assert "the same cycle also holds `b` from `a`" in errors[0].detail


def test_a_recovery_cycle_through_a_data_edge_and_self_recovery_are_refused() -> None:
    errors, _ = _run(
        """
        nika: t
        tasks:
          a:
            exec: { command: ["false"] }
            on_error: { recover: "${{ tasks.c.output }}" }
          b:
            exec: { command: ["false"] }
            on_error: { recover: "${{ tasks.a.output }}" }
          c:
            with: { x: "${{ tasks.b.output }}" }
            exec: { command: ["echo", "${{ with.x }}"] }
          d:
            exec: { command: ["false"] }
            on_error: { recover: "${{ tasks.d.output }}" }
        """
    )
    found = {e.details["task"]: e.details["cycle"] for e in errors}
    assert [e.code for e in errors] == ["NIKA-DAG-004"] * 2  # the a-b-c cycle, then d's
    assert found == {"a": ["a", "b", "c", "a"], "d": ["d", "d"]}
    assert "itself" in next(e.detail for e in errors if e.details["task"] == "d")


def test_a_cleanup_unit_recovering_from_its_producers_consumer_deadlocks() -> None:
    # `p` settles outward only after its cleanup `u` ran; `u` would await `c`, which waits on `p`.
    err = _one(
        """
        nika: t
        tasks:
          p: { exec: { command: ["true"] } }
          c:
            with: { x: "${{ tasks.p.output }}" }
            exec: { command: ["echo", "${{ with.x }}"] }
          u:
            after: { p: unwind }
            exec: { command: ["false"] }
            on_error: { recover: "${{ tasks.c.output }}" }
        """,
        "NIKA-DAG-004",
    )
    assert err.details["cycle"] == ["u", "p", "c", "u"]


def test_recover_from_an_independent_task_is_clean() -> None:
    assert (
        _codes(
            """
        nika: t
        tasks:
          cached: { exec: { command: ["true"] } }
          fetch:
            exec: { command: ["true"] }
            on_error: { recover: "${{ tasks.cached.output }}" }
        """
        )
        == []
    )


def test_unknown_predicate() -> None:
    err = _one(
        "nika: t\ntasks:\n  a: { infer: { prompt: a } }\n"
        "  b: { after: { a: succes }, infer: { prompt: b } }\n",
        "NIKA-DAG-005",
    )
    assert "did you mean `success`" in err.detail


@pytest.mark.parametrize(
    ("producer", "predicate", "dead"),
    [
        ('exec: { command: ["false"] }', "skipped", True),
        ('when: false\n    exec: { command: ["true"] }', "success", True),
        ('when: false\n    exec: { command: ["true"] }', "failure", True),
        ('when: false\n    exec: { command: ["true"] }', "skipped", False),
        ('exec: { command: ["false"] }', "failure", False),
        ('for_each: { items: [1] }\n    exec: { command: ["true"] }', "skipped", False),
        ('on_error: { skip: true }\n    exec: { command: ["true"] }', "skipped", False),
        ('exec: { command: ["true"] }', "terminal", False),
    ],
)
def test_static_liveness_of_after_edges(producer: str, predicate: str, dead: bool) -> None:
    source = f"""\
nika: t
tasks:
  p:
    {producer}
  c:
    after: {{ p: {predicate} }}
    exec: {{ command: ["true"] }}
"""
    assert _codes(source) == (["NIKA-DAG-006"] if dead else [])


def test_death_propagates_along_edges_that_exclude_cancelled() -> None:
    errors, _ = _run(
        """
        nika: t
        tasks:
          p: { exec: { command: ["true"] } }
          c: { after: { p: skipped }, exec: { command: ["true"] } }
          d: { with: { x: "${{ tasks.c.output }}" }, exec: { command: ["true"] } }
          e: { after: { c: terminal }, exec: { command: ["true"] } }
        """
    )
    assert sorted(str(e.details["task"]) for e in errors) == ["c", "d"]
    assert "never admitted" in next(e for e in errors if e.details["task"] == "d").detail


def test_a_fold_never_dies_of_a_never_member() -> None:
    assert (
        _codes(
            """
        nika: t
        tasks:
          off: { group: g, when: false, exec: { command: ["true"] } }
          summary: { with: { legs: "${{ group.g }}" }, exec: { command: ["true"] } }
        """
        )
        == []
    )


def test_when_false_on_every_reachable_status_is_dead() -> None:
    source = """
        nika: t
        tasks:
          p: { exec: { command: ["true"] } }
          c:
            after: { p: success }
            with: { s: "${{ tasks.p.status }}" }
            when: "${{ with.s == 'failure' }}"
            exec: { command: ["true"] }
        """
    err = _one(source, "NIKA-DAG-006")
    assert "when:" in err.detail
    assert _codes(source.replace("'failure'", "'success'")) == []
    assert _codes(source.replace("after: { p: success }", "after: { p: terminal }")) == []


def test_status_literal_outside_the_vocabulary() -> None:
    source = """
        nika: t
        tasks:
          p: { exec: { command: ["true"] } }
          c:
            with: { s: "${{ tasks.p.status }}" }
            when: "${{ with.s != 'done' }}"
            exec: { command: ["true"] }
        """
    err = _one(source, "NIKA-DAG-007")
    assert "'done'" in err.detail and "always holds" in err.detail
    assert _codes(source.replace("'done'", "'skipped'")) == []


def test_direct_status_comparison_in_a_binding() -> None:
    assert _codes(
        """
        nika: t
        tasks:
          p: { exec: { command: ["true"] } }
          c:
            with: { ok: "${{ tasks.p.status == 'succeeded' }}" }
            exec: { command: ["true"] }
        """
    ) == ["NIKA-DAG-007"]


def test_undeclared_group_and_bare_group() -> None:
    source = """
        nika: t
        tasks:
          leg: { group: probes_v2, exec: { command: ["true"] } }
          summary: { with: { legs: "${{ FOLD }}" }, exec: { command: ["true"] } }
        """
    err = _one(source.replace("FOLD", "group.probes"), "NIKA-DAG-008")
    assert "`probes_v2`" in err.detail
    assert _codes(source.replace("FOLD", "group")) == ["NIKA-DAG-008"]
    assert _codes(source.replace("FOLD", "group.probes_v2")) == []


def test_unwind_task_may_not_join_a_group() -> None:
    source = """
        nika: t
        tasks:
          work: { exec: { command: ["true"] } }
          clean: { GROUP after: { work: unwind }, exec: { command: ["true"] } }
        """
    assert _codes(source.replace("GROUP", "group: g,")) == ["NIKA-DAG-009"]
    errors, sections = _run(source.replace("GROUP", ""))
    assert errors == []
    assert sections["plan"] == {"waves": [["work"]]}


def test_ten_thousand_task_chain_checks_quickly_enough_to_finish() -> None:
    lines = ["nika: big", "tasks:", '  t0: { exec: { command: ["true"] } }']
    lines += [
        f'  t{i}: {{ with: {{ x: "${{{{ tasks.t{i - 1}.output }}}}" }}, '
        f'exec: {{ command: ["${{{{ with.x }}}}"] }} }}'
        for i in range(1, 10_000)
    ]
    errors, sections = _run("\n".join(lines) + "\n")
    assert errors == []
    plan = sections["plan"]
    assert isinstance(plan, dict) and len(plan["waves"]) == 10_000


@st.composite
def _cyclic_workflows(draw: st.DrawFn) -> str:
    n = draw(st.integers(min_value=1, max_value=12))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20))
    edges = {(a, b) for a, b in pairs if a < b}
    chain = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    edges |= set(zip(chain, chain[1:], strict=False)) | {(chain[-1], chain[0])}
    lines = ["nika: cyclic", "tasks:"]
    for t in range(n):
        preds = sorted(a for a, b in edges if b == t)
        kinds = [draw(st.booleans()) for _ in preds]
        after = ", ".join(f"t{p}: terminal" for p, k in zip(preds, kinds, strict=True) if k)
        with_ = ", ".join(
            f'v{p}: "${{{{ tasks.t{p}.status }}}}"'
            for p, k in zip(preds, kinds, strict=True)
            if not k
        )
        lines.append(f"  t{t}:")
        if after:
            lines.append(f"    after: {{ {after} }}")
        if with_:
            lines.append(f"    with: {{ {with_} }}")
        lines.append('    exec: { command: ["true"] }')
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_cyclic_workflows())
def test_an_injected_cycle_is_always_refused(source: str) -> None:
    codes = _codes(source)
    assert "NIKA-DAG-001" in codes
