from __future__ import annotations

from collections.abc import Callable

import pytest

from nika.tools.builtins import BuiltinExecutor


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("nika:chart", "NIKA-IMPL-002"),
        ("nika:decide", "NIKA-IMPL-002"),
        ("nika:image_fx", "NIKA-IMPL-002"),
        ("nika:image_generate", "NIKA-BUILTIN-IMAGE_GENERATE-002"),
        ("nika:tts_generate", "NIKA-BUILTIN-TTS_GENERATE-002"),
    ],
)
async def test_unsupported_builtins_refuse_clearly(
    make: Callable[..., BuiltinExecutor], name: str, code: str
):
    result = await make().call(name, {"prompt": "x", "output_dir": "out"})
    assert result.error is not None and result.error.code == code
    assert "does not support" in result.error.detail
