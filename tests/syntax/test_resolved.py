"""`resolve_body`: a verb body becomes its typed spec in one call, each field held to its rule."""

from __future__ import annotations

from typing import Any

import pytest

from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import AgentBody, ExecBody, InferBody, Task, build_workflow
from nika.syntax.resolved import AgentFields, ExecSpec, InferSpec, resolve_body

FLOW = """\
nika: resolved
model: mock/echo
tasks:
  ask:
    infer:
      prompt: "Say ${{ inputs.word }}"
      temperature: "${{ inputs.heat }}"
      max_tokens: 7
  act:
    agent:
      prompt: "Use ${{ inputs.word }}"
      model: "mock/${{ inputs.word }}"
      max_turns: 3
      tools: ["nika:done"]
  run:
    exec:
      command: ["echo", "${{ inputs.word }}"]
      env: {WORD: "${{ inputs.word }}"}
"""


def _tasks() -> dict[str, Task]:
    workflow, errors = build_workflow(load_document(FLOW.encode()))
    assert workflow is not None and errors == []
    return {str(t.id): t for t in workflow.tasks.values()}


def _env(**inputs: Any) -> dict[str, Any]:
    return {"inputs": {"word": "echo", "heat": 0.5, **inputs}}


def test_each_verb_resolves_to_its_spec_in_one_call() -> None:
    tasks = _tasks()
    ask, act, run = tasks["ask"], tasks["act"], tasks["run"]
    assert isinstance(ask.body, InferBody) and isinstance(act.body, AgentBody)
    assert isinstance(run.body, ExecBody)
    infer = resolve_body(ask, ask.body, _env(), "mock/echo")
    assert infer == InferSpec("mock/echo", "Say echo", None, 0.5, 7, None, "returns")
    agent = resolve_body(act, act.body, _env(), None)
    assert agent == AgentFields("Use echo", "mock/echo", None, ("nika:done",), 3, None, None, None)
    spec = resolve_body(run, run.body, _env(), None)
    assert spec == ExecSpec(("echo", "echo"), None, None, {"WORD": "echo"}, None)


def test_a_field_that_resolves_out_of_its_rule_keeps_its_code_and_words() -> None:
    ask = _tasks()["ask"]
    assert isinstance(ask.body, InferBody)
    with pytest.raises(NikaError) as caught:
        resolve_body(ask, ask.body, _env(heat="hot"), "mock/echo")
    assert caught.value.code == "NIKA-VAR-006"
    assert "`infer.temperature` resolved to 'hot', but it must be a number in 0..2" in (
        caught.value.detail)
