"""Rung: what this engine serves — the providers of a builtin it serves only in part (every
builtin of the closed stdlib set is implemented).

Calling such a builtin is valid Nika, so the verdict stays valid; each call site is an
engine-capability warning (a `NIKA-IMPL-002` hint, labelled as such by the human renderer
and carried under `hints` by `--json`). `nika run` reads these hints in its pre-flight and
refuses the workflow, before any task starts, with that one code; a call the check could not
see (a templated `provider:`, an agent reaching a builtin through a glob) is refused by the
builtin itself at call time, with the same code.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from nika import codes
from nika.check.context import CheckContext, Finding, Hint
from nika.syntax.model import InvokeBody

CODE: Final = codes.IMPL_002

SERVED_PROVIDERS: Final[Mapping[str, tuple[str, ...]]] = {
    "nika:tts_generate": ("local", "openai", "elevenlabs", "mock"),
}
"""Builtins served for some providers only: the ones served."""

INFERRED: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    "nika:tts_generate": (
        ("eleven", "elevenlabs"),
        ("gpt-", "openai"),
        ("tts-", "openai"),
        ("mock", "mock"),
    ),
}
"""A provider left out is inferred from `model:` by prefix (stdlib §Audio)."""


def call_provider(tool: str, args: Mapping[str, Any]) -> Any:
    """The call's provider: as written, else inferred from a literal `model:` (None when
    neither says)."""
    if "provider" in args:
        return args["provider"]
    model = args.get("model")
    if not isinstance(model, str):
        return None
    return next((p for prefix, p in INFERRED.get(tool, ()) if model.startswith(prefix)), None)

_INSTEAD: Final = "produce the asset with an `exec:` task or an MCP tool instead"


def unserved(tool: str, args: Mapping[str, Any]) -> str | None:
    """Why this engine cannot serve the call (None when it can, or cannot tell before the
    run: a templated provider is the builtin's to judge)."""
    served = SERVED_PROVIDERS.get(tool, ())
    provider = call_provider(tool, args)
    literal = isinstance(provider, str) and "${{" not in provider
    if served and literal and provider not in served:
        return f"{tool} is served here for provider {', '.join(served)} only, not {provider!r}"
    return None


def refusal_detail(why: str) -> str:
    """The one prescriptive sentence both the check's warning and the run's refusal end on."""
    return f"{why}; `nika run` refuses it before any task starts — {_INSTEAD}"


def run(ctx: CheckContext) -> Iterator[Finding]:
    """One engine-capability warning per call site this engine cannot serve."""
    for task in ctx.workflow.tasks.values():
        body = task.body
        if isinstance(body, InvokeBody) and body.tool is not None:
            why = unserved(body.tool, body.args)
            if why is not None:
                err = ctx.error(
                    CODE,
                    f"task `{task.id}`: {refusal_detail(why)}",
                    (*task.path, "invoke", "tool"),
                    task=task.id,
                    tool=body.tool,
                )
                yield Hint(err)
