"""`RetryingProvider`: the one retry policy for provider calls (the SDKs' own retries are off).

Only transient `NikaError`s are retried (spec 05 §Retry policy), with `nika.backoff`'s
exponential, equal-jitter formula (the one a task's `retry:` uses too); a `retry_after_secs`
the server sent is a floor on the wait.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Final

from nika.agent.seams import ModelRequest, ModelResponse, Provider
from nika.backoff import backoff_delay
from nika.errors import NikaError

log: Final = logging.getLogger(__name__)


class RetryingProvider:
    """Wraps a `Provider`; `max_attempts` counts the first try.

    The wait before attempt n+1 is `min(max_delay, base_delay * 2**(n-1))`, jittered into its
    upper half, and never shorter than the error's `retry_after_secs`. When the server asks for
    longer than `max_delay`, retrying early would only earn another refusal, so the error is
    raised at once (its `retry_after_secs` intact for the task-level `retry:`).
    `rng` defaults to a fresh, OS-seeded generator so concurrent runs do not retry in lockstep;
    tests inject a seeded one, and `sleep` so no test waits on the clock.
    """

    def __init__(
        self,
        inner: Provider,
        *,
        max_attempts: int = 3,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.inner = inner
        self._max_attempts = max_attempts
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._sleep = sleep
        self._rng = rng if rng is not None else random.Random()

    async def aclose(self) -> None:
        """Close the wrapped provider's resources, when it holds any."""
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()

    def delay(self, attempt: int, error: NikaError) -> float | None:
        """Seconds to wait after failed attempt `attempt` (1-based); None = do not retry."""
        wait = backoff_delay(self._base_delay, attempt, cap=self._max_delay, rng=self._rng)
        asked = error.details.get("retry_after_secs")
        if isinstance(asked, int | float):
            if asked > self._max_delay:
                return None
            return max(wait, float(asked))
        return wait

    async def complete(self, request: ModelRequest) -> ModelResponse:
        attempt = 1
        while True:
            try:
                return await self.inner.complete(request)
            except NikaError as error:
                if not error.transient or attempt >= self._max_attempts:
                    raise
                wait = self.delay(attempt, error)
                if wait is None:
                    raise
                log.info(
                    "provider call failed (%s, attempt %d/%d); retrying in %.2fs: %s",
                    error.code,
                    attempt,
                    self._max_attempts,
                    wait,
                    error.detail,
                )
                await self._sleep(wait)
                attempt += 1
