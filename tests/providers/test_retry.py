"""`RetryingProvider`: which errors are retried, how long it waits, when it gives up."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from nika.agent.seams import ModelRequest, ModelResponse, UserMessage
from nika.errors import NikaError
from nika.providers.retry import RetryingProvider

REQUEST = ModelRequest("openai/x", None, (UserMessage("hi"),))
OK = ModelResponse("ok")


def transient(retry_after: float | None = None) -> NikaError:
    details = {} if retry_after is None else {"retry_after_secs": retry_after}
    return NikaError("NIKA-INFER-001", "HTTP 503", transient=True, details=details)


PERMANENT = NikaError("NIKA-INFER-001", "HTTP 400", transient=False)


class Flaky:
    """Raises the scripted outcomes in order, then answers OK."""

    def __init__(self, outcomes: Sequence[BaseException]) -> None:
        self.outcomes = list(outcomes)
        self.calls = 0
        self.closed = False

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        if self.outcomes:
            raise self.outcomes.pop(0)
        return OK

    async def aclose(self) -> None:
        self.closed = True


class Sleeps(list[float]):
    async def __call__(self, secs: float) -> None:
        self.append(secs)


def retrying(inner: Flaky, sleeps: Sleeps, **kw: float) -> RetryingProvider:
    return RetryingProvider(inner, sleep=sleeps, rng=random.Random(0), **kw)  # type: ignore[arg-type]


async def test_transient_errors_are_retried_until_success() -> None:
    inner, sleeps = Flaky([transient(), transient()]), Sleeps()
    assert await retrying(inner, sleeps, max_attempts=3).complete(REQUEST) is OK
    assert inner.calls == 3 and len(sleeps) == 2


async def test_the_last_error_surfaces_when_attempts_run_out() -> None:
    last = transient()
    inner, sleeps = Flaky([transient(), transient(), last]), Sleeps()
    with pytest.raises(NikaError) as info:
        await retrying(inner, sleeps, max_attempts=3).complete(REQUEST)
    assert info.value is last
    assert inner.calls == 3 and len(sleeps) == 2


@pytest.mark.parametrize("error", [PERMANENT, ValueError("a bug, not a provider error")])
async def test_non_transient_failures_are_never_retried(error: Exception) -> None:
    inner, sleeps = Flaky([error]), Sleeps()
    with pytest.raises(type(error)):
        await retrying(inner, sleeps, max_attempts=5).complete(REQUEST)
    assert inner.calls == 1 and sleeps == []


async def test_backoff_is_exponential_jittered_and_capped() -> None:
    inner, sleeps = Flaky([transient()] * 6), Sleeps()
    await retrying(inner, sleeps, max_attempts=7, base_delay=1.0, max_delay=10.0).complete(REQUEST)
    ceilings = [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert len(sleeps) == len(ceilings)
    for slept, ceiling in zip(sleeps, ceilings, strict=True):
        assert ceiling / 2 <= slept <= ceiling


async def test_retry_after_is_a_floor() -> None:
    inner, sleeps = Flaky([transient(retry_after=9.0)]), Sleeps()
    await retrying(inner, sleeps, base_delay=0.1, max_delay=30.0).complete(REQUEST)
    assert len(sleeps) == 1 and sleeps[0] >= 9.0


async def test_retry_after_beyond_max_delay_gives_up_at_once() -> None:
    error = transient(retry_after=3600.0)
    inner, sleeps = Flaky([error]), Sleeps()
    with pytest.raises(NikaError) as info:
        await retrying(inner, sleeps, max_attempts=5, max_delay=60.0).complete(REQUEST)
    assert info.value is error and info.value.details["retry_after_secs"] == 3600.0
    assert inner.calls == 1 and sleeps == []


def test_seeded_jitter_is_reproducible() -> None:
    a = RetryingProvider(Flaky([]), rng=random.Random(7))
    b = RetryingProvider(Flaky([]), rng=random.Random(7))
    delays_a = [a.delay(n, transient()) for n in range(1, 6)]
    assert delays_a == [b.delay(n, transient()) for n in range(1, 6)]


def test_max_attempts_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryingProvider(Flaky([]), max_attempts=0)


async def test_aclose_reaches_the_inner_provider() -> None:
    inner = Flaky([])
    await RetryingProvider(inner).aclose()
    assert inner.closed
