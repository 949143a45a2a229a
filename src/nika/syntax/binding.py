"""Bindings: `with:` values (CEL islands) and `extract:` programs (jq) — 04-variables.

A `with:` value is classified as

- `expression` — a string that is exactly one island: it resolves to the island's value,
  type kept (`${{ tasks.a.output }}` stays an object);
- `template` — a string with islands among text: it resolves to a string;
- `literal` — anything else; a mapping or list may still hold islands in nested strings,
  which are resolved in place (the `sites` say where).

`interpolate` is the one resolver the runtime uses for `with:` values and verb fields
alike. `extract:` bindings are pure jq over the task's raw output: `compile_jq` is the
static check (`NIKA-VAR-005`), `apply_jq` the single-value evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from nika.errors import NikaError
from nika.syntax._jq import ambient_reads, apply_jq, compile_jq
from nika.syntax.template import Island, PathKey, is_whole_island, render, segments, walk_strings

if TYPE_CHECKING:
    from nika.syntax.expr import Expr, Reference

__all__ = [
    "Binding",
    "BindingKind",
    "Site",
    "ambient_reads",
    "apply_jq",
    "compile_jq",
    "interpolate",
    "parse_binding",
    "parse_sites",
]

BindingKind = Literal["expression", "template", "literal"]


@dataclass(frozen=True, slots=True)
class Site:
    """One island inside a value: where (`path` within the value), the island and its tree."""

    path: tuple[PathKey, ...]
    island: Island
    expr: Expr


@dataclass(frozen=True, slots=True)
class Binding:
    """A classified `with:` value; `value` is the raw YAML value."""

    kind: BindingKind
    value: Any
    sites: tuple[Site, ...]

    @property
    def expr(self) -> Expr | None:
        """The tree of an `expression` binding (None for the other kinds)."""
        return self.sites[0].expr if self.kind == "expression" else None

    @property
    def references(self) -> tuple[Reference, ...]:
        """Every namespace read across all islands, in document order."""
        from nika.syntax.expr import references

        return tuple(ref for site in self.sites for ref in references(site.expr))


def _at(err: NikaError, path: tuple[PathKey, ...]) -> NikaError:
    """Re-issue `err` carrying the key path of the string it came from."""
    return NikaError(err.code, err.detail, category=err.category, transient=err.transient,
                     details={**err.details, "path": list(path)}, location=err.location)


def parse_sites(value: Any, path: tuple[PathKey, ...] = ()) -> tuple[Site, ...]:
    """Every island in the strings nested in `value`, parsed; the first violation raises
    (`NIKA-VAR-008` unclosed, `NIKA-VAR-005` outside the grammar) with its `path`."""
    out: list[Site] = []
    for where, text in walk_strings(value, path):
        try:
            for part in segments(text):
                if isinstance(part, Island):
                    # The expression language loads with the first island it must read.
                    from nika.syntax.expr import parse

                    out.append(Site(where, part, parse(part.source)))
        except NikaError as err:
            raise _at(err, where) from None
    return tuple(out)


def parse_binding(value: Any) -> Binding:
    """Classify and parse one `with:` binding value."""
    sites = parse_sites(value)
    if isinstance(value, str) and sites:
        kind: BindingKind = "expression" if is_whole_island(value) else "template"
        return Binding(kind, value, sites)
    return Binding("literal", value, sites)


def _evaluate(island: Island, env: Mapping[str, Any]) -> Any:
    from nika.syntax.expr import evaluate, parse

    return evaluate(parse(island.source), env)


def interpolate(value: Any, env: Mapping[str, Any]) -> Any:
    """Resolve every island in `value` against `env` (single pass, nothing re-scanned).

    A whole-island string keeps its value's type; embedded islands render as text
    (containers as canonical JSON); mappings and lists are rebuilt with resolved members.
    """
    if isinstance(value, str):
        return render(value, lambda island: _evaluate(island, env))
    if isinstance(value, Mapping):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [interpolate(item, env) for item in value]
    return value
