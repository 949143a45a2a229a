"""THE secret masker: every value nika must never show is hidden by one `Masker`, with one
glyph, `••••••` (04 §secrets).

The run's masker holds the workflow's resolved secrets: the bus masks every event with it,
the report masks itself, error details, stdout lines and builtin results pass through it. An
MCP server's masker holds its registry entry's credentials (`tools/_mcp_secrets.py` chooses
which values count). It replaces every occurrence of a value inside any string, at any
depth, keys included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from nika.errors import NikaError

MASK: Final = "••••••"


class Masker:
    """Hides known secret values. Longest values first, so one secret inside another is
    still fully hidden. With no secrets it is the identity (the hot path of a clean run)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values = tuple(sorted({v for v in values if v}, key=lambda v: (-len(v), v)))

    @property
    def active(self) -> bool:
        return bool(self._values)

    def text(self, text: str) -> str:
        """`text` with every secret value replaced."""
        for value in self._values:
            if value in text:
                text = text.replace(value, MASK)
        return text

    def __call__(self, value: Any) -> Any:
        """`value` (any JSON-shaped data) with every secret hidden, at any depth."""
        if not self._values:
            return value
        return self._mask(value)

    def _mask(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self._mask(k) if isinstance(k, str) else k: self._mask(v)
                    for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._mask(v) for v in value]
        return value

    def error(self, error: NikaError) -> NikaError:
        """A copy of `error` whose detail and details carry no secret."""
        if not self._values:
            return error
        return NikaError(
            error.code,
            self.text(error.detail),
            category=error.category,
            transient=error.transient,
            details=self._mask(dict(error.details)),
            location=error.location,
        )
