"""A minimal SVG document writer: elements in the order they are added, attributes in the
order given, text escaped and made XML-safe. No float reaches it: callers pass coordinates
already spelled (`_numfmt.coord`)."""

from __future__ import annotations

import re
from typing import Final

FONT: Final = "Helvetica, Arial, 'DejaVu Sans', 'Liberation Sans', sans-serif"
_UNSAFE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def text_safe(text: str) -> str:
    """`text` escaped for XML character data and attribute values; a character XML 1.0
    cannot hold (a control byte, a lone surrogate) becomes U+FFFD."""
    text = _UNSAFE.sub("\ufffd", text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


class Doc:
    """An SVG document under construction."""

    def __init__(self, width: int, height: int, title: str) -> None:
        self.width, self.height = width, height
        self._parts: list[str] = [
            '<?xml version="1.0" encoding="UTF-8"?>\n',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{text_safe(FONT)}" '
            'font-size="12" role="img">\n',
        ]
        if title:
            self._parts.append(f"<title>{text_safe(title)}</title>\n")

    def add(self, tag: str, text: str | None = None, **attrs: str | int) -> None:
        """One element; `attrs` keys spell `_` as `-` (`stroke_width` → `stroke-width`)."""
        spelled = "".join(f' {k.rstrip("_").replace("_", "-")}="{text_safe(str(v))}"'
                          for k, v in attrs.items())
        if text is None:
            self._parts.append(f"<{tag}{spelled}/>\n")
        else:
            self._parts.append(f"<{tag}{spelled}>{text_safe(text)}</{tag}>\n")

    def open(self, tag: str, **attrs: str | int) -> None:
        spelled = "".join(f' {k.rstrip("_").replace("_", "-")}="{text_safe(str(v))}"'
                          for k, v in attrs.items())
        self._parts.append(f"<{tag}{spelled}>\n")

    def close(self, tag: str) -> None:
        self._parts.append(f"</{tag}>\n")

    def bytes(self) -> bytes:
        return ("".join(self._parts) + "</svg>\n").encode("utf-8")
