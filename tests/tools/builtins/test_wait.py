from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from nika.tools.builtins import BuiltinExecutor

NOW = datetime(2026, 5, 23, 9, 0, 0, tzinfo=UTC)


def _fake_timer() -> tuple[list[float], Callable[[float], object]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    return slept, sleep


async def test_wait_duration_sleeps_that_long(make: Callable[..., BuiltinExecutor]):
    slept, sleep = _fake_timer()
    result = await make(sleep=sleep).call("nika:wait", {"duration": "1m30s"})
    assert not result.is_error and slept == [90.0]


async def test_wait_until_sleeps_the_remainder(make: Callable[..., BuiltinExecutor]):
    slept, sleep = _fake_timer()
    ex = make(sleep=sleep, now=lambda: NOW)
    result = await ex.call("nika:wait", {"until": "2026-05-23T09:00:05Z", "timeout": "1m"})
    assert not result.is_error and slept == [5.0]


async def test_wait_needs_exactly_one_mode(make: Callable[..., BuiltinExecutor]):
    both = await make().call("nika:wait", {"duration": "1s", "until": "2026-05-23T09:00:05Z"})
    none = await make().call("nika:wait", {})
    assert both.error is not None and both.error.code == "NIKA-BUILTIN-WAIT-003"
    assert none.error is not None and none.error.code == "NIKA-BUILTIN-WAIT-003"


async def test_wait_until_in_the_past_and_beyond_timeout(make: Callable[..., BuiltinExecutor]):
    slept, sleep = _fake_timer()
    ex = make(sleep=sleep, now=lambda: NOW)
    past = await ex.call("nika:wait", {"until": "2026-05-23T08:00:00Z"})
    late = await ex.call("nika:wait", {"until": "2026-05-23T10:00:00Z", "timeout": "5m"})
    assert past.error is not None and past.error.code == "NIKA-BUILTIN-WAIT-002"
    assert late.error is not None and late.error.code == "NIKA-BUILTIN-WAIT-001"
    assert late.error.category == "timeout_error"
    assert slept == []


async def test_wait_refuses_a_bad_duration(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:wait", {"duration": "soon"})
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-001"
    assert "soon" in result.error.detail
