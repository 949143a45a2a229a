from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nika.tools.builtins import BuiltinExecutor


async def test_log_lands_on_the_event_sink(make: Callable[..., BuiltinExecutor]):
    got: list[tuple[str, Any]] = []
    ex = make(events=lambda kind, fields: got.append((kind, dict(fields))))
    result = await ex.call("nika:log", {"level": "warn", "message": "hi", "data": {"n": 1}})
    assert not result.is_error and result.structured is None and result.content == "null"
    assert got == [("log", {"level": "warn", "message": "hi", "data": {"n": 1}, "task": "t1"})]


async def test_log_never_fails_when_it_cannot_land(make: Callable[..., BuiltinExecutor]):
    def down(kind: str, fields: Any) -> None:
        raise OSError("sink down")

    result = await make(events=down).call("nika:log", {"message": {"structured": True}})
    assert not result.is_error


async def test_log_refuses_an_unknown_level(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:log", {"level": "loud", "message": "x"})
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-001"
