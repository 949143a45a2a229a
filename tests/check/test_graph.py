"""The derived graphs: adjacency, waves, reachability and cycle witnesses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nika.check.graph import (
    ALL_STATUSES,
    Edge,
    EdgeKind,
    Graph,
    role_of_field,
)
from nika.syntax.model import TaskId


def _t(name: str) -> TaskId:
    return TaskId(name)


def _control(src: str, dst: str, predicate: str = "success") -> Edge:
    return Edge(_t(src), _t(dst), EdgeKind.CONTROL, predicate=predicate)


def _value(src: str, dst: str) -> Edge:
    return Edge(_t(src), _t(dst), EdgeKind.VALUE, binding="x")


def _graph(names: str, *edges: Edge, cleanup: tuple[str, ...] = ()) -> Graph:
    return Graph.build([_t(n) for n in names.split()], edges, cleanup=[_t(c) for c in cleanup])


def test_diamond_waves_are_sorted_levels() -> None:
    edges = (_control("a", "c"), _control("a", "b"), _value("b", "d"), _value("c", "d"))
    g = _graph("a c b d", *edges)
    assert g.topological_waves() == (("a",), ("b", "c"), ("d",))
    assert g.producers(_t("d")) == ("b", "c")
    assert g.consumers(_t("a")) == ("b", "c")
    assert g.ancestors(_t("d")) == {"a", "b", "c"}
    assert g.descendants(_t("a")) == {"b", "c", "d"}
    assert g.cycles() == ()


def test_wave_is_the_longest_chain_not_the_shortest() -> None:
    g = _graph("a b c", _control("a", "b"), _control("b", "c"), _control("a", "c"))
    assert g.topological_waves() == (("a",), ("b",), ("c",))


def test_self_edge_is_a_one_cycle() -> None:
    g = _graph("a", _control("a", "a"))
    assert g.cycles() == (("a", "a"),)
    assert g.topological_waves() == ()
    assert g.ancestors(_t("a")) == {"a"}


def test_cycle_witness_starts_at_smallest_id_and_is_shortest() -> None:
    g = _graph(
        "c b a d",
        _control("a", "b"),
        _control("b", "c"),
        _control("c", "a"),
        _control("b", "a"),
        _control("c", "d"),
    )
    assert g.cycles() == (("a", "b", "a"),)
    assert g.topological_waves() == ()


def test_two_components_each_get_a_witness_and_the_rest_still_waves() -> None:
    g = _graph(
        "root x y p q tail",
        _control("x", "y"),
        _control("y", "x"),
        _value("p", "q"),
        _value("q", "p"),
        _control("root", "tail"),
        _control("y", "tail"),
    )
    assert g.cycles() == (("p", "q", "p"), ("x", "y", "x"))
    assert g.topological_waves() == (("root",),)


def test_non_scheduling_edges_do_not_order() -> None:
    recovery = Edge(_t("b"), _t("a"), EdgeKind.RECOVERY)
    unwind = Edge(_t("a"), _t("clean"), EdgeKind.FINALLY, predicate="unwind")
    g = _graph("a b clean", _control("a", "b"), recovery, unwind, cleanup=("clean",))
    assert g.cycles() == ()
    assert g.nodes == ("a", "b")
    assert g.cleanup == ("clean",)
    assert g.topological_waves() == (("a",), ("b",))
    assert g.cleanup_of(_t("a")) == ("clean",)
    assert g.of_kind(EdgeKind.RECOVERY) == (recovery,)


def test_edges_naming_undeclared_tasks_dangle() -> None:
    ghost = _control("ghost", "a")
    g = _graph("a", ghost)
    assert g.dangling == (ghost,)
    assert g.edges == ()
    assert g.topological_waves() == (("a",),)


def test_pass_sets_follow_the_gate_algebra() -> None:
    assert _value("a", "b").pass_set == {"success", "skipped"}
    assert _control("a", "b", "terminal").pass_set == ALL_STATUSES
    assert _control("a", "b", "skipped").pass_set == {"skipped"}
    assert Edge(_t("a"), _t("b"), EdgeKind.FAILURE_OBSERVATION).pass_set == {"failure", "skipped"}
    assert Edge(_t("a"), _t("b"), EdgeKind.FAN_IN).pass_set == ALL_STATUSES


def test_field_roles() -> None:
    assert role_of_field("output") is EdgeKind.VALUE
    assert role_of_field("pages") is EdgeKind.VALUE
    assert role_of_field("status") is EdgeKind.TERMINAL_OBSERVATION
    assert role_of_field("duration_ms") is EdgeKind.TERMINAL_OBSERVATION
    assert role_of_field("error") is EdgeKind.FAILURE_OBSERVATION


def test_ten_thousand_task_chain_and_fan_out() -> None:
    n = 10_000
    names = [_t(f"t{i}") for i in range(n)]
    chain = Graph.build(names, [_value(names[i], names[i + 1]) for i in range(n - 1)])
    assert len(chain.topological_waves()) == n
    assert chain.cycles() == ()
    fan = Graph.build(names, [_control(names[0], names[i]) for i in range(1, n)])
    waves = fan.topological_waves()
    assert len(waves) == 2 and len(waves[1]) == n - 1
    assert fan.cycles() == ()
    looped = Graph.build(names, [*chain.edges, _control(names[-1], names[0])])
    assert len(looped.cycles()[0]) == n + 1


@st.composite
def _dags(draw: st.DrawFn) -> tuple[list[TaskId], list[Edge]]:
    n = draw(st.integers(min_value=1, max_value=25))
    names = [_t(f"t{i:02d}") for i in range(n)]
    order = draw(st.permutations(names))
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] < p[1]),
            max_size=60,
        )
    )
    kinds = st.sampled_from([EdgeKind.VALUE, EdgeKind.CONTROL, EdgeKind.FAN_IN])
    edges = [Edge(order[i], order[j], draw(kinds), predicate="success") for i, j in pairs]
    return names, edges


@settings(max_examples=300, deadline=None)
@given(_dags())
def test_waves_respect_every_edge_and_cover_every_task_once(
    dag: tuple[list[TaskId], list[Edge]],
) -> None:
    names, edges = dag
    g = Graph.build(names, edges)
    waves = g.topological_waves()
    level = {t: k for k, wave in enumerate(waves) for t in wave}
    assert sorted(level) == sorted(names)
    assert sum(len(w) for w in waves) == len(names)
    assert all(list(w) == sorted(w) for w in waves)
    for edge in edges:
        assert level[edge.source] < level[edge.target]
    assert g.cycles() == ()


@settings(max_examples=300, deadline=None)
@given(_dags(), st.data())
def test_an_injected_back_edge_is_always_a_cycle(
    dag: tuple[list[TaskId], list[Edge]], data: st.DataObject
) -> None:
    names, edges = dag
    g = Graph.build(names, edges)
    candidates = sorted((a, d) for a in names for d in g.descendants(a)) or [(names[0], names[0])]
    src, dst = data.draw(st.sampled_from(candidates))
    cyclic = Graph.build(names, [*edges, _control(dst, src)])
    witnesses = cyclic.cycles()
    assert witnesses
    for witness in witnesses:
        assert witness[0] == witness[-1] == min(witness)
        hops = {(e.source, e.target) for e in cyclic.edges}
        assert all((a, b) in hops for a, b in zip(witness, witness[1:], strict=False))
    assert len({t for w in cyclic.topological_waves() for t in w}) < len(names)
