"""One task's pipeline: when · for_each · retry · timeout · on_error · extract."""

from __future__ import annotations

import random
from typing import Any

from tests.run._harness import run, tools

from nika.agent.fakes import definition
from nika.errors import NikaError
from nika.run.retry import backoff_seconds, should_retry
from nika.syntax.task_blocks import Retry

EXEC = 'permits: {exec: ["sleep", "echo"]}\n'


def _flaky(failures: int, code: str = "NIKA-MCP-002", transient: bool = True) -> Any:
    calls = {"n": 0}

    def call(args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] <= failures:
            raise NikaError(code, "blip", transient=transient)
        return {"calls": calls["n"]}

    return definition("nika:flaky"), call


def test_retry_recovers_a_transient_failure_and_counts_attempts() -> None:
    text = ("nika: r\ntasks:\n  t:\n    retry: { max_attempts: 3, backoff_ms: 10 }\n"
            "    invoke: { tool: nika:flaky }\n")
    result, rec = run(text, executor=tools([_flaky(2)]))
    assert result.records["t"].status == "success"
    assert result.records["t"].attempts == 3
    assert rec.kinds("t").count("task_retrying") == 2


def test_retry_never_retries_a_permanent_error() -> None:
    text = ("nika: r\ntasks:\n  t:\n    retry: { max_attempts: 5 }\n"
            "    invoke: { tool: nika:flaky }\n")
    result, _ = run(text, executor=tools([_flaky(9, "NIKA-BUILTIN-ASSERT-001", False)]))
    assert result.records["t"].attempts == 1
    assert result.records["t"].status == "failure"


def test_retry_on_codes_retries_exactly_the_listed_code() -> None:
    text = ("nika: r\ntasks:\n  t:\n    retry: { max_attempts: 4, on_codes: "
            "[NIKA-BUILTIN-ASSERT-001] }\n    invoke: { tool: nika:flaky }\n")
    result, _ = run(text, executor=tools([_flaky(2, "NIKA-BUILTIN-ASSERT-001", False)]))
    assert result.records["t"].status == "success"
    assert result.records["t"].attempts == 3


def test_retry_exhausted_surfaces_the_last_error() -> None:
    text = ("nika: r\ntasks:\n  t:\n    retry: { max_attempts: 2 }\n"
            "    invoke: { tool: nika:flaky }\n")
    result, _ = run(text, executor=tools([_flaky(5)]))
    record = result.records["t"]
    assert record.status == "failure" and record.attempts == 2
    assert record.error is not None and record.error.code == "NIKA-MCP-002"


def test_backoff_strategies_and_cap() -> None:
    rng = random.Random(1)
    fixed = Retry(3, backoff_ms=100, backoff_strategy="fixed", jitter=False)
    linear = Retry(3, backoff_ms=100, backoff_strategy="linear", jitter=False)
    expo = Retry(9, backoff_ms=100, backoff_max_ms=500, jitter=False)
    assert [backoff_seconds(fixed, a, rng) for a in (1, 2)] == [0.1, 0.1]
    assert [backoff_seconds(linear, a, rng) for a in (1, 2)] == [0.1, 0.2]
    assert [backoff_seconds(expo, a, rng) for a in (1, 2, 3, 4)] == [0.1, 0.2, 0.4, 0.5]
    jittered = Retry(3, backoff_ms=1000)
    assert all(0.5 <= backoff_seconds(jittered, 1, rng) <= 1.0 for _ in range(50))


def test_timeout_is_never_retried() -> None:
    timeout = NikaError("NIKA-TIMEOUT-001", "slow")
    assert not should_retry(Retry(5, on_codes=("NIKA-TIMEOUT-001",)), timeout, 1)


def test_timeout_hard_cancels_the_process() -> None:
    text = (f"nika: t\n{EXEC}tasks:\n  t:\n    timeout: \"100ms\"\n"
            "    exec: { command: [\"sleep\", \"30\"] }\n")
    result, _ = run(text)
    error = result.records["t"].error
    assert error is not None and error.code == "NIKA-TIMEOUT-001"


def test_on_error_skip_keeps_error_and_on_codes_filters() -> None:
    text = ("nika: s\ntasks:\n  a:\n    on_error: { skip: true }\n"
            "    invoke: { tool: nika:assert, args: { condition: false } }\n"
            "  b:\n    on_error: { skip: true, on_codes: [NIKA-TIMEOUT-001] }\n"
            "    invoke: { tool: nika:assert, args: { condition: false } }\n")
    result, _ = run(text)
    assert result.records["a"].status == "skipped"
    assert result.records["a"].view["error"]["code"] == "NIKA-BUILTIN-ASSERT-001"
    assert result.records["b"].status == "failure"


def test_boundary_error_bypasses_on_error() -> None:
    text = ("nika: b\ntasks:\n  t:\n    when: \"${{ const.x > 1 }}\"\n"
            "    on_error: { recover: 1 }\n    invoke: { tool: nika:emit }\n"
            "const: { x: \"text\" }\n")
    result, _ = run(text)
    assert result.records["t"].status == "failure"
    assert result.records["t"].error is not None
    assert result.records["t"].error.code == "NIKA-VAR-006"


def test_verb_body_error_is_recoverable() -> None:
    text = ("nika: b\nconst: { x: \"text\" }\ntasks:\n  t:\n    on_error: { recover: fallback }\n"
            "    invoke: { tool: nika:emit, args: { v: \"${{ const.x > 1 }}\" } }\n")
    result, _ = run(text)
    assert result.records["t"].output == "fallback"


def test_for_each_output_order_placeholders_and_extract() -> None:
    text = ("nika: f\ntasks:\n  t:\n    for_each: { items: [1, 2, 3], fail_fast: false }\n"
            "    on_error: { skip: true }\n"
            "    invoke: { tool: nika:assert, args: { condition: \"${{ item != 2 }}\" } }\n"
            "  e:\n    for_each: { items: [a, b] }\n"
            "    invoke: { tool: nika:emit, args: "
            "{ name: \"${{ item }}\", at: \"${{ index }}\" } }\n"
            "    extract: { names: .name }\n")
    result, _ = run(text)
    assert result.records["t"].output == [True, None, True]
    assert result.records["e"].output == [{"name": "a", "at": 0}, {"name": "b", "at": 1}]
    assert result.records["e"].bindings == {"names": ["a", "b"]}


def test_for_each_fail_fast_fails_parent_with_null_output() -> None:
    text = ("nika: f\ntasks:\n  t:\n    for_each: { items: [1, 2, 3] }\n"
            "    invoke: { tool: nika:assert, args: { condition: \"${{ item != 2 }}\" } }\n"
            "  d:\n    with: { v: \"${{ tasks.t.output }}\" }\n    invoke: { tool: nika:emit }\n")
    result, _ = run(text)
    record = result.records["t"]
    assert record.status == "failure" and record.output is None
    assert record.error is not None and record.error.details["iteration"] == 1
    assert result.records["d"].status == "cancelled"


def test_for_each_empty_is_skipped_and_non_array_is_var_006() -> None:
    text = ("nika: f\nconst: { s: text }\ntasks:\n  e:\n    for_each: { items: [] }\n"
            "    invoke: { tool: nika:emit }\n  n:\n    for_each: { items: \"${{ const.s }}\" }\n"
            "    invoke: { tool: nika:emit }\n")
    result, _ = run(text)
    assert result.records["e"].status == "skipped"
    assert result.records["n"].error is not None
    assert result.records["n"].error.code == "NIKA-VAR-006"


def test_for_each_max_parallel_bounds_iterations() -> None:
    live = {"now": 0, "peak": 0}

    async def track(args: Any) -> Any:
        import asyncio
        live["now"] += 1
        live["peak"] = max(live["peak"], live["now"])
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        live["now"] -= 1
        return args

    text = ("nika: f\ntasks:\n  t:\n    for_each: { items: [1, 2, 3, 4, 5, 6], max_parallel: 2 }\n"
            "    invoke: { tool: nika:track }\n")
    result, _ = run(text, executor=tools([(definition("nika:track"), track)]))
    assert result.records["t"].status == "success"
    assert live["peak"] == 2


def test_when_reads_input_defaults() -> None:
    text = "nika: w\ninputs: { n: { type: integer, default: 2 } }\ntasks:\n  t:\n" \
           "    when: \"${{ inputs.n > 1 }}\"\n    invoke: { tool: nika:emit }\n"
    result, _ = run(text)
    assert result.records["t"].status == "success"
