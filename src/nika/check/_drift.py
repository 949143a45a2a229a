"""`NIKA-DRIFT-001`: a declared permit entry nothing in the body uses (05 §DRIFT-001).

A dynamic consumer poisons its category's used set, and the category stays silent. The
question "does some used target fall under this entry?" is asked from the targets' side:
each target looks up the entries that could admit it (exact names, hosts and programs by
dictionary, globs through the rule index), so the pass is linear in entries plus targets
rather than their product.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nika import codes
from nika.check.context import CheckContext, Finding, Hint
from nika.check.effects import Effect
from nika.check.judge import canonical_glob, canonical_host, canonical_path, root_class
from nika.errors import NikaError
from nika.syntax._glob_index import RuleIndex
from nika.syntax.globs import glob_to_regex, path_glob_to_regex
from nika.syntax.model import AgentBody, KeyPath

if TYPE_CHECKING:
    from nika.syntax.declarations import Permits


def drift(ctx: CheckContext, permits: Permits, effects: Sequence[Effect]) -> Iterator[Finding]:
    """One hint per declared entry of an unpoisoned category that admits no used target."""
    tasks = ctx.workflow.tasks.values()
    poisoned = {e.kind for e in effects if e.dynamic}
    if any(e.kind == "exec" for e in effects):
        poisoned |= {"fs.read", "fs.write", "net"}
    if any(isinstance(t.body, AgentBody) for t in tasks):
        poisoned |= {"fs.read", "fs.write", "net", "tool"}
    if any(e.kind == "exec" and e.target == "<shell>" for e in effects):
        poisoned.add("exec")
    checks: list[tuple[str, tuple[str, ...] | None, KeyPath]] = [
        ("fs.read", permits.fs_read, ("fs", "read")),
        ("fs.write", permits.fs_write, ("fs", "write")),
        ("net", permits.net_http, ("net", "http")),
        ("exec", permits.exec if isinstance(permits.exec, tuple) else None, ("exec",)),
        ("tool", permits.tools, ("tools",)),
    ]
    for kind, entries, rel in checks:
        if entries is None or kind in poisoned:
            continue
        judged = {
            i: entry
            for i, entry in enumerate(entries)
            if isinstance(entry, str) and "${{" not in entry and not entry.startswith("!")
        }
        used = _used(kind, judged, [e.target for e in effects if e.kind == kind])
        key = ".".join(str(k) for k in rel)
        for i, entry in judged.items():
            if i not in used:
                yield Hint(
                    ctx.error(
                        codes.DRIFT_001,
                        f"permits.{key}[{i}] {entry!r} is declared but nothing in "
                        "the body uses it; remove it to keep the boundary tight",
                        (*permits.path, *rel, i),
                    )
                )


def _used(kind: str, entries: dict[int, str], targets: list[str]) -> set[int]:
    """The entries (by position) that admit at least one of `targets`."""
    if kind == "exec":
        programs = set(targets)
        return {i for i, entry in entries.items() if entry in programs}
    if kind == "net":
        hosts = {canonical_host(t) for t in targets}
        return {
            i
            for i, entry in entries.items()
            if (entry == "*" and targets) or canonical_host(entry) in hosts
        }
    if kind == "tool":
        return _Globs.build(entries, paths=False).admitting(("", (t,)) for t in targets)
    return _Globs.build(entries, paths=True).admitting(_path_names(t) for t in targets)


def _path_names(target: str) -> tuple[str, tuple[str, ...]]:
    """A path target's root class and the names a grant may admit it by (itself, or — for a
    directory walk — everything beneath it)."""
    canon = canonical_path(target)
    under = "**" if canon == "." else f"{canon.rstrip('/')}/**"
    return root_class(canon), (canon, under)


@dataclass(frozen=True, slots=True)
class _Group:
    positions: list[int]
    regexes: list[re.Pattern[str]]
    index: RuleIndex


@dataclass(frozen=True, slots=True)
class _Globs:
    """Each entry compiled on its own (a malformed one is the bounds' finding, never a
    drift hint), grouped by root class so a glob never admits across roots."""

    groups: dict[str, _Group]
    always: set[int]

    @classmethod
    def build(cls, entries: Mapping[int, str], *, paths: bool) -> _Globs:
        always: set[int] = set()
        grouped: dict[str, tuple[list[int], list[str], list[re.Pattern[str]]]] = {}
        for position, entry in entries.items():
            body = canonical_glob(entry) if paths else entry
            try:
                regex = path_glob_to_regex(body) if paths else glob_to_regex(body)
            except NikaError:
                always.add(position)
                continue
            group = grouped.setdefault(root_class(body) if paths else "", ([], [], []))
            group[0].append(position)
            group[1].append(body)
            group[2].append(regex)
        return cls(
            {root: _Group(p, r, RuleIndex.build(b)) for root, (p, b, r) in grouped.items()},
            always,
        )

    def admitting(self, queries: Iterable[tuple[str, tuple[str, ...]]]) -> set[int]:
        """The entries admitting some query: `(root class, names it may be admitted by)`."""
        used = set(self.always)
        for root, names in queries:
            group = self.groups.get(root)
            if group is None:
                continue
            for name in names:
                for k in group.index.candidates(name):
                    position = group.positions[k]
                    if position not in used and group.regexes[k].match(name) is not None:
                        used.add(position)
        return used
