"""The frozen syntax tree of `cel-subset/0.1`; every node carries its source offset `pos`."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

RELATIONS = ("==", "!=", "<", "<=", ">", ">=", "in")
FUNCTIONS = ("has", "size")
METHOD_ARITY = {"size": 0, "contains": 1, "startsWith": 1, "endsWith": 1}


@dataclass(frozen=True, slots=True)
class Literal:
    """`true` · `false` · `null` · an int · a float · a string."""

    value: None | bool | int | float | str
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Ident:
    """A bare identifier: a namespace root (`inputs`, `with`, …) or a loop local (`item`)."""

    name: str
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Member:
    """`target.name`."""

    target: Expr
    name: str
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Index:
    """`target[index]`."""

    target: Expr
    index: Expr
    pos: int = 0


@dataclass(frozen=True, slots=True)
class ListExpr:
    """`[a, b, …]`."""

    items: tuple[Expr, ...]
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Not:
    """`!operand`."""

    operand: Expr
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Binary:
    """`left op right` for `&&`, `||` and the relations (`==` … `in`)."""

    op: str
    left: Expr
    right: Expr
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Ternary:
    """`cond ? then : other`."""

    cond: Expr
    then: Expr
    other: Expr
    pos: int = 0


@dataclass(frozen=True, slots=True)
class Call:
    """A closed-set callable: `size(x)`/`has(x)` (target None) or a method `x.f(args)`."""

    function: str
    target: Expr | None
    args: tuple[Expr, ...]
    pos: int = 0


Expr = Literal | Ident | Member | Index | ListExpr | Not | Binary | Ternary | Call

def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of `node`, in source order."""
    if isinstance(node, Member):
        return (node.target,)
    if isinstance(node, Index):
        return (node.target, node.index)
    if isinstance(node, ListExpr):
        return node.items
    if isinstance(node, Not):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Ternary):
        return (node.cond, node.then, node.other)
    if isinstance(node, Call):
        return node.args if node.target is None else (node.target, *node.args)
    return ()


_PRECEDENCE = {"?": 0, "||": 1, "&&": 2, **{r: 3 for r in RELATIONS}}


def _prec(node: Expr) -> int:
    if isinstance(node, Ternary):
        return 0
    if isinstance(node, Binary):
        return _PRECEDENCE[node.op]
    if isinstance(node, Not):
        return 4
    return 5


def _wrap(node: Expr, above: int) -> str:
    text = unparse(node)
    return f"({text})" if _prec(node) <= above else text


def _literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'").replace(
            "\n", "\\n").replace("\t", "\\t") + "'"
    if isinstance(value, float):
        text = repr(value)
        if "e" in text or "E" in text:  # the grammar has no exponent form
            text = format(Decimal(text), "f")
        return text if "." in text else f"{text}.0"
    return str(value)


def unparse(node: Expr) -> str:
    """Canonical source text of `node` (minimal parentheses, single-quoted strings)."""
    if isinstance(node, Literal):
        return _literal(node.value)
    if isinstance(node, Ident):
        return node.name
    if isinstance(node, Member):
        return f"{_wrap(node.target, 4)}.{node.name}"
    if isinstance(node, Index):
        return f"{_wrap(node.target, 4)}[{unparse(node.index)}]"
    if isinstance(node, ListExpr):
        return "[" + ", ".join(unparse(i) for i in node.items) + "]"
    if isinstance(node, Not):
        return f"!{_wrap(node.operand, 3)}"
    if isinstance(node, Binary):
        prec = _PRECEDENCE[node.op]
        # relations never chain, so both sides of one bind tighter; && / || are left-assoc.
        left_above = prec if prec == 3 else prec - 1
        return f"{_wrap(node.left, left_above)} {node.op} {_wrap(node.right, prec)}"
    if isinstance(node, Ternary):
        return f"{_wrap(node.cond, 0)} ? {unparse(node.then)} : {unparse(node.other)}"
    args = ", ".join(unparse(a) for a in node.args)
    if node.target is None:
        return f"{node.function}({args})"
    return f"{_wrap(node.target, 4)}.{node.function}({args})"
