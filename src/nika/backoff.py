"""THE backoff formula: how long to wait before another try, for a task's `retry:` (05 §retry)
and for a provider call alike.

The delay after failed attempt n (1-based) grows by `strategy` — fixed `base`, linear
`base·n`, or exponential `base·2^(n-1)` — and is capped at `cap`. With `jitter` it is drawn
from the equal-jitter family: half the delay fixed, half uniformly random, so a herd of
retries desynchronizes while none fires immediately. Units are the caller's.
"""

from __future__ import annotations

import random
from typing import Literal

Strategy = Literal["fixed", "linear", "exponential"]


def backoff_delay(base: float, attempt: int, *, cap: float, rng: random.Random,
                  strategy: Strategy = "exponential", jitter: bool = True) -> float:
    """The wait after failed attempt `attempt` (1-based), in `base`'s unit."""
    base = max(0, base)
    if strategy == "fixed":
        delay = float(base)
    elif strategy == "linear":
        delay = float(base * attempt)
    else:
        delay = float(base * 2 ** min(attempt - 1, 62))
    delay = min(delay, float(max(0, cap)))
    if jitter and delay > 0:
        delay = delay / 2 + rng.uniform(0, delay / 2)
    return delay
