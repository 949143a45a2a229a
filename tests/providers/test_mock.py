"""`mock/echo` against the spec's contract and the runtime/agent conformance fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nika.agent import (
    AgentSpec,
    AssistantMessage,
    ModelRequest,
    ToolResult,
    Usage,
    UserMessage,
    run_agent,
)
from nika.agent.fakes import RecordingExecutor, definition
from nika.errors import NikaError
from nika.providers.mock import MockProvider, shaped_default
from nika.syntax.loader import load_document

SHARED = Path(__file__).resolve().parents[3] / "shared"  # beside the clone, locally and in CI
CONFORMANCE = SHARED / "conformance" / "tests" / "runtime" / "agent"
EXAMPLES = SHARED / "nika-spec" / "examples"


def _request(prompt: str = "hello", **fields: Any) -> ModelRequest:
    fields.setdefault("model", "mock/echo")
    return ModelRequest(system=None, messages=(UserMessage(prompt),), **fields)


async def test_echo_replies_with_the_prompt_behind_its_marker() -> None:
    reply = await MockProvider().complete(_request("pure compute · no effects"))
    assert reply.text == "mock(echo) · pure compute · no effects"
    assert reply.tool_calls == () and reply.stop_reason == "end_turn"
    assert reply.usage is not None and reply.usage.output_tokens > 0


async def test_mock_deterministic_is_echos_alias_and_replies_are_reproducible() -> None:
    a = await MockProvider().complete(_request("x", model="mock/mock-deterministic"))
    b = await MockProvider().complete(_request("x"))
    assert a == b


@pytest.mark.parametrize("model", ["mock/mock-error", "mock/gpt", "openai/echo"])
async def test_models_the_mock_does_not_serve_are_refused(model: str) -> None:
    with pytest.raises(NikaError) as info:
        await MockProvider().complete(_request(model=model))
    assert info.value.code == "NIKA-INFER-001" and not info.value.transient
    assert repr(model) in info.value.detail and "mock/echo" in info.value.detail


async def test_a_response_schema_gets_its_shaped_default_as_json() -> None:
    schema = {
        "type": "object",
        "required": ["s", "n", "b", "a", "o"],
        "properties": {
            "s": {"type": "string"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "a": {"type": "array", "items": {"type": "string"}},
            "o": {"type": "object", "required": ["k"], "properties": {"k": {"type": "integer"}}},
            "optional": {"type": "string"},
        },
    }
    reply = await MockProvider().complete(_request(response_schema=schema))
    assert json.loads(reply.text) == {"s": "", "n": 0, "b": False, "a": [], "o": {"k": 0}}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"enum": ["person", "place"]}, "person"),
        ({"const": 3}, 3),
        ({"type": "string", "default": "d"}, "d"),
        ({"type": ["null", "integer"]}, 0),
        ({"type": "integer", "minimum": 2}, 2),
        ({"type": "string", "minLength": 2}, "aa"),
        ({"type": "array", "minItems": 2, "items": {"type": "boolean"}}, [False, False]),
        ({"anyOf": [{"type": "string"}, {"type": "number"}]}, ""),
        ({"properties": {"x": {}}, "required": ["x"]}, {"x": None}),
        ({}, None),
    ],
)
def test_shaped_defaults(schema: dict[str, Any], value: Any) -> None:
    assert shaped_default(schema) == value


async def test_with_tools_it_calls_the_first_offered_one_with_shaped_args() -> None:
    read = definition(
        "nika:read",
        parameters={"type": "object", "required": ["path"], "properties": {"path": {}}},
    )
    reply = await MockProvider().complete(_request(tools=(read, definition("nika:write"))))
    [call] = reply.tool_calls
    assert (call.name, dict(call.args)) == ("nika:read", {"path": None})
    assert reply.stop_reason == "tool_calls" and reply.text.startswith("mock(echo) · ")


def _agent_spec(path: Path, task: str) -> AgentSpec:
    document = load_document(path.read_bytes(), path=str(path)).root
    body = document["tasks"][task]["agent"]
    return AgentSpec(
        task_id=task,
        model=body.get("model", document["model"]),
        prompt=body["prompt"],
        system=body.get("system"),
        tools=body.get("tools", ()),
        max_turns=body.get("max_turns"),
        max_tokens_total=body.get("max_tokens_total"),
        schema=body.get("schema"),
    )


async def test_fixture_001_the_mock_tool_calls_until_max_turns() -> None:
    agent = _agent_spec(CONFORMANCE / "001-budget-exhaustion-fails/input.nika.yaml", "loop")
    ex = RecordingExecutor(["nika:wait"])
    with pytest.raises(NikaError) as info:
        await run_agent(agent, provider=MockProvider(), tools=ex)
    assert (info.value.code, info.value.category) == ("NIKA-AGENT-001", "budget_error")
    assert info.value.details["partial_output"] == "mock(echo) · loop forever"
    assert ex.names == ["nika:wait"]  # turn 2 of 2 cannot be followed: not dispatched


async def test_fixture_002_done_result_is_the_schema_shaped_output() -> None:
    agent = _agent_spec(CONFORMANCE / "002-done-result-becomes-output/input.nika.yaml", "loop")
    result = await run_agent(agent, provider=MockProvider())
    assert result.output == {"status": ""} and result.stop == "done" and result.turns == 1


async def test_fixture_003_a_failing_tool_feeds_back_until_the_budget() -> None:
    agent = _agent_spec(CONFORMANCE / "003-tool-error-feeds-back/input.nika.yaml", "loop")
    failing = ToolResult("assertion failed", is_error=True)
    ex = RecordingExecutor(["nika:assert"], results={"nika:assert": failing})
    with pytest.raises(NikaError) as info:
        await run_agent(agent, provider=MockProvider(), tools=ex)
    assert info.value.code == "NIKA-AGENT-001"
    assert ex.names == ["nika:assert"]


async def test_example_15_closes_at_turn_one_because_done_is_granted_first() -> None:
    agent = _agent_spec(EXAMPLES / "15-compose-self-check.nika.yaml", "draft")
    result = await run_agent(agent, provider=MockProvider())
    assert (result.turns, result.stop) == (1, "done")
    assert result.output == "mock(echo) · " + agent.prompt


async def test_no_tools_means_the_echo_is_the_output() -> None:
    agent = AgentSpec(prompt="say hi", model="mock/echo")
    result = await run_agent(agent, provider=MockProvider())
    assert (result.output, result.turns) == ("mock(echo) · say hi", 1)


async def test_usage_grows_with_the_transcript_so_token_budgets_bite_offline() -> None:
    agent = AgentSpec(prompt="p", model="mock/echo", tools=["nika:wait"], max_tokens_total=40)
    ex = RecordingExecutor(["nika:wait"], results={"nika:wait": "z" * 40})
    with pytest.raises(NikaError) as info:
        await run_agent(agent, provider=MockProvider(), tools=ex)
    assert info.value.code == "NIKA-AGENT-002"
    assert info.value.details["partial_output"] == "mock(echo) · p"
    assert info.value.details["tokens_used"] > 40 and len(ex.dispatched) >= 1


async def test_the_scripted_mock_replays_its_script_by_turn(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": [
        {"text": "first", "tool_calls": [{"name": "nika:done", "args": {"result": "x"}}],
         "usage": {"input": 7, "output": 3}},
        {"text": "second"},
    ]}))
    log = tmp_path / "calls.log"
    mock = MockProvider({"NIKA_MOCK_SCRIPT": str(script), "NIKA_MOCK_CALL_LOG": str(log)})
    first = await mock.complete(_request(model="mock/scripted"))
    assert (first.text, first.stop_reason, first.usage) == ("first", "tool_calls", Usage(7, 3))
    assert [(c.name, dict(c.args)) for c in first.tool_calls] == [("nika:done", {"result": "x"})]
    turn2 = ModelRequest(model="mock/scripted", system=None,
                         messages=(UserMessage("go"), AssistantMessage("first")))
    second = await mock.complete(turn2)
    assert (second.text, second.tool_calls, second.stop_reason) == ("second", (), "end_turn")
    # the same request gets the same reply in any process: the turn picks it, not a counter
    assert (await mock.complete(_request(model="mock/scripted"))).text == "first"
    assert [json.loads(line)["reply"] for line in log.read_text().splitlines()] == [0, 1, 0]


async def test_the_scripted_mock_refuses_a_missing_or_exhausted_script(tmp_path: Path) -> None:
    with pytest.raises(NikaError) as missing:
        await MockProvider({}).complete(_request(model="mock/scripted"))
    assert "NIKA_MOCK_SCRIPT" in missing.value.detail and not missing.value.transient
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"replies": []}))
    with pytest.raises(NikaError) as exhausted:
        await MockProvider({"NIKA_MOCK_SCRIPT": str(script)}).complete(
            _request(model="mock/scripted"))
    assert exhausted.value.code == "NIKA-INFER-001" and "0 replies" in exhausted.value.detail


async def test_every_mock_model_logs_its_calls_when_asked(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    await MockProvider({"NIKA_MOCK_CALL_LOG": str(log)}).complete(_request())
    assert json.loads(log.read_text()) == {"model": "mock/echo", "reply": 0}
    await MockProvider().complete(_request())  # no log asked: nothing written
    assert len(log.read_text().splitlines()) == 1
