"""The attempt loop's policy (05 §retry): which failures retry, and how long to wait.

Retries are for transient errors (`error.transient`), or — when `on_codes` is given —
exactly the listed codes. A timeout never retries: the task clock already covered the
attempts. The wait is `nika.backoff`'s formula (the one provider calls use too) over the
policy's `backoff_ms`, `backoff_strategy`, `backoff_max_ms` and `jitter`.
"""

from __future__ import annotations

import random

from nika import codes
from nika.backoff import backoff_delay
from nika.errors import NikaError
from nika.syntax.task_blocks import Retry

TIMEOUT_CODE = codes.TIMEOUT_001


def should_retry(policy: Retry | None, error: NikaError, attempt: int) -> bool:
    """Whether attempt number `attempt` (1-based) failing with `error` earns another try."""
    if policy is None or attempt >= policy.max_attempts or error.code == TIMEOUT_CODE:
        return False
    if policy.on_codes:
        return error.code in policy.on_codes
    return error.transient


def backoff_seconds(policy: Retry, attempt: int, rng: random.Random) -> float:
    """The wait after failed attempt `attempt` (1-based), in seconds."""
    delay_ms = backoff_delay(policy.backoff_ms, attempt, cap=policy.backoff_max_ms, rng=rng,
                             strategy=policy.backoff_strategy, jitter=policy.jitter)
    return delay_ms / 1000.0
