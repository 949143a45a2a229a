"""The await-cycle backstop: a run that cannot progress ends with NIKA-DAG-010, never hangs —
and a run that can progress is never stopped by it."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from tests.run._harness import no_sleep, services, workflow

from nika.journal.records import RunResult
from nika.run.runner import Runner
from nika.run.values import bind_inputs

EXEC = 'permits: {exec: ["true", "false", "echo", "sleep"]}\n'

MUTUAL = f"""\
nika: mutual
{EXEC}tasks:
  a:
    exec: {{ command: ["false"] }}
    on_error: {{ recover: "${{{{ tasks.b.output }}}}" }}
  b:
    exec: {{ command: ["false"] }}
    on_error: {{ recover: "${{{{ tasks.a.output }}}}" }}
  after_a:
    after: {{ a: terminal }}
    exec: {{ command: ["echo", "late"] }}
"""


def _run_unchecked(text: str, *, concurrency: int = 8) -> RunResult:
    """The real Runner over a workflow the check was never asked about (an embedder's path),
    bounded so a regression fails the test instead of hanging it."""
    wf = workflow(text)
    svc, _ = services(wf)

    async def go() -> RunResult:
        runner = Runner(svc, inputs=bind_inputs(wf.inputs, {}, {}), concurrency=concurrency,
                        sleep=no_sleep, rng=random.Random(0))
        return await asyncio.wait_for(runner.run(), timeout=30)

    return asyncio.run(go())


def test_mutual_recovery_ends_with_dag_010_naming_both_tasks() -> None:
    result = _run_unchecked(MUTUAL)
    assert result.state == "failure"
    for task in ("a", "b"):
        error = result.records[task].error
        assert result.records[task].status == "failure" and error is not None
        assert error.code == "NIKA-DAG-010"
        assert error.details["blocked"] == ["a", "b"]
        assert error.details["awaits"] == {"a": ["b"], "b": ["a"]}
        assert "a (awaits b)" in error.detail and "b (awaits a)" in error.detail
    # Nothing new starts once the run stalled, even a task the gate would admit.
    assert result.records["after_a"].status == "cancelled"


def test_a_precedence_cycle_run_unchecked_fails_its_tasks_instead_of_waiting() -> None:
    result = _run_unchecked(
        f"nika: loop\n{EXEC}tasks:\n"
        '  a:\n    after: { b: success }\n    exec: { command: ["true"] }\n'
        '  b:\n    after: { a: success }\n    exec: { command: ["true"] }\n'
        '  free:\n    exec: { command: ["true"] }\n'
    )
    assert result.records["free"].status == "success"
    for task in ("a", "b"):
        error = result.records[task].error
        assert error is not None and error.code == "NIKA-DAG-010"
        assert error.details["pending"] == ["a", "b"]
        assert "never released" in error.detail


def test_fan_out_iterations_parked_on_each_other_stall_too() -> None:
    result = _run_unchecked(
        f"nika: fan\n{EXEC}tasks:\n"
        "  many:\n    for_each: { items: [1, 2, 3] }\n"
        '    exec: { command: ["false"] }\n'
        '    on_error: { recover: "${{ tasks.other.output }}" }\n'
        "  other:\n"
        '    exec: { command: ["false"] }\n'
        '    on_error: { recover: "${{ tasks.many.output }}" }\n'
    )
    assert {t: r.error.code for t, r in result.records.items() if r.error} == {
        "many": "NIKA-DAG-010", "other": "NIKA-DAG-010"}


@pytest.mark.parametrize("max_parallel", [None, 1])
def test_iterations_recovering_from_a_slow_source_are_not_a_stall(
    max_parallel: int | None,
) -> None:
    cap = f", max_parallel: {max_parallel}" if max_parallel else ""
    result = _run_unchecked(
        f"nika: fan\n{EXEC}tasks:\n"
        "  slow:\n    exec: { command: [\"sleep\", \"0.3\"] }\n"
        f"  many:\n    for_each: {{ items: [1, 2, 3, 4]{cap} }}\n"
        '    exec: { command: ["false"] }\n'
        '    on_error: { recover: "${{ tasks.slow.output }}" }\n',
        concurrency=2,
    )
    assert result.state == "success", {t: r.error for t, r in result.records.items()}
    assert result.records["many"].output == ["", "", "", ""]


def test_nika_check_and_run_refuse_mutual_recovery_before_anything_runs(tmp_path: Path) -> None:
    flow = tmp_path / "mutual.nika.yaml"
    flow.write_text(MUTUAL)
    cli = [sys.executable, "-m", "nika.cli"]
    checked = subprocess.run([*cli, "check", "--json", str(flow)], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
    verdict = json.loads(checked.stdout)
    assert checked.returncode == 1
    assert [e["code"] for e in verdict["errors"]] == ["NIKA-DAG-004"]  # one per cycle
    assert verdict["certificate"]["terminates"] is False
    assert any("recovery cycle" in r for r in verdict["certificate"]["reasons"])
    ran = subprocess.run([*cli, "run", str(flow)], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert ran.returncode == 1 and "NIKA-DAG-004" in ran.stderr
    assert not (tmp_path / ".nika").exists()  # refused before the first frame
