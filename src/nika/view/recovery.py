"""What a task's terminal frame says about how it ended: its error, and what `on_error:
recover` settled it from — each the frame's own field, else the `outcome` record's payload
(13). The journal is untrusted: a field that is no mapping is unrecorded, never guessed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nika.journal.decoded import ReadTaskEnded, as_int, as_str


def _payload_entry(end: ReadTaskEnded, direct: Mapping[str, Any] | None,
                   key: str) -> Mapping[str, Any] | None:
    """`direct` (the terminal frame's own `key`), else `key` of its `outcome` record's payload
    (13), if a mapping."""
    if direct is not None:
        return direct
    outcome = end.outcome
    if isinstance(outcome, str) and len(outcome) < 1 << 20:
        try:
            outcome = json.loads(outcome)
        except ValueError:
            return None
    if isinstance(outcome, Mapping):
        payload = outcome.get("payload")
        if isinstance(payload, Mapping) and isinstance(payload.get(key), Mapping):
            found: Mapping[str, Any] = payload[key]
            return found
    return None


def task_error(end: ReadTaskEnded) -> Mapping[str, Any] | None:
    """The task's error: the `error` mapping, else the `outcome` record's, when one is
    there."""
    return _payload_entry(end, end.error, "error")


def recovered_from(end: ReadTaskEnded) -> Mapping[str, Any] | None:
    """What a terminal frame says `on_error: recover` settled the task from: the original
    error record (`code` … `task_id`, `attempt`), `{}` when a recovered task's frame does not
    record it (an older journal), None when the task was not recovered."""
    found = _payload_entry(end, end.recovered_from, "recovered_from")
    if found is not None:
        return found
    outcome = end.outcome
    return {} if isinstance(outcome, str) and '"cause":"recovered"' in outcome else None


def recovery_text(cause: Mapping[str, Any]) -> str:
    """`NIKA-X-001 · attempt 2 · item 3`, or « unrecorded » when the journal lacks it."""
    code = as_str(cause.get("code"))
    if code is None:
        return "unrecorded"
    parts = [code]
    attempt = as_int(cause.get("attempt"))
    if attempt is not None:
        parts.append(f"attempt {attempt}")
    details = cause.get("details")
    item = as_int(details.get("iteration")) if isinstance(details, Mapping) else None
    if item is not None:
        parts.append(f"item {item}")
    return " · ".join(parts)
