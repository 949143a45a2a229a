"""The one glob engine: tool whitelists (02-verbs §Tool whitelist) and permit path globs.

Semantics are gitignore-style and canonical (a portability invariant):

- `*` matches any run of characters except a separator (`/`) and the barrier;
- `?` matches one such character; `[abc]`, `[a-z]`, `[!abc]` are classes of one such character;
- `**` also crosses separators; as a whole segment (`a/**/b`, `**/x`, `x/**`) it spans
  zero or more whole segments, so `a/**/b` matches `a/b`;
- the barrier is never crossed by any wildcard: for tool ids it is the namespace colon,
  so `nika:*` never reaches an `mcp:` tool and `**` alone grants nothing across namespaces;
- `\\x` matches `x` literally.

A `Whitelist` is an ordered rule list: later rules override earlier ones, a `!` prefix
negates, and no rules allow nothing (default-deny). Malformed patterns are refused with
`NIKA-PARSE-019` naming the fix.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from nika import codes
from nika.errors import NikaError
from nika.syntax._glob_index import RuleIndex

TOOL_SEPARATOR: Final = "/"
TOOL_BARRIER: Final = ":"
PATH_SEPARATOR: Final = "/"

_MALFORMED: Final = codes.PARSE_019


def _refuse(pattern: str, why: str, fix: str) -> NikaError:
    return NikaError(
        _MALFORMED,
        f"glob {pattern!r} is malformed: {why}; {fix}",
        details={"pattern": pattern},
    )


def _class(pattern: str, i: int, excluded: str) -> tuple[str, int]:
    """Translate the `[...]` class opening at `pattern[i]`; return (regex, index after `]`)."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    items: list[str] = []
    first = True
    while j < len(pattern) and (pattern[j] != "]" or first):
        ch = pattern[j]
        if ch == "\\":
            if j + 1 >= len(pattern):
                break
            ch = pattern[j + 1]
            j += 1
        if j + 2 < len(pattern) and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            hi = pattern[j + 2]
            if hi < ch:
                raise _refuse(pattern, f"the range {ch}-{hi} is reversed", f"write {hi}-{ch}")
            items.append(f"{re.escape(ch)}-{re.escape(hi)}")
            j += 3
        else:
            items.append(re.escape(ch))
            j += 1
        first = False
    if j >= len(pattern):
        raise _refuse(pattern, "a `[` class is never closed", "close it with `]` or write `\\[`")
    body = "".join(items)
    bar = re.escape(excluded)
    regex = f"(?:(?![{bar}])[^{body}])" if negate else f"(?:(?![{bar}])[{body}])"
    return regex, j + 1


def _translate(pattern: str, separator: str, barrier: str) -> str:
    if not pattern:
        raise _refuse(pattern, "it is empty", "remove the entry or name what it should match")
    excluded = separator + barrier
    one = f"[^{re.escape(excluded)}]"
    anything = f"[^{re.escape(barrier)}]" if barrier else "."
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            run = i
            while i < n and pattern[i] == "*":
                i += 1
            stars = i - run
            if stars > 2:
                raise _refuse(pattern, f"{'*' * stars} is not a wildcard", "use `*` or `**`")
            if stars == 1:
                out.append(f"{one}*")
                continue
            at_seg_start = run == 0 or pattern[run - 1] in excluded
            if at_seg_start and i < n and pattern[i] == separator:
                # `**/`: zero or more whole segments.
                out.append(f"(?:{anything}*{re.escape(separator)})?")
                i += 1
            else:
                out.append(f"{anything}*")
        elif ch == "?":
            out.append(one)
            i += 1
        elif ch == "[":
            regex, i = _class(pattern, i, excluded)
            out.append(regex)
        elif ch == "\\":
            if i + 1 >= n:
                raise _refuse(pattern, "it ends in a lone `\\`", "remove it or write `\\\\`")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


@lru_cache(maxsize=1 << 14)  # a check compiles each permit glob from several rungs: once
def glob_to_regex(
    pattern: str, *, separator: str = TOOL_SEPARATOR, barrier: str = TOOL_BARRIER
) -> re.Pattern[str]:
    """Compile one glob (no `!`) to an anchored regex.

    Defaults are the tool-id dialect; pass `barrier=""` for filesystem paths
    (or use `path_glob_to_regex`).
    """
    return re.compile(rf"\A{_translate(pattern, separator, barrier)}\Z", re.DOTALL)


def glob_match(pattern: str, name: str) -> bool:
    """Does the single tool-id glob `pattern` match `name`? (No negation here.)"""
    return glob_to_regex(pattern).match(name) is not None


def path_glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a permit path glob (`fs.read` / `fs.write`): `*` within a segment, `**` across."""
    return glob_to_regex(pattern, separator=PATH_SEPARATOR, barrier="")


def path_glob_match(pattern: str, path: str) -> bool:
    """Does the permit path glob match the (already normalised) `path`?"""
    return path_glob_to_regex(pattern).match(path) is not None


@dataclass(frozen=True, slots=True)
class GlobRule:
    """One compiled whitelist entry: `negated` is the `!` prefix."""

    pattern: str
    negated: bool
    regex: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class Whitelist:
    """An ordered gitignore-style rule list: the last matching rule decides; no match denies."""

    patterns: tuple[str, ...]
    rules: tuple[GlobRule, ...]
    index: RuleIndex = field(compare=False, repr=False)

    @classmethod
    def compile(
        cls,
        patterns: Sequence[str],
        *,
        separator: str = TOOL_SEPARATOR,
        barrier: str = TOOL_BARRIER,
    ) -> Whitelist:
        """Compile `patterns` once; raise `NikaError` on the first malformed one."""
        if isinstance(patterns, str):
            raise _refuse(patterns, "the rule list is a bare string", "write it as a list: [...]")
        rules: list[GlobRule] = []
        bodies: list[str] = []
        for raw in patterns:
            if not isinstance(raw, str):
                raise _refuse(repr(raw), "the entry is not a string", "quote the glob")
            negated = raw.startswith("!")
            body = raw[1:] if negated else raw
            if negated and not body:
                raise _refuse(raw, "`!` negates nothing", "write `!<glob>`")
            regex = glob_to_regex(body, separator=separator, barrier=barrier)
            rules.append(GlobRule(raw, negated, regex))
            bodies.append(body)
        return cls(tuple(patterns), tuple(rules), RuleIndex.build(bodies))

    @classmethod
    def compile_paths(cls, patterns: Sequence[str]) -> Whitelist:
        """A whitelist in the permit path dialect (no barrier)."""
        return cls.compile(patterns, separator=PATH_SEPARATOR, barrier="")

    def deciding(self, name: str) -> int:
        """The index of the rule that decides `name` (the last one matching it), or -1."""
        return self.index.deciding(name, self._matches)

    def allows(self, name: str) -> bool:
        """Is `name` granted? The last matching rule decides; none denies."""
        at = self.index.deciding(name, self._matches)
        return at >= 0 and not self.rules[at].negated

    def _matches(self, index: int, name: str) -> bool:
        return self.rules[index].regex.match(name) is not None
