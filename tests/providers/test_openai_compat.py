"""The OpenAI-compatible adapter: the real `openai` SDK against a scripted loopback server."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from tests.providers._servers import Reply, ScriptedServer, chat_completion, scripted_server

from nika.agent import AgentSpec, InMemoryExecutor, run_agent
from nika.agent.seams import (
    AssistantMessage,
    CallId,
    ModelRequest,
    ToolCall,
    ToolDefinition,
    ToolName,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from nika.errors import NikaError
from nika.providers import RetryingProvider, resolve_provider
from nika.providers._wire import wire_name
from nika.providers.openai_compat import OpenAICompatProvider

KEY = "sk-test-0123456789abcdef"
READ = ToolDefinition(
    ToolName("nika:read"),
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    "builtin",
)
LIST = ToolDefinition(
    ToolName("mcp:fs/list_dir"),
    "List a directory.",
    {"type": "object", "properties": {"dir": {"type": "string"}}},
    "mcp",
)


@pytest.fixture
async def provider(server: ScriptedServer) -> AsyncIterator[OpenAICompatProvider]:
    p = OpenAICompatProvider(
        provider="openai",
        api_key=KEY,
        base_url=server.url + "/v1",
        timeout=5.0,
        key_var="NIKA_OPENAI_API_KEY or OPENAI_API_KEY",
    )
    yield p
    await p.aclose()


def ask(*messages: object, **kw: object) -> ModelRequest:
    msgs = messages or (UserMessage("List then read."),)
    return ModelRequest(model="openai/gpt-test", system="Be brief.", messages=msgs, **kw)  # type: ignore[arg-type]


async def test_tool_calls_round_trip_with_exact_wire_json(
    server: ScriptedServer, provider: OpenAICompatProvider
) -> None:
    server.script(
        Reply(
            json=chat_completion(
                tool_calls=[
                    ("call_a", wire_name("mcp:fs/list_dir"), '{"dir": "."}'),
                    ("call_b", wire_name("nika:read"), '{"path": "a.txt"}'),
                ],
                finish_reason="tool_calls",
            )
        ),
        Reply(json=chat_completion(content="Both done.", usage=(40, 3))),
    )
    first = await provider.complete(ask(tools=(READ, LIST), temperature=0.2, max_tokens=100))

    assert first.stop_reason == "tool_calls"
    assert first.tool_calls == (
        ToolCall(CallId("call_a"), "mcp:fs/list_dir", {"dir": "."}),
        ToolCall(CallId("call_b"), "nika:read", {"path": "a.txt"}),
    )
    assert first.usage == Usage(11, 7)
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json() == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "List then read."},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": wire_name("nika:read"),
                    "description": "Read a file.",
                    "parameters": dict(READ.parameters),
                },
            },
            {
                "type": "function",
                "function": {
                    "name": wire_name("mcp:fs/list_dir"),
                    "description": "List a directory.",
                    "parameters": dict(LIST.parameters),
                },
            },
        ],
        "temperature": 0.2,
        "max_tokens": 100,
    }

    follow = ask(
        UserMessage("List then read."),
        AssistantMessage("", first.tool_calls),
        ToolResultMessage(CallId("call_a"), "mcp:fs/list_dir", "a.txt"),
        ToolResultMessage(CallId("call_b"), "nika:read", "no such file", is_error=True),
        tools=(READ,),  # the router narrowed: list_dir is no longer offered
    )
    second = await provider.complete(follow)
    assert (second.text, second.tool_calls, second.stop_reason) == ("Both done.", (), "end_turn")
    assert second.usage == Usage(40, 3)
    assert server.requests[1].json()["messages"][2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": wire_name("mcp:fs/list_dir"), "arguments": '{"dir": "."}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": wire_name("nika:read"), "arguments": '{"path": "a.txt"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "a.txt"},
        {"role": "tool", "tool_call_id": "call_b", "content": "[tool error] no such file"},
    ]


async def test_a_call_to_a_tool_no_longer_offered_maps_back(
    server: ScriptedServer, provider: OpenAICompatProvider
) -> None:
    server.script(
        Reply(json=chat_completion(tool_calls=[("c1", wire_name("mcp:fs/list_dir"), "{}")]))
    )
    history = AssistantMessage("", (ToolCall(CallId("c0"), "mcp:fs/list_dir", {}),))
    resp = await provider.complete(ask(UserMessage("go"), history, tools=(READ,)))
    assert resp.tool_calls[0].name == "mcp:fs/list_dir"
    # Some servers say "stop" on a tool-calling turn; the calls decide.
    assert resp.stop_reason == "tool_calls"


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ('{"path": "a.txt"', "not valid JSON"),
        ('["a.txt"]', "JSON array, not an object"),
    ],
)
async def test_malformed_tool_arguments_become_the_calls_args_error(
    server: ScriptedServer, provider: OpenAICompatProvider, arguments: str, fragment: str
) -> None:
    server.script(Reply(json=chat_completion(tool_calls=[("c1", "nika_read_x", arguments)])))
    resp = await provider.complete(ask(tools=(READ,)))
    (call,) = resp.tool_calls
    assert dict(call.args) == {} and call.args_error is not None
    assert fragment in call.args_error and arguments in call.args_error


async def test_empty_arguments_are_an_empty_object(
    server: ScriptedServer, provider: OpenAICompatProvider
) -> None:
    server.script(Reply(json=chat_completion(tool_calls=[("c1", "ping", "")])))
    resp = await provider.complete(ask())
    assert resp.tool_calls[0].args == {}


async def test_schema_uses_json_schema_response_format(
    server: ScriptedServer, provider: OpenAICompatProvider
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    server.script(Reply(json=chat_completion(content='{"n": 3}')))
    resp = await provider.complete(ask(response_schema=schema))
    assert json.loads(resp.text) == {"n": 3}
    assert server.requests[0].json()["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": schema},
    }


async def test_max_completion_tokens_field(server: ScriptedServer) -> None:
    p = OpenAICompatProvider(
        provider="openai",
        api_key=KEY,
        base_url=server.url + "/v1",
        timeout=5.0,
        max_tokens_field="max_completion_tokens",
    )
    server.script(Reply(json=chat_completion(content="ok", finish_reason="length")))
    try:
        resp = await p.complete(ask(max_tokens=9))
    finally:
        await p.aclose()
    assert resp.stop_reason == "max_tokens"
    body = server.requests[0].json()
    assert body["max_completion_tokens"] == 9 and "max_tokens" not in body


async def test_missing_usage_is_none(
    server: ScriptedServer, provider: OpenAICompatProvider
) -> None:
    server.script(Reply(json=chat_completion(content="hi", usage=None)))
    resp = await provider.complete(ask())
    assert resp.text == "hi" and resp.usage is None


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body=b"<html>gateway page</html>"),
        Reply(json={"object": "list", "data": []}),
        Reply(json={"id": "x", "choices": []}),
    ],
)
async def test_malformed_body_is_a_clear_provider_error(
    server: ScriptedServer, provider: OpenAICompatProvider, reply: Reply
) -> None:
    server.script(reply)
    with pytest.raises(NikaError) as info:
        await provider.complete(ask())
    err = info.value
    assert (err.code, err.category, err.transient) == ("NIKA-INFER-001", "provider_error", False)
    assert "malformed response" in err.detail and server.url in err.detail


@pytest.mark.parametrize(
    ("status", "transient", "fragment"),
    [
        (400, False, "refused the request"),
        (401, False, "set NIKA_OPENAI_API_KEY or OPENAI_API_KEY"),
        (403, False, "denied access"),
        (404, False, "does not know model 'gpt-test'"),
        (500, True, "HTTP 500"),
        (503, True, "HTTP 503"),
    ],
)
async def test_error_statuses(
    server: ScriptedServer,
    provider: OpenAICompatProvider,
    status: int,
    transient: bool,
    fragment: str,
) -> None:
    server.script(Reply(status=status, json={"error": {"message": f"status {status} says no"}}))
    with pytest.raises(NikaError) as info:
        await provider.complete(ask())
    err = info.value
    assert (err.code, err.category, err.transient) == (
        "NIKA-INFER-001",
        "provider_error",
        transient,
    )
    assert fragment in err.detail
    assert f"status {status} says no" in err.detail
    assert err.details["status_code"] == status
    assert err.details["provider"] == "openai" and err.details["model"] == "gpt-test"


async def test_429_with_retry_after_is_retried_after_the_delay(
    server: ScriptedServer, provider: OpenAICompatProvider
) -> None:
    slept: list[float] = []

    async def sleep(secs: float) -> None:
        slept.append(secs)

    server.script(
        Reply(status=429, json={"error": {"message": "slow down"}}, headers={"Retry-After": "7"}),
        Reply(json=chat_completion(content="finally")),
    )
    retrying = RetryingProvider(
        provider, max_attempts=3, base_delay=0.5, sleep=sleep, rng=random.Random(0)
    )
    resp = await retrying.complete(ask())
    assert resp.text == "finally"
    assert len(server.requests) == 2
    assert len(slept) == 1 and slept[0] >= 7.0


async def test_401_is_not_retried(server: ScriptedServer, provider: OpenAICompatProvider) -> None:
    slept: list[float] = []

    async def sleep(secs: float) -> None:
        slept.append(secs)

    server.script(Reply(status=401, json={"error": {"message": "bad key"}}))
    retrying = RetryingProvider(provider, max_attempts=5, sleep=sleep, rng=random.Random(0))
    with pytest.raises(NikaError) as info:
        await retrying.complete(ask())
    assert not info.value.transient
    assert len(server.requests) == 1 and slept == []


async def test_a_slow_response_past_the_timeout_is_a_transient_network_error(
    server: ScriptedServer,
) -> None:
    p = OpenAICompatProvider(
        provider="ollama", api_key="x", base_url=server.url + "/v1", timeout=0.3, local=True
    )
    server.script(Reply(json=chat_completion(content="late"), delay=30))
    try:
        with pytest.raises(NikaError) as info:
            await p.complete(ask())
    finally:
        await p.aclose()
    err = info.value
    assert (err.code, err.category, err.transient) == ("NIKA-INFER-001", "network_error", True)
    assert "deadline" in err.detail


async def test_a_refused_connection_is_a_transient_network_error() -> None:
    with scripted_server() as gone:
        url = gone.url
    p = OpenAICompatProvider(
        provider="vllm", api_key="x", base_url=url + "/v1", timeout=2.0, local=True
    )
    try:
        with pytest.raises(NikaError) as info:
            await p.complete(ask())
    finally:
        await p.aclose()
    assert (info.value.category, info.value.transient) == ("network_error", True)
    assert f"could not reach vllm at {url}/v1" in info.value.detail


async def test_resolved_escape_hatch_calls_the_complete_endpoint_verbatim(
    server: ScriptedServer,
) -> None:
    env = {"NIKA_OPENAI_BASE_URL": server.url + "/custom/v1/chat/completions"}
    p = resolve_provider("openai/gpt-test", env=env)
    server.script(Reply(json=chat_completion(content="hello")))
    try:
        resp = await p.complete(ask(max_tokens=5))
    finally:
        await p.aclose()  # type: ignore[attr-defined]
    assert resp.text == "hello"
    seen = server.requests[0]
    assert seen.path == "/custom/v1/chat/completions"
    # Keyless (the override points at a local server) and the universal max_tokens field.
    assert seen.json()["max_tokens"] == 5 and seen.json()["model"] == "gpt-test"


async def test_run_agent_full_tool_calling_round_trip(server: ScriptedServer) -> None:
    listed: list[Mapping[str, Any]] = []

    def list_dir(args: Mapping[str, Any]) -> str:
        listed.append(args)
        return "a.txt\nb.txt"

    tools = InMemoryExecutor([(LIST, list_dir)])
    server.script(
        Reply(
            json=chat_completion(
                tool_calls=[("c1", wire_name("mcp:fs/list_dir"), '{"dir": "."}')],
                finish_reason="tool_calls",
            )
        ),
        Reply(json=chat_completion(content="Two files: a.txt and b.txt.", usage=(30, 8))),
    )
    provider = resolve_provider(
        "ollama/qwen3.5:9b", env={"NIKA_OLLAMA_BASE_URL": server.url + "/v1"}, timeout=5.0
    )
    spec = AgentSpec(prompt="What is here?", model="ollama/qwen3.5:9b", tools=["mcp:fs/*"])
    try:
        result = await run_agent(spec, provider=provider, tools=tools)
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    assert result.output == "Two files: a.txt and b.txt."
    assert listed == [{"dir": "."}]
    assert result.usage == Usage(11 + 30, 7 + 8)
    first, second = (r.json() for r in server.requests)
    assert first["model"] == "qwen3.5:9b"
    offered = {t["function"]["name"] for t in first["tools"]}
    assert wire_name("mcp:fs/list_dir") in offered
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "a.txt\nb.txt",
    }


async def test_undecodable_arguments_replay_as_empty_never_as_the_engines_text(
    server: ScriptedServer,
) -> None:
    # Reproduces issue 18: the next request must not carry nika's refusal as if the model had
    # written it as the call's arguments; the refusal is the tool message only.
    listed: list[Mapping[str, Any]] = []

    def list_files(args: Mapping[str, Any]) -> str:
        listed.append(args)
        return "a.txt"

    tools = InMemoryExecutor([(LIST, list_files)])
    server.script(
        Reply(
            json=chat_completion(
                tool_calls=[("c1", wire_name("mcp:fs/list_dir"), '{"dir": ".",')],
                finish_reason="tool_calls",
            )
        ),
        Reply(json=chat_completion(content="sorry")),
    )
    provider = resolve_provider(
        "ollama/qwen3.5:9b", env={"NIKA_OLLAMA_BASE_URL": server.url + "/v1"}, timeout=5.0
    )
    spec = AgentSpec(prompt="What is here?", model="ollama/qwen3.5:9b", tools=["mcp:fs/*"])
    try:
        result = await run_agent(spec, provider=provider, tools=tools)
    finally:
        await provider.aclose()  # type: ignore[attr-defined]
    assert result.output == "sorry" and listed == []
    replay, fed = server.requests[1].json()["messages"][-2:]
    assert replay["tool_calls"][0]["function"]["arguments"] == "{}"
    assert "rejected" not in json.dumps(replay)
    assert fed["role"] == "tool" and fed["tool_call_id"] == "c1"
    assert fed["content"].startswith("[tool error] ")
    error = json.loads(fed["content"].removeprefix("[tool error] "))
    assert error["code"] == "NIKA-INVOKE-002" and "not valid JSON" in error["detail"]
