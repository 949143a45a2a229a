"""The Anthropic adapter: the real `anthropic` SDK against a scripted loopback server."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Mapping

import pytest
from tests.providers._servers import Reply, ScriptedServer, anthropic_message

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
from nika.providers.anthropic import DEFAULT_MAX_TOKENS, AnthropicProvider

KEY = "sk-ant-test-0123456789abcdef"
READ = ToolDefinition(
    ToolName("nika:read"),
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    "builtin",
)
GREP = ToolDefinition(ToolName("mcp:code/grep"), "Search.", {"type": "object"}, "mcp")


@pytest.fixture
async def provider(server: ScriptedServer) -> AsyncIterator[AnthropicProvider]:
    p = AnthropicProvider(
        api_key=KEY, base_url=server.url, timeout=5.0, key_var="NIKA_ANTHROPIC_API_KEY"
    )
    yield p
    await p.aclose()


def ask(*messages: object, **kw: object) -> ModelRequest:
    msgs = messages or (UserMessage("Find and read."),)
    return ModelRequest(model="anthropic/claude-test", system="Be brief.", messages=msgs, **kw)  # type: ignore[arg-type]


def sent_key(headers: Mapping[str, str]) -> str | None:
    # The SDK decides how the key travels (x-api-key or a bearer token, by version).
    bearer = headers.get("authorization", "").removeprefix("Bearer ")
    return headers.get("x-api-key") or bearer or None


def tool_use(call_id: str, name: str, args: object) -> dict[str, object]:
    return {"type": "tool_use", "id": call_id, "name": wire_name(name), "input": args}


async def test_tool_use_round_trip_with_exact_wire_json(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.script(
        Reply(
            json=anthropic_message(
                blocks=[
                    {"type": "text", "text": "Looking."},
                    tool_use("toolu_1", "mcp:code/grep", {"pattern": "TODO"}),
                    tool_use("toolu_2", "nika:read", {"path": "a.py"}),
                ],
                stop_reason="tool_use",
            )
        ),
        Reply(json=anthropic_message(blocks=[{"type": "text", "text": "Done."}])),
    )
    first = await provider.complete(ask(tools=(READ, GREP), temperature=1.0, max_tokens=200))

    assert first.text == "Looking."
    assert first.stop_reason == "tool_calls"
    assert first.tool_calls == (
        ToolCall(CallId("toolu_1"), "mcp:code/grep", {"pattern": "TODO"}),
        ToolCall(CallId("toolu_2"), "nika:read", {"path": "a.py"}),
    )
    assert first.usage == Usage(13, 5)
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent_key(sent.headers) == KEY
    assert sent.json() == {
        "model": "claude-test",
        "max_tokens": 200,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Find and read."}]}],
        "tools": [
            {
                "name": wire_name("nika:read"),
                "description": "Read a file.",
                "input_schema": dict(READ.parameters),
            },
            {
                "name": wire_name("mcp:code/grep"),
                "description": "Search.",
                "input_schema": {"type": "object"},
            },
        ],
        "temperature": 0.5,  # the spec's 0-2 scale onto Anthropic's 0-1
    }

    follow = ask(
        UserMessage("Find and read."),
        AssistantMessage("Looking.", first.tool_calls),
        ToolResultMessage(CallId("toolu_1"), "mcp:code/grep", "a.py:3: TODO"),
        ToolResultMessage(CallId("toolu_2"), "nika:read", "denied", is_error=True),
        UserMessage("Keep going."),
        tools=(READ, GREP),
    )
    second = await provider.complete(follow)
    assert (second.text, second.stop_reason) == ("Done.", "end_turn")
    assert server.requests[1].json()["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                tool_use("toolu_1", "mcp:code/grep", {"pattern": "TODO"}),
                tool_use("toolu_2", "nika:read", {"path": "a.py"}),
            ],
        },
        {
            # consecutive tool results, and the user text after them, share one user turn
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py:3: TODO"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "denied",
                    "is_error": True,
                },
                {"type": "text", "text": "Keep going."},
            ],
        },
    ]


async def test_defaults_and_structured_output(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    server.script(Reply(json=anthropic_message(blocks=[{"type": "text", "text": '{"ok": true}'}])))
    resp = await provider.complete(ask(response_schema=schema))
    assert resp.text == '{"ok": true}'
    body = server.requests[0].json()
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert "temperature" not in body and "tools" not in body


async def test_usage_counts_cache_tokens_as_input(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    usage = {
        "input_tokens": 10,
        "output_tokens": 4,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 1000,
    }
    server.script(
        Reply(json=anthropic_message(blocks=[{"type": "text", "text": "x"}], usage=usage))
    )
    resp = await provider.complete(ask())
    assert resp.usage == Usage(1110, 4)


async def test_missing_usage_is_none(server: ScriptedServer, provider: AnthropicProvider) -> None:
    body = anthropic_message(blocks=[{"type": "text", "text": "x"}], stop_reason="max_tokens")
    del body["usage"]
    server.script(Reply(json=body))
    resp = await provider.complete(ask())
    assert resp.usage is None and resp.stop_reason == "max_tokens"


async def test_non_object_tool_input_becomes_the_calls_args_error(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.script(Reply(json=anthropic_message(blocks=[tool_use("t1", "nika:read", "a.py")])))
    resp = await provider.complete(ask(tools=(READ,)))
    (call,) = resp.tool_calls
    assert dict(call.args) == {}
    assert call.args_error is not None and "not a JSON object" in call.args_error


@pytest.mark.parametrize(
    "reply",
    [Reply(body=b"upstream connect error"), Reply(json={"type": "message", "content": None})],
)
async def test_malformed_body(
    server: ScriptedServer, provider: AnthropicProvider, reply: Reply
) -> None:
    server.script(reply)
    with pytest.raises(NikaError) as info:
        await provider.complete(ask())
    assert (info.value.category, info.value.transient) == ("provider_error", False)
    assert "malformed response" in info.value.detail


@pytest.mark.parametrize(
    ("status", "transient", "fragment"),
    [
        (400, False, "refused the request"),
        (401, False, "set NIKA_ANTHROPIC_API_KEY"),
        (403, False, "denied access"),
        (404, False, "does not know model 'claude-test'"),
        (500, True, "HTTP 500"),
        (529, True, "HTTP 529"),
    ],
)
async def test_error_statuses(
    server: ScriptedServer,
    provider: AnthropicProvider,
    status: int,
    transient: bool,
    fragment: str,
) -> None:
    body = {"type": "error", "error": {"type": "some_error", "message": f"{status} says no"}}
    server.script(Reply(status=status, json=body))
    with pytest.raises(NikaError) as info:
        await provider.complete(ask())
    err = info.value
    assert (err.code, err.category, err.transient) == (
        "NIKA-INFER-001",
        "provider_error",
        transient,
    )
    assert fragment in err.detail and f"{status} says no" in err.detail


async def test_429_retry_after_then_success_and_401_never_retried(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    slept: list[float] = []

    async def sleep(secs: float) -> None:
        slept.append(secs)

    retrying = RetryingProvider(
        provider, max_attempts=3, base_delay=0.1, sleep=sleep, rng=random.Random(0)
    )
    server.script(
        Reply(
            status=429,
            json={"type": "error", "error": {"message": "rate"}},
            headers={"retry-after": "4"},
        ),
        Reply(json=anthropic_message(blocks=[{"type": "text", "text": "ok"}])),
        Reply(status=401, json={"type": "error", "error": {"message": "invalid x-api-key"}}),
    )
    assert (await retrying.complete(ask())).text == "ok"
    assert len(slept) == 1 and slept[0] >= 4.0
    with pytest.raises(NikaError):
        await retrying.complete(ask())
    assert len(server.requests) == 3 and len(slept) == 1


async def test_a_slow_response_past_the_timeout(server: ScriptedServer) -> None:
    p = AnthropicProvider(api_key=KEY, base_url=server.url, timeout=0.3)
    server.script(Reply(json=anthropic_message(blocks=[]), delay=30))
    try:
        with pytest.raises(NikaError) as info:
            await p.complete(ask())
    finally:
        await p.aclose()
    assert (info.value.category, info.value.transient) == ("network_error", True)


async def test_resolved_from_secrets_with_a_complete_endpoint(server: ScriptedServer) -> None:
    env = {"NIKA_ANTHROPIC_BASE_URL": server.url + "/v1/messages"}
    p = resolve_provider("anthropic/claude-test", env=env, secrets={"ANTHROPIC_API_KEY": KEY})
    server.script(Reply(json=anthropic_message(blocks=[{"type": "text", "text": "hi"}])))
    try:
        assert (await p.complete(ask())).text == "hi"
    finally:
        await p.aclose()  # type: ignore[attr-defined]
    assert server.requests[0].path == "/v1/messages"
    assert sent_key(server.requests[0].headers) == KEY
