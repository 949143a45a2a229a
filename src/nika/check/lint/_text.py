"""The human lines of the linter's findings (the JSON is `Lint.to_dict`).

At most one line per task per family: the most specific rule (spec order) speaks, and
the others it stands for are named at the end of its line. Text that came from the
user's file (task ids, commands, jq) is escaped: a terminal never receives a raw
control character.
"""

from __future__ import annotations

from collections.abc import Iterable

from nika._term import printable
from nika.check.lint import Lint, headline


def lint_lines(lints: Iterable[Lint], name: str) -> list[str]:
    """`warning path:line:col rule · task `t` — message; fix: …` per task and family."""
    lines: list[str] = []
    for first, others in headline(lints):
        loc = f":{first.location.line}:{first.location.column}" if first.location else ""
        also = f" (also {', '.join(o.rule for o in others)})" if others else ""
        lines.append(
            printable(
                f"warning {name}{loc} {first.rule} · task `{first.task}` — {first.message}; "
                f"fix: {first.fix}{also}"
            )
        )
    return lines

