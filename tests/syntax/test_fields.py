"""One rule per shaped verb field: the builder judges literals, the runtime resolved values,
with the same words — and a templated value that misfits is a coded error, never a crash."""

from __future__ import annotations

from typing import Any

import pytest
from tests.run._harness import run

from nika.check import check
from nika.syntax import fields


@pytest.mark.parametrize(
    ("verb", "field", "value", "fits"),
    [
        ("infer", "temperature", 0, True), ("infer", "temperature", 2.0, True),
        ("infer", "temperature", 2.01, False), ("infer", "temperature", -0.1, False),
        ("agent", "temperature", "0.5", False), ("agent", "temperature", True, False),
        ("agent", "max_turns", 1, True), ("agent", "max_turns", 0, False),
        ("agent", "max_turns", 2.0, False), ("infer", "max_tokens", 4096, True),
    ],
)
def test_each_rule_judges_values(verb: str, field: str, value: Any, fits: bool) -> None:
    assert (fields.RULES[verb][field].problem(value) is None) is fits


@pytest.mark.parametrize("verb", ["infer", "agent"])
def test_a_templated_temperature_that_resolves_to_text_is_var_006_in_both_verbs(
    verb: str,
) -> None:
    result, _ = run(
        "nika: t\nmodel: mock/echo\ninputs:\n  t: { type: string, default: hot }\n"
        f'tasks:\n  a:\n    {verb}: {{ prompt: "x", temperature: "${{{{ inputs.t }}}}" }}\n'
    )
    error = result.records["a"].error
    assert result.records["a"].status == "failure" and error is not None
    assert error.code == "NIKA-VAR-006"  # not NIKA-IMPL-001: the engine did not crash
    assert f"`{verb}.temperature` resolved to 'hot', but it must be a number in 0..2" in (
        error.detail)
    assert error.details == {"task": "a", "field": f"{verb}.temperature"}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('infer: { prompt: x, temperature: 3 }', "`infer.temperature` must be a number in 0..2"),
        ('agent: { prompt: x, temperature: "hot" }', "`agent.temperature` must be a number"),
        ("infer: { prompt: x, max_tokens: 0 }", "`infer.max_tokens` must be an integer ≥ 1"),
        ('agent: { prompt: x, max_turns: "ten" }', "`agent.max_turns` must be an integer ≥ 1"),
    ],
)
def test_check_refuses_a_literal_by_the_same_rule_before_anything_runs(
    body: str, says: str
) -> None:
    verdict = check(f"nika: t\nmodel: mock/echo\ntasks:\n  a:\n    {body}\n")
    assert [(e.code, says in e.detail) for e in verdict.errors] == [("NIKA-PARSE-019", True)]


def test_a_templated_value_that_fits_reaches_the_provider() -> None:
    result, _ = run(
        "nika: t\nmodel: mock/echo\ninputs:\n  t: { type: number, default: 0.5 }\n"
        'tasks:\n  a:\n    agent: { prompt: "x", temperature: "${{ inputs.t }}", '
        'max_turns: "${{ 2 }}" }\n'
    )
    assert result.records["a"].status == "success"


def test_every_field_a_verb_resolves_has_its_one_rule() -> None:
    # Each body field the runtime reads is in the table, or is literal-only by the grammar
    # (closed sets, whitelists, paths the check reads) — a new field must pick one side.
    from dataclasses import fields as dataclass_fields

    from nika.syntax.model import AgentBody, ExecBody, InferBody

    literal_only = {"infer": {"thinking", "vision"}, "exec": {"capture", "decode"},
                    "agent": {"tools", "skills"}}
    for verb, body in (("infer", InferBody), ("exec", ExecBody), ("agent", AgentBody)):
        resolved = {f.name for f in dataclass_fields(body)} - literal_only[verb]
        assert resolved <= set(fields.RULES[verb]) | {"command"}, verb


def test_a_templated_model_resolves_before_the_provider_is_chosen() -> None:
    flow = ("nika: t\ninputs:\n  m: { type: string, default: mock/echo }\n"
            'tasks:\n  a:\n    infer: { prompt: "x", model: "${{ inputs.m }}" }\n')
    assert check(flow).valid
    result, _ = run(flow)
    assert result.records["a"].status == "success"
    assert result.records["a"].output == "mock(echo) · x"


def test_a_templated_model_that_resolves_to_no_provider_is_the_checks_code() -> None:
    result, _ = run("nika: t\ninputs:\n  m: { type: string, default: nowhere/x }\n"
                    'tasks:\n  a:\n    agent: { prompt: "x", model: "${{ inputs.m }}" }\n')
    error = result.records["a"].error
    assert error is not None and error.code == "NIKA-PROVIDER-001"  # as `nika check` says
    assert "`agent.model` resolved to 'nowhere/x'" in error.detail
    assert "unknown provider 'nowhere'" in error.detail


def test_a_templated_schema_is_held_to_the_json_schema_rule_before_any_model_call() -> None:
    result, events = run(
        "nika: t\nmodel: mock/echo\ninputs:\n  k: { type: string, default: objet }\n"
        'tasks:\n  a:\n    infer: { prompt: "x", schema: { type: "${{ inputs.k }}" } }\n')
    error = result.records["a"].error
    assert error is not None and error.code == "NIKA-VAR-006"
    assert "`infer.schema` resolved to {'type': 'objet'}, but it is not a valid JSON Schema" in (
        error.detail)
    assert "cost_incurred" not in events.kinds("a")  # the provider was never called


def test_an_empty_program_is_exec_002_written_or_resolved() -> None:
    verdict = check('nika: t\npermits: { exec: true }\ntasks:\n  a:\n'
                    '    exec: { command: ["", "hi"] }\n')
    assert [e.code for e in verdict.errors] == ["NIKA-EXEC-002"]
    result, _ = run('nika: t\npermits: { exec: true }\n'
                    'inputs:\n  p: { type: string, default: "" }\n'
                    'tasks:\n  a:\n    exec: { command: ["${{ inputs.p }}", "hi"] }\n')
    error = result.records["a"].error
    assert error is not None and error.code == "NIKA-EXEC-002"
    assert "`exec.command[0]` resolved to '', but it must name a program" in error.detail
