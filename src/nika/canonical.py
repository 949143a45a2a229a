"""THE canonical JSON spelling: keys sorted at every depth, no insignificant whitespace, text
kept as UTF-8 (never `\\u`-escaped).

Everything nika writes as JSON for a machine — hashes (journal chain, task identity, receipt
digest), turn signatures, frame payloads, reports, `--json` lines, tool results — is spelled
here, so the same value is the same bytes wherever it is written or hashed.

`canonical_json` is strict: a non-finite number is a `ValueError`, a value JSON has no form for
a `TypeError` (unless `default` renders it). `loose_json` never fails, for what must always be
written (a frame, a report, a model's feedback): those become their text (`NaN`, `str(value)`).
`plain` makes any value JSON data first (a journal frame, a provider SDK's request body).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any


def canonical_json(value: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """The canonical JSON text of `value`; raises on what JSON cannot spell (see above)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False, default=default)


def canonical_bytes(value: Any, *, default: Callable[[Any], Any] | None = None) -> bytes:
    """`canonical_json` as UTF-8 bytes: what hashes read."""
    return canonical_json(value, default=default).encode("utf-8")


def loose_json(value: Any) -> str:
    """The canonical spelling that never fails: non-finite numbers as `NaN` / `Infinity`,
    any other value JSON has no form for as its `str()`."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)


def plain(value: Any) -> Any:
    """`value` as plain JSON data, a fresh copy: mappings become dicts with string keys, tuples
    and sets lists (sets sorted), bytes their size, non-finite floats and unknown objects their
    text — what it returns always serializes. JSON data comes back equal."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, bytes | bytearray):
        return {"bytes": len(value)}  # bytes are opaque (04): a frame names their size
    return str(value)
