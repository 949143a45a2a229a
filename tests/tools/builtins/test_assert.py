from __future__ import annotations

from collections.abc import Callable

from nika.tools.builtins import BuiltinExecutor


async def test_assert_passes_with_true(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:assert", {"condition": True, "message": "never shown"})
    assert not result.is_error and result.structured is True


async def test_assert_fails_with_the_message(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:assert", {"condition": False, "message": "n must be 4"})
    assert result.error is not None
    assert result.error.code == "NIKA-BUILTIN-ASSERT-001"
    assert result.error.category == "tool_error"
    assert "n must be 4" in result.error.detail


async def test_assert_refuses_a_non_boolean_condition(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:assert", {"condition": "x > 1"})
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-001"
