"""Builtins this engine does not implement answer every call with the one code for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from nika.check.capability import UNSERVED
from nika.tools.builtins import BuiltinExecutor

WELL_FORMED: dict[str, dict[str, Any]] = {
    "nika:image_generate": {"prompt": "x", "output_dir": "out"},
}


@pytest.mark.parametrize("name", sorted(UNSERVED))
async def test_unsupported_builtins_refuse_clearly(
    make: Callable[..., BuiltinExecutor], name: str
):
    result = await make().call(name, WELL_FORMED[name])
    assert result.error is not None and result.error.code == "NIKA-IMPL-002"
    assert "does not implement" in result.error.detail and "nika run" in result.error.detail


@pytest.mark.parametrize("name", sorted(UNSERVED))
async def test_their_args_are_judged_first_as_the_check_judges_them(
    make: Callable[..., BuiltinExecutor], name: str
):
    result = await make().call(name, {})  # each requires an argument
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-001"
    assert "missing required arg" in result.error.detail


def test_their_definitions_say_so(make: Callable[..., BuiltinExecutor]) -> None:
    described = {str(d.name): d.description for d in make().definitions()}
    for name in UNSERVED:
        assert "NOT supported" in described[name]
