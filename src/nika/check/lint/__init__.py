"""The linter: spec 03's « one obvious way » and « native first » preference rules.

Lints are warnings, never errors: the discouraged forms are legal, just not canonical
(spec 03). Each rule is one small function over the checked model (`CheckContext`) that
yields `Lint` findings; `lint(ctx)` runs them all and orders the result by task
(declaration order), then family, then rule id — the same bytes for the same file.

Rule ids are stable and written exactly as the spec writes them: `one-obvious-way/002`
… `/010` (03, with /008 from 02 §exec), `/009` and `/013` (04), `/011` (09), `/decide`
(11, which numbers none), and `native-first/001` … `/006` (03). `one-obvious-way/001` and
`/012` are retired and never reused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Final

from nika.check.context import CheckContext
from nika.check.lint import decisions, fanout, gates, values
from nika.check.lint._finding import FAMILIES, Lint
from nika.syntax.model import ExecBody

__all__ = ["PRECEDENCE", "RULES", "Lint", "headline", "lint"]

LintRule = Callable[[CheckContext], Iterable[Lint]]


def _native_first(ctx: CheckContext) -> Iterable[Lint]:
    """native-first/001–/006, at most one per task: they read `exec:` commands only, so their
    ladder (with the command reader and the exec ledger) loads with the first `exec:` task."""
    if not any(isinstance(t.body, ExecBody) for t in ctx.workflow.tasks.values()):
        return ()
    from nika.check.lint.native_first import native_first as ladder

    return ladder(ctx)


RULES: Final[tuple[LintRule, ...]] = (
    gates.non_tightening_after,  # /010
    gates.unacknowledged_skip,  # /002
    gates.failure_duplicate,  # /003
    gates.fallback_value_task,  # /004
    gates.terminal_cleanup,  # /005
    fanout.per_element_timer,  # /006
    fanout.manual_sharding,  # /007
    values.interpolated_shell,  # /008
    values.stream_binding,  # /009
    values.jq_reshapes_one_producer,  # /013
    values.schema_fits_returns,  # /011
    decisions.infer_decides,  # /decide (11)
    _native_first,  # native-first/001–/006, at most one per task
)
"""Every rule, in the spec's order (03's table, then 02, 04, 09, 11; then native first)."""

PRECEDENCE: Final[tuple[str, ...]] = (
    "one-obvious-way/010",
    "one-obvious-way/002",
    "one-obvious-way/003",
    "one-obvious-way/004",
    "one-obvious-way/005",
    "one-obvious-way/006",
    "one-obvious-way/007",
    "one-obvious-way/008",
    "one-obvious-way/009",
    "one-obvious-way/013",
    "one-obvious-way/011",
    "one-obvious-way/decide",
    "native-first/005",
    "native-first/004",
    "native-first/001",
    "native-first/002",
    "native-first/003",
    "native-first/006",
)
"""Most specific first within each family, as the spec orders them (03's one-obvious-way
table, then 02 · 04 · 09; native first: helper ≻ media ≻ http ≻ file ≻ data ≻ utility).
The human rendering shows the first of each task's family and counts the rest."""


def lint(ctx: CheckContext) -> tuple[Lint, ...]:
    """Every lint of the workflow: by task (declaration order), family, then rule id."""
    order = {tid: i for i, tid in enumerate(ctx.workflow.tasks)}
    found = {f for rule in RULES for f in rule(ctx)}
    return tuple(
        sorted(
            found,
            key=lambda f: (
                order.get(f.task, len(order)),
                FAMILIES.index(f.family),
                f.rule,
                f.message,
            ),
        )
    )


def headline(lints: Iterable[Lint]) -> Iterator[tuple[Lint, tuple[Lint, ...]]]:
    """Per task and family, the most specific lint and the others it stands for, in
    report order: at most one warning line per task per family."""
    rank = {rule: i for i, rule in enumerate(PRECEDENCE)}
    groups: dict[tuple[str, str], list[Lint]] = {}
    for f in lints:
        groups.setdefault((f.task, f.family), []).append(f)
    for group in groups.values():
        group.sort(key=lambda f: (rank.get(f.rule, len(rank)), f.rule))
        yield group[0], tuple(group[1:])
