"""The `cel-subset/0.1` expression language inside `${{ … }}` (03-dag §Expression language).

Decision: our own small recursive-descent parser and evaluator, not a CEL library.
The subset is tiny and must be *refused* precisely where full CEL accepts more
(chained relations, callables outside the closed set, arithmetic, map literals),
with offsets and prescriptive fixes; the checker also needs the tree itself
(references, status comparisons, the boolean-shape rule). `cel-python` would parse
a superset and hide the tree, so every static law would be re-implemented beside it.

Public surface:

- `parse(source)` → a frozen tree; every violation is `NIKA-VAR-005`.
- `references(expr)` → the namespace reads, for resolution and edge building.
- `is_statically_boolean` / `require_boolean_shape` → the `when:` boolean-only rule.
- `comparisons` / `status_comparisons` → literal comparisons (NIKA-DAG-007 vocabulary).
- `evaluate(expr, env)` → a value; missing data is `NIKA-VAR-001`, type errors `NIKA-VAR-006`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from nika.syntax._cel_ast import (
    FUNCTIONS,
    METHOD_ARITY,
    RELATIONS,
    Binary,
    Call,
    Expr,
    Ident,
    Index,
    ListExpr,
    Literal,
    Member,
    Not,
    Ternary,
    children,
    unparse,
)
from nika.syntax._cel_eval import Evaluator, kind
from nika.syntax._cel_lex import violation
from nika.syntax._cel_parse import is_reference, parse_source

__all__ = [
    "FUNCTIONS",
    "GRAMMAR_VERSION",
    "LOOP_LOCALS",
    "METHOD_ARITY",
    "NAMESPACES",
    "RELATIONS",
    "TASK_STATUSES",
    "Binary",
    "Call",
    "Comparison",
    "Expr",
    "Ident",
    "Index",
    "ListExpr",
    "Literal",
    "Member",
    "Not",
    "Reference",
    "StatusComparison",
    "Ternary",
    "children",
    "comparisons",
    "evaluate",
    "evaluate_source",
    "is_reference",
    "is_statically_boolean",
    "kind",
    "parse",
    "references",
    "require_boolean_shape",
    "start_offset",
    "status_comparisons",
    "unparse",
    "walk",
]

GRAMMAR_VERSION: Final = "cel-subset/0.1"
NAMESPACES: Final = ("inputs", "const", "secrets", "with", "tasks")
LOOP_LOCALS: Final = ("item", "index")
TASK_STATUSES: Final = ("success", "failure", "skipped", "cancelled")


@lru_cache(maxsize=4096)
def parse(source: str) -> Expr:
    """Parse one expression (the text between `${{` and `}}`); refusals are `NIKA-VAR-005`."""
    return parse_source(source)


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of the tree, pre-order, in source order."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


@dataclass(frozen=True, slots=True)
class Reference:
    """A static read: `root` (`inputs`, `with`, `tasks`, `item`, …) then literal path steps.

    The path stops at the first computed index (`with.xs[with.i]` reads `with.xs`, and
    `with.i` separately). `presence` marks a read under `has()`, which never fails.
    """

    root: str
    path: tuple[str | int, ...]
    position: int = field(default=0, compare=False)
    presence: bool = field(default=False, compare=False)

    @property
    def dotted(self) -> str:
        """`tasks.a.output[0]` — the reference as an author would write it."""
        out = self.root
        for step in self.path:
            out += f"[{step}]" if isinstance(step, int) else f".{step}"
        return out


def _as_reference(node: Expr) -> tuple[Reference, tuple[Expr, ...]] | None:
    """The maximal static reference rooted in `node`, and the computed sub-expressions beyond it."""
    steps: list[str | int] = []
    computed: list[Expr] = []
    cur = node
    while isinstance(cur, Member | Index):
        if isinstance(cur, Member):
            steps.append(cur.name)
        elif isinstance(cur.index, Literal) and kind(cur.index.value) in ("int", "string"):
            steps.append(cur.index.value)  # type: ignore[arg-type]
        else:
            # A computed step: everything collected so far lies beyond the static prefix.
            steps.clear()
            computed.append(cur.index)
        cur = cur.target
    if not isinstance(cur, Ident):
        return None
    return Reference(cur.name, tuple(reversed(steps)), cur.pos), tuple(reversed(computed))


def references(expr: Expr) -> tuple[Reference, ...]:
    """Every namespace read in `expr`, in source order (duplicates kept, each at its offset)."""
    out: list[Reference] = []
    _collect(expr, out, presence=False)
    return tuple(out)


def _collect(node: Expr, out: list[Reference], *, presence: bool) -> None:
    found = _as_reference(node) if isinstance(node, Ident | Member | Index) else None
    if found is not None:
        ref, computed = found
        out.append(Reference(ref.root, ref.path, ref.position, presence))
        for sub in computed:
            _collect(sub, out, presence=False)
        return
    if isinstance(node, Call) and node.function == "has":
        _collect(node.args[0], out, presence=True)
        return
    for child in children(node):
        _collect(child, out, presence=False)


def is_statically_boolean(expr: Expr) -> bool | None:
    """Does the expression's shape make it a bool? None when only evaluation can tell."""
    if isinstance(expr, Literal):
        return isinstance(expr.value, bool)
    if isinstance(expr, Not | Binary):
        return True
    if isinstance(expr, Call):
        return expr.function != "size"
    if isinstance(expr, ListExpr):
        return False
    if isinstance(expr, Ternary):
        then, other = is_statically_boolean(expr.then), is_statically_boolean(expr.other)
        if then is False or other is False:
            return False
        return True if then and other else None
    return None


def start_offset(expr: Expr) -> int:
    """Offset of the leftmost token of `expr` (node `pos` marks its operator or name)."""
    node = expr
    while (kids := children(node)) and not isinstance(node, ListExpr | Not) and not (
        isinstance(node, Call) and node.target is None
    ):
        node = kids[0]
    return node.pos


def require_boolean_shape(expr: Expr, source: str | None = None) -> None:
    """The `when:` parse-time rule: refuse a non-boolean literal or a bare reference root.

    `source` (the island text) is quoted in the refusal when given.
    """
    shape = is_statically_boolean(expr)
    bare = isinstance(expr, Ident | Member | Index)
    if shape is False or bare:
        text = unparse(expr)
        what = "a bare reference" if bare else "a value that is not a bool"
        offset = start_offset(expr) if source is not None else 0
        raise violation(source if source is not None else text, offset,
                        f"`when:` needs a bool, and this is {what}",
                        f"compare it explicitly, e.g. `{text} != null`, `{text} > 0` "
                        f"or `size({text}) > 0`")


@dataclass(frozen=True, slots=True)
class Comparison:
    """`reference op literal` (either side order), or one element of `reference in [literals]`."""

    reference: Reference
    op: str
    literal: Any
    position: int = field(default=0, compare=False)


def comparisons(expr: Expr) -> tuple[Comparison, ...]:
    """Every relation between a static reference and a literal (list members under `in`)."""
    out: list[Comparison] = []
    for node in walk(expr):
        if not isinstance(node, Binary) or node.op not in RELATIONS:
            continue
        pairs = [(node.left, node.right), (node.right, node.left)]
        for ref_side, lit_side in pairs if node.op != "in" else pairs[:1]:
            found = _as_reference(ref_side) if is_reference(ref_side) else None
            if found is None or found[1]:
                continue
            if isinstance(lit_side, Literal):
                out.append(Comparison(found[0], node.op, lit_side.value, node.pos))
            elif node.op == "in" and isinstance(lit_side, ListExpr):
                out.extend(Comparison(found[0], "in", item.value, item.pos)
                           for item in lit_side.items if isinstance(item, Literal))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class StatusComparison:
    """A task's `.status` compared against `literal` (which may lie outside `TASK_STATUSES`)."""

    task: str
    literal: Any
    op: str
    position: int = field(default=0, compare=False)


def status_comparisons(
    expr: Expr, aliases: Mapping[str, str] | None = None
) -> tuple[StatusComparison, ...]:
    """Status literals compared in `expr`: `tasks.X.status == '…'` directly, or through a
    `with:` binding — `aliases` maps a binding name to the task whose `.status` it binds."""
    aliases = aliases or {}
    out: list[StatusComparison] = []
    for cmp in comparisons(expr):
        ref = cmp.reference
        if ref.root == "tasks" and len(ref.path) == 2 and ref.path[1] == "status":
            out.append(StatusComparison(str(ref.path[0]), cmp.literal, cmp.op, cmp.position))
        elif ref.root == "with" and len(ref.path) == 1 and ref.path[0] in aliases:
            out.append(StatusComparison(aliases[str(ref.path[0])], cmp.literal, cmp.op,
                                        cmp.position))
    return tuple(out)


def evaluate(expr: Expr, env: Mapping[str, Any]) -> Any:
    """Evaluate with CEL semantics; `env` maps each root (`inputs`, `item`, …) to its value."""
    return Evaluator(env).eval(expr)


def evaluate_source(source: str, env: Mapping[str, Any]) -> Any:
    """Parse (cached) then evaluate: the one call the runtime makes per island."""
    return evaluate(parse(source), env)
