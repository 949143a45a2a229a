"""Terminal-safe text: what a workflow, a journal or a model wrote never drives the terminal.

A document can carry ESC, CR, NUL or a bidi override (a YAML double-quoted `"\\e[2K\\r"` is
legal), and printed raw it could erase its own refusal line, paint "ok", or reorder what the
reader sees. Every human renderer passes such text through `printable`, which shows each C0
and C1 control, DEL and each bidi/line-separator format character as a visible escape
(`\\x1b`, `\\u202e`). JSON renderings stay data: `json_printable` rewrites the same characters
as JSON `\\uXXXX` escapes, so the value decodes unchanged.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` stays unloaded: the warm check client imports this module
if TYPE_CHECKING:
    from typing import Final

_BIDI: Final = (
    0x061C,  # ARABIC LETTER MARK
    0x200E,  # LEFT-TO-RIGHT MARK
    0x200F,  # RIGHT-TO-LEFT MARK
    0x2028,  # LINE SEPARATOR
    0x2029,  # PARAGRAPH SEPARATOR
    *range(0x202A, 0x202F),  # LRE RLE PDF LRO RLO
    *range(0x2066, 0x206A),  # LRI RLI FSI PDI
)
_UNSAFE: Final = (*range(0x00, 0x20), *range(0x7F, 0xA0), *_BIDI)


def _shown(cp: int) -> str:
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


_TABLE: Final = {cp: _shown(cp) for cp in _UNSAFE}
_KEEP_NEWLINE: Final = {cp: s for cp, s in _TABLE.items() if cp != 0x0A}
# Inside a JSON string C0 is already escaped by every encoder; C1 and bidi are not.
_JSON_TABLE: Final = {cp: f"\\u{cp:04x}" for cp in _UNSAFE if cp >= 0x7F}


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control, DEL, C1 and bidi override shown escaped.

    `keep_newlines=True` leaves `\\n` alone, for multi-line text the caller itself lays
    out (each line is still free of every other control).
    """
    return text.translate(_KEEP_NEWLINE if keep_newlines else _TABLE)


def json_printable(text: str) -> str:
    """JSON text with C1 controls, DEL and bidi overrides as `\\uXXXX` escapes (same value)."""
    return text.translate(_JSON_TABLE)


def terminal_columns() -> int:
    """The CLI's terminal width, as `shutil.get_terminal_size` has it without importing
    `shutil`: COLUMNS, else stdout's terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):  # not a terminal, or a closed stream
            columns = 0
    return columns if columns > 0 else 80
