"""`OpenAICompatProvider`: the chat-completions dialect (OpenAI and the 14 servers that speak it),
through the official `openai` SDK."""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any, Literal

import openai
from openai.types.chat import ChatCompletion

from nika.agent.seams import (
    AssistantMessage,
    CallId,
    ModelRequest,
    ModelResponse,
    StopReason,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from nika.canonical import plain
from nika.providers._errors import ErrorContext, malformed
from nika.providers._round_trip import SdkProvider
from nika.providers._wire import decode_args, wire_name

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]

_STOP: dict[str | None, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
}
_ERROR_PREFIX = "[tool error] "


class OpenAICompatProvider(SdkProvider):
    """A `Provider` over `openai.AsyncOpenAI` pointed at `base_url`.

    The SDK's own retries are off (`max_retries=0`): `RetryingProvider` is the one retry policy.
    `max_tokens_field` names the request field carrying `max_tokens` (OpenAI's current models
    want `max_completion_tokens`; the compatible servers all read `max_tokens`).
    `key_var` names the variable that holds the key, for error details; the key itself is only
    ever handed to the SDK.
    """

    def __init__(
        self,
        *,
        provider: str,
        api_key: str,
        base_url: str,
        timeout: float,
        key_var: str | None = None,
        local: bool = False,
        max_tokens_field: MaxTokensField = "max_tokens",
    ) -> None:
        self._max_tokens_field = max_tokens_field
        super().__init__(
            ErrorContext(provider, "", base_url, key_var, local, (api_key,)),
            openai.AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0),
            _response,
        )

    def _send(self, request: ModelRequest, model: str) -> Awaitable[object]:
        body = _request_body(request, model, self._max_tokens_field)
        return self._client.chat.completions.create(**body)  # type: ignore[no-any-return]


def _request_body(request: ModelRequest, model: str, max_tokens_field: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": _messages(request)}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": wire_name(t.name),
                    "description": t.description,
                    "parameters": plain(t.parameters),
                },
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body[max_tokens_field] = request.max_tokens
    if request.response_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": plain(request.response_schema)},
        }
    return body


def _messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    for message in request.messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            turn: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls:
                turn["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": wire_name(call.name),
                            "arguments": json.dumps(plain(call.args)),
                        },
                    }
                    for call in message.tool_calls
                ]
            out.append(turn)
        elif isinstance(message, ToolResultMessage):
            # Chat completions has no error flag on a tool result; the prefix tells the model.
            content = _ERROR_PREFIX + message.content if message.is_error else message.content
            out.append({"role": "tool", "tool_call_id": message.call_id, "content": content})
    return out


def _response(raw: object, ctx: ErrorContext, reverse: dict[str, str]) -> ModelResponse:
    # The SDK does not validate bodies (lenient by design for compatible servers), so a wrong
    # endpoint shows up here as a str or an object with missing fields.
    if not isinstance(raw, ChatCompletion):
        raise malformed(ctx, f"the body is not a chat completion ({_excerpt(raw)})")
    if not isinstance(raw.choices, list) or not raw.choices or raw.choices[0].message is None:
        raise malformed(ctx, "the chat completion has no choices[0].message")
    choice = raw.choices[0]
    message = choice.message
    calls: list[ToolCall] = []
    for index, tc in enumerate(message.tool_calls or ()):
        function = getattr(tc, "function", None)
        if function is None or not isinstance(function.name, str):
            raise malformed(ctx, f"tool_calls[{index}] has no function name")
        call_id = tc.id if isinstance(tc.id, str) and tc.id else f"call_{index}"
        args, args_error = decode_args(function.arguments)
        name = reverse.get(function.name, function.name)
        calls.append(ToolCall(CallId(call_id), name, args, args_error))
    stop = _STOP.get(choice.finish_reason, "other")
    if calls:
        # Several compatible servers report "stop" on a turn that carries tool calls.
        stop = "tool_calls"
    return ModelResponse(
        text=message.content if isinstance(message.content, str) else "",
        tool_calls=tuple(calls),
        usage=_usage(raw),
        stop_reason=stop,
    )


def _usage(raw: ChatCompletion) -> Usage | None:
    usage = raw.usage
    if usage is None:
        return None
    prompt, completion = usage.prompt_tokens, usage.completion_tokens
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(input_tokens=prompt, output_tokens=completion)


def _excerpt(raw: object) -> str:
    text = raw if isinstance(raw, str) else type(raw).__name__
    return repr(text[:120])
