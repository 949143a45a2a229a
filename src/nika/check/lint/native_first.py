"""Native first: `exec:` is the escape hatch, never the default path (spec 03 §Native-first).

An `exec:` whose literal command a builtin covers trades portability, the capability
boundary and the audit certificate for a subprocess. Each class is one small function
over the command's literal words; the ladder asks them most specific first (helper ≻
media ≻ http ≻ file ≻ data ≻ utility) and keeps the first answer, so a task gets at most
one native-first warning. A templated head makes no claim, `nika run …` nesting and
genuine subprocesses (`git`, `make`, `cargo`, a product CLI) stay silent, and a
path-qualified head (`./bin/cat`) is the author's own tool, not the utility it is named
after. An exec-ledger row clears every class but the helper's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from nika.check.context import CheckContext
from nika.check.lint._command import Command, command_of
from nika.check.lint._finding import Lint, found
from nika.check.lint.ledger import read_ledger
from nika.syntax.model import ExecBody

NativeMatch = tuple[str, str, str]
"""(rule, what was found, the native path)."""

_INTERPRETER: Final = re.compile(
    r"^(node|nodejs|deno|bun|tsx|ts-node|python[0-9.]*|pythonw|pypy3?|ruby|perl|php|lua|"
    r"sh|bash|dash|zsh|ksh)$"
)
_SCRIPT_SUFFIXES: Final = (
    ".mjs", ".cjs", ".js", ".mts", ".cts", ".ts", ".py", ".sh", ".bash", ".zsh", ".rb",
    ".pl", ".php", ".lua",
)  # fmt: skip
_INLINE_FLAGS: Final = frozenset({"-c", "-e", "--eval", "-p", "--print", "-m"})
"""Interpreter flags after which the code is inline (or a module), not a script file."""
_MEDIA_ENDPOINTS: Final = (
    "/images/generations", "/images/edits", "/images/variations", "/audio/speech",
    "/text-to-speech/", "api.elevenlabs.io", "api.stability.ai",
)  # fmt: skip
_HTTP_PROGRAMS: Final = frozenset({"curl", "wget", "xh", "http", "https"})
_HTTP_CODE: Final = (
    "fetch(", "axios", "http.request", "https.request", "http.get(", "https.get(",
    "requests.get(", "requests.post(", "requests.put(", "requests.request(", "urlopen(",
    "urllib.request", "httpx.",
)  # fmt: skip
_FILE_PROGRAMS: Final = frozenset(
    {"cat", "tee", "cp", "mv", "mkdir", "touch", "head", "tail", "ls"}
)
_DATA_PROGRAMS: Final = frozenset({"jq", "sed", "awk"})
_UTILITIES: Final = {
    "sleep": "`nika:wait` (`duration:`)",
    "date": "`nika:date` (`op:`)",
    "uuidgen": "`nika:uuid`",
    "sha256sum": "`nika:hash` (`algo:`)",
    "shasum": "`nika:hash` (`algo:`)",
    "md5sum": "`nika:hash` (`algo:`)",
    "b3sum": "`nika:hash` (`algo:`)",
    "yq": "`nika:convert` (`from:`/`to:`)",
    "grep": "`nika:grep`",
    "rg": "`nika:grep`",
    "ag": "`nika:grep`",
    "find": "`nika:glob`",
}
HELPER: Final = "native-first/005"


def exec_helper(cmd: Command) -> NativeMatch | None:
    """native-first/005 exec-helper: an interpreter running a script file."""
    script = _script(cmd)
    if script is None:
        return None
    return (
        HELPER,
        f"`{cmd.head}` runs a helper script (`{script}`)",
        "inventory the helper · HTTP→`nika:fetch` · files→`nika:read`/`nika:write` · "
        "JSON→`nika:jq` · YAML/TOML/CSV in or out→`nika:convert` (then `nika:jq`) · a "
        "product API→an MCP server (`mcp:<server>/<tool>`); a helper script is not a "
        "genuine subprocess, so an exec-ledger row records the intent without clearing this",
    )


def exec_media(cmd: Command) -> NativeMatch | None:
    """native-first/004 exec-media: an image/speech provider endpoint in the command."""
    if cmd.pathed:
        return None
    hit = next((m for m in _MEDIA_ENDPOINTS for w in cmd.literal_args() if m in w), None)
    if hit is None:
        return None
    return (
        "native-first/004",
        f"`{cmd.head}` calls an image/speech provider endpoint (`{hit}`)",
        "`nika:image_generate` / `nika:tts_generate` (provider-portable, saves judged "
        "against permits.fs)",
    )


def exec_http(cmd: Command) -> NativeMatch | None:
    """native-first/001 exec-http: an HTTP client, or an interpreter one-liner around one."""
    client = not cmd.pathed and cmd.head in _HTTP_PROGRAMS
    inline = _interpreter(cmd) and any(m in w for w in cmd.literal_args() for m in _HTTP_CODE)
    if not (client or inline):
        return None
    return (
        "native-first/001",
        f"`{cmd.head}` in `exec:` is an HTTP request",
        "`invoke: nika:fetch` (uploads: `multipart:` · crawls: `traverse:`) — "
        "SSRF-defended and judged against permits.net",
    )


@dataclass(frozen=True, slots=True)
class _ProgramClass:
    """A class named by its programs alone: an unqualified head in `programs` is a match."""

    rule: str
    programs: frozenset[str]
    found: str
    native: str

    def __call__(self, cmd: Command) -> NativeMatch | None:
        if cmd.pathed or cmd.head not in self.programs:
            return None
        return (self.rule, f"`{cmd.head}` in `exec:` {self.found}", self.native)


exec_file: Final = _ProgramClass(
    "native-first/002",
    _FILE_PROGRAMS,
    "is file plumbing",
    "`nika:read` / `nika:write` (`create_dirs: true` replaces mkdir) / `nika:glob`, "
    "judged against permits.fs",
)
"""native-first/002 exec-file: file plumbing a builtin does inside the fs boundary."""

exec_data: Final = _ProgramClass(
    "native-first/003",
    _DATA_PROGRAMS,
    "reshapes data",
    "`nika:jq` (or an `extract:` binding) for JSON · `nika:edit` for in-place literal "
    "file edits",
)
"""native-first/003 exec-data: a data transform the jq builtin or a binding covers."""


def exec_utility(cmd: Command) -> NativeMatch | None:
    """native-first/006 exec-utility: a utility with an EXACT builtin."""
    builtin = None if cmd.pathed or cmd.head is None else _UTILITIES.get(cmd.head)
    if builtin is None:
        return None
    return (
        "native-first/006",
        f"`{cmd.head}` in `exec:` has an exact builtin",
        f"{builtin} — the one builtin and its argument shape",
    )


LADDER: Final[tuple[Callable[[Command], NativeMatch | None], ...]] = (
    exec_helper,
    exec_media,
    exec_http,
    exec_file,
    exec_data,
    exec_utility,
)
"""Most specific first: the first class that answers is the task's one warning."""


def classify(cmd: Command) -> NativeMatch | None:
    """The one native-first class of a command, or None (genuine, nested or templated)."""
    if cmd.head is None or cmd.head == "nika":
        return None
    return next((v for rule in LADDER if (v := rule(cmd)) is not None), None)


def native_first(ctx: CheckContext) -> Iterator[Lint]:
    """At most one native-first warning per `exec:` task, minus what the ledger clears."""
    ledger = read_ledger(ctx.document.source)
    for task in ctx.workflow.tasks.values():
        if not isinstance(task.body, ExecBody):
            continue
        verdict = classify(command_of(task.body))
        if verdict is None:
            continue
        rule, message, fix = verdict
        if task.id in ledger:
            if rule != HELPER:
                continue
            message += "; its exec-ledger row records the intent without clearing the rule"
        yield found(ctx, rule, task, message, fix)


def _interpreter(cmd: Command) -> bool:
    return cmd.head is not None and _INTERPRETER.match(cmd.head) is not None


def _script(cmd: Command) -> str | None:
    """The script file an interpreter head runs, if a literal word names one before any
    inline-code or module flag."""
    if not _interpreter(cmd):
        return None
    for word in cmd.args:
        if word in _INLINE_FLAGS:
            return None
        if "${{" not in word and not word.startswith("-") and word.endswith(_SCRIPT_SUFFIXES):
            return word
    return None
