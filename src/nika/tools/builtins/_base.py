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
    """Everything a builtin may touch besides its args. Built once per executor."""

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
    max_body_bytes: int = 32 * 1024 * 1024
    max_file_bytes: int = 32 * 1024 * 1024
    """The file builtins' cap: a file read (read, edit, grep, a multipart part), a content
    written or hashed, is at most this many bytes."""


BuiltinRun = Callable[[Mapping[str, Any], Context], Awaitable[Json]]


@dataclass(frozen=True, slots=True)
class Builtin:
    """One builtin: name, description, JSON Schema of its args, and its runner.

    `arg_code` is the code a schema violation carries (default `NIKA-INVOKE-002`); `arg_codes`
    overrides it per top-level arg where the stdlib names the builtin's own code (e.g. a
    non-integer `count:` of `nika:edit` is `NIKA-BUILTIN-EDIT-001`).
    """

    name: str
    description: str
    schema: Mapping[str, Any]
    run: BuiltinRun
    arg_code: str = "NIKA-INVOKE-002"
    arg_codes: Mapping[str, str] = field(default_factory=dict)


def fail(code: str, detail: str, **details: Any) -> NikaError:
    """A `NikaError` for `code` with its registry category (shorthand for builtin modules)."""
    return NikaError(code, detail, details=details or None)


def obj(
    properties: Mapping[str, Any], required: tuple[str, ...] = (), **extra: Any
) -> dict[str, Any]:
    """A closed object schema (unknown args are refused, like the static contract does)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    schema.update(extra)
    return schema
