"""The evaluator of `cel-subset/0.1`: CEL semantics over JSON-shaped Python values.

Value kinds: null · bool · int · double · string · bytes · list · map. `int` and
`double` compare numerically with each other (one numeric kind, as a user reading
`coverage > 80` expects); every other cross-kind relation is `NIKA-VAR-006`, except
`null`, the universal `==`/`!=` comparand. Inside containers (list/map equality,
`in`) cross-kind elements are simply unequal, per CEL's heterogeneous equality.
`&&`/`||` follow CEL's commutative error absorption: `false && <error>` is `false`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from nika import codes
from nika.errors import NikaError
from nika.syntax._cel_ast import (
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
    unparse,
)

_MISSING: Final = object()


def kind(value: Any) -> str:
    """The CEL kind name of a Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, Sequence):
        return "list"
    return type(value).__name__


def _numeric(k: str) -> bool:
    return k in ("int", "double")


def _type_error(node: Expr, why: str, fix: str) -> NikaError:
    text = unparse(node)
    return NikaError(
        codes.VAR_006,
        f"`{text}`: {why}; {fix}",
        details={"expression": text},
    )


def _unresolved(node: Expr, why: str) -> NikaError:
    text = unparse(node)
    return NikaError(
        codes.VAR_001,
        f"`{text}` does not resolve: {why}; fix the name or guard the read with has({text})",
        details={"reference": text},
    )


def equal(a: Any, b: Any, *, strict: bool, node: Expr | None = None) -> bool:
    """CEL equality; cross-kind operands raise when `strict` (a top-level `==`), else differ."""
    if a is None or b is None:
        return a is None and b is None
    ka, kb = kind(a), kind(b)
    if _numeric(ka) and _numeric(kb):
        return bool(a == b)
    if ka != kb:
        if strict and node is not None:
            raise _type_error(node, f"cannot compare a {ka} with a {kb} (no implicit coercion)",
                              "compare values of one type, e.g. convert upstream")
        return False
    if ka == "list":
        return len(a) == len(b) and all(equal(x, y, strict=False) for x, y in zip(a, b,
                                                                                strict=True))
    if ka == "map":
        return set(a) == set(b) and all(equal(a[k], b[k], strict=False) for k in a)
    return bool(a == b)


def _order(node: Binary, a: Any, b: Any) -> bool:
    ka, kb = kind(a), kind(b)
    ok = (_numeric(ka) and _numeric(kb)) or (ka == kb and ka in ("string", "bool", "bytes"))
    if not ok:
        fix = ("test `!= null` first (has(x) for an optional value)" if "null" in (ka, kb)
               else "order values of one type: numbers, strings or booleans")
        raise _type_error(node, f"`{node.op}` cannot order a {ka} against a {kb}", fix)
    if node.op == "<":
        return bool(a < b)
    if node.op == "<=":
        return bool(a <= b)
    if node.op == ">":
        return bool(a > b)
    return bool(a >= b)


class Evaluator:
    """Evaluates one tree against `env` (root name → value). Pure: no state survives a call."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env = env

    def eval(self, node: Expr) -> Any:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Ident):
            if node.name not in self.env:
                raise _unresolved(node, f"`{node.name}` is not bound here")
            return self.env[node.name]
        if isinstance(node, Member):
            return self.member(node, self.eval(node.target))
        if isinstance(node, Index):
            return self.index(node, self.eval(node.target), self.eval(node.index))
        if isinstance(node, ListExpr):
            return [self.eval(item) for item in node.items]
        if isinstance(node, Not):
            return not self.boolean(node.operand, self.eval(node.operand), "`!`")
        if isinstance(node, Ternary):
            cond = self.boolean(node.cond, self.eval(node.cond), "a `?:` condition")
            return self.eval(node.then if cond else node.other)
        if isinstance(node, Binary):
            return self.binary(node)
        return self.call(node)

    def boolean(self, node: Expr, value: Any, role: str) -> bool:
        if not isinstance(value, bool):
            raise _type_error(node, f"{role} needs a bool, got a {kind(value)}",
                              "make it a comparison, e.g. `x != null` or `size(x) > 0`")
        return value

    def member(self, node: Member, target: Any) -> Any:
        if isinstance(target, Mapping):
            if node.name in target:
                return target[node.name]
            raise _unresolved(node, f"no field `{node.name}` in {unparse(node.target)}")
        if target is None:
            raise _unresolved(node, f"{unparse(node.target)} is null")
        raise _type_error(node, f"{unparse(node.target)} is a {kind(target)}, which has no fields",
                          "read a field of a map only")

    def index(self, node: Index, target: Any, key: Any) -> Any:
        if target is None:
            raise _unresolved(node, f"{unparse(node.target)} is null")
        tk, kk = kind(target), kind(key)
        if tk == "list" and kk == "int":
            if 0 <= key < len(target):
                return target[key]
            raise _unresolved(node, f"index {key} is out of range for a list of {len(target)}")
        if tk == "map" and kk == "string":
            if key in target:
                return target[key]
            raise _unresolved(node, f"no key {key!r} in {unparse(node.target)}")
        raise _type_error(node, f"cannot index a {tk} with a {kk}",
                          "index lists with an int and maps with a string")

    def logic(self, node: Binary) -> bool:
        # CEL absorption: a decisive operand on either side wins over an error on the other.
        decisive = node.op == "||"
        deferred: NikaError | None = None
        for side in (node.left, node.right):
            try:
                value = self.boolean(side, self.eval(side), f"`{node.op}`")
            except NikaError as err:
                deferred = deferred or err
                continue
            if value is decisive:
                return decisive
        if deferred is not None:
            raise deferred
        return not decisive

    def binary(self, node: Binary) -> Any:
        if node.op in ("&&", "||"):
            return self.logic(node)
        left, right = self.eval(node.left), self.eval(node.right)
        if node.op == "==":
            return equal(left, right, strict=True, node=node)
        if node.op == "!=":
            return not equal(left, right, strict=True, node=node)
        if node.op == "in":
            if isinstance(right, Mapping):
                return isinstance(left, str) and left in right
            if kind(right) == "list":
                return any(equal(left, item, strict=False) for item in right)
            fix = "use .contains() for substrings" if kind(right) == "string" else (
                "test membership in a list or a map")
            raise _type_error(node, f"`in` needs a list or a map on the right, got a "
                              f"{kind(right)}", fix)
        return _order(node, left, right)

    def presence(self, node: Expr) -> Any:
        """`has()`: resolve softly, yielding `_MISSING` where a strict read would fail."""
        if isinstance(node, Ident):
            return self.env.get(node.name, _MISSING)
        if isinstance(node, Member):
            target = self.presence(node.target)
            if isinstance(target, Mapping):
                return target.get(node.name, _MISSING)
            return _MISSING
        if isinstance(node, Index):
            target = self.presence(node.target)
            key = self.eval(node.index)
            if kind(target) == "list" and kind(key) == "int":
                return target[key] if 0 <= key < len(target) else _MISSING
            if isinstance(target, Mapping) and isinstance(key, str):
                return target.get(key, _MISSING)
            return _MISSING
        return self.eval(node)

    def call(self, node: Call) -> Any:
        if node.function == "has":
            value = self.presence(node.args[0])
            return value is not _MISSING and value is not None
        subject = node.args[0] if node.target is None else node.target
        value = self.eval(subject)
        if node.function == "size":
            if kind(value) in ("string", "bytes", "list", "map"):
                return len(value)
            raise _type_error(node, f"size() needs a string, list or map, got a {kind(value)}",
                              "guard with has() or compare the value directly")
        arg = self.eval(node.args[0])
        if not (isinstance(value, str) and isinstance(arg, str)):
            raise _type_error(node, f".{node.function}() needs strings, got a {kind(value)} "
                              f"and a {kind(arg)}", "call it on a string with a string argument")
        if node.function == "contains":
            return arg in value
        if node.function == "startsWith":
            return value.startswith(arg)
        return value.endswith(arg)
