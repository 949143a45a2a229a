"""Tokens of `cel-subset/0.1` (03-dag §Formal grammar): the lexical half of `nika.syntax.expr`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from nika import codes
from nika.errors import NikaError

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1

KEYWORDS: Final = {"true": True, "false": False, "null": None}

# Longest first, so `<=` is never read as `<` then `=`.
OPERATORS: Final = ("==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "?", ":", ".", ",",
                    "(", ")", "[", "]")

_ESCAPES: Final = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t"}

# Characters CEL knows but the subset reserves: the refusal names why.
_RESERVED: Final = {
    "+": "arithmetic is reserved for a later cel-subset minor; compute the value in a task",
    "-": "arithmetic is reserved for a later cel-subset minor; compute the value in a task",
    "*": "arithmetic is reserved for a later cel-subset minor; compute the value in a task",
    "/": "arithmetic is reserved for a later cel-subset minor; compute the value in a task",
    "%": "arithmetic is reserved for a later cel-subset minor; compute the value in a task",
    "{": "map literals are not in cel-subset/0.1; build the object in `const:` or a task",
    "}": "a stray `}` is not in cel-subset/0.1; remove it",
    "=": "`=` is not an operator; compare with `==`",
    "&": "`&` is not an operator; write `&&`",
    "|": "`|` is not an operator (no template pipe-filters); write `||`, or reshape with jq",
}


@dataclass(frozen=True, slots=True)
class Token:
    """One token: `kind` is `int` · `float` · `string` · `ident` · `literal` · `op` · `end`."""

    kind: str
    text: str
    value: Any
    pos: int


def violation(source: str, pos: int, what: str, fix: str) -> NikaError:
    """The one shape of a static expression refusal (`NIKA-VAR-005`)."""
    return NikaError(
        codes.VAR_005,
        f"expression `{source}` at offset {pos}: {what}; {fix}",
        details={"expression": source, "offset": pos},
    )


def _number(source: str, i: int) -> tuple[Token, int]:
    start = i
    if source[i] == "-":
        i += 1
    while i < len(source) and source[i].isascii() and source[i].isdigit():
        i += 1
    is_float = i + 1 < len(source) and source[i] == "." and source[i + 1].isdigit()
    if is_float:
        i += 1
        while i < len(source) and source[i].isascii() and source[i].isdigit():
            i += 1
    if i < len(source) and (source[i].isalpha() or source[i] == "_"):
        raise violation(source, start, f"`{source[start:i + 1]}` is not a number",
                        "write digits only (no suffix, no exponent), or separate the tokens")
    text = source[start:i]
    if is_float:
        return Token("float", text, float(text), start), i
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise violation(source, start, f"the integer {text} overflows 64 bits",
                        "use a value between -2^63 and 2^63-1")
    return Token("int", text, value, start), i


def _string(source: str, i: int) -> tuple[Token, int]:
    quote = source[i]
    start = i
    i += 1
    out: list[str] = []
    while i < len(source):
        ch = source[i]
        if ch == quote:
            return Token("string", source[start:i + 1], "".join(out), start), i + 1
        if ch == "\\":
            nxt = source[i + 1] if i + 1 < len(source) else ""
            if nxt not in _ESCAPES:
                raise violation(source, i, f"the escape `\\{nxt}` is not in cel-subset/0.1",
                                "use one of \\\\ \\' \\\" \\n \\t")
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise violation(source, start, f"the string starting {source[start:start + 20]!r} never ends",
                    f"close it with {quote}")


def tokenize(source: str) -> tuple[Token, ...]:
    """Split `source` into tokens; any character outside the subset is `NIKA-VAR-005`."""
    tokens: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch in " \t\r\n":
            i += 1
        elif ch.isascii() and ch.isdigit() or (
            ch == "-" and i + 1 < n and source[i + 1].isascii() and source[i + 1].isdigit()
        ):
            tok, i = _number(source, i)
            tokens.append(tok)
        elif ch in "'\"":
            tok, i = _string(source, i)
            tokens.append(tok)
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            start = i
            while i < n and source[i].isascii() and (source[i].isalnum() or source[i] == "_"):
                i += 1
            word = source[start:i]
            if word in KEYWORDS:
                tokens.append(Token("literal", word, KEYWORDS[word], start))
            elif word == "in":
                tokens.append(Token("op", word, None, start))
            else:
                tokens.append(Token("ident", word, word, start))
        else:
            op = next((o for o in OPERATORS if source.startswith(o, i)), None)
            if op is None:
                why = _RESERVED.get(ch)
                if why is None:
                    raise violation(source, i, f"the character {ch!r} is not in cel-subset/0.1",
                                    "remove it or quote it inside a string")
                what, _, fix = why.partition("; ")
                raise violation(source, i, f"`{ch}`: {what}", fix)
            tokens.append(Token("op", op, None, i))
            i += len(op)
    tokens.append(Token("end", "", None, n))
    return tuple(tokens)
