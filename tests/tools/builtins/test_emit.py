from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nika.tools.builtins import BuiltinExecutor


async def test_emit_delivers_a_shape_valid_event(make: Callable[..., BuiltinExecutor]):
    got: list[tuple[str, Any]] = []
    ex = make(events=lambda kind, fields: got.append((kind, dict(fields))))
    result = await ex.call("nika:emit", {"event_type": "deploy.done", "payload": [1, 2]})
    assert not result.is_error
    assert got == [("emit", {"event_type": "deploy.done", "payload": [1, 2], "task": "t1"})]


async def test_emit_refuses_a_bad_event_type_with_its_own_code(
    make: Callable[..., BuiltinExecutor],
):
    result = await make().call("nika:emit", {"event_type": "Deploy Done"})
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-EMIT-001"
    assert result.error.category == "validation_error"
