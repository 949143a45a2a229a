"""Source positions as the Language Server Protocol counts them: 0-based lines, UTF-16 code
units within a line (the protocol's default `positionEncoding`).

The checker's `Location` is 1-based, columns in code points; a column past a line's end is
clamped to it, so a range never points outside the text it was computed from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Lines:
    """A document split once into lines, for repeated position conversions."""

    lines: tuple[str, ...]

    @staticmethod
    def of(text: str) -> Lines:
        return Lines(tuple(text.split("\n")))

    def line(self, index: int) -> str:
        """The text of 0-based line `index` (empty past the end), without its newline."""
        if 0 <= index < len(self.lines):
            return self.lines[index].rstrip("\r")
        return ""

    def utf16(self, line: int, char: int) -> int:
        """The UTF-16 offset of code-point column `char` on 0-based `line` (clamped)."""
        text = self.line(line)
        prefix = text[: max(0, min(char, len(text)))]
        return len(prefix.encode("utf-16-le")) // 2

    def chars(self, line: int, utf16: int) -> int:
        """The code-point column of UTF-16 offset `utf16` on 0-based `line` (clamped)."""
        units = 0
        for i, ch in enumerate(self.line(line)):
            if units >= utf16:
                return i
            units += 2 if ord(ch) > 0xFFFF else 1
        return len(self.line(line))

    def token_range(self, line1: int, column1: int) -> dict[str, Any]:
        """The LSP range of the token starting at 1-based (`line1`, `column1`): a quoted
        scalar up to its closing quote, else the run of characters up to `:`, space or end."""
        line, start = line1 - 1, column1 - 1
        text = self.line(line)
        end = start
        if start < len(text) and text[start] in "'\"":
            close = text.find(text[start], start + 1)
            end = len(text) if close < 0 else close + 1
        else:
            while end < len(text) and text[end] not in ": \t,}]#":
                end += 1
        return span(line, self.utf16(line, start), line, self.utf16(line, end))


def span(line: int, start: int, end_line: int, end: int) -> dict[str, Any]:
    """An LSP `Range` as JSON data."""
    return {"start": {"line": line, "character": start},
            "end": {"line": end_line, "character": end}}
