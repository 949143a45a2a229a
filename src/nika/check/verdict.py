"""The verdict of `nika check`: validity, findings, the plan and rung sections."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.errors import NikaError

if TYPE_CHECKING:
    from nika.check.lint._finding import Lint

ADVISORY_CODES: Final = frozenset({codes.DRIFT_001})
"""Codes that are hints by nature, whichever rung reports them."""


def _key(e: NikaError) -> tuple[int, int, str, str]:
    loc = e.location
    return (loc.line if loc else 0, loc.column if loc else 0, e.code, e.detail)


def sort_findings(errors: Iterable[NikaError]) -> tuple[NikaError, ...]:
    """Deterministic order (line, column, code, detail), exact duplicates dropped."""
    seen: set[tuple[int, int, str, str]] = set()
    out: list[NikaError] = []
    for e in sorted(errors, key=_key):
        k = _key(e)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return tuple(out)


def _wire(e: NikaError) -> dict[str, Any]:
    """The error's one wire shape, every entry naming its position (null when it has none)."""
    return {"line": None, "column": None, **e.to_dict()}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What `check()` returns: never raised, always one of these.

    `valid` is true iff `errors` is empty; `hints` never affect it. `sections` holds
    what rungs contributed; `"plan"` carries the topological waves. `lints` holds the
    preference warnings when the check was asked to lint (None otherwise); like hints,
    they never affect validity.
    """

    errors: tuple[NikaError, ...] = ()
    hints: tuple[NikaError, ...] = ()
    sections: Mapping[str, Any] = field(default_factory=dict)
    lints: tuple[Lint, ...] | None = None

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def waves(self) -> tuple[tuple[str, ...], ...]:
        """Topological waves of task ids, when the DAG rung computed them."""
        plan = self.sections.get("plan")
        raw = plan.get("waves", []) if isinstance(plan, Mapping) else []
        return tuple(tuple(str(t) for t in wave) for wave in raw)

    def to_dict(self) -> dict[str, Any]:
        """The wire shape of `nika check --json`."""
        out: dict[str, Any] = {name: value for name, value in self.sections.items()}
        out["valid"] = self.valid
        out["errors"] = [_wire(e) for e in self.errors]
        out["hints"] = [_wire(e) for e in self.hints]
        out["plan"] = {**(self.sections.get("plan") or {}), "waves": [list(w) for w in self.waves]}
        if self.lints is not None:
            out["lints"] = [f.to_dict() for f in self.lints]
        return out

    def to_json(self, extra: Mapping[str, Any] | None = None) -> str:
        """Canonical JSON (sorted keys, no insignificant whitespace), with `extra` keys
        (a surface's own, e.g. `native_strict`) merged in."""
        from nika.canonical import loose_json  # JSON loads only for the wire shape

        return loose_json({**self.to_dict(), **(extra or {})})


def refused(errors: Iterable[NikaError], *, lints: tuple[Lint, ...] | None = None) -> Verdict:
    """A verdict for a document that never reached the rungs (nor the linter: `lints`
    is `()` when a lint was asked for, so the answer stays explicit)."""
    return Verdict(errors=sort_findings(errors), lints=lints)
