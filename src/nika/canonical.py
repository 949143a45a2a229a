"""THE canonical JSON spelling: keys sorted at every depth, no insignificant whitespace, text
kept as UTF-8 (never `\\u`-escaped).

Everything nika writes as JSON for a machine — hashes (journal chain, task identity, receipt
digest), turn signatures, frame payloads, reports, `--json` lines, tool results — is spelled
here, so the same value is the same bytes wherever it is written or hashed.

`canonical_json` is strict: a non-finite number is a `ValueError`, a value JSON has no form for
a `TypeError` (unless `default` renders it). `loose_json` never fails, for what must always be
written (a frame, a report, a model's feedback): those become their text (`NaN`, `str(value)`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
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
