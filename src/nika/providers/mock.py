"""`MockProvider`: the spec's deterministic test model, `mock/echo` (providers §mock).

Zero network, zero entropy: the same request always gets the same reply.

- The reply text is `mock(echo) · <prompt>`, the prompt being the first user message.
- With tools offered it ALWAYS calls the first one (offered order — the loop offers tools in
  whitelist order, which is why examples list `nika:done` first) with schema-shaped default
  args. Calling `nika:done` while a `response_schema` is set passes the schema-shaped default
  as its `result`, so the output validates.
- Without tools but with a `response_schema`, the reply is that schema's shaped default as
  JSON: required properties only, string `""`, number `0`, boolean `false`, array `[]`,
  object recursed; `const`/`enum`/`default` and simple lower bounds are honoured so the value
  validates. It carries no meaning: it tests the SHAPE of a workflow, not model quality.
- Usage is reported as a deterministic estimate (4 UTF-8 bytes per token), so token budgets
  are exercised offline; mock models are never billed.

`mock/mock-deterministic` is echo's long-form alias. The spec's configured-response forms
(`mock-error`, `mock-streaming`, `mock-json`) are not provided and are refused.

`mock/scripted` is this engine's configured-response mock (providers §mock: a configured
form reads its fixture from engine config, never from the workflow). The environment
variable `NIKA_MOCK_SCRIPT` names a JSON file `{"replies": [reply, …]}`, each reply
`{"text": str, "tool_calls": [{"name": str, "args": {…}}], "usage": {"input": int,
"output": int}}` (every key optional). Reply *n* answers the request that carries *n*
assistant messages — the agent loop's turn *n+1*, an `infer:`'s *n*-th schema repair — so a
script replays the same way in every process. A request past the script fails
`NIKA-INFER-001`.

Any mock model appends one JSON line per call (`{"model", "reply"}`) to the file named by
`NIKA_MOCK_CALL_LOG` when it is set: an observable count of model calls, across processes
(how a test proves a resumed run spent no tokens).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.agent.seams import (
    AssistantMessage,
    CallId,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from nika.errors import NikaError

MOCK_MODELS: Final = frozenset({"echo", "mock-deterministic", "scripted"})
SCRIPT_VAR: Final = "NIKA_MOCK_SCRIPT"
CALL_LOG_VAR: Final = "NIKA_MOCK_CALL_LOG"
_DONE: Final = "nika:done"
_MAX_DEPTH: Final = 32


def shaped_default(schema: Any, _depth: int = 0) -> Any:
    """The deterministic, meaningless value `mock/echo` returns for `schema`."""
    if not isinstance(schema, Mapping) or _depth > _MAX_DEPTH:
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return shaped_default(branches[0], _depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else None
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: shaped_default(properties.get(name, {}), _depth + 1)
            for name in schema.get("required", [])
        }
    if kind == "array":
        return [shaped_default(schema.get("items", {}), _depth + 1)] * int(
            schema.get("minItems", 0)
        )
    if kind == "string":
        return "a" * int(schema.get("minLength", 0))
    if kind in ("number", "integer"):
        minimum = schema.get("minimum", 0)
        return minimum if isinstance(minimum, int | float) and minimum > 0 else 0
    if kind == "boolean":
        return False
    return None


def _tokens(text: str) -> int:
    return (len(text.encode("utf-8")) + 3) // 4


def _input_tokens(request: ModelRequest) -> int:
    total = _tokens(request.system or "")
    for message in request.messages:
        if isinstance(message, UserMessage | ToolResultMessage):
            total += _tokens(message.text if isinstance(message, UserMessage) else message.content)
        elif isinstance(message, AssistantMessage):
            total += _tokens(message.text) + sum(
                _tokens(json.dumps(dict(c.args))) for c in message.tool_calls
            )
    return total


class MockProvider:
    """The `mock` provider (a test fixture, never a model): see the module docstring.

    `env` is where `NIKA_MOCK_SCRIPT` and `NIKA_MOCK_CALL_LOG` are read (the run's
    environment; none: no script, no call log)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = dict(env or {})

    async def complete(self, request: ModelRequest) -> ModelResponse:
        provider, _, name = request.model.partition("/")
        if provider != "mock" or name not in MOCK_MODELS:
            raise NikaError(
                codes.INFER_001,
                f"the mock provider serves {sorted(MOCK_MODELS)!r}, not {request.model!r}; "
                "use model: mock/echo",
                transient=False,
                details={"model": request.model},
            )
        turn = sum(isinstance(m, AssistantMessage) for m in request.messages)
        log = self._env.get(CALL_LOG_VAR)
        if log:
            line = json.dumps({"model": request.model, "reply": turn}) + "\n"
            await asyncio.to_thread(_append, Path(log), line)
        if name == "scripted":
            return await self._scripted(request, turn)
        return _echo(request)

    async def _scripted(self, request: ModelRequest, turn: int) -> ModelResponse:
        path = self._env.get(SCRIPT_VAR)
        if not path:
            raise _script_error(f"mock/scripted reads its replies from the file named by "
                                f"{SCRIPT_VAR}; set it to a JSON file {{\"replies\": [...]}}")
        try:
            doc = json.loads(await asyncio.to_thread(Path(path).read_text, encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise _script_error(f"cannot read the mock script {path!r} ({exc}); write a JSON "
                                "file {\"replies\": [...]}") from None
        replies = doc.get("replies") if isinstance(doc, dict) else None
        if not isinstance(replies, list) or turn >= len(replies) \
                or not isinstance(replies[turn], dict):
            count = len(replies) if isinstance(replies, list) else 0
            raise _script_error(f"the mock script {path!r} has {count} replies; request "
                                f"{turn + 1} has none — add a reply")
        reply = replies[turn]
        text = str(reply.get("text", ""))
        calls = tuple(
            ToolCall(CallId(f"scripted_call_{turn}_{i}"), str(c.get("name", "")),
                     _args(c.get("args")))
            for i, c in enumerate(reply.get("tool_calls") or []) if isinstance(c, dict))
        usage = reply.get("usage")
        given = (usage.get("input"), usage.get("output")) if isinstance(usage, dict) else ()
        counts = [n for n in given if isinstance(n, int) and not isinstance(n, bool) and n >= 0]
        tokens = Usage(counts[0], counts[1]) if len(counts) == 2 \
            else Usage(_input_tokens(request), _tokens(text))
        return ModelResponse(text, calls, tokens, "tool_calls" if calls else "end_turn")


def _args(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)


def _script_error(detail: str) -> NikaError:
    return NikaError(codes.INFER_001, detail, transient=False)


def _echo(request: ModelRequest) -> ModelResponse:
    prompt = next((m.text for m in request.messages if isinstance(m, UserMessage)), "")
    text = f"mock(echo) · {prompt}"
    if request.tools:
        tool = request.tools[0]
        args = shaped_default(tool.parameters)
        if tool.name == _DONE and request.response_schema is not None:
            args = {"result": shaped_default(request.response_schema)}
        call = ToolCall(
            CallId(f"mock_call_{len(request.messages)}"),
            tool.name,
            args if isinstance(args, dict) else {},
        )
        out = _tokens(text) + _tokens(json.dumps(call.args))
        usage = Usage(_input_tokens(request), out)
        return ModelResponse(text, (call,), usage, "tool_calls")
    if request.response_schema is not None:
        text = json.dumps(shaped_default(request.response_schema), ensure_ascii=False)
    return ModelResponse(text, (), Usage(_input_tokens(request), _tokens(text)), "end_turn")
