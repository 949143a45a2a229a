"""Status observations inside expressions: the per-gate half of static liveness.

A `when:` reads upstream outcomes only through `with:` bindings that observe
`tasks.P.status`. Over those atoms the gate is decidable: it is evaluated in Kleene
three-valued logic for every combination of the observed producers' admitted
states (any other atom is Unknown, and an Unknown gate is never declared dead).
The enumeration is bounded as the spec declares: past 6 distinct producers or 256
items in one `in [...]` list the gate widens to satisfiable.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Final

from nika.check.graph import STATUSES, Status
from nika.syntax.expr import (
    Binary,
    Expr,
    Ident,
    ListExpr,
    Literal,
    Member,
    Not,
    status_comparisons,
)
from nika.syntax.model import TaskId

MAX_GATE_PRODUCERS: Final = 6
MAX_GATE_LIST: Final = 256

Kleene = bool | None  # None is Unknown


def _observed_task(node: Expr, observed: Mapping[str, TaskId]) -> TaskId | None:
    """The producer whose status `node` reads through a `with.<binding>` alias, or None."""
    if isinstance(node, Member) and isinstance(node.target, Ident) and node.target.name == "with":
        return observed.get(node.name)
    return None


def _string_literals(node: Expr) -> tuple[str, ...] | None:
    if isinstance(node, Literal) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ListExpr) and all(
        isinstance(i, Literal) and isinstance(i.value, str) for i in node.items
    ):
        return tuple(str(i.value) for i in node.items if isinstance(i, Literal))
    return None


def _evaluate(node: Expr, observed: Mapping[str, TaskId], states: Mapping[TaskId, str]) -> Kleene:
    if isinstance(node, Literal):
        return node.value if isinstance(node.value, bool) else None
    if isinstance(node, Not):
        inner = _evaluate(node.operand, observed, states)
        return None if inner is None else not inner
    if not isinstance(node, Binary):
        return None
    if node.op in ("&&", "||"):
        left = _evaluate(node.left, observed, states)
        right = _evaluate(node.right, observed, states)
        absorbing = node.op == "||"
        if left is absorbing or right is absorbing:
            return absorbing
        return None if left is None or right is None else not absorbing
    for atom_side, other in ((node.left, node.right), (node.right, node.left)):
        producer = _observed_task(atom_side, observed)
        literals = _string_literals(other)
        if producer is None or literals is None or producer not in states:
            continue
        if node.op == "in" and (atom_side is node.right or len(literals) > MAX_GATE_LIST):
            return None
        if node.op == "in" or (node.op == "==" and isinstance(other, Literal)):
            return states[producer] in literals
        if node.op == "!=" and isinstance(other, Literal):
            return states[producer] not in literals
    return None


def always_false(
    expr: Expr,
    observed: Mapping[str, TaskId],
    admitted: Mapping[TaskId, frozenset[Status]],
) -> bool:
    """Is `expr` false under every combination of the observed producers' admitted states?

    Needs at least one observed producer: without one, the gate decides nothing about
    upstream outcomes (a literal `when: false` is the never-pattern, not a finding).
    """
    producers = sorted({TaskId(c.task) for c in status_comparisons(expr, observed)})
    if not producers or len(producers) > MAX_GATE_PRODUCERS:
        return False
    domains = [sorted(admitted.get(p, frozenset(STATUSES))) for p in producers]
    for combination in product(*domains):
        states = dict(zip(producers, combination, strict=True))
        if _evaluate(expr, observed, states) is not False:
            return False
    return True
