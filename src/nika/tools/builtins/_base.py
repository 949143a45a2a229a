"""What every builtin module shares: its declaration (`Builtin`), the context it runs in
(`Context`), and the seams the embedder plugs in (`EffectJudge`, `PromptIO`, `EntrySink`,
`InspectSource`).

A builtin is an async `run(args, ctx)` returning a JSON-shaped value (or `bytes`); a failure is
a raised `NikaError`, which the executor turns into an error `ToolResult` at one boundary.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from nika.errors import NikaError
from nika.stdlib import Declaration

if TYPE_CHECKING:
    from nika.check.effects import Effect

Json = Any
"""A JSON-shaped value (dicts, lists, str, int, float, bool, None) — or `bytes` for binary."""


class EffectJudge(Protocol):
    """Judges one effect against the declared `permits:` (the check's `PermitJudge` fits)."""

    def judge(self, effect: Effect) -> NikaError | None:
        """None to allow; the refusal (`NIKA-SEC-004` …) otherwise."""
        ...


class PromptIO(Protocol):
    """A human at a terminal: `nika:prompt` asks through it. Absent means non-interactive."""

    async def ask(self, question: str) -> str:
        """Show `question` and return the line the human typed (without the newline)."""
        ...


class EntrySink(Protocol):
    """Receives `nika:log` / `nika:emit` entries for the run's event stream."""

    def __call__(self, kind: Literal["log", "emit"], fields: Mapping[str, Any]) -> None: ...


class InspectSource(Protocol):
    """The running workflow's own state for `nika:inspect` (cost · records · dag_info · threads)."""

    def view(self, name: str) -> Mapping[str, Any]: ...


def utc_now() -> datetime:
    """The real clock, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Context:
    """Everything a builtin may touch besides its args. Built once per executor.

    `base_dir` is the workflow's directory, the root every fs path resolves against. `judge`
    rules on each fs/net effect (None: nothing is judged — an embedding without `permits:`);
    `loopback_grants` are the exact loopback literals of `permits.net.http` (the SSRF-floor
    carve-out); `data_as_code_lifted` is the task's `lift: [{law: data-as-code}]`.
    `prompt_io` is the human (None: non-interactive); `events` receives log/emit entries;
    `inspect` serves `nika:inspect`. `now`, `random_bytes` and `sleep` are the injectable
    clock, entropy and timer of uuid/date/wait. `engine_env` is the ENGINE's environment
    (provider keys and endpoints: `OPENAI_API_KEY`, `NIKA_TTS_LOCAL_URL`, …), handed in by the
    composition root — builtins never read `os.environ`, and it is never workflow data.
    """

    base_dir: Path
    judge: EffectJudge | None = None
    task: str | None = None
    prompt_io: PromptIO | None = None
    events: EntrySink | None = None
    inspect: InspectSource | None = None
    loopback_grants: frozenset[str] = frozenset()
    data_as_code_lifted: bool = False
    now: Callable[[], datetime] = utc_now
    random_bytes: Callable[[int], bytes] = os.urandom
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    fetch_timeout_s: float = 30.0
    max_redirects: int = 10
    engine_env: Mapping[str, str] = field(default_factory=dict)
    max_body_bytes: int = 32 * 1024 * 1024
    max_file_bytes: int = 32 * 1024 * 1024
    """The file builtins' cap: a file read (read, edit, grep, a multipart part), a content
    written or hashed, is at most this many bytes."""


BuiltinRun = Callable[[Mapping[str, Any], Context], Awaitable[Json]]


@dataclass(frozen=True, slots=True)
class Builtin:
    """One builtin: its declaration (`nika.stdlib`: name, argument schema, rules and codes —
    what the executor judges a call's args by, as the check does), the description a model
    reads, and its runner (which meets only args the declaration accepted)."""

    declaration: Declaration
    description: str
    run: BuiltinRun

    @property
    def name(self) -> str:
        return self.declaration.name

    @property
    def schema(self) -> Mapping[str, Any]:
        """The JSON Schema of the args, as a model reads it."""
        return self.declaration.schema


def fail(code: str, detail: str, **details: Any) -> NikaError:
    """A `NikaError` for `code` with its registry category (shorthand for builtin modules)."""
    return NikaError(code, detail, details=details or None)
