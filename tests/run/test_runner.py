"""The scheduler: gates (GATE-v2), propagation, workflow state, cancellation, outputs."""

from __future__ import annotations

import asyncio

import pytest
from tests.run._harness import no_sleep, run, services, workflow

from nika.run.runner import Runner

EXEC = 'permits: {exec: ["true", "false", "echo", "sleep"]}\n'


def _matrix(producer: str, consumer: str) -> str:
    """seed → p (settles per `producer`) → c (reads p per `consumer`)."""
    seed = "false" if producer == "cancelled" else "true"
    p = {"success": 'exec: { command: ["echo", "spoken"] }',
         "failure": 'exec: { command: ["false"] }',
         "skipped": 'when: false\n    exec: { command: ["echo", "x"] }',
         "cancelled": 'exec: { command: ["echo", "x"] }'}[producer]
    return (f"nika: gate\n{EXEC}tasks:\n  seed:\n    exec: {{ command: [\"{seed}\"] }}\n"
            f"  p:\n    after: {{ seed: success }}\n    {p}\n  c:\n    {consumer}\n"
            '    exec: { command: ["echo", "ran"] }\n')


VALUE = 'with: { v: "${{ tasks.p.output }}" }'
STATUS = 'with: { s: "${{ tasks.p.status }}" }'
ERROR = 'with: { e: "${{ tasks.p.error }}" }'


@pytest.mark.parametrize(
    ("producer", "consumer", "expected"),
    [
        ("success", VALUE, "success"), ("skipped", VALUE, "success"),
        ("failure", VALUE, "cancelled"), ("cancelled", VALUE, "cancelled"),
        ("success", STATUS, "success"), ("failure", STATUS, "success"),
        ("skipped", STATUS, "success"), ("cancelled", STATUS, "success"),
        ("failure", ERROR, "success"), ("skipped", ERROR, "success"),
        ("success", ERROR, "cancelled"), ("cancelled", ERROR, "cancelled"),
        ("success", "after: { p: success }", "success"),
        ("failure", "after: { p: success }", "cancelled"),
        ("skipped", "after: { p: success }", "cancelled"),
        ("success", "after: { p: failure }", "cancelled"),
        ("failure", "after: { p: failure }", "success"),
        ("skipped", "after: { p: skipped }", "success"),
        ("cancelled", "after: { p: terminal }", "success"),
        ("failure", "after: { p: terminal }", "success"),
    ],
)
def test_gate_table(producer: str, consumer: str, expected: str) -> None:
    result, _ = run(_matrix(producer, consumer))
    assert result.records["p"].status == producer
    assert result.records["c"].status == expected


def test_workflow_state_failure_survives_always_pattern() -> None:
    result, rec = run(f"nika: w\n{EXEC}tasks:\n  work:\n    exec: {{ command: [\"false\"] }}\n"
                      "  record:\n    after: { work: terminal }\n"
                      "    exec: { command: [\"echo\", \"landed\"] }\n")
    assert result.state == "failure"
    assert result.records["record"].output == "landed"
    assert rec.kinds()[0] == "workflow_started" and rec.kinds()[-1] == "workflow_failed"


def test_cancelled_consumer_does_not_fail_the_workflow() -> None:
    result, _ = run(_matrix("success", "after: { p: failure }"))
    assert result.state == "success"
    assert result.records["c"].error is not None
    assert result.records["c"].error.code == "NIKA-CANCEL-001"


def test_every_task_settles_exactly_once_with_one_terminal_frame() -> None:
    result, rec = run(_matrix("failure", VALUE))
    terminal = [e.task or "" for e in rec.events if e.kind in
                ("task_completed", "task_failed", "task_skipped", "task_cancelled")]
    assert sorted(terminal) == ["c", "p", "seed"]


def test_outputs_resolve_and_typed_output_misfit_fails() -> None:
    text = ("nika: o\nconst: { n: 3 }\ntasks:\n  a:\n    invoke: { tool: nika:emit, args: "
            "{ x: \"${{ const.n }}\" } }\noutputs:\n  got: ${{ tasks.a.output.x }}\n"
            "  typed: { value: \"${{ tasks.a.output.x }}\", type: string }\n")
    result, _ = run(text)
    assert result.outputs == {"got": 3, "typed": 3}
    assert result.state == "failure"
    assert result.output_error is not None and result.output_error.code == "NIKA-VAR-009"


def test_skipped_producer_reads_defined_null() -> None:
    text = ("nika: n\ntasks:\n  p:\n    when: false\n    invoke: { tool: nika:emit }\n"
            "  c:\n    with: { v: \"${{ tasks.p.output }}\" }\n"
            "    invoke: { tool: nika:emit, args: { got: \"${{ with.v }}\" } }\n")
    result, _ = run(text)
    assert result.records["c"].output == {"got": None}


def test_user_cancel_kills_running_and_settles_rest_cancelled() -> None:
    wf = workflow(f"nika: c\n{EXEC}tasks:\n  slow:\n    exec: {{ command: [\"sleep\", \"30\"] }}\n"
                  "  after_slow:\n    after: { slow: terminal }\n"
                  "    exec: { command: [\"echo\", \"x\"] }\n")
    svc, rec = services(wf)

    async def go() -> object:
        runner = Runner(svc, inputs={}, sleep=no_sleep)
        job = asyncio.create_task(runner.run())
        while "task_started" not in rec.kinds("slow"):
            await asyncio.sleep(0.01)
        runner.cancel()
        return await job

    result = asyncio.run(go())
    assert result.state == "cancelled"  # type: ignore[attr-defined]
    records = result.records  # type: ignore[attr-defined]
    assert records["slow"].status == "cancelled"
    assert records["after_slow"].status == "cancelled"
    assert rec.kinds()[-1] == "workflow_cancelled"


def test_recover_awaits_an_independent_source() -> None:
    text = ("nika: r\ntasks:\n  cache:\n    invoke: { tool: nika:emit, args: { v: cached } }\n"
            "  live:\n    invoke: { tool: nika:assert, args: { condition: false } }\n"
            "    on_error: { recover: \"${{ tasks.cache.output.v }}\" }\n")
    result, rec = run(text)
    assert result.records["live"].status == "success"
    assert result.records["live"].output == "cached"
    assert "task_recovered" in rec.kinds("live")


def test_unwind_runs_after_producer_and_reads_it() -> None:
    text = (f"nika: u\n{EXEC}tasks:\n  work:\n    exec: {{ command: [\"false\"] }}\n"
            "  cleanup:\n    after: { work: unwind }\n"
            "    with: { s: \"${{ tasks.work.status }}\" }\n"
            "    exec: { command: [\"echo\", \"cleaned after ${{ with.s }}\"] }\n")
    result, rec = run(text)
    assert result.records["cleanup"].output == "cleaned after failure"
    order = [e.task for e in rec.events if e.kind in ("task_failed", "task_completed")]
    assert order == ["cleanup", "work"]  # cleanup settles before the failure goes outward
    assert result.state == "failure"


def test_an_unwind_body_reads_its_producer_directly_as_check_admits() -> None:
    # 04 §the reference boundary: an unwind task body may read the producer it unwinds.
    text = (f"nika: u\n{EXEC}tasks:\n  work:\n    exec: {{ command: [\"false\"] }}\n"
            "  cleanup:\n    after: { work: unwind }\n"
            "    exec: { command: [\"echo\", \"${{ tasks.work.status }} then cleaned\"] }\n")
    result, _ = run(text)
    assert result.records["cleanup"].output == "failure then cleaned"


def test_an_unwind_tasks_when_reads_its_producer() -> None:
    # 03 §unwind: the cleanup's `when:` sees its settled producer (spec example 12's gate).
    text = (f"nika: u\n{EXEC}tasks:\n  work:\n    exec: {{ command: [\"OUTCOME\"] }}\n"
            "  cleanup:\n    after: { work: unwind }\n"
            "    when: ${{ tasks.work.status != \"success\" }}\n"
            "    exec: { command: [\"echo\", \"${{ tasks.work.status }} then cleaned\"] }\n")
    failed, _ = run(text.replace("OUTCOME", "false"))
    assert failed.records["cleanup"].output == "failure then cleaned"
    passed, _ = run(text.replace("OUTCOME", "true"))
    assert passed.records["cleanup"].status == "skipped"
    assert passed.state == "success"
