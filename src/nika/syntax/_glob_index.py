"""Which whitelist rules can match a name, without trying every rule.

A rule list is "the last matching rule decides", so a plain query tries rules from the end
until one matches: O(rules) per name, and a check judging every task against a long permit
list was O(tasks × rules). Most globs pin a literal run at one end (`nika:read`,
`mcp:github/*`, `out/**`, `**/*.md`), and a name can only match a rule whose literal head is
a prefix of it, or whose literal tail is a suffix of it. The index files each rule under
that run, so a query looks up the name's prefixes and suffixes of the lengths that occur
(few) and tries only the candidates, newest first; rules wild at both ends are tried last.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

_META: Final = frozenset("*?[]\\")
"""Characters that may start or end a non-literal run (classes, escapes, wildcards)."""

Matcher = Callable[[int, str], bool]
"""Does rule `i` match the name?"""


def literal_head(pattern: str) -> str:
    """The longest prefix of `pattern` that is plain text (matched character for character)."""
    for i, ch in enumerate(pattern):
        if ch in _META:
            return pattern[:i]
    return pattern


def literal_tail(pattern: str) -> str:
    """The longest suffix of `pattern` that is plain text, after every class and escape.

    A `/` right after `**` is not required (`**/x` also matches `x`), so it is left out.
    """
    for i in range(len(pattern) - 1, -1, -1):
        if pattern[i] in _META:
            tail = pattern[i + 1 :]
            return tail[1:] if pattern[i] == "*" and tail.startswith("/") else tail
    return pattern


def _filed(pairs: list[tuple[str, int]]) -> tuple[dict[str, tuple[int, ...]], tuple[int, ...]]:
    by_key: dict[str, list[int]] = defaultdict(list)
    for key, index in pairs:
        by_key[key].append(index)
    filed = {key: tuple(reversed(indices)) for key, indices in by_key.items()}
    return filed, tuple(sorted({len(key) for key in filed}))


@dataclass(frozen=True, slots=True)
class RuleIndex:
    """Candidate rules by literal head, literal tail, or exact text (a glob with no wildcard)."""

    exact: dict[str, tuple[int, ...]]
    heads: dict[str, tuple[int, ...]]
    head_lengths: tuple[int, ...]
    tails: dict[str, tuple[int, ...]]
    tail_lengths: tuple[int, ...]
    rest: tuple[int, ...]

    @classmethod
    def build(cls, bodies: Sequence[str]) -> RuleIndex:
        """Index rule bodies (patterns without their `!`), in rule order."""
        exact: list[tuple[str, int]] = []
        heads: list[tuple[str, int]] = []
        tails: list[tuple[str, int]] = []
        rest: list[int] = []
        for index, body in enumerate(bodies):
            head = literal_head(body)
            if head == body:
                exact.append((body, index))
            elif head:
                heads.append((head, index))
            elif tail := literal_tail(body):
                tails.append((tail, index))
            else:
                rest.append(index)
        head_map, head_lengths = _filed(heads)
        tail_map, tail_lengths = _filed(tails)
        return cls(
            _filed(exact)[0], head_map, head_lengths, tail_map, tail_lengths, tuple(reversed(rest))
        )

    def deciding(self, name: str, matches: Matcher) -> int:
        """The index of the last rule matching `name`, or -1 when none does."""
        best = next(iter(self.exact.get(name, ())), -1)  # newest first
        size = len(name)
        for length in self.head_lengths:
            if length > size:
                break
            best = _newest(self.heads.get(name[:length], ()), name, matches, best)
        for length in self.tail_lengths:
            if length > size:
                break
            best = _newest(self.tails.get(name[size - length :], ()), name, matches, best)
        return _newest(self.rest, name, matches, best)

    def candidates(self, name: str) -> Iterator[int]:
        """Every rule that might match `name` (a superset of those that do), each once."""
        yield from self.exact.get(name, ())
        size = len(name)
        for length in self.head_lengths:
            if length > size:
                break
            yield from self.heads.get(name[:length], ())
        for length in self.tail_lengths:
            if length > size:
                break
            yield from self.tails.get(name[size - length :], ())
        yield from self.rest


def _newest(candidates: tuple[int, ...], name: str, matches: Matcher, best: int) -> int:
    """`best`, or the newest candidate above it that matches (candidates run newest first)."""
    for index in candidates:
        if index <= best:
            break
        if matches(index, name):
            return index
    return best
