"""A run's content as `nika trace show` prints it: one labelled value, folded when long.

A value longer than `FOLD_CHARS` characters or `FOLD_LINES` lines shows its first line, cut,
and what it holds: `… (12.3 KiB, --full to show)`. With `--full` it is shown whole (its
newlines kept, every other control escaped). A value the journal itself kept truncated shows
the head it holds, the size of the whole and its digest: the rest is not in the journal.
Everything is escaped twice over: controls through `printable`, rich markup through `escape`.
"""

from __future__ import annotations

from typing import Final

from rich.markup import escape

from nika._term import printable
from nika.journal.content import Captured
from nika.view.figures import size_text

FOLD_CHARS: Final = 240
FOLD_LINES: Final = 6
_CUT: Final = 100
"""Characters of the first line a folded value keeps."""


def content_label(name: str, value: Captured | None, *, full: bool) -> str:
    """`name` and its value as one (rich markup) tree label."""
    if value is None:
        return f"[dim]{name}[/] unrecorded"
    text = value.text.rstrip("\n")  # a tool's closing newline is not worth a blank line
    lines = text.split("\n")
    if full or (len(text) <= FOLD_CHARS and len(lines) <= FOLD_LINES):
        shown = escape(printable(text, keep_newlines=True))
        if value.truncated:
            shown += _kept(value)
        return f"[dim]{name}[/] {shown}"
    first = lines[0][:_CUT]
    return (f"[dim]{name}[/] {escape(printable(first))} [dim]… ({size_text(value.bytes)}, "
            f"--full to show)[/]")


def _kept(value: Captured) -> str:
    digest = (value.sha256 or "unrecorded")[:16]
    return (f" [dim]… (the journal kept the first {size_text(len(value.text.encode()))} of "
            f"{size_text(value.bytes)} · sha256 {escape(printable(digest))}…)[/]")
