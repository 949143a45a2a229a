"""`nika:compose`: the agent's self-check of a workflow it drafts (stdlib builtins §nika:compose).

The model passes the complete draft as `workflow_yaml` and reads back the full `nika check`
verdict as JSON — validity, every finding with its code and prescriptive detail, the
authority sections, the termination/cost certificate and the preference lints
(`one-obvious-way/*`, `native-first/*`, each naming its fix) — then repairs and checks again.
Checking is all it does: the draft is never written anywhere and never run («generation is
not permission»).

Two bounds keep a hostile draft from hurting the loop. A draft over
`AgentConfig.compose_max_bytes` (UTF-8) is refused before the parser sees a byte, and the
check runs in a daemon worker thread the loop stops waiting for after `timeout_s`; both
come back as tool errors, so the model can shrink or simplify its draft and the loop goes on.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.agent.observe import ComposeChecked
from nika.agent.seams import ToolDefinition, ToolName, ToolResult
from nika.check import RUNGS, Verdict, check
from nika.errors import NikaError
from nika.stdlib.core import COMPOSE

if TYPE_CHECKING:
    from nika.agent.intrinsic import IntrinsicOutcome, LoopContext

Checker = Callable[[str], Verdict]
"""What judges a draft; `check` itself unless a test injects another."""

DEFAULT_TIMEOUT_S: Final = 1.0
"""How long the loop waits for one verdict (a real draft checks in milliseconds)."""

_ARG: Final = "workflow_yaml"

_WARM_UP_DRAFT: Final = (
    'nika: warm-up\npermits: {}\ntasks:\n  t:\n    exec: { command: ["true"] }\n'
)


def _check_draft(draft: str) -> Verdict:
    # A draft is model output: it must not learn which host files exist through skill
    # paths or child targets, so its side files are judged statically, never opened.
    # Lints ride along: a drafting agent is the strict posture's intended reader.
    return check(draft, read_side_files=False, lint=True)


@cache
def _warm_up() -> None:
    """Import the checker once, outside any draft's time budget.

    A cold process spends seconds importing the rungs (schema, jq, CEL), which says
    nothing about the draft; charging it to the first draft would time that one out.
    """
    for name in RUNGS:
        importlib.import_module(name)
    check(_WARM_UP_DRAFT, read_side_files=False, lint=True)


class ComposeIntrinsic:
    """`nika:compose` — check a drafted workflow, never run it.

    `checker` and `timeout_s` exist for embedders and tests (a slow checker proves the
    timeout); the loop's registry uses the defaults.
    """

    definition: Final = ToolDefinition(
        name=ToolName("nika:compose"),
        description=(
            "Check a Nika workflow you drafted, without running it. Pass the complete YAML "
            "as `workflow_yaml`; you get the full `nika check` verdict as JSON: `valid`, "
            "`errors` (each with a code and how to fix it), the effect and secret-flow "
            "findings, the termination/cost `certificate`, and `lints`: legal but "
            "non-canonical forms, each with its `fix`. Repair and check again until `valid` "
            "is true and `lints` is empty."
        ),
        parameters=COMPOSE.schema,
        source="builtin",
    )

    def __init__(
        self, *, checker: Checker = _check_draft, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        self._checker = checker
        self._timeout_s = timeout_s

    async def serve(self, args: Mapping[str, Any], ctx: LoopContext) -> IntrinsicOutcome:
        """Check `args['workflow_yaml']` and return the verdict JSON (or a tool error)."""
        refusals = COMPOSE.refusals(args)
        if refusals:
            said = "; ".join(r.detail for r in refusals)
            return _refuse(
                refusals[0].code,
                f"nika:compose takes exactly one argument, `{_ARG}` (the complete workflow "
                f"YAML as one string): {said}. Call it again with only `{_ARG}`.",
            )
        draft: str = args[_ARG]
        try:
            size = len(draft.encode("utf-8"))
        except UnicodeEncodeError:
            return _refuse(
                codes.INVOKE_002,
                f"`{_ARG}` contains unpaired surrogate code points, which are not text; "
                "send the draft as plain UTF-8 text.",
            )
        limit = ctx.config.compose_max_bytes
        if size > limit:
            return _refuse(
                codes.INVOKE_002,
                f"the draft is {size} bytes of UTF-8; nika:compose checks drafts of at most "
                f"{limit} bytes ({limit // 1024} KiB). Send a smaller workflow: split it, or "
                "drop long literal text.",
            )
        await asyncio.to_thread(_warm_up)
        verdict = await self._judge(draft)
        if verdict is None:
            return _refuse(
                codes.TIMEOUT_001,
                f"checking the draft did not finish within {self._timeout_s:g} s; simplify "
                "it (fewer tasks, shallower nesting, no anchors or aliases) and check again.",
            )
        ctx.emit(
            ComposeChecked,
            valid=verdict.valid,
            error_codes=tuple(e.code for e in verdict.errors),
            draft_bytes=size,
            escapes=_escapes(verdict),
            lint_rules=tuple(f.rule for f in verdict.lints or ()),
        )
        return ToolResult(content=verdict.to_json(), structured=verdict.to_dict())

    async def _judge(self, draft: str) -> Verdict | None:
        """The checker's verdict, or None when it outlived the timeout.

        A daemon thread, not the loop's default executor: a check that never returns must
        neither block the event loop nor hold the interpreter open at exit.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Verdict] = loop.create_future()

        def settle(outcome: Verdict | BaseException) -> None:
            if future.done():  # the loop stopped waiting: nobody reads this verdict
                return
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

        def work() -> None:
            outcome: Verdict | BaseException
            try:
                outcome = self._checker(draft)
            except BaseException as exc:  # handed to the awaiting task, where the boundary is
                outcome = exc
            try:
                loop.call_soon_threadsafe(settle, outcome)
            except RuntimeError:  # the event loop is closed: the caller is gone
                return

        threading.Thread(target=work, name="nika-compose-check", daemon=True).start()
        try:
            return await asyncio.wait_for(future, self._timeout_s)
        except TimeoutError:
            return None


def _refuse(code: str, detail: str) -> ToolResult:
    return ToolResult.failed(NikaError(code, detail, details={"tool": "nika:compose"}))


def _escapes(verdict: Verdict) -> int:
    """The authority rung's count of effects outside the declared `permits:` (0 when the
    section is absent: nothing was found to escape)."""
    effects = verdict.sections.get("effects")
    escapes = effects.get("escapes") if isinstance(effects, Mapping) else None
    return escapes if isinstance(escapes, int) else 0
