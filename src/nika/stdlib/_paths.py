"""Path arguments: which values can never name a file, stated once for the check and the run.

A declaration marks its path args with `path_rule`; the check applies it to values as the file
writes them and the executor to resolved ones (both through `Declaration.refusals`), and the
builtins' path resolver (`tools/builtins/_paths.py`) asks `unusable` too for the paths it
derives — so a path `run` would refuse is refused by `check` first, with the same code and
words. As written, a `${{ }}` template is judged by its text outside the islands: a NUL byte
there is in every value the run can resolve it to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nika import codes
from nika.errors import NikaError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nika.stdlib._declare import Rule


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


def path_rule(*args: str, each: str | None = None, directory: bool = False) -> Rule:
    """The rule that the string args in `args` are usable paths; with `each`, the path is the
    `each` key of every item of a list arg (`multipart: [{path: …}]`). Like every rule, the
    check skips it while an arg it reads holds a `${{ }}` template."""
    from nika.stdlib._declare import Problem, Rule  # `unusable` alone stays light (effects)

    def judged_by(judge: Callable[..., bool]) -> Callable[[Mapping[str, Any]], Problem | None]:
        def test(a: Mapping[str, Any]) -> Problem | None:
            for arg in args:
                for raw in _strings(a.get(arg), each):
                    if judge(raw, directory=directory):
                        return Problem(unusable_detail(arg, raw), arg)
            return None

        return test

    return Rule("paths-are-usable", args, judged_by(unusable), code=codes.INVOKE_002,
                templated=judged_by(unusable_as_written))


def _strings(value: Any, each: str | None) -> list[str]:
    if each is not None:
        items = value if isinstance(value, list) else []
        return [v for item in items if isinstance(item, Mapping)
                and isinstance(v := item.get(each), str)]
    return [value] if isinstance(value, str) else []
