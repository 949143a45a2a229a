"""Which of an MCP registry entry's values are secrets (env values, header values, URL
credentials): the `Masker` that hides them in everything nika shows of that server — error
details, log lines, and tool results, which reach models and traces."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from nika.masking import Masker

_MIN_LEN: Final = 6  # shorter values ("1", "true") are not credentials; masking them garbles text


def registry_masker(values: Iterable[str]) -> Masker:
    """The masker of one registry entry's `values`: those of 6+ characters count as secrets."""
    return Masker(v for v in values if len(v) >= _MIN_LEN)
