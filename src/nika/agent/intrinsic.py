"""Loop-served builtins ("intrinsics"): tools the agent loop answers itself.

An intrinsic is offered to the model only when the task's `tools:` whitelist grants its name,
and a call to it is never dispatched to a `ToolExecutor`. Any upstream definition carrying an
intrinsic's name (an MCP server or executor advertising `nika:done`) is dropped from the
universe, so a poisoned definition can never shadow the loop-owned one.

Outside a loop an intrinsic has no meaning: a standalone `invoke:` of one is refused, at check
and at run alike, with the code `nika.stdlib.LOOP_ONLY` gives it (`NIKA-BUILTIN-DONE-001`,
`NIKA-BUILTIN-COMPOSE-001`).

To add one, implement the `Intrinsic` protocol, list it in `INTRINSICS` and give it its row in
`LOOP_ONLY` (a test pins that the two name the same builtins). An intrinsic module
that needs this module's names for annotations only should import them under TYPE_CHECKING,
so the registry can import it back without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from nika.agent.compose import ComposeIntrinsic
from nika.agent.config import AgentConfig
from nika.agent.observe import AgentEvent
from nika.agent.seams import ToolDefinition, ToolName, ToolResult
from nika.stdlib.core import DONE

EventReporter = Callable[[type[AgentEvent], Mapping[str, Any]], None]
"""How an intrinsic's event reaches the loop: `(event type, fields)`; the loop stamps
`seq` and `turn`."""


@dataclass(frozen=True, slots=True)
class LoopContext:
    """What a loop-served tool may see of its run, and the one thing it may do to it: report.

    `emit(ComposeChecked, valid=..., ...)` hands an event to the run's observer; the loop
    stamps `seq` and `turn`.
    """

    config: AgentConfig
    task_id: str
    model: str
    turn: int
    sink: EventReporter

    def emit(self, event_type: type[AgentEvent], **fields: Any) -> None:
        """Report one observer event for the current turn."""
        self.sink(event_type, fields)


@dataclass(frozen=True, slots=True)
class Finish:
    """An intrinsic's verdict that the run is complete.

    With `has_result` the run's output is `result` (any JSON value, `None` included);
    without it the output is the final assistant text.
    """

    result: Any = None
    has_result: bool = False
    content: str = "done"


IntrinsicOutcome = Finish | ToolResult
"""Either finish the run, or feed a tool result back to the model and go on."""


class Intrinsic(Protocol):
    """A tool the loop serves itself (see the module docstring)."""

    @property
    def definition(self) -> ToolDefinition:
        """Its definition as offered to the model; `source` is 'builtin'."""
        ...

    async def serve(self, args: Mapping[str, Any], ctx: LoopContext) -> IntrinsicOutcome:
        """Answer one call. A tool-side failure is a `ToolResult` with `is_error`, not a raise."""
        ...


class DoneIntrinsic:
    """`nika:done`: the loop-completion sentinel (stdlib builtins §nika:done).

    Its optional `result` becomes the task's output (and `schema:` validates it); without it
    the output is the final assistant text.
    """

    definition: Final = ToolDefinition(
        name=ToolName("nika:done"),
        description=(
            "Finish the task. Call this once the work is complete. If the task asks for a "
            "structured answer, pass it as `result` (any JSON value); otherwise your last "
            "message is the answer."
        ),
        parameters=DONE.schema,
        source="builtin",
    )

    async def serve(self, args: Mapping[str, Any], ctx: LoopContext) -> IntrinsicOutcome:
        refusals = DONE.refusals(args)
        if refusals:
            said = "; ".join(r.detail for r in refusals)
            return ToolResult.failed(
                refusals[0].error(DONE.name),
                content=f"nika:done takes one optional argument, `result`: {said}. Call it "
                "again with only `result` (or no arguments).",
            )
        return Finish(result=args.get("result"), has_result="result" in args)


INTRINSICS: Final[tuple[Intrinsic, ...]] = (DoneIntrinsic(), ComposeIntrinsic())
"""Every loop-served builtin, in the order the loop lists them."""

_BY_NAME: Final[Mapping[str, Intrinsic]] = {i.definition.name: i for i in INTRINSICS}


def intrinsic_named(name: str) -> Intrinsic | None:
    """The registered intrinsic serving `name`, if any."""
    return _BY_NAME.get(name)


def is_loop_only(name: str) -> bool:
    """Is `name` served only inside an `agent:` loop (so a standalone `invoke:` is refused)?"""
    return name in _BY_NAME
