"""The exec ledger: where an `exec:` that legitimately stays is recorded (spec 03 §Native-first).

When no builtin and no MCP tool covers a command, the author keeps the `exec:` and says
why in the workflow's header comment — one row per task: the task, the command, why
there is no native path, and the unlock that would remove it:

    # EXEC LEDGER ·
    # | task | command | why no native path | unlock that removes it |
    # |------|---------|--------------------|------------------------|
    # | ship | rsync -a out/ host:/srv | no rsync builtin or MCP server | an MCP deploy tool |

A complete row (four non-empty cells) clears that task's native-first warning — except
`native-first/005`: a helper script is not a genuine subprocess, so its row records the
intent without clearing the rule. Only the header (the comment lines before the first
YAML line) is read: a `#` inside a block scalar further down is text, not a comment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

_MARKER: Final = re.compile(r"\bexec[\s_-]*ledger\b", re.IGNORECASE)
_RULE_ROW: Final = re.compile(r"^\|?[\s:|-]+\|?$")
_HEADER_CELLS: Final = ("task", "command")


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One recorded `exec:`: the task, its command, why no native path, the unlock."""

    task: str
    command: str
    why: str
    unlock: str


def read_ledger(source: str) -> Mapping[str, LedgerRow]:
    """The complete ledger rows of the header comment, by task id (the first row wins)."""
    rows: dict[str, LedgerRow] = {}
    seen_marker = in_table = False
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break  # the header ends at the first YAML line
        text = stripped.lstrip("#").strip()
        if _MARKER.search(text):
            seen_marker, in_table = True, False
        elif seen_marker and text.startswith("|"):
            in_table = True
            row = _row(text)
            if row is not None and row.task not in rows:
                rows[row.task] = row
        elif in_table:
            seen_marker = in_table = False  # the table ended: prose is not a ledger row
    return rows


def _row(text: str) -> LedgerRow | None:
    if _RULE_ROW.match(text):
        return None
    cells = [c.strip().strip("`").strip() for c in text.strip().strip("|").split("|")]
    if len(cells) < 4 or any(not c for c in cells[:4]):
        return None
    if tuple(c.lower() for c in cells[:2]) == _HEADER_CELLS:
        return None
    # a command may itself hold `|` (a pipeline): the last two cells are why and unlock
    task, command, why, unlock = cells[0], " | ".join(cells[1:-2]), cells[-2], cells[-1]
    return LedgerRow(task, command, why, unlock)
