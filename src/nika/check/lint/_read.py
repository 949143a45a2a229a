"""Small readers the rules share: a task's authored node, and the reads in its strings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nika.check._islands import exprs, reads
from nika.check.context import CheckContext
from nika.syntax.model import KeyPath, Task
from nika.syntax.template import walk_strings

if TYPE_CHECKING:
    from nika.syntax.expr import Reference


def authored(ctx: CheckContext, path: KeyPath) -> Any:
    """The plain data the author wrote at `path` (None when it is absent)."""
    return ctx.document.node(path)


def verb_node(ctx: CheckContext, task: Task) -> Any:
    """The task's verb body exactly as written (`exec: {…}`, `invoke: {…}`, …)."""
    return authored(ctx, (*task.path, task.verb))


def reads_in(value: Any) -> Iterator[Reference]:
    """Every static reference in the `${{ }}` islands of the strings nested in `value`."""
    for _, text in walk_strings(value):
        if "${{" in text:
            yield from reads(text)


def binding_names(value: Any) -> frozenset[str]:
    """The `with.<name>` bindings read anywhere in `value`."""
    return frozenset(str(r.path[0]) for r in reads_in(value) if r.root == "with" and r.path)


def null_tests(value: Any) -> frozenset[str]:
    """The `with.<name>` bindings compared against `null` anywhere in `value`."""
    out: set[str] = set()
    for _, text in walk_strings(value):
        if "${{" not in text:
            continue
        for expr in exprs(text):
            from nika.syntax.expr import comparisons

            for cmp in comparisons(expr):
                ref = cmp.reference
                if cmp.literal is None and ref.root == "with" and ref.path:
                    out.add(str(ref.path[0]))
    return frozenset(out)
