"""Static values of the numbers a certificate multiplies: fan-out sizes and declared caps.

A number is known when the file spells it — a literal, a `const:` literal, a `with:`
binding that is one, or the fan-out size of the upstream task whose `.output` array a
`for_each` iterates. Anything the run decides (`inputs.*`, an upstream value, a computed
expression) becomes a named symbol, never a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from nika.check._bounds import Bound
from nika.check._islands import whole
from nika.syntax.model import Task, TaskId, Workflow

if TYPE_CHECKING:
    from nika.syntax.expr import Expr

_MAX_HOPS: Final = 32
"""How many `with:`/`tasks.X.output` hops a size is chased through before it is a symbol
(a chain that long is a symbol to any reader, and the cap keeps a crafted file linear)."""


class Quantities:
    """Resolves the sizes and caps of one workflow, memoizing fan-out sizes per task."""

    def __init__(self, workflow: Workflow) -> None:
        self._workflow = workflow
        self._fan_out: dict[TaskId, Bound] = {}
        self.symbols: dict[str, str] = {}
        """Every symbol handed out, with what it stands for."""

    def iterations(self, task: Task) -> Bound:
        """How many times `task` runs: 1, the literal collection's length, or a symbol."""
        return self._iterations(task, 0)

    def cap(self, task: Task, value: Any) -> Bound | None:
        """A declared positive-integer cap (`max_turns`, `max_tokens`, …) as a bound; None
        when it is not a positive integer at all (nothing to bound with)."""
        return self._scalar(task, value, 0)

    def _iterations(self, task: Task, hops: int) -> Bound:
        if task.for_each is None:
            return Bound.of(1)
        known = self._fan_out.get(task.id)
        if known is None:
            known = self._fan_out[task.id] = self._size(task, task.for_each.items, hops)
        return known

    def _size(self, task: Task, value: Any, hops: int) -> Bound:
        if isinstance(value, list):
            return Bound.of(len(value))
        expr = _whole(value)
        if expr is None:
            return self._symbol(f"|{value}|", f"the length of {value!r}, known at run time")
        # A tree exists, so the expression language is loaded: this only binds names.
        from nika.syntax.expr import ListExpr, is_reference, references, unparse

        if isinstance(expr, ListExpr):
            return Bound.of(len(expr.items))
        if hops < _MAX_HOPS and is_reference(expr) and len(references(expr)) == 1:
            ref = references(expr)[0]
            if ref.dotted == unparse(expr):
                found = self._size_of_reference(task, ref.root, ref.path, hops + 1)
                if found is not None:
                    return found
        text = unparse(expr)
        return self._symbol(f"|{text}|", f"the length of {text}, known at run time")

    def _size_of_reference(
        self, task: Task, root: str, path: tuple[str | int, ...], hops: int
    ) -> Bound | None:
        if root == "with" and len(path) == 1 and path[0] in task.with_:
            return self._size(task, task.with_[str(path[0])], hops)
        if root == "const" and len(path) == 1:
            decl = self._workflow.const.get(str(path[0]))
            if decl is not None and isinstance(decl.value, list):
                return Bound.of(len(decl.value))
        if root == "tasks" and len(path) == 2 and path[1] == "output":
            upstream = self._workflow.task(str(path[0]))
            # A fan-out's `.output` is its positional array: one element per iteration.
            if upstream is not None and upstream.for_each is not None:
                return self._iterations(upstream, hops)
        return None

    def _scalar(self, task: Task, value: Any, hops: int) -> Bound | None:
        if isinstance(value, int) and not isinstance(value, bool):
            return Bound.of(value) if value >= 1 else None
        expr = _whole(value)
        if expr is None:
            return None
        from nika.syntax.expr import Literal, is_reference, references, unparse

        if isinstance(expr, Literal):
            return self._scalar(task, expr.value, hops)
        if hops < _MAX_HOPS and is_reference(expr) and len(references(expr)) == 1:
            ref = references(expr)[0]
            name = str(ref.path[0]) if len(ref.path) == 1 else None
            if ref.dotted == unparse(expr) and name is not None:
                if ref.root == "with" and name in task.with_:
                    return self._scalar(task, task.with_[name], hops + 1)
                decl = self._workflow.const.get(name) if ref.root == "const" else None
                if decl is not None:
                    return self._scalar(task, decl.value, hops + 1)
        text = unparse(expr)
        return self._symbol(text, f"the value of {text}, known at run time")

    def _symbol(self, name: str, meaning: str) -> Bound:
        self.symbols[name] = meaning
        return Bound.symbol(name)


def _whole(value: Any) -> Expr | None:
    """The one expression of a string that is exactly one well-formed `${{ }}` island."""
    return whole(value) if isinstance(value, str) else None
