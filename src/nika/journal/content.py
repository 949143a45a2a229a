"""A run's content in its journal: prompts, replies, tool arguments and results, task inputs
and outputs — each value whole up to a cap, else its head with the size and digest of the whole.

A journal line must stay under the verifier's 1 MiB bound, and one frame may carry several
content fields, so each is capped at `CONTENT_CAP` bytes of its escaped JSON (what the line
actually spends on it: a string's escaped body, any other value's JSON text).
`captured(value)` is the value itself under the cap; over it, the wire value is the mapping
`{"truncated": <head>, "bytes": <size>, "sha256": <hex>}` — the head cut at a character
boundary, the size and the SHA-256 of the whole text (a string as it is, any other value as
its canonical JSON), in UTF-8.

Capture runs at serialization (`wire.wire`), after the bus masked the frame (`wire.mask_frame`):
the head, the size and the digest are all of the masked text, so a cut never leaves half a
secret in the head and the digest never commits to one.

`Captured.from_wire` reads either shape back (the journal is untrusted: anything else is
read as the JSON text of whatever is there).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from nika.canonical import loose_json

CONTENT_CAP: Final = 64 * 1024
"""Bytes of escaped JSON one content field may spend on a journal line."""

_KEYS: Final = frozenset({"truncated", "bytes", "sha256"})
_WIDEST: Final = 6
"""The most bytes one character spells as in a JSON string (`\\u001f`)."""


def escaped_size(text: str) -> int:
    """Bytes of `text` as a JSON string's body (no quotes), as a journal line spends them."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def _text(value: Any) -> str:
    return value if isinstance(value, str) else loose_json(value)


def _head(text: str, budget: int) -> str:
    """The longest prefix of `text` whose escaped JSON fits `budget` bytes (whole chars).

    JSON escapes character by character, so the escaped prefix cut at `budget` bytes is the
    escaped form of a prefix of `text`, but for a partial UTF-8 sequence (dropped by the
    decode) or a partial escape (`\\u00`, at most five characters: dropped until it parses)."""
    body = json.dumps(text[:budget], ensure_ascii=False)[1:-1]  # each char costs >= 1 byte
    cut = body.encode("utf-8")[:budget].decode("utf-8", errors="ignore")
    ends = range(len(cut), max(len(cut) - _WIDEST, 0) - 1, -1)
    return next(head for end in ends if (head := _parsed(cut[:end])) is not None)


def _parsed(body: str) -> str | None:
    try:
        text: str = json.loads(f'"{body}"')
    except ValueError:
        return None
    return text


def captured(value: Any, cap: int = CONTENT_CAP) -> Any:
    """`value` as a journal writes it: itself when its escaped JSON fits `cap` bytes, else
    `{"truncated": head, "bytes": size, "sha256": hex}` (see the module doc)."""
    if isinstance(value, str):
        if len(value) * _WIDEST <= cap or (len(value) <= cap and escaped_size(value) <= cap):
            return value
        text = value
    else:
        text = loose_json(value)
        if len(text.encode("utf-8")) <= cap:  # what the value spends on the line, as itself
            return value
    data = text.encode("utf-8")
    return {"truncated": _head(text, cap), "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()}


@dataclass(frozen=True, slots=True)
class Captured:
    """One content field read back: its text (whole, or the head when `truncated`), the size
    in UTF-8 bytes of the whole text, and its SHA-256 (recorded only for a truncated value)."""

    text: str
    truncated: bool = False
    bytes: int = 0
    sha256: str | None = None

    @classmethod
    def of(cls, value: Any) -> Captured:
        """A value held whole: a string as it is, anything else as its JSON text."""
        text = _text(value)
        return cls(text, False, len(text.encode("utf-8")), None)

    @classmethod
    def from_wire(cls, value: Any) -> Captured | None:
        """The field as a journal holds it; None when the journal does not record it."""
        if value is None:
            return None
        if isinstance(value, Mapping) and value.keys() == _KEYS:
            head, size, digest = value["truncated"], value["bytes"], value["sha256"]
            if isinstance(head, str) and isinstance(digest, str) and \
                    isinstance(size, int) and not isinstance(size, bool):
                return cls(head, True, size, digest)
        return cls.of(value)
