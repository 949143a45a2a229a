"""Path arguments: where a builtin's args name files, what it does there, and which values can
never name a file — stated once, in each declaration, for the check and the run.

A declaration marks its path args with `path_rule(PathArg(...), …)`: the rule refuses a path
no file system holds, and its `PathArg`s are what the check's effect inference reads to know
which files a call reads or writes (`nika.check.effects`, through `Declaration.paths`). The
check applies the rule to values as the file writes them and the executor to resolved ones
(both through `Declaration.refusals`), and the builtins' path resolver
(`tools/builtins/_paths.py`) asks `unusable` too for the paths it derives — so a path `run`
would refuse is refused by `check` first, with the same code and words. As written, a `${{ }}`
template is judged by its text outside the islands: a NUL byte there is in every value the run
can resolve it to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from nika import codes
from nika.errors import NikaError

if TYPE_CHECKING:
    from nika.stdlib._declare import Rule

FsKind = Literal["fs.read", "fs.write"]
"""What a builtin does with a file: the effect kinds `permits.fs` grants (10 §effects)."""

READ: Final[tuple[FsKind, ...]] = ("fs.read",)
WRITE: Final[tuple[FsKind, ...]] = ("fs.write",)


@dataclass(frozen=True, slots=True)
class PathArg:
    """One path argument of a builtin, and what the builtin does with the file it names.

    `arg` is the top-level arg. With `each`, the arg is a list whose items are paths (or, with
    `key`, mappings whose `key` is one; a lone string stands for itself when there is no
    `key`); without `each`, a `key` names the path inside the arg's mapping. `directory`: the
    path names a directory and may be empty (the workflow directory). `walk`: the builtin
    reads the whole tree under it.
    """

    arg: str
    access: tuple[FsKind, ...]
    key: str | None = None
    each: bool = False
    directory: bool = False
    walk: bool = False

    def located(self, args: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
        """Every path value this arg holds in `args` (of any type), with its key path."""
        value = args.get(self.arg)
        if self.each and isinstance(value, list):
            for i, item in enumerate(value):
                if self.key is None:
                    yield (self.arg, i), item
                elif isinstance(item, Mapping) and self.key in item:
                    yield (self.arg, i, self.key), item[self.key]
        elif self.key is None:
            if value is not None:
                yield (self.arg,), value
        elif not self.each and isinstance(value, Mapping) and self.key in value:
            yield (self.arg, self.key), value[self.key]


def unusable(raw: str, *, directory: bool = False) -> bool:
    """True when `raw` names no file anywhere: it holds a NUL byte, or it is empty (a
    `directory` arg may be empty: it then names the workflow directory)."""
    return "\x00" in raw or (not raw and not directory)


def unusable_as_written(raw: str, *, directory: bool = False) -> bool:
    """`unusable` for a value as the file writes it: a literal whole, a `${{ }}` template by
    its text outside the islands (whatever they render to, a NUL byte there stays)."""
    if "${{" not in raw:
        return unusable(raw, directory=directory)
    from nika.syntax.template import segments

    try:
        parts = segments(raw)
    except NikaError:
        return False  # an unclosed island: the variables rung's refusal
    return any(isinstance(part, str) and "\x00" in part for part in parts)


def unusable_detail(arg: str, raw: str) -> str:
    """The prescriptive detail of an unusable path, for the check and the run alike."""
    why = "holds a NUL byte" if "\x00" in raw else "is empty"
    return f"`{arg}:` {raw!r} is not a usable path: it {why}; pass a path such as data/in.txt"


def reads(arg: str, **shape: Any) -> PathArg:
    """A path arg whose file the builtin reads."""
    return PathArg(arg, READ, **shape)


def writes(arg: str, **shape: Any) -> PathArg:
    """A path arg whose file the builtin writes."""
    return PathArg(arg, WRITE, **shape)


def path_rule(*paths: PathArg) -> Rule:
    """The rule that every string `paths` locate is a usable path; the declaration's path args
    are read off it (`Declaration.paths`). As written, a `${{ }}` template is judged by its
    text outside the islands (`unusable_as_written`)."""
    from nika.stdlib._declare import Problem, Rule  # `unusable` alone stays light

    def judged_by(judge: Callable[..., bool]) -> Callable[[Mapping[str, Any]], Problem | None]:
        def test(a: Mapping[str, Any]) -> Problem | None:
            for path in paths:
                for _, raw in path.located(a):
                    if isinstance(raw, str) and judge(raw, directory=path.directory):
                        return Problem(unusable_detail(path.arg, raw), path.arg)
            return None

        return test

    return Rule("paths-are-usable", tuple(p.arg for p in paths), judged_by(unusable),
                code=codes.INVOKE_002, templated=judged_by(unusable_as_written), paths=paths)
