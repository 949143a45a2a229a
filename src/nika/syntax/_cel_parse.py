"""Recursive-descent parser for `cel-subset/0.1`: one method per EBNF rule (03-dag §grammar)."""

from __future__ import annotations

from typing import Final

from nika.errors import NikaError
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
)
from nika.syntax._cel_lex import Token, tokenize, violation

MAX_DEPTH: Final = 100

CALLABLES_HINT: Final = (
    "the callables are size(x), has(x), x.size(), x.contains(s), x.startsWith(s), x.endsWith(s)"
)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.i = 0
        self.depths: dict[int, int] = {}
        self.nesting = 0

    # -- plumbing -------------------------------------------------------------

    def peek(self) -> Token:
        return self.tokens[self.i]

    def at(self, op: str) -> bool:
        tok = self.tokens[self.i]
        return tok.kind == "op" and tok.text == op

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def fail(self, tok: Token, what: str, fix: str) -> NikaError:
        return violation(self.source, tok.pos, what, fix)

    def unexpected(self, tok: Token, wanted: str) -> NikaError:
        if tok.kind == "end":
            return self.fail(tok, f"the expression ends where {wanted} was expected",
                             "complete the expression")
        if tok.kind in ("int", "float") and tok.text.startswith("-"):
            return self.fail(tok, f"`{tok.text}` reads as subtraction, and arithmetic is "
                             "reserved for a later cel-subset minor", "compute the value in a task")
        return self.fail(tok, f"unexpected `{tok.text}` where {wanted} was expected",
                         "check the operator or add the missing operand")

    def expect(self, op: str, wanted: str) -> Token:
        if not self.at(op):
            raise self.unexpected(self.peek(), wanted)
        return self.advance()

    def make(self, node: Expr) -> Expr:
        # Track depth as nodes are built, so neither the parser nor any tree walk can recurse
        # past Python's limit on hostile input.
        depth = 1 + max((self.depths.get(id(c), 1) for c in children(node)), default=0)
        if depth > MAX_DEPTH:
            raise violation(self.source, getattr(node, "pos", 0),
                            f"the expression nests deeper than {MAX_DEPTH} levels",
                            "split it across with: bindings")
        self.depths[id(node)] = depth
        return node

    # -- grammar --------------------------------------------------------------

    def parse(self) -> Expr:
        if self.peek().kind == "end":
            raise self.fail(self.peek(), "the expression is empty",
                            "write a reference or a condition inside ${{ }}")
        node = self.ternary()
        tok = self.peek()
        if tok.kind != "end":
            raise self.unexpected(tok, "the end of the expression")
        return node

    def ternary(self) -> Expr:
        # Every nesting (parentheses, lists, indexes, arguments) re-enters here: bound it.
        self.nesting += 1
        if self.nesting > MAX_DEPTH:
            raise self.fail(self.peek(), f"the expression nests deeper than {MAX_DEPTH} levels",
                            "split it across with: bindings")
        try:
            return self._ternary()
        finally:
            self.nesting -= 1

    def _ternary(self) -> Expr:
        cond = self.or_()
        if not self.at("?"):
            return cond
        pos = self.advance().pos
        then = self.ternary()
        self.expect(":", "`:` (the conditional is `cond ? a : b`)")
        other = self.ternary()
        return self.make(Ternary(cond, then, other, pos))

    def or_(self) -> Expr:
        node = self.and_()
        while self.at("||"):
            pos = self.advance().pos
            node = self.make(Binary("||", node, self.and_(), pos))
        return node

    def and_(self) -> Expr:
        node = self.rel()
        while self.at("&&"):
            pos = self.advance().pos
            node = self.make(Binary("&&", node, self.rel(), pos))
        return node

    def rel(self) -> Expr:
        left = self.unary()
        tok = self.peek()
        if not (tok.kind == "op" and tok.text in RELATIONS):
            return left
        self.advance()
        node = self.make(Binary(tok.text, left, self.unary(), tok.pos))
        nxt = self.peek()
        if nxt.kind == "op" and nxt.text in RELATIONS:
            raise self.fail(nxt, f"relations do not chain (a second `{nxt.text}` follows "
                            f"`{tok.text}`)", "parenthesize what is meant, e.g. `(a == b) == c`, "
                            "or join the comparisons with &&")
        return node

    def unary(self) -> Expr:
        bangs: list[int] = []
        while self.at("!"):
            bangs.append(self.advance().pos)
        node = self.postfix()
        for pos in reversed(bangs):
            node = self.make(Not(node, pos))
        return node

    def postfix(self) -> Expr:
        node = self.primary()
        while True:
            if self.at("."):
                self.advance()
                name = self.peek()
                if name.kind != "ident":
                    raise self.unexpected(name, "a field name after `.`")
                self.advance()
                if self.at("("):
                    node = self.method(node, name)
                else:
                    node = self.make(Member(node, name.text, name.pos))
            elif self.at("["):
                pos = self.advance().pos
                index = self.ternary()
                self.expect("]", "`]`")
                node = self.make(Index(node, index, pos))
            else:
                return node

    def arguments(self) -> tuple[Expr, ...]:
        self.expect("(", "`(`")
        args: list[Expr] = []
        if not self.at(")"):
            args.append(self.ternary())
            while self.at(","):
                self.advance()
                args.append(self.ternary())
        self.expect(")", "`)` closing the call")
        return tuple(args)

    def method(self, target: Expr, name: Token) -> Expr:
        arity = METHOD_ARITY.get(name.text)
        if arity is None:
            raise self.fail(name, f"`.{name.text}()` is not a cel-subset/0.1 function",
                            CALLABLES_HINT)
        args = self.arguments()
        if len(args) != arity:
            raise self.fail(name, f"`.{name.text}()` takes {arity} argument(s), got {len(args)}",
                            f"write x.{name.text}({'s' if arity else ''})")
        return self.make(Call(name.text, target, args, name.pos))

    def primary(self) -> Expr:
        tok = self.peek()
        if tok.kind in ("int", "float", "string", "literal"):
            self.advance()
            return self.make(Literal(tok.value, tok.pos))
        if tok.kind == "ident":
            self.advance()
            if self.at("("):
                return self.function(tok)
            return self.make(Ident(tok.text, tok.pos))
        if self.at("["):
            self.advance()
            items: list[Expr] = []
            if not self.at("]"):
                items.append(self.ternary())
                while self.at(","):
                    self.advance()
                    items.append(self.ternary())
            self.expect("]", "`,` or `]` in the list")
            return self.make(ListExpr(tuple(items), tok.pos))
        if self.at("("):
            self.advance()
            node = self.ternary()
            self.expect(")", "`)`")
            return node
        raise self.unexpected(tok, "a value, a reference or `(`")

    def function(self, name: Token) -> Expr:
        if name.text not in FUNCTIONS:
            hint = f"call it as a method, x.{name.text}(s)" if name.text in METHOD_ARITY else (
                CALLABLES_HINT)
            raise self.fail(name, f"`{name.text}()` is not a cel-subset/0.1 function", hint)
        args = self.arguments()
        if len(args) != 1:
            raise self.fail(name, f"`{name.text}()` takes exactly 1 argument, got {len(args)}",
                            f"write {name.text}(x)")
        if name.text == "has" and not is_reference(args[0]):
            raise self.fail(name, "has() tests a reference, not a computed value",
                            "write has(inputs.x) or has(with.obj.field)")
        return self.make(Call(name.text, None, args, name.pos))


def is_reference(node: Expr) -> bool:
    """Is `node` a reference path: an identifier followed by `.field` / `[index]` steps?"""
    while isinstance(node, Member | Index):
        node = node.target
    return isinstance(node, Ident)


def parse_source(source: str) -> Expr:
    """Parse one `cel-subset/0.1` expression; any violation is `NIKA-VAR-005`."""
    return _Parser(source).parse()
