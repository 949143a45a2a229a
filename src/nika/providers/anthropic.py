"""`AnthropicProvider`: the Messages API through the official `anthropic` SDK."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Final

import anthropic
from anthropic.types import Message

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
from nika.providers._wire import wire_name

DEFAULT_MAX_TOKENS: Final = 4096
"""Sent when the task declares no `max_tokens:` (the Messages API requires the field)."""

_STOP: Final[dict[str | None, StopReason]] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_calls",
    "max_tokens": "max_tokens",
}


class AnthropicProvider(SdkProvider):
    """A `Provider` over `anthropic.AsyncAnthropic`.

    The SDK's own retries are off (`max_retries=0`): `RetryingProvider` is the one retry policy.
    Temperature arrives on the spec's 0.0-2.0 scale and is halved onto Anthropic's 0.0-1.0.
    `schema:` uses the API's native structured output (`output_config.format`).
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        timeout: float,
        key_var: str | None = None,
        provider: str = "anthropic",
    ) -> None:
        super().__init__(
            ErrorContext(provider, "", base_url, key_var, False, (api_key,)),
            anthropic.AsyncAnthropic(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
            ),
            _response,
        )

    def _send(self, request: ModelRequest, model: str) -> Awaitable[object]:
        return self._client.messages.create(**_request_body(request, model))  # type: ignore[no-any-return]


def _request_body(request: ModelRequest, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": _messages(request),
        "max_tokens": request.max_tokens if request.max_tokens is not None else DEFAULT_MAX_TOKENS,
    }
    if request.system:
        body["system"] = request.system
    if request.tools:
        body["tools"] = [
            {
                "name": wire_name(t.name),
                "description": t.description,
                "input_schema": plain(t.parameters),
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        # The SDK no longer types the field; the API still reads it.
        body["extra_body"] = {"temperature": min(request.temperature / 2.0, 1.0)}
    if request.response_schema is not None:
        body["output_config"] = {
            "format": {"type": "json_schema", "schema": plain(request.response_schema)}
        }
    return body


def _messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        # The API wants alternating roles: consecutive tool results (and a user message after
        # them) share one user turn.
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in request.messages:
        if isinstance(message, UserMessage):
            add("user", [{"type": "text", "text": message.text}])
        elif isinstance(message, AssistantMessage):
            blocks: list[dict[str, Any]] = []
            if message.text:
                blocks.append({"type": "text", "text": message.text})
            blocks.extend(
                {"type": "tool_use", "id": c.id, "name": wire_name(c.name), "input": plain(c.args)}
                for c in message.tool_calls
            )
            if blocks:  # the API rejects an empty assistant turn
                add("assistant", blocks)
        elif isinstance(message, ToolResultMessage):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.call_id,
                "content": message.content,
            }
            if message.is_error:
                block["is_error"] = True
            add("user", [block])
    return out


def _response(raw: object, ctx: ErrorContext, reverse: dict[str, str]) -> ModelResponse:
    # The SDK does not validate bodies, so a wrong endpoint shows up as a str or empty fields.
    if not isinstance(raw, Message) or not isinstance(raw.content, list):
        shown = repr(raw[:120]) if isinstance(raw, str) else type(raw).__name__
        raise malformed(ctx, f"the body is not a Messages API message ({shown})")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(raw.content):
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(str(getattr(block, "text", "")))
        elif kind == "tool_use":
            name, call_id = getattr(block, "name", None), getattr(block, "id", None)
            if not isinstance(name, str):
                raise malformed(ctx, f"content[{index}] is a tool_use block without a name")
            args, args_error = _input(getattr(block, "input", None))
            calls.append(
                ToolCall(
                    id=CallId(call_id if isinstance(call_id, str) and call_id else f"call_{index}"),
                    name=reverse.get(name, name),
                    args=args,
                    args_error=args_error,
                )
            )
    stop = _STOP.get(raw.stop_reason, "other")
    if calls:
        stop = "tool_calls"
    return ModelResponse(
        text="".join(texts), tool_calls=tuple(calls), usage=_usage(raw), stop_reason=stop
    )


def _input(value: object) -> tuple[dict[str, Any], str | None]:
    """A tool_use block's `input` as `(args, args_error)` (see `ToolCall.args_error`)."""
    if isinstance(value, dict):
        return value, None
    if value is None:
        return {}, None
    received = str(value)[:200]
    return {}, ("the tool call's input was rejected: it is not a JSON object; "
                f"resend the call with a single JSON object as input. Received: {received!r}")


def _usage(raw: Message) -> Usage | None:
    usage = getattr(raw, "usage", None)
    if usage is None:
        return None
    fresh, out = getattr(usage, "input_tokens", None), getattr(usage, "output_tokens", None)
    if not isinstance(fresh, int) or not isinstance(out, int):
        return None
    # Cache writes and reads are billed input too; the budget counts them.
    cached = (usage.cache_creation_input_tokens or 0) + (usage.cache_read_input_tokens or 0)
    return Usage(input_tokens=fresh + cached, output_tokens=out)
