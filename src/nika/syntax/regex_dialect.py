"""The locked regex dialect of `{ string: { pattern } }` (spec 09 §the regex dialect).

A closed whitelist, judged by a small scanner rather than by whatever Python's
`re` happens to accept, so the refusal names the construct (`NIKA-TYPE-006`).
"""

from __future__ import annotations

import re
from typing import Final

_PERL_CLASSES: Final = frozenset("dDwWsS")
_HEX2: Final = re.compile(r"[0-9A-Fa-f]{2}")
_BRACE_QUANT: Final = re.compile(r"\{[0-9]+(,[0-9]*)?\}")


def dialect_violation(pattern: str) -> str | None:
    """Return what puts `pattern` outside the dialect, or None when it is admitted."""
    problem = _scan(pattern)
    if problem is not None:
        return problem
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"it does not compile ({exc})"
    return None


def _scan(p: str) -> str | None:
    i, n = 0, len(p)
    in_class = False
    prev_quantifiable = False
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                return "a trailing backslash escapes nothing"
            problem = _escape(p, i + 1, in_class)
            if problem is not None:
                return problem
            i += 4 if p[i + 1] == "x" else 2
            prev_quantifiable = True
            continue
        if in_class:
            if c == "[":
                # Rust/RE2 read it as a nested set, Python as a literal (and warns): no one
                # meaning, so the portable spelling is the escape.
                return f"an unescaped '[' inside a character class at offset {i}; write '\\['"
            if c in "&-~|" and p[i + 1 : i + 2] == c:
                # Rust reads `&&` `--` `~~` as set operations, Python warns of them (and
                # of `||`) as future ones: a doubled operator has no one meaning either.
                return (f"a doubled '{c}{c}' inside a character class at offset {i} (a set "
                        f"operation in other engines); escape one: '\\{c}{c}'")
            if c == "]":
                in_class = False
                prev_quantifiable = True
            i += 1
            continue
        if c == "[":
            in_class = True
            i += 1
            if i < n and p[i] == "^":
                i += 1
            if i < n and p[i] == "]":
                i += 1
            continue
        if c == "(":
            if p.startswith("(?", i):
                if p.startswith("(?:", i):
                    i += 3
                    prev_quantifiable = False
                    continue
                return _group_problem(p[i:])
            i += 1
            prev_quantifiable = False
            continue
        if c in "*+?" or (c == "{" and _BRACE_QUANT.match(p, i)):
            if not prev_quantifiable:
                return f"quantifier {c!r} at offset {i} has nothing to repeat"
            end = i + 1 if c != "{" else _BRACE_QUANT.match(p, i).end()  # type: ignore[union-attr]
            if end < n and p[end] in "?+":
                return f"lazy or possessive quantifier {p[i : end + 1]!r} (greedy only)"
            i = end
            prev_quantifiable = False
            continue
        prev_quantifiable = c not in "|^$"
        i += 1
    if in_class:
        return "an unterminated character class"
    return None


def _escape(p: str, j: int, in_class: bool) -> str | None:
    e = p[j]
    if e.isdigit():
        return f"backreference or octal escape \\{e} (no backreferences)"
    if e in "bB" and not in_class:
        return f"word boundary \\{e}"
    if e in "pP":
        return f"unicode property class \\{e}{{…}}"
    if e == "x":
        if not _HEX2.fullmatch(p[j + 1 : j + 3]):
            return "\\x must be followed by exactly two hex digits"
        return None
    if e in _PERL_CLASSES or not e.isalnum():
        return None
    if e in "ntrfv":
        return None
    return f"escape \\{e} is not in the dialect"


def _group_problem(rest: str) -> str:
    if rest.startswith(("(?=", "(?!", "(?<=", "(?<!")):
        return f"lookaround {rest[:4]!r}"
    if rest.startswith(("(?P<", "(?<", "(?P=")):
        return "named group"
    return f"inline flag or extension group {rest[:4]!r}"
