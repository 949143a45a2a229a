"""jq programs for `extract:` bindings and `nika:jq` (04 §Path grammar · jq, §Binding rules).

Compilation goes through the `jq` package. Before it, a small scanner refuses the
ambient reads the spec withholds from every jq seam (§An expression sees only its
input): the `env` function, `$ENV`, `input`, `inputs`, `input_filename`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

from nika import codes
from nika.errors import NikaError

AMBIENT_FUNCTIONS: Final = frozenset({"env", "input", "inputs", "input_filename"})
AMBIENT_VARIABLES: Final = frozenset({"$ENV"})

_IDENT: Final = re.compile(r"\$?[A-Za-z_][A-Za-z0-9_]*")


def _code_words(program: str) -> list[tuple[str, str, str, str]]:
    """(word, previous non-space char, next non-space char, innermost open bracket) for every
    identifier in code position: string bodies and comments are skipped, `\\( … )`
    interpolations are code."""
    words: list[tuple[str, str, str, str]] = []
    # Frames: [kind, open parens, is-interpolation, open brackets]; an interpolation is a
    # code frame that closes on its unmatched `)`.
    stack: list[list[Any]] = [["code", 0, False, []]]
    i, n = 0, len(program)
    prev = ""
    while i < n:
        frame = stack[-1]
        ch = program[i]
        if frame[0] == "string":
            if ch == "\\" and program.startswith("\\(", i):
                stack.append(["code", 0, True, []])
                i += 2
                continue
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                stack.pop()
                prev = '"'
            i += 1
            continue
        if ch == "#":
            nl = program.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if ch == '"':
            stack.append(["string", 0, False, []])
            i += 1
            continue
        if ch == "(":
            frame[1] += 1
        elif ch == ")":
            if frame[1] == 0 and frame[2]:
                stack.pop()
                i += 1
                continue
            frame[1] -= 1
        if ch in "{[":
            frame[3].append(ch)
        elif ch in "}]" and frame[3]:
            frame[3].pop()
        match = _IDENT.match(program, i)
        if match and not (ch != "$" and i > 0 and (program[i - 1].isalnum() or
                                                    program[i - 1] == "_")):
            j = match.end()
            while j < n and program[j] in " \t\r\n":
                j += 1
            opened = frame[3][-1] if frame[3] else ""
            words.append((match.group(), prev, program[j] if j < n else "", opened))
            prev = match.group()[-1]
            i = match.end()
            continue
        if not ch.isspace():
            prev = ch
        i += 1
    return words


def _refuse(program: str, what: str, fix: str) -> NikaError:
    return NikaError(codes.VAR_005, f"jq program {program!r}: {what}; {fix}",
                     details={"program": program})


def ambient_reads(program: str) -> tuple[str, ...]:
    """The ambient-read names a jq program reaches for, in order of appearance."""
    found: list[str] = []
    for word, prev, nxt, opened in _code_words(program):
        if word.startswith("$"):
            if word in AMBIENT_VARIABLES:
                found.append(word)
            continue
        field = prev == "." or nxt == ":"  # `.env` reads a field; `{env: …}` names a key
        shorthand = opened == "{" and prev in "{," and nxt in ",}"  # `{env}` is `{env: .env}`
        if word in AMBIENT_FUNCTIONS and not field and not shorthand:
            found.append(word)
    return tuple(found)


@lru_cache(maxsize=512)
def compile_jq(program: str) -> Any:
    """Compile `program`, refusing ambient reads and syntax errors with `NIKA-VAR-005`."""
    if not isinstance(program, str) or not program.strip():
        raise _refuse(str(program), "is empty or not a string", "write a jq program, e.g. `.field`")
    if "${{" in program:
        raise _refuse(program, "contains a `${{ }}` island, and jq never nests CEL",
                      "shape the verb's input with ${{ }} instead and let jq read the result")
    reads = ambient_reads(program)
    if reads:
        raise _refuse(program, f"reads the ambient {reads[0]!r}, outside its input value",
                      "pass the value in through the input (permits.env feeds processes, "
                      "never jq)")
    import jq  # the C extension loads on the first program, not with every check

    try:
        return jq.compile(program)
    except ValueError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else "compile error"
        raise _refuse(program, f"does not compile ({first})", "fix the jq syntax") from None


def apply_jq(program: str, value: Any) -> Any:
    """Run a binding program over `value`: it must emit exactly one value (`NIKA-VAR-002`);
    a jq runtime failure is `NIKA-VAR-004`; a bytes input is `NIKA-VAR-007`."""
    compiled = compile_jq(program)
    if isinstance(value, bytes | bytearray):
        raise NikaError(codes.VAR_007, f"jq program {program!r} cannot read a bytes value; "
                        "jq reads JSON only — pass the bytes whole, or a path to them")
    try:
        results = compiled.input_value(value).all()
    except (ValueError, TypeError) as err:
        raise NikaError(codes.VAR_004, f"jq program {program!r} failed: {err}; "
                        "guard the path (`.x?`, `// null`) or fix the program",
                        details={"program": program}) from None
    if len(results) != 1:
        raise NikaError(codes.VAR_002, f"jq program {program!r} emitted {len(results)} values "
                        "where a binding takes exactly one; collect them with [ … ] or take one "
                        "with first(…) / .[0]", details={"program": program, "count": len(results)})
    return results[0]
