"""Serving one turn's tool calls: call ids, intrinsic vs executor routing, bounded concurrency,
and the boundary that turns a raising tool into a typed error result."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter

from nika import codes
from nika.agent._universe import Universe
from nika.agent.executors import raised_result, unknown_tool
from nika.agent.intrinsic import Finish, LoopContext
from nika.agent.seams import CallId, ToolCall, ToolExecutor, ToolResult, non_json
from nika.errors import NikaError


@dataclass(frozen=True, slots=True)
class Served:
    """One call's outcome: the result fed back, and the intrinsic's `Finish` if it ended the run."""

    call: ToolCall
    result: ToolResult
    finish: Finish | None
    duration_ms: float


class CallIds:
    """Keeps provider call ids; mints `call_<turn>_<index>` for missing or repeated ones, and
    screens each call's arguments: a library provider handing over non-JSON data (a set, a
    non-string key) gets the call's `args_error` set (`NIKA-INVOKE-002` fed back, never
    dispatched) before any tool, guard or transcript touches it."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def assign(self, calls: Sequence[ToolCall], turn: int) -> tuple[ToolCall, ...]:
        seen = self._seen
        out: list[ToolCall] = []
        for index, call in enumerate(calls):
            call_id = call.id
            if not call_id or call_id in seen:
                call_id = CallId(f"call_{turn}_{index}")
                suffix = 0
                while call_id in seen:
                    suffix += 1
                    call_id = CallId(f"call_{turn}_{index}_{suffix}")
                call = ToolCall(call_id, call.name, call.args, call.args_error)
            problem = non_json(call.args) if isinstance(call.args, Mapping) else "args is not a map"
            if problem is not None and call.args_error is None:
                call = ToolCall(call_id, call.name, {}, (
                    f"the arguments of this {call.name} call are not a JSON object ({problem}); "
                    "send plain JSON: string keys, numbers, strings, booleans, null, lists"))
            seen.add(call_id)
            out.append(call)
        return tuple(out)


class Dispatcher:
    """Runs a turn's (already whitelisted) calls concurrently, at most `concurrency` at once,
    and returns their outcomes in call order."""

    def __init__(
        self,
        universe: Universe,
        executor: ToolExecutor | None,
        concurrency: int,
        context: Callable[[int], LoopContext],
    ) -> None:
        self._universe = universe
        self._executor = executor
        self._semaphore = asyncio.Semaphore(max(1, concurrency))
        self._context = context

    async def dispatch(self, calls: Sequence[ToolCall], turn: int) -> list[Served]:
        if len(calls) == 1:
            return [await self._serve(calls[0], turn)]

        async def bounded(call: ToolCall) -> Served:
            async with self._semaphore:
                return await self._serve(call, turn)

        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(bounded(call)) for call in calls]
        return [task.result() for task in tasks]

    async def _serve(self, call: ToolCall, turn: int) -> Served:
        started = perf_counter()
        finish: Finish | None = None
        intrinsic = self._universe.intrinsics.get(call.name)
        try:
            if call.args_error is not None:  # the model's arguments could not be taken
                result = ToolResult.failed(
                    NikaError(codes.INVOKE_002, call.args_error, details={"tool": call.name})
                )
            elif intrinsic is not None:
                outcome = await intrinsic.serve(call.args, self._context(turn))
                if isinstance(outcome, Finish):
                    finish, result = outcome, ToolResult(outcome.content)
                else:
                    result = outcome
            elif self._executor is not None and call.name in self._universe.sources:
                result = await self._executor.call(call.name, call.args)
            else:
                result = unknown_tool(call.name, self._universe.sources)
        except Exception as exc:  # the boundary: a crashing tool is feedback, not a crash
            result = raised_result(call.name, exc)
        return Served(call, result, finish, (perf_counter() - started) * 1000)
