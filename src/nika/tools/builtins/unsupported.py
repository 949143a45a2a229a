"""Declared builtins this engine does not serve: the §Media class (chart · image_fx ·
image_generate · tts_generate) and the decision kernel (`nika:decide`, spec 11).

Each name still answers, with a definite refusal naming what is missing, so a workflow learns
it at its first call rather than as an unknown tool. image_generate / tts_generate use their
own "provider unavailable" code (-002, the spec's "plane unwired"); the others have no such
code and use `NIKA-IMPL-002`. Their definitions say so, so a model reading them does not
call them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika.tools.builtins._base import Builtin, Context, Runner, fail

_CODES: Final = {
    "nika:chart": "NIKA-IMPL-002",
    "nika:decide": "NIKA-IMPL-002",
    "nika:image_fx": "NIKA-IMPL-002",
    "nika:image_generate": "NIKA-BUILTIN-IMAGE_GENERATE-002",
    "nika:tts_generate": "NIKA-BUILTIN-TTS_GENERATE-002",
}
_WHY: Final = {
    "nika:decide": "the decision kernel (spec 11) is not wired; apply the rubric with nika:jq",
}
_MEDIA: Final = (
    "no media plane is wired; produce the asset with an `exec:` task or an MCP tool instead"
)


def _refuse(name: str) -> Runner:
    async def run(args: Mapping[str, Any], ctx: Context) -> None:
        raise fail(
            _CODES[name],
            f"{name} is a stdlib builtin this engine does not support: {_WHY.get(name, _MEDIA)}",
            tool=name,
        )

    return run


BUILTINS: Final = tuple(
    Builtin(
        name=name,
        description=f"{name} — NOT supported by this engine: every call is refused.",
        schema={"type": "object"},
        run=_refuse(name),
    )
    for name in sorted(_CODES)
)
