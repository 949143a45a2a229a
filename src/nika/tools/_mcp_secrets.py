"""Masking of registry secrets (env values, header values, URL credentials) in any text nika
shows: error details, log lines, and tool results, which reach models and traces."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

MASK: Final = "***"
_MIN_LEN: Final = 6  # shorter values ("1", "true") are not credentials; masking them garbles text


def mask(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret of 6+ characters replaced by `***`, longest first, so that no
    secret leaks in part through a shorter one that it contains."""
    for secret in sorted((s for s in secrets if len(s) >= _MIN_LEN), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def mask_value(value: Any, secrets: tuple[str, ...]) -> Any:
    """A JSON-like value with `mask` applied to every string in it, keys included."""
    if isinstance(value, str):
        return mask(value, secrets)
    if isinstance(value, dict):
        return {mask_value(k, secrets): mask_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_value(v, secrets) for v in value]
    return value
