"""The typed error model (spec 05-errors): every refusal nika makes is a `NikaError`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from nika.codes import CODES

CODE_RE: Final = re.compile(r"^NIKA-[A-Z]{2,9}(-[A-Z][A-Z0-9_]{1,15})?-[0-9]{3,4}$")
# Four digits: spec 13 names NIKA-RUN-1704 (cancelled · budget) with a four-digit serial.

CATEGORIES: Final = frozenset(
    {
        "parse_error",
        "validation_error",
        "variable_error",
        "provider_error",
        "network_error",
        "tool_error",
        "process_error",
        "budget_error",
        "security_error",
        "timeout_error",
        "cancelled",
        "internal_error",
    }
)


def namespace_of(code: str) -> str:
    """`NIKA-BUILTIN-WAIT-001` -> `NIKA-BUILTIN`: the family the conformance suite matches on."""
    parts = code.split("-")
    return "-".join(parts[:2])


@dataclass(frozen=True, slots=True)
class Location:
    """A 1-based source position."""

    line: int
    column: int


class NikaError(Exception):
    """A typed, coded refusal.

    `code` is one of `nika.codes` (an unregistered one is refused: a `ValueError`, a bug);
    `category` and `transient` default to its registry row;
    pass them explicitly only where the spec lets the engine assess (e.g. provider errors).
    `detail` is prescriptive: it says what is wrong, quotes the offending value and names the fix.
    Not a frozen dataclass: Python itself writes to exceptions (tracebacks, `add_note`).
    """

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        category: str | None = None,
        transient: bool | None = None,
        details: Mapping[str, Any] | None = None,
        location: Location | None = None,
    ) -> None:
        row = CODES.get(code)
        if row is None:
            # A bug, never input: an unregistered code would reach the wire with no category.
            raise ValueError(f"error code {code!r} has no row in nika.codes; add its row there "
                             "and spell the code by the row's name")
        category = category or row.category
        if category not in CATEGORIES:
            raise ValueError(f"unknown error category {category!r}")
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.category = category
        self.transient = row.transient if transient is None else transient
        self.details: Mapping[str, Any] = dict(details or {})
        self.location = location

    @property
    def namespace(self) -> str:
        return namespace_of(self.code)

    def to_dict(self) -> dict[str, Any]:
        """The wire shape shared by verdicts, reports and tool results."""
        out: dict[str, Any] = {
            "code": self.code,
            "namespace": self.namespace,
            "category": self.category,
            "transient": self.transient,
            "detail": self.detail,
        }
        if self.details:
            out["details"] = dict(self.details)
        if self.location is not None:
            out["line"] = self.location.line
            out["column"] = self.location.column
        return out


def task_error(code: str, task: str, text: str, /, **details: Any) -> NikaError:
    """A run's refusal of one task: the detail addressed to it (`task 'x': …`) and the task's
    id first in `details` — how every such error reads, written once."""
    return NikaError(code, f"task {task!r}: {text}", details={"task": task, **details})
