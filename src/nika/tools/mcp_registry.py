"""The engine's MCP server registry: which servers `mcp:<server>/<tool>` names can reach.

The registry is a JSON file in the conventional shape shared by most MCP clients::

    {"mcpServers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                  "env": {"NODE_OPTIONS": "--max-old-space-size=256"}, "cwd": "."},
        "search": {"url": "https://mcp.example.com/mcp",
                   "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}}}

An entry with `command` is a stdio server (launched as a child process); one with `url` is a
streamable-HTTP server. Which file is read: an explicit path (the CLI flag), else the
`NIKA_MCP_CONFIG` environment variable, else `.nika/mcp.json` under the project directory;
only that last, conventional location may be absent (it means "no servers").

Paths: a relative `cwd`, and a relative `command` containing a `/`, resolve against the project
directory; a server without `cwd` runs in the project directory. Values in `env` and `headers`
may reference the engine's environment as `${NAME}` so tokens stay out of the file. Those values
are secrets: they never appear in a `repr`, a log line or an error detail.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from nika import codes
from nika.errors import NikaError
from nika.guarded_read import Unreadable, read_capped
from nika.syntax.toolref import MCP_SERVER

ENV_VAR: Final = "NIKA_MCP_CONFIG"
DEFAULT_PATH: Final = Path(".nika") / "mcp.json"
SERVER_NAME_RE: Final = re.compile(rf"^{MCP_SERVER.pattern}$")
_REF_RE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_STDIO_KEYS: Final = frozenset({"command", "args", "env", "cwd"})
_HTTP_KEYS: Final = frozenset({"url", "headers"})
_CODE: Final = codes.MCP_001
REGISTRY_CAP: Final = 1 << 20
"""The largest registry read (bytes)."""


@dataclass(frozen=True, slots=True)
class StdioServer:
    """A server nika launches as a child process and speaks to over stdin/stdout."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: Path | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values that must never be shown (the environment given to the server)."""
        return tuple(self.env.values())

    def describe(self) -> str:
        """A safe one-line description for errors and logs: the command, never the env."""
        return " ".join((self.command, *self.args))


@dataclass(frozen=True, slots=True, repr=False)
class HttpServer:
    """A server reached over streamable HTTP."""

    name: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"HttpServer(name={self.name!r}, url={self.describe()!r})"

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values that must never be shown: header values, URL credentials and query."""
        parts = urlsplit(self.url)
        extra = (parts.password, parts.query)
        return (*self.headers.values(), *(p for p in extra if p))

    def describe(self) -> str:
        """The URL without credentials or query string, which may carry tokens."""
        return safe_url(self.url)


ServerSpec = StdioServer | HttpServer


@dataclass(frozen=True, slots=True)
class McpRegistry:
    """The configured servers by name, and the file they came from (None: no file)."""

    servers: Mapping[str, ServerSpec] = field(default_factory=dict)
    path: Path | None = None

    def where(self) -> str:
        """Where a user should look to add or fix a server entry."""
        if self.path is None:
            return f"{DEFAULT_PATH} (absent: no MCP servers are configured)"
        return str(self.path)


def safe_url(url: str) -> str:
    """`url` with any `user:password@` and `?query` removed: both commonly carry secrets."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url.split("?", 1)[0]
    authority, slash, path = rest.partition("/")
    host = authority.rpartition("@")[2]
    return f"{scheme}://{host}{slash}{path.split('?', 1)[0].split('#', 1)[0]}"


def load_registry(
    project_dir: Path,
    *,
    explicit: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> McpRegistry:
    """Read the registry for a project: `explicit`, else `$NIKA_MCP_CONFIG`, else the default.

    Raises `NikaError` (NIKA-MCP-001) when a named file is missing or any file is malformed.
    """
    env = os.environ if environ is None else environ
    if explicit is not None:
        path, required = explicit, True
    elif env.get(ENV_VAR):
        path, required = Path(env[ENV_VAR]), True
    else:
        path, required = project_dir / DEFAULT_PATH, False
    if not path.is_absolute():
        path = project_dir / path
    if not path.exists():
        if required:
            raise NikaError(
                _CODE,
                f"MCP registry {path} does not exist; create it with an "
                '{"mcpServers": {...}} object or point the flag / NIKA_MCP_CONFIG elsewhere',
                transient=False,
            )
        return McpRegistry()
    return parse_registry(_read(path), path=path, project_dir=project_dir, environ=env)


def parse_registry(
    text: str,
    *,
    path: Path,
    project_dir: Path,
    environ: Mapping[str, str] | None = None,
) -> McpRegistry:
    """Parse registry JSON text (read from `path`, used only in messages)."""
    env = os.environ if environ is None else environ
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _malformed(
            path, f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("mcpServers"), dict):
        raise _malformed(path, 'needs a top-level object {"mcpServers": {<name>: {...}}}')
    servers: dict[str, ServerSpec] = {}
    for name, entry in doc["mcpServers"].items():
        servers[name] = _server(name, entry, path, project_dir, env)
    return McpRegistry(servers=dict(sorted(servers.items())), path=path)


def _read(path: Path) -> str:
    # guarded: a FIFO or device named by --mcp-config is refused, never opened to block
    data = read_capped(path, REGISTRY_CAP)
    try:
        if isinstance(data, Unreadable):
            raise OSError(data.why)
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = str(exc) if isinstance(exc, OSError) else type(exc).__name__
        raise NikaError(
            _CODE,
            f"MCP registry {path} cannot be read (it {why}); check its permissions "
            "and that it is a regular file of UTF-8 JSON",
            transient=False,
        ) from None


def _server(
    name: str, entry: Any, path: Path, project_dir: Path, env: Mapping[str, str]
) -> ServerSpec:
    where = f"server {name!r}"
    if not SERVER_NAME_RE.match(name):
        raise _malformed(
            path,
            f"names {where}, which cannot appear in mcp:<server>/<tool>; "
            "rename it to lowercase letters, digits and '-', not starting with '-'",
        )
    if not isinstance(entry, dict):
        raise _malformed(path, f"gives {where} a {type(entry).__name__}; it must be an object")
    keys = set(entry)
    if "command" in keys and "url" in keys:
        raise _malformed(path, f"gives {where} both 'command' and 'url'; keep exactly one")
    if "url" in keys:
        _no_extra(keys, _HTTP_KEYS, where, path)
        url = _string(entry["url"], f"{where} 'url'", path)
        if not url.startswith(("http://", "https://")):
            raise _malformed(path, f"gives {where} url {safe_url(url)!r}; use an http(s):// URL")
        headers = _strings(entry.get("headers", {}), f"{where} 'headers'", path, env)
        return HttpServer(name=name, url=url, headers=headers)
    if "command" not in keys:
        raise _malformed(path, f"gives {where} neither 'command' (stdio) nor 'url' (HTTP)")
    _no_extra(keys, _STDIO_KEYS, where, path)
    command = _string(entry["command"], f"{where} 'command'", path)
    if "/" in command and not Path(command).is_absolute():
        command = str(project_dir / command)
    args = entry.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise _malformed(path, f"gives {where} 'args' that is not a list of strings")
    cwd_text = entry.get("cwd")
    cwd = project_dir
    if cwd_text is not None:
        cwd = project_dir / _string(cwd_text, f"{where} 'cwd'", path)
    return StdioServer(
        name=name,
        command=command,
        args=tuple(args),
        env=_strings(entry.get("env", {}), f"{where} 'env'", path, env),
        cwd=cwd,
    )


def _no_extra(keys: set[str], allowed: frozenset[str], where: str, path: Path) -> None:
    extra = sorted(keys - allowed)
    if extra:
        raise _malformed(
            path, f"gives {where} unknown field(s) {extra}; allowed here: {sorted(allowed)}"
        )


def _string(value: Any, what: str, path: Path) -> str:
    if not isinstance(value, str) or not value:
        raise _malformed(
            path, f"gives {what} as {type(value).__name__}; it must be a non-empty string"
        )
    return value


def _strings(value: Any, what: str, path: Path, env: Mapping[str, str]) -> dict[str, str]:
    """A string-to-string map with `${NAME}` references expanded. Values are secrets: a
    message may name a key or a variable, never quote a value."""
    if not isinstance(value, dict):
        raise _malformed(path, f"gives {what} as {type(value).__name__}; it must be an object")
    out: dict[str, str] = {}
    for key, raw in value.items():
        if not isinstance(raw, str):
            raise _malformed(path, f"gives {what} key {key!r} a non-string value; quote it")
        for ref in _REF_RE.findall(raw):
            if ref not in env:
                raise NikaError(
                    _CODE,
                    f"MCP registry {path}: {what} key {key!r} references ${{{ref}}}, which is not "
                    f"set; export {ref} before running",
                    transient=False,
                )
        out[key] = _REF_RE.sub(lambda m: env[m.group(1)], raw)
    return out


def _malformed(path: Path, problem: str) -> NikaError:
    return NikaError(_CODE, f"MCP registry {path} {problem}", transient=False)
