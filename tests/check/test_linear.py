"""`check` grows linearly with its input, on the shapes that once made it quadratic (issue 14).

Time is never asserted: the measure is the number of Python and C function calls `check()`
makes (a profiler hook counts them), which is deterministic for a given input. Each case
checks a small and an 8× larger document; linear work grows about 8×, the quadratic
paths these tests pin grew 64× and more.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from nika.check import check
from nika.check.verdict import Verdict

QUOTED = '${{ "\\" }}'  # a quote the island never closes: its scan used to run to the end


def work(source: str) -> tuple[int, Verdict]:
    """How many functions `check(source)` calls, and its verdict."""
    calls = 0

    def count(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        verdict = check(source)
    finally:
        sys.setprofile(None)
    return calls, verdict


def when_islands(n: int, island: str = "${{ a }}", per: int = 8_000) -> str:
    """`n` islands in `when:` strings of at most `per` islands (one scalar is capped at 64 KiB)."""
    tasks = [
        f"  t{start}:\n    when: '{island * min(per, n - start)}'\n    infer: {{ prompt: hi }}\n"
        for start in range(0, n, per)
    ]
    return "nika: islands\ntasks:\n" + "".join(tasks)


def globs(n: int) -> str:
    """n tasks reading n distinct files, each granted by its own glob, plus unused ones."""
    read = "invoke: {{ tool: nika:read, args: {{ path: 'd{}/f' }} }}"
    tasks = "".join(f"  t{i}:\n    {read.format(i)}\n" for i in range(n))
    grants = ", ".join(f"'d{i}/**'" for i in range(2 * n))
    permits = f"permits:\n  tools: [nika:read]\n  fs: {{ read: [{grants}] }}\n"
    return f"nika: globs\n{permits}tasks:\n{tasks}"


def dangling(n: int) -> str:
    """n tasks, each waiting on an undeclared task with a near-miss name."""
    tasks = "".join(
        f"  task_number_{i}:\n    after: {{ task_nunber_{i}: success }}\n"
        "    infer: { prompt: x }\n"
        for i in range(n)
    )
    return f"nika: dangling\ntasks:\n{tasks}"


def undeclared(n: int) -> str:
    """n declared inputs and n reads of undeclared ones."""
    inputs = "".join(f"  input_number_{i}: {{ type: string, default: x }}\n" for i in range(n))
    reads = "".join(f"${{{{ inputs.input_nunber_{i} }}}}" for i in range(n))
    return f"nika: undeclared\ninputs:\n{inputs}tasks:\n  t:\n    infer: {{ prompt: '{reads}' }}\n"


def recovery_ring(n: int) -> str:
    """n tasks, each recovering from the next, the last from the first: one recovery cycle."""
    rec = 'on_error: {{ recover: "${{{{ tasks.t{}.output }}}}" }}'
    tasks = "".join(
        f"  t{i}:\n    exec: {{ command: [x] }}\n    {rec.format((i + 1) % n)}\n" for i in range(n)
    )
    return f"nika: ring\npermits: {{ exec: [x] }}\ntasks:\n{tasks}"


def closed_chain(n: int) -> str:
    """A chain of n tasks (`after:`), its head recovering from its tail: one long cycle."""
    tasks = "".join(
        f"  t{i}:\n    after: {{ t{i - 1}: terminal }}\n    exec: {{ command: [x] }}\n"
        for i in range(1, n)
    )
    recover = f'on_error: {{ recover: "${{{{ tasks.t{n - 1}.output }}}}" }}'
    head = f"  t0:\n    exec: {{ command: [x] }}\n    {recover}\n"
    return f"nika: closed\npermits: {{ exec: [x] }}\ntasks:\n{head}{tasks}"


CASES: dict[str, tuple[Callable[[int], str], int, str | None]] = {
    "when: islands": (when_islands, 1_000, "NIKA-VAR-005"),
    "unclosed quotes": (lambda n: when_islands(n, QUOTED, per=5_000), 1_000, "NIKA-VAR-005"),
    "tasks × permit globs": (globs, 100, None),
    "dangling names": (dangling, 150, "NIKA-DAG-002"),
    "undeclared names": (undeclared, 150, "NIKA-VAR-001"),
    "recovery ring": (recovery_ring, 150, "NIKA-DAG-004"),
    "chain closed by a recovery": (closed_chain, 150, "NIKA-DAG-004"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_work_grows_linearly(case: str) -> None:
    make, n, code = CASES[case]
    check(make(3))  # imports and first-use caches are paid before counting
    small, verdict = work(make(n))
    large, _ = work(make(8 * n))
    assert code is None and verdict.valid or code in {e.code for e in verdict.errors}
    assert large <= 12 * small, f"{case}: {small} → {large} calls for 8× the input"


def test_the_8000_island_when_of_the_issue_is_refused_with_its_codes() -> None:
    when = "${{ a }}" * 8_000
    source = f'nika: x\ntasks:\n  t:\n    when: "{when}"\n    infer: {{ prompt: hi }}\n'
    assert len(source.encode()) > 64_000
    calls, verdict = work(source)
    assert {e.code for e in verdict.errors} == {"NIKA-VAR-001", "NIKA-VAR-005"}
    assert calls < 2_000_000  # measured ~1.0M; the quadratic path made over 100M


@pytest.mark.parametrize("make", [recovery_ring, closed_chain])
def test_nika_check_names_a_recovery_cycle_once_in_output_bounded_by_its_input(
    tmp_path: Path, make: Callable[[int], str]
) -> None:
    # a 400-task ring printed 400 findings of 400 names each (quadratic): one now, bounded
    flow = tmp_path / "ring.nika.yaml"
    flow.write_text(make(400))
    size = flow.stat().st_size
    for flags in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "nika.cli", "check", *flags, str(flow)],
            capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
        )
        assert done.returncode == 1, done.stderr
        out = done.stdout + done.stderr
        assert out.count("NIKA-DAG-004") == 1, out[:2000]
        # the JSON verdict lists every task in its plan sections: a few times the input at most
        assert len(out.encode()) < (3 * size if flags else size // 2)
        assert "… 389 more → `t" in out or "--json" in flags
    verdict = json.loads(done.stdout)
    (finding,) = verdict["errors"]
    assert finding["details"]["cycle"][0] == finding["details"]["cycle"][-1] == "t0"
