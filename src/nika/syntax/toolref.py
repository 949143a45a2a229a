"""The canonical tool reference grammar (02-verbs §Tool reference grammar).

`<namespace>:<path>` — one colon introduces the namespace, `/` separates the path.
The namespace set is closed at v1: `nika:` (builtins, flat `nika:fetch` or grouped
`nika:group/tool`) and `mcp:` (`mcp:<server>/<tool>`, the slash required). Anything
else is a `NIKA-PARSE-019` refusal naming the fix. Whether a builtin *exists* is the
checker's question (`NIKA-INVOKE-001`), not the grammar's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from nika import codes
from nika.errors import NikaError

Namespace = Literal["nika", "mcp"]

TOOL_NAMESPACES: Final = ("mcp", "nika")
BUILTIN_SEGMENT: Final = re.compile(r"[a-z][a-z0-9_]*")
MCP_SERVER: Final = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A server segment: lowercase letters, digits and `-`, not starting with `-` (`mcp:21st/x`
is valid — the published workflow schema's pattern)."""
MCP_TOOL: Final = re.compile(r"[A-Za-z0-9_-]+")

_CODE: Final = codes.PARSE_019


@dataclass(frozen=True, slots=True)
class ToolRef:
    """A parsed tool id: `server` is set for `mcp:` only; `name` is the rest of the path."""

    namespace: Namespace
    name: str
    server: str | None = None

    @property
    def canonical(self) -> str:
        """The one spelling: `nika:<name>` or `mcp:<server>/<name>`."""
        if self.server is None:
            return f"{self.namespace}:{self.name}"
        return f"{self.namespace}:{self.server}/{self.name}"

    def __str__(self) -> str:
        return self.canonical


def _refuse(text: str, why: str, fix: str) -> NikaError:
    return NikaError(_CODE, f"tool reference {text!r} {why}; {fix}", details={"tool": text})


def parse_tool_ref(text: str) -> ToolRef:
    """Parse `text` into a `ToolRef`, or raise `NIKA-PARSE-019` quoting it with the fix."""
    if not isinstance(text, str):
        raise _refuse(repr(text), "is not a string", 'quote it, e.g. tool: "nika:read"')
    if "${{" in text:
        raise _refuse(text, "is templated", "name the tool literally: the tool is static")
    namespace, colon, path = text.partition(":")
    if not colon:
        raise _refuse(text, "has no namespace", f'write "nika:{text}" for a builtin or '
                      f'"mcp:<server>/{text}" for an MCP tool')
    if namespace not in TOOL_NAMESPACES:
        raise _refuse(text, f"uses the namespace `{namespace}:`, outside the closed set "
                      "{nika:, mcp:}", "route engine or vendor tools through an MCP server: "
                      "mcp:<server>/<tool>")
    if ":" in path:
        raise _refuse(text, "has more than one colon", "the colon appears exactly once; "
                      "separate path segments with `/`")
    if namespace == "nika":
        segments = path.split("/")
        bad = next((s for s in segments if not BUILTIN_SEGMENT.fullmatch(s)), None)
        if bad is not None:
            raise _refuse(text, f"has the builtin path segment {bad!r}",
                          "builtin names are snake_case ([a-z][a-z0-9_]*), e.g. nika:read")
        return ToolRef("nika", path)
    server, slash, tool = path.partition("/")
    if not slash:
        raise _refuse(text, "names no tool",
                      f'the mcp: form requires the slash: "mcp:{path}/<tool>"')
    if not MCP_SERVER.fullmatch(server):
        raise _refuse(text, f"has the server segment {server!r}",
                      "server names are lowercase letters, digits and '-' "
                      "([a-z0-9][a-z0-9-]*)")
    if not MCP_TOOL.fullmatch(tool):
        raise _refuse(text, f"has the tool segment {tool!r}",
                      "tool names are [A-Za-z0-9_-]+, one segment after the server")
    return ToolRef("mcp", tool, server)


def is_tool_ref(text: str) -> bool:
    """Is `text` a well-formed tool reference?"""
    try:
        parse_tool_ref(text)
    except NikaError:
        return False
    return True
