"""File builtins: read · write · edit · glob · grep (stdlib/builtins-v0.1 §File).

Paths are judged against `permits:` where the builtin touches them (`tools/builtins`); what
is declared here holds before any path is resolved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.errors import NikaError
from nika.stdlib._declare import Declaration, Problem, Rule
from nika.stdlib._paths import PathArg, path_rule, reads, writes
from nika.stdlib._shapes import BOOLEAN, anything, integer, obj, text

GLOB_001: Final = codes.BUILTIN_GLOB_001
_NON_PORTABLE: Final = re.compile(r"\\[1-9]|\(\?P=|\(\?<?[=!]|\\g<")


def _known_encoding(a: Mapping[str, Any]) -> Problem | None:
    import codecs

    try:
        codecs.lookup(a.get("encoding", "utf-8"))
    except LookupError:
        return Problem(f"`encoding: {a['encoding']!r}` is not a known text encoding; use utf-8 "
                       "(the default) or `binary: true`", "encoding")
    return None


READ = Declaration("nika:read", obj({
    "path": text(minLength=1),
    "encoding": text(default="utf-8"),
    "binary": {**BOOLEAN, "default": False},
}, ("path",)), rules=(
    path_rule(reads("path")), Rule("encoding-is-known", ("encoding",), _known_encoding),
))  # fmt: skip

WRITE = Declaration("nika:write", obj({
    "path": text(minLength=1),
    "content": anything("Text, bytes, or any JSON value."),
    "create_dirs": {**BOOLEAN, "default": False},
    "overwrite": {**BOOLEAN, "default": True},
}, ("path", "content")), rules=(path_rule(writes("path")),))  # fmt: skip


def _count_replaces(a: Mapping[str, Any]) -> Problem | None:
    if a.get("count") == 0:
        return Problem("`count: 0` replaces nothing; drop `count:` to replace all occurrences, "
                       "or set it to the number to replace", "count")
    return None


EDIT = Declaration("nika:edit", obj({
    "path": text(minLength=1),
    "find": text(minLength=1),
    "replace": text(),
    "count": integer(0),
}, ("path", "find", "replace")), rules=(
    path_rule(PathArg("path", ("fs.read", "fs.write"))),  # it reads, then writes
    Rule("count-replaces-something", ("count",), _count_replaces, code=codes.BUILTIN_EDIT_001),
), codes={"count": codes.BUILTIN_EDIT_001})  # fmt: skip


def clean_glob(pattern: str) -> str:
    """A glob without its leading `./` segments (they name the base directory itself)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern


def _globs_compile(a: Mapping[str, Any]) -> Problem | None:
    from nika.syntax.globs import path_glob_to_regex

    if not clean_glob(a["pattern"]):
        return Problem('`pattern:` is empty; write e.g. "src/**/*.py"', "pattern")
    excludes = a.get("exclude", [])
    for arg, glob in [("pattern", a["pattern"]),
                      *(("exclude", x) for x in ([excludes] if isinstance(excludes, str)
                                                 else excludes))]:
        try:
            path_glob_to_regex(clean_glob(glob))
        except NikaError as err:
            return Problem(f"`{arg}:` {err.detail}", arg)
    return None


GLOB = Declaration("nika:glob", obj({
    "pattern": text(),
    "exclude": {"oneOf": [text(), {"type": "array", "items": text()}],
                "description": "a glob or a list of globs"},
}, ("pattern",)), rules=(
    Rule("globs-compile", ("pattern", "exclude"), _globs_compile, code=GLOB_001),
    path_rule(reads("pattern")),  # the literal walk root is what is read: the pattern names it
))  # fmt: skip


def regex_problem(pattern: str) -> str | None:
    """Why `pattern` is not a portable (RE2-compatible) regex, or None: backreferences and
    lookaround compile here but not in other engines."""
    bad = _NON_PORTABLE.search(pattern)
    if bad:
        return (f"`pattern: {pattern!r}` uses {bad.group()!r} (a backreference or lookaround), "
                "outside the portable RE2 subset; rewrite it without")
    try:
        re.compile(pattern)
    except re.error as err:
        return f"`pattern: {pattern!r}` is not a valid regex ({err}); fix it"
    return None


def _portable(a: Mapping[str, Any]) -> Problem | None:
    problem = regex_problem(a["pattern"])
    return None if problem is None else Problem(problem, "pattern")


GREP = Declaration(
    "nika:grep",
    obj(
        {
            "pattern": text(minLength=1),
            "path": text(minLength=1, default="."),
            "case_insensitive": {**BOOLEAN, "default": False},
        },
        ("pattern",),
    ),
    rules=(
        Rule("pattern-is-portable", ("pattern",), _portable, code=codes.BUILTIN_GREP_001),
        path_rule(reads("path", walk=True)),
    ),
)

DECLARATIONS: Final = (READ, WRITE, EDIT, GLOB, GREP)
