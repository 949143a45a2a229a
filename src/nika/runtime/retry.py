"""The attempt loop's policy (05 §retry): which failures retry, and how long to wait.

Retries are for transient errors (`error.transient`), or — when `on_codes` is given —
exactly the listed codes. A timeout never retries: the task clock already covered the
attempts. The wait follows `backoff_strategy`, capped at `backoff_max_ms`; `jitter` uses
the equal-jitter family (half the delay fixed, half random) so herds desynchronize while a
retry never fires immediately.
"""

from __future__ import annotations

import random

from nika.errors import NikaError
from nika.syntax.model import Retry

TIMEOUT_CODE = "NIKA-TIMEOUT-001"


def should_retry(policy: Retry | None, error: NikaError, attempt: int) -> bool:
    """Whether attempt number `attempt` (1-based) failing with `error` earns another try."""
    if policy is None or attempt >= policy.max_attempts or error.code == TIMEOUT_CODE:
        return False
    if policy.on_codes:
        return error.code in policy.on_codes
    return error.transient


def backoff_seconds(policy: Retry, attempt: int, rng: random.Random) -> float:
    """The wait after failed attempt `attempt` (1-based), in seconds."""
    base = max(0, policy.backoff_ms)
    if policy.backoff_strategy == "fixed":
        delay = float(base)
    elif policy.backoff_strategy == "linear":
        delay = float(base * attempt)
    else:
        delay = float(base * 2 ** min(attempt - 1, 62))
    delay = min(delay, float(max(0, policy.backoff_max_ms)))
    if policy.jitter and delay > 0:
        delay = delay / 2 + rng.uniform(0, delay / 2)
    return delay / 1000.0
