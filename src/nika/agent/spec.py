"""`AgentSpec`: one `agent:` task as the loop sees it, already resolved by its caller.

The runtime builds it from a checked workflow (templates rendered, the model defaulted, skills
read into `extra_system`); a library embedder builds it by hand. The loop never reads YAML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nika import codes
from nika.errors import NikaError
from nika.syntax import fields

_INVALID = codes.PARSE_019


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSpec:
    """The resolved body of an `agent:` task (spec 02-verbs §agent).

    `tools` is the whitelist in source order (gitignore-style globs; empty = no tools).
    `max_turns` None means `AgentConfig.default_max_turns`; `max_tokens_total` None means
    `AgentConfig.default_max_tokens_total`. `extra_system` is text the caller resolved for the
    system context (the `## Skills` section); it is appended after `system`.
    `schema` validates the final output (the `nika:done` result, else the final text as JSON).
    """

    prompt: str
    model: str
    task_id: str = "agent"
    system: str | None = None
    tools: Sequence[str] = ()
    max_turns: int | None = None
    max_tokens_total: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    schema: Mapping[str, Any] | None = None
    extra_system: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.tools, str):
            raise NikaError(
                _INVALID,
                f"agent task {self.task_id!r}: tools is the bare string {self.tools!r}; "
                f"write it as a list: [{self.tools!r}]",
                details={"task": self.task_id, "field": "tools"},
            )
        object.__setattr__(self, "tools", tuple(self.tools))
        for name in ("max_turns", "max_tokens_total", "max_tokens", "temperature", "schema"):
            fields.refuse("agent", name, getattr(self, name), self.task_id)

    @property
    def system_text(self) -> str | None:
        """The system context sent to the model: `system`, then `extra_system`."""
        parts = [p for p in (self.system, self.extra_system) if p]
        return "\n\n".join(parts) if parts else None
