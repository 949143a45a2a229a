"""one-obvious-way /010, /002, /003, /004, /005: edges and failure paths (spec 03)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from nika.check import check

Lints = Callable[..., list[tuple[str, str]]]


def test_010_fires_on_terminal_after_beside_a_named_binding(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      load:
        invoke: { tool: "nika:read", args: { path: "in.json" } }
        extract: { rows: ".rows" }
      use:
        with: { rows: "${{ tasks.load.rows }}" }
        after: { load: terminal }
        exec: { command: ["./use.sh", "${{ with.rows }}"] }
    """
    assert lints(src, "one-obvious-way/010") == [("one-obvious-way/010", "use")]


def test_010_silent_when_the_after_entry_tightens_or_only_observes(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      a:
        exec: { command: ["./a.sh"] }
      tight:
        with: { v: "${{ tasks.a.output }}" }
        after: { a: success }
        exec: { command: ["./b.sh", "${{ with.v }}"] }
      report:
        with: { seen: "${{ tasks.a.status }}" }
        after: { a: terminal }
        exec: { command: ["./r.sh", "${{ with.seen }}"] }
    """
    assert lints(src, "one-obvious-way/010") == []


def test_002_fires_once_naming_every_blind_dependent(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      a:
        invoke: { tool: "nika:read", args: { path: "x.txt" } }
        on_error: { skip: true }
      b:
        with: { v: "${{ tasks.a.output }}" }
        exec: { command: ["./b.sh", "${{ with.v }}"] }
      c:
        with: { v: "${{ tasks.a.output }}" }
        after: { a: terminal }
        exec: { command: ["./c.sh", "${{ with.v }}"] }
    """
    verdict = check(textwrap.dedent(src), lint=True)
    found = [f for f in verdict.lints or () if f.rule == "one-obvious-way/002"]
    assert [(f.rule, f.task) for f in found] == [("one-obvious-way/002", "a")]
    assert "`b`, `c`" in found[0].message and "after: {a: success}" in found[0].fix


def test_002_silent_when_the_dependent_tests_the_binding(lints: Lints) -> None:
    # acknowledged in `when:`, or by a null test in the body, or by a control-only edge
    src = """
    nika: w
    tasks:
      a:
        exec: { command: ["./a.sh"] }
        on_error: { skip: true }
      guarded:
        with: { v: "${{ tasks.a.output }}" }
        when: "${{ with.v != null }}"
        exec: { command: ["./b.sh", "${{ with.v }}"] }
      defaulted:
        with: { v: "${{ tasks.a.output }}" }
        exec: { command: ["./c.sh", "${{ with.v == null ? 'none' : with.v }}"] }
      ordered:
        after: { a: terminal }
        exec: { command: ["./d.sh"] }
    """
    assert lints(src, "one-obvious-way/002") == []


def test_003_fires_on_an_exec_copy_behind_a_failure_edge(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      build:
        exec: { command: ["make", "all"], cwd: "." }
      rebuild:
        after: { build: failure }
        exec: { command: ["make", "all"], cwd: "." }
    """
    assert lints(src) == [("one-obvious-way/003", "rebuild")]


def test_003_silent_when_the_copy_differs_in_one_field(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      build:
        exec: { command: ["make", "all"] }
      rebuild:
        after: { build: failure }
        exec: { command: ["make", "clean", "all"] }
    """
    assert lints(src, "one-obvious-way/003") == []


def test_004_fires_on_a_literal_fallback_value(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      primary:
        invoke: { tool: "nika:read", args: { path: "in.json" } }
      fallback:
        after: { primary: failure }
        invoke: { tool: "nika:jq", args: { input: { items: [] }, expression: "." } }
      shout:
        after: { primary: failure }
        exec: { command: ["echo", "no data"] }
    """
    assert lints(src) == [
        ("one-obvious-way/004", "fallback"),
        ("one-obvious-way/004", "shout"),
    ]


def test_004_silent_when_the_failure_task_does_work(lints: Lints) -> None:
    # an interpolated echo and a shell redirect are work, not a mere value
    src = """
    nika: w
    inputs:
      who: { type: string, default: "ops" }
    tasks:
      primary:
        exec: { command: ["./primary.sh"] }
      page:
        after: { primary: failure }
        exec: { command: ["echo", "${{ inputs.who }}"] }
      record:
        after: { primary: failure }
        exec: { shell: "echo failed > status.txt" }
    """
    assert lints(src, "one-obvious-way/004") == []


def test_005_fires_on_a_terminal_edge_to_each_of_three_tasks(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      a: { exec: { command: ["./a.sh"] } }
      b: { after: { a: success }, exec: { command: ["./b.sh"] } }
      c: { exec: { command: ["./c.sh"] } }
      sweep:
        after: { a: terminal, b: terminal, c: terminal }
        exec: { command: ["./sweep.sh"] }
    """
    assert lints(src, "one-obvious-way/005") == [("one-obvious-way/005", "sweep")]


def test_005_silent_on_unwind_cleanup_and_partial_terminal_edges(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      a: { exec: { command: ["./a.sh"] } }
      b: { exec: { command: ["./b.sh"] } }
      c: { exec: { command: ["./c.sh"] } }
      report:
        after: { a: terminal, b: terminal }
        exec: { command: ["./report.sh"] }
      drop:
        after: { a: unwind, b: unwind, c: unwind }
        exec: { command: ["./drop.sh"] }
    """
    assert lints(src, "one-obvious-way/005") == []
