"""Secrets never cross the wire: every value going to or coming from a worker is *sealed*.

Sealing replaces each occurrence of a resolved secret inside any string (or bytes), at any
depth, with a placeholder naming the secret — `\\ue000secret:NAME\\ue001` (private-use code
points, which no YAML text or tool output produces by accident). The other side unseals with
ITS OWN resolution of the same declared reference: a worker substitutes the value it read
from its own `env` / `file` source, the driver the value it read at launch. So a `with:`
binding that embeds a secret, or an exec output that echoes one, travels through Ray's object
store as a name, never as the value.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Final

from nika.errors import NikaError

_OPEN: Final = "\ue000secret:"
_CLOSE: Final = "\ue001"
_PLACEHOLDER: Final = re.compile("\ue000secret:([A-Za-z_][A-Za-z0-9_-]*)\ue001")


def placeholder(name: str) -> str:
    """The sealed spelling of secret `name`."""
    return f"{_OPEN}{name}{_CLOSE}"


class Sealer:
    """Seals and unseals against one side's resolved secrets (`name -> value`)."""

    def __init__(self, secrets: Mapping[str, str]) -> None:
        self._values = dict(secrets)
        # Longest values first, so a secret inside another is sealed whole.
        self._order = sorted(((v, n) for n, v in secrets.items() if v),
                             key=lambda pair: (-len(pair[0]), pair[1]))
        self._bytes = [(v.encode(), placeholder(n).encode()) for v, n in self._order]

    def seal(self, value: Any) -> Any:
        """`value` with every secret replaced by its placeholder."""
        if not self._order:
            return value
        return _walk(value, self._seal_text, self._seal_bytes)

    def unseal(self, value: Any) -> Any:
        """`value` with every placeholder replaced by this side's value of that secret."""
        if not self._values:
            return value
        return _walk(value, self._unseal_text, self._unseal_bytes)

    def _seal_text(self, text: str) -> str:
        for secret, name in self._order:
            if secret in text:
                text = text.replace(secret, placeholder(name))
        return text

    def _seal_bytes(self, data: bytes) -> bytes:
        for secret, sealed in self._bytes:
            if secret in data:
                data = data.replace(secret, sealed)
        return data

    def _unseal_text(self, text: str) -> str:
        if _OPEN not in text:
            return text
        return _PLACEHOLDER.sub(lambda m: self._values.get(m.group(1), m.group(0)), text)

    def _unseal_bytes(self, data: bytes) -> bytes:
        if _OPEN.encode() not in data:
            return data
        return self._unseal_text(data.decode("utf-8", "surrogateescape")).encode(
            "utf-8", "surrogateescape")


def _walk(value: Any, text: Any, data: Any) -> Any:
    if isinstance(value, str):
        return text(value)
    if isinstance(value, bytes):
        return data(value)
    if isinstance(value, Mapping):
        return {_walk(k, text, data): _walk(v, text, data) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, text, data) for v in value]
    if isinstance(value, tuple):
        return tuple(_walk(v, text, data) for v in value)
    if isinstance(value, NikaError):  # a typed frame's error travels sealed too
        return NikaError(value.code, text(value.detail), category=value.category,
                         transient=value.transient, details=_walk(dict(value.details), text, data),
                         location=value.location)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _walk(getattr(value, f.name), text, data)
                   for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    return value
