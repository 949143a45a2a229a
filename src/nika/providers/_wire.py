"""Wire-shaping helpers shared by the adapters: tool-name aliasing and argument decoding.

Our canonical names (`nika:read`, `mcp:fs/read_file`) contain `:` and `/`, which neither
OpenAI nor Anthropic accept (`^[a-zA-Z0-9_-]{1,64}$`). The alias is a pure function of the
name, so it stays the same on every turn, including for calls made in earlier turns to tools
the router no longer offers; each request builds the reverse table from what it sent.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Final

from nika.agent.seams import AssistantMessage, ModelRequest

_LEGAL: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ILLEGAL_CHAR: Final = re.compile(r"[^A-Za-z0-9_-]")

_RAW_EXCERPT: Final = 200
_JSON_KINDS: Final[Mapping[type, str]] = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def wire_name(name: str) -> str:
    """The provider-legal alias of `name`: itself when already legal, else a sanitized prefix
    plus a short digest of the original (so two names never share an alias)."""
    if _LEGAL.match(name):
        return name
    digest = hashlib.blake2s(name.encode(), digest_size=4).hexdigest()
    return f"{_ILLEGAL_CHAR.sub('_', name)[:55]}_{digest}"


def reverse_table(request: ModelRequest) -> dict[str, str]:
    """alias -> canonical name, for every tool name the request carried (offered or called)."""
    names: list[str] = [t.name for t in request.tools]
    for message in request.messages:
        if isinstance(message, AssistantMessage):
            names.extend(call.name for call in message.tool_calls)
    return {wire_name(n): n for n in names}


def decode_args(raw: str | None) -> tuple[Mapping[str, Any], str | None]:
    """A tool call's JSON arguments as `(args, args_error)`; never raises.

    Empty arguments mean `{}`. Anything that is not a JSON object gives empty args and a
    prescriptive `args_error` (the raw text quoted, truncated) for the loop to feed back.
    """
    if raw is None or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        problem = f"they are not valid JSON ({exc.msg} at position {exc.pos})"
    else:
        if isinstance(value, dict):
            return value, None
        kind = _JSON_KINDS.get(type(value), "value")
        problem = f"they decode to a JSON {kind}, not an object"
    excerpt = raw if len(raw) <= _RAW_EXCERPT else raw[:_RAW_EXCERPT] + "..."
    return {}, (f"the tool call's arguments were rejected: {problem}; "
                f"resend the call with a single JSON object as arguments. Received: {excerpt!r}")


def strip_prefix(model: str, provider: str) -> str:
    """The provider-side model id: `request.model` carries the workflow's `<provider>/<name>`."""
    prefix = f"{provider}/"
    return model[len(prefix) :] if model.startswith(prefix) else model
