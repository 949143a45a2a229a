"""one-obvious-way /006 and /007: fan-out is `for_each:` (spec 03)."""

from __future__ import annotations

from collections.abc import Callable

Lints = Callable[..., list[tuple[str, str]]]


def test_006_fires_on_a_timeout_wrapper_in_a_shell_line(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      each:
        for_each: { items: ["a", "b"] }
        exec: { shell: "LC_ALL=C gtimeout 10 ./one.sh" }
    """
    assert lints(src, "one-obvious-way/006") == [("one-obvious-way/006", "each")]


def test_006_silent_without_a_fan_out_or_with_the_timeout_field(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      once:
        exec: { command: ["timeout", "10", "./one.sh"] }
      each:
        for_each: { items: ["a", "b"] }
        timeout: "10s"
        exec: { command: ["./one.sh"] }
    """
    assert lints(src, "one-obvious-way/006") == []


def test_007_fires_on_a_four_shard_chain_inside_a_longer_pipeline(lints: Lints) -> None:
    # the shards sit between a setup and a report: only the stretch that repeats fires
    src = """
    nika: w
    tasks:
      setup: { exec: { command: ["./setup.sh"] } }
      s1:
        with: { ok: "${{ tasks.setup.output }}" }
        exec: { command: ["./work.sh", "--part", "1"] }
      s2: { after: { s1: success }, exec: { command: ["./work.sh", "--part", "2"] } }
      s3: { after: { s2: success }, exec: { command: ["./work.sh", "--part", "3"] } }
      s4: { after: { s3: success }, exec: { command: ["./work.sh", "--part", "4"] } }
      report: { after: { s4: success }, exec: { command: ["./report.sh"] } }
    """
    assert lints(src, "one-obvious-way/007") == [("one-obvious-way/007", "s1")]


def test_007_silent_on_two_varying_slots_or_parallel_shards(lints: Lints) -> None:
    src = """
    nika: w
    tasks:
      a1: { invoke: { tool: "nika:read", args: { path: "a/1.txt", encoding: "utf-8" } } }
      a2:
        after: { a1: success }
        invoke: { tool: "nika:read", args: { path: "a/2.txt", encoding: "latin-1" } }
      a3:
        after: { a2: success }
        invoke: { tool: "nika:read", args: { path: "a/3.txt", encoding: "utf-8" } }
      p1: { exec: { command: ["./p.sh", "1"] } }
      p2: { exec: { command: ["./p.sh", "2"] } }
      p3: { exec: { command: ["./p.sh", "3"] } }
    """
    assert lints(src, "one-obvious-way/007") == []
