"""The `nika:*` builtins, served through the agent's `ToolExecutor` seam.

`BuiltinExecutor` answers every stdlib v0.1 builtin except the loop-served intrinsics
(`nika:done`, `nika:compose` — the agent loop owns them). A call goes: args judged by the
builtin's declaration (`nika.stdlib` — the check's judge and codes: `NIKA-BUILTIN-001`, or the
builtin's own code, naming the failing path) → the builtin runs, judging each fs/net effect
BEFORE it happens → the value (or the failure) comes back as a `ToolResult` with every string
passed through the secret masker. Failures never raise out of `call`: a `NikaError` —
security refusals included — becomes an error result (a `ToolFailure`, transience as the
builtin's `NikaError` set it) at ONE boundary here, and the caller decides what ends the run
by its category.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from nika import codes
from nika.agent.intrinsic import is_loop_only
from nika.agent.seams import ToolDefinition, ToolFailure, ToolName, ToolResult
from nika.errors import NikaError
from nika.masking import Masker
from nika.syntax.template import render_json
from nika.tools.builtins import (
    assertion,
    chart,
    convert,
    date,
    decide,
    edit,
    emit,
    fetch,
    glob,
    grep,
    hash,
    image_fx,
    image_generate,
    inspect,
    jq,
    json_diff,
    json_merge_patch,
    log,
    notify,
    prompt,
    read,
    tts,
    uuid,
    validate,
    wait,
    write,
)
from nika.tools.builtins._base import (
    Builtin,
    Context,
    EffectJudge,
    EntrySink,
    InspectSource,
    PromptIO,
)
from nika.tools.builtins.prompt import TerminalPromptIO

__all__ = [
    "BUILTINS",
    "BuiltinExecutor",
    "Context",
    "EffectJudge",
    "EntrySink",
    "InspectSource",
    "PromptIO",
    "TerminalPromptIO",
]

_MODULES: Final = (
    assertion, chart, convert, date, decide, edit, emit, fetch, glob, grep, hash, image_fx,
    image_generate, inspect, jq, json_diff, json_merge_patch, log, notify, prompt, read, tts,
    uuid, validate, wait, write,
)  # fmt: skip

BUILTINS: Final[Mapping[str, Builtin]] = {
    b.name: b
    for b in sorted((m.BUILTIN for m in _MODULES), key=lambda b: b.name)
}
"""Every builtin `call` answers, sorted by name."""

_LOOP_SERVED: Final = frozenset({"nika:done", "nika:compose"})




class BuiltinExecutor:
    """Serves the `nika:*` builtins to `invoke:` tasks and agent loops (`ToolExecutor`).

    `context` is everything a builtin may touch besides its args (`Context`: the workflow's
    directory, the effect judge, the human, the injectable clock …). `masker` hides secrets
    in every content, detail and value. One executor per task is cheap (`for_task`).
    """

    def __init__(self, context: Context, *, masker: Masker | None = None) -> None:
        self._ctx = context
        self._mask = masker or Masker()
        self._definitions = tuple(
            ToolDefinition(ToolName(b.name), b.description, b.schema, source="builtin")
            for b in BUILTINS.values()
        )

    def for_task(self, task: str, *, data_as_code_lifted: bool = False) -> BuiltinExecutor:
        """A copy bound to another task (its effects are judged under that task's id)."""
        other = copy.copy(self)
        other._ctx = replace(self._ctx, task=task, data_as_code_lifted=data_as_code_lifted)
        return other

    def definitions(self) -> Sequence[ToolDefinition]:
        """Every builtin, sorted by name."""
        return self._definitions

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        """Validate, run, and wrap one builtin call; never raises for a tool-side failure."""
        builtin = BUILTINS.get(name)
        if builtin is None:
            return self._failure(self._unknown(name))
        plain = dict(args)
        refusal = builtin.declaration.refusal(plain)  # the check's judge, on resolved args
        if refusal is not None:
            return self._failure(refusal.error(name))
        try:
            return self._success(await builtin.run(plain, self._ctx))
        except NikaError as err:
            return self._failure(err)
        except Exception as exc:  # the one boundary: a crash is reported, never propagated
            return self._failure(
                NikaError(
                    codes.IMPL_001,
                    f"{name} failed unexpectedly ({type(exc).__name__}: {exc}); this is an engine "
                    "bug — please report it with the task's args",
                    details={"tool": name},
                )
            )

    def _unknown(self, name: str) -> NikaError:
        if is_loop_only(name) or name in _LOOP_SERVED:
            return NikaError(
                codes.INVOKE_001,
                f"`{name}` is served by the agent loop itself; "
                "it is valid only inside an `agent:` task's `tools:` whitelist",
                details={"tool": name},
            )
        close = difflib.get_close_matches(name, sorted(BUILTINS), n=1)
        hint = f" — did you mean `{close[0]}`?" if close else ""
        return NikaError(
            codes.INVOKE_001,
            f"`{name}` is not a builtin this executor serves{hint}",
            details={"tool": name},
        )

    def _success(self, value: Any) -> ToolResult:
        value = self._mask(value)
        if isinstance(value, str):
            content = value
        elif isinstance(value, bytes | bytearray):
            content = f"<{len(value)} bytes>"
        else:
            content = render_json(value)
        return ToolResult(content=content, structured=value)

    def _failure(self, err: NikaError) -> ToolResult:
        failure = ToolFailure.of(err)
        return ToolResult.failed(
            replace(failure, detail=self._mask.text(failure.detail),
                    details=self._mask(failure.details))
        )
