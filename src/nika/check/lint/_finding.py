"""One lint finding, and how a rule builds it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from nika.errors import Location
from nika.syntax.model import Task, TaskId

if TYPE_CHECKING:
    from nika.check.context import CheckContext

FAMILIES: Final = ("one-obvious-way", "native-first")
"""The two spec rule families, in the order a task's lints are reported."""


@dataclass(frozen=True, slots=True)
class Lint:
    """A preference warning on one task: legal, not canonical (spec 03 §One obvious way).

    `rule` is the stable id exactly as the spec writes it (`one-obvious-way/002`,
    `native-first/005`), `message` says what was found in the spec's words, `fix` names
    the one way (the builtin, field or shape to use instead).
    """

    rule: str
    task: TaskId
    message: str
    fix: str
    location: Location | None = None

    @property
    def family(self) -> str:
        """`one-obvious-way` or `native-first`."""
        return self.rule.split("/", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        """The wire shape of one entry of `nika check --json --lint`'s `lints`."""
        return {
            "rule": self.rule,
            "task": self.task,
            "family": self.family,
            "message": self.message,
            "fix": self.fix,
            "line": self.location.line if self.location else None,
            "column": self.location.column if self.location else None,
        }


def found(ctx: CheckContext, rule: str, task: Task, message: str, fix: str) -> Lint:
    """A lint on `task`, located at its key."""
    return Lint(rule, task.id, message, fix, ctx.locate(task.path))
