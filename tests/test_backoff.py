"""THE backoff formula (`nika.backoff`), and that a task's `retry:` and a provider call both
wait by it."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from nika.agent.fakes import ScriptedProvider
from nika.backoff import backoff_delay
from nika.errors import NikaError
from nika.providers.retry import RetryingProvider
from nika.run.retry import backoff_seconds
from nika.syntax.task_blocks import Retry


def test_strategies_grow_then_the_cap_holds() -> None:
    rng = random.Random(0)
    grow = [backoff_delay(100, n, cap=500, rng=rng, jitter=False) for n in range(1, 6)]
    assert grow == [100.0, 200.0, 400.0, 500.0, 500.0]
    linear = [backoff_delay(100, n, cap=10**6, rng=rng, strategy="linear", jitter=False)
              for n in (1, 2, 3)]
    assert linear == [100.0, 200.0, 300.0]
    assert backoff_delay(100, 9, cap=10**6, rng=rng, strategy="fixed", jitter=False) == 100.0
    assert backoff_delay(100, 10**6, cap=10**30, rng=rng, jitter=False) == 100.0 * 2**62


@given(st.integers(0, 10**6), st.integers(1, 100), st.integers(0, 10**7), st.integers(0, 99))
def test_equal_jitter_stays_in_the_upper_half(base: int, attempt: int, cap: int, seed: int) -> None:
    plain = backoff_delay(base, attempt, cap=cap, rng=random.Random(seed), jitter=False)
    jittered = backoff_delay(base, attempt, cap=cap, rng=random.Random(seed))
    assert plain / 2 <= jittered <= plain


@given(st.integers(1, 12), st.integers(0, 99))
def test_the_task_retry_and_the_provider_retry_wait_by_the_same_formula(
    attempt: int, seed: int
) -> None:
    policy = Retry(20, backoff_ms=1000, backoff_max_ms=60_000)
    task_wait = backoff_seconds(policy, attempt, random.Random(seed))
    provider = RetryingProvider(ScriptedProvider([]), base_delay=1.0, max_delay=60.0,
                                rng=random.Random(seed))
    provider_wait = provider.delay(attempt, NikaError("NIKA-INFER-001", "busy"))
    formula = backoff_delay(1.0, attempt, cap=60.0, rng=random.Random(seed))
    assert provider_wait == formula
    assert abs(task_wait - formula) <= 1e-9 * max(1.0, formula)
