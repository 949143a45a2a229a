"""The agent loop (spec 02-verbs §agent), usable as a plain library.

Each turn: route the whitelisted universe to this turn's offered tools, call the model, check
every tool call against the `tools:` whitelist, dispatch the allowed ones concurrently, feed
the results back in call order, let the stall guard judge the turn, repeat. The run ends with:

- success: a reply with no tool calls (output = the final text), or `nika:done` (output = its
  `result`, else the final text); `schema:` then validates the output (`NIKA-INFER-002`);
- `NIKA-AGENT-001` / `NIKA-AGENT-002`: `max_turns` / `max_tokens_total` exhausted;
- `NIKA-AGENT-005`: a priced model answered without token usage (fail closed);
- `NIKA-AGENT-006`: the stall guard's verdict;
- `NIKA-SEC-002`: a call outside the whitelist — no call of that turn is dispatched;
  likewise any tool result whose error is a `security_error` ends the run at once;
- a provider's `NikaError`, propagated unchanged (the runtime retries the transient ones);
- the `stop` seam's error (`StopCheck`, asked before each turn: a run's spend cap crossed),
  naming the turns completed — the turn under way always finishes first; the run's outcome
  is `cancelled`, not `failure`: the loop did not fail, it was told to stop.

Ordinary tool failures are fed back to the model, never raised. On a turn that cannot be
followed by another (the last turn, or the token budget spent) tool calls are dispatched only
when the turn also calls `nika:done`: nobody would read their results.

Budget errors carry `details.partial_output` (the latest non-empty assistant text), and the
blame polarity of spec 05: `by-the-caller` when the task set the bound, `by-the-contract` for
a default, with `details.bound_source` naming where it was set.

Every run is bracketed for the observer: one `RunStarted` first, one `Finished` last, on every
path including cancellation (re-raised after `Finished(outcome='cancelled')`).
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Final, Literal, ParamSpec

from nika import codes
from nika.agent._dispatch import CallIds, Dispatcher, Served
from nika.agent._emit import Emitter
from nika.agent._refusals import (
    Budget,
    budget_exhausted,
    output_validator,
    outside_whitelist,
    usage_missing,
    validate_output,
)
from nika.agent._transcript import Transcript
from nika.agent._universe import Universe
from nika.agent.config import AgentConfig
from nika.agent.guard import Stall, StallGuard
from nika.agent.intrinsic import INTRINSICS, Finish, Intrinsic, LoopContext
from nika.agent.observe import (
    BudgetCheckpoint,
    Finished,
    ModelCalled,
    Nudged,
    Outcome,
    RunStarted,
    Stalled,
    ToolCompleted,
    ToolsSelected,
    TurnStarted,
)
from nika.agent.router import RouteContext, ToolRouter
from nika.agent.seams import (
    AgentObserver,
    AssistantMessage,
    Message,
    ModelRequest,
    Provider,
    StopCheck,
    ToolCall,
    ToolExecutor,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from nika.agent.spec import AgentSpec
from nika.errors import NikaError
from nika.prices import is_priced
from nika.syntax.globs import Whitelist

_P = ParamSpec("_P")
_DONE: Final = "nika:done"


@dataclass(frozen=True, slots=True)
class AgentResult:
    """A successful run. `output` is what the task's `.output` holds: the `nika:done` result,
    else the final text — the parsed, validated object when `schema:` is set. `text` is the
    latest non-empty assistant text; `stop` says which way the run ended."""

    output: Any
    text: str
    turns: int
    usage: Usage
    transcript: tuple[Message, ...]
    stop: Literal["answer", "done"]


class _Run:
    """One run's state; `run_agent` is its only user."""

    def __init__(
        self,
        spec: AgentSpec,
        provider: Provider,
        executor: ToolExecutor | None,
        observer: AgentObserver | None,
        config: AgentConfig,
        intrinsics: Sequence[Intrinsic],
        stop: StopCheck | None,
    ) -> None:
        self.spec, self.provider, self.executor = spec, provider, executor
        self.config, self.intrinsics, self.stop = config, intrinsics, stop
        self.stopped = False
        self.emit = Emitter(observer)
        self.transcript = Transcript()
        self.text = ""
        self.turn = 0
        self.input_tokens = self.output_tokens = 0
        self.call_ids = CallIds()
        self.started = False

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    async def run(self) -> AgentResult:
        try:
            self._prepare()
            self.emit(
                RunStarted,
                0,
                task=self.spec.task_id,
                model=self.spec.model,
                universe=len(self.universe.definitions),
                config=self.config.as_dict(),
                prompt=self.spec.prompt,
                system=self.system,
            )
            self.started = True
            result = await self._loop()
        except asyncio.CancelledError:
            self._close("cancelled", codes.CANCEL_001)
            raise
        except NikaError as exc:
            self._close("cancelled" if self.stopped else "failure", exc.code)
            raise
        except BaseException:
            self._close("failure", None)
            raise
        self._close("success", None)
        return result

    def _close(self, outcome: Outcome, code: str | None) -> None:
        if not self.started:
            self.emit(RunStarted, 0, task=self.spec.task_id, model=self.spec.model, universe=0,
                      prompt=self.spec.prompt)
        self.emit(
            Finished,
            self.turn,
            outcome=outcome,
            turns=self.turn,
            tokens=self.tokens,
            error_code=code,
        )

    def _prepare(self) -> None:
        spec, config = self.spec, self.config
        self.whitelist = Whitelist.compile(spec.tools)
        self.allowed: dict[str, bool] = {}
        self.universe = Universe.build(self.whitelist, self.executor, self.intrinsics)
        self.router = ToolRouter(
            self.universe.definitions, config, pinned=tuple(self.universe.intrinsics)
        )
        self.guard = StallGuard(
            config, finish=_DONE if _DONE in self.universe.intrinsics else None
        )
        self.validator = output_validator(spec.schema) if spec.schema else None
        self.turn_bound = Budget.of("max_turns", spec.max_turns, config.default_max_turns, "10")
        token_default = config.default_max_tokens_total
        self.token_bound: Budget | None = None
        if spec.max_tokens_total is not None or token_default is not None:
            self.token_bound = Budget.of(
                "max_tokens_total",
                spec.max_tokens_total,
                token_default or 0,  # read only when the task declares none
                "engine-configured",
            )
        self.priced = is_priced(spec.model)
        self.system = spec.system_text
        self.recent: deque[frozenset[str]] = deque(maxlen=config.recent_turns)
        self.observations: tuple[str, ...] = ()
        self.dispatcher = Dispatcher(
            self.universe, self.executor, config.tool_concurrency, self._context
        )
        self.transcript.append(UserMessage(spec.prompt))

    def _budget_error(self, bound: Budget, calls: Sequence[ToolCall] = ()) -> NikaError:
        """The budget verdict — unless this last turn's calls complete a stall, whose verdict
        (period, repeats) wins: it is the better account of where the budget went."""
        stall = self.guard.final(calls) if calls else None
        if stall is not None:
            self.emit(Stalled, self.turn, period=stall.period, repeats=stall.repeats)
            return stall.to_error(self.text)
        return budget_exhausted(
            self.spec.task_id, bound, turns=self.turn, tokens=self.tokens, partial_output=self.text
        )

    async def _loop(self) -> AgentResult:
        spec, emit = self.spec, self.emit
        max_turns = self.turn_bound.limit
        token_bound = self.token_bound
        while True:
            if self.stop is not None and (halt := self.stop()) is not None:
                raise self._stopped(halt)
            self.turn = turn = self.turn + 1
            emit(TurnStarted, turn)
            decision = self.router.select(
                RouteContext(
                    prompt=spec.prompt,
                    last_assistant_text=self.text,
                    last_observations=self.observations,
                    recent_tools=frozenset().union(*self.recent),
                )
            )
            if emit.active:
                emit(
                    ToolsSelected,
                    turn,
                    offered=tuple(d.name for d in decision.offered),
                    universe=decision.universe,
                    by_source=decision.by_source,
                    mode=decision.mode,
                    reason=decision.reason,
                    scores=decision.scores,
                )
            request = ModelRequest(
                model=spec.model,
                system=self.system,
                messages=self.transcript.view(),
                tools=decision.offered,
                temperature=spec.temperature,
                max_tokens=spec.max_tokens,
                response_schema=spec.schema,
            )
            started = perf_counter()
            response = await self.provider.complete(request)
            elapsed = (perf_counter() - started) * 1000
            usage = response.usage
            if usage is not None:
                self.input_tokens += usage.input_tokens
                self.output_tokens += usage.output_tokens
            emit(
                ModelCalled,
                turn,
                model=spec.model,
                input_tokens=usage.input_tokens if usage else None,
                output_tokens=usage.output_tokens if usage else None,
                duration_ms=elapsed,
                finish_reason=response.stop_reason,
                reply=response.text,
            )
            emit(
                BudgetCheckpoint,
                turn,
                turns_used=turn,
                max_turns=max_turns,
                tokens_used=self.tokens,
                max_tokens_total=token_bound.limit if token_bound else None,
            )
            if usage is None and self.priced:
                raise usage_missing(spec.task_id, spec.model, turn)
            calls = self.call_ids.assign(response.tool_calls, turn)
            self.transcript.append(AssistantMessage(response.text, calls))
            if response.text:
                self.text = response.text
            if token_bound is not None and self.tokens > token_bound.limit:
                raise self._budget_error(token_bound, calls)
            if not calls:
                return self._conclude(None)
            denied = [c.name for c in calls if not self._allows(c.name)]
            if denied:
                raise outside_whitelist(spec.task_id, denied, spec.tools)
            can_finish = _DONE in self.universe.intrinsics and any(c.name == _DONE for c in calls)
            if not can_finish:
                if turn >= max_turns:
                    raise self._budget_error(self.turn_bound, calls)
                if token_bound is not None and self.tokens >= token_bound.limit:
                    raise self._budget_error(token_bound, calls)
            served = await self.dispatcher.dispatch(calls, turn)
            finish = self._absorb(served, turn)
            if finish is not None:
                return self._conclude(finish)
            verdict = self.guard.record(calls, [s.result for s in served])
            if isinstance(verdict, Stall):
                emit(Stalled, turn, period=verdict.period, repeats=verdict.repeats,
                     signatures=verdict.signatures)
                raise verdict.to_error(self.text)
            if verdict is not None:
                self.transcript.append(UserMessage(verdict.message))
                emit(
                    Nudged,
                    turn,
                    reason=verdict.reason,
                    period=verdict.period,
                    repeats=verdict.repeats,
                )
            self.recent.append(frozenset(c.name for c in calls))
            self.observations = tuple(s.result.content for s in served)

    def _stopped(self, halt: NikaError) -> NikaError:
        """The stop seam's error, naming this task and the turns it completed."""
        self.stopped = True
        return NikaError(
            halt.code,
            f"agent task {self.spec.task_id!r} stopped after {self.turn} turn(s): {halt.detail}",
            category=halt.category,
            details={**halt.details, "task": self.spec.task_id, "turns": self.turn,
                     "partial_output": self.text},
        )

    def _allows(self, name: str) -> bool:
        allowed = self.allowed.get(name)
        if allowed is None:
            allowed = self.allowed[name] = self.whitelist.allows(name)
        return allowed

    def _context(self, turn: int) -> LoopContext:
        return LoopContext(
            config=self.config,
            task_id=self.spec.task_id,
            model=self.spec.model,
            turn=turn,
            sink=lambda event_type, fields: self.emit(event_type, turn, **fields),
        )

    def _absorb(self, served: Sequence[Served], turn: int) -> Finish | None:
        """Report the turn's results, stop on a security error, feed them back in call order."""
        sources = self.universe.sources
        for s in served if self.emit.active else ():
            error = s.result.error
            self.emit(
                ToolCompleted,
                turn,
                call_id=s.call.id,
                name=s.call.name,
                source=sources.get(s.call.name, "other"),
                is_error=s.result.is_error,
                duration_ms=s.duration_ms,
                result_bytes=len(s.result.content.encode()),
                error_code=error.code if error else None,
                arguments=s.call.args,
                result=s.result.content,
            )
        for s in served:
            error = s.result.error
            if error is not None and error.category == "security_error":
                raise NikaError(
                    error.code,
                    f"agent task {self.spec.task_id!r}: tool {s.call.name!r} was refused by a "
                    f"security boundary, which ends the task: {error.detail}",
                    category="security_error",
                    details={"tool": s.call.name, "call_id": s.call.id},
                )
        self.transcript.extend(
            [
                ToolResultMessage(s.call.id, s.call.name, s.result.content, s.result.is_error)
                for s in served
            ]
        )
        return next((s.finish for s in served if s.finish is not None), None)

    def _conclude(self, finish: Finish | None) -> AgentResult:
        output: Any = self.text
        from_text: str | None = self.text
        if finish is not None and finish.has_result:
            output, from_text = finish.result, None
        if self.validator is not None:
            output = validate_output(self.spec.task_id, self.validator, output, from_text=from_text)
        return AgentResult(
            output=output,
            text=self.text,
            turns=self.turn,
            usage=Usage(self.input_tokens, self.output_tokens),
            transcript=self.transcript.freeze(),
            stop="answer" if finish is None else "done",
        )


async def run_agent(
    spec: AgentSpec,
    *,
    provider: Provider,
    tools: ToolExecutor | None = None,
    observer: AgentObserver | None = None,
    config: AgentConfig | None = None,
    intrinsics: Sequence[Intrinsic] | None = None,
    stop: StopCheck | None = None,
) -> AgentResult:
    """Run one agent task to completion; raise `NikaError` on every failure (module doc).

    `tools` serves the upstream universe (no executor = only loop-served tools), `observer`
    receives the typed events, `config` tunes the loop, `intrinsics` overrides the registry of
    loop-served tools (default: `nika.agent.intrinsic.INTRINSICS`), `stop` is asked before
    each turn whether to stop (`StopCheck`; the turn under way always completes).
    """
    run = _Run(
        spec,
        provider,
        tools,
        observer,
        config or AgentConfig(),
        INTRINSICS if intrinsics is None else intrinsics,
        stop,
    )
    return await run.run()


def _blocking(
    run: Callable[_P, Coroutine[Any, Any, AgentResult]], name: str, doc: str
) -> Callable[_P, AgentResult]:
    """`run` for synchronous callers: each call starts its own event loop. The signature is
    `run`'s own (one declaration; `inspect.signature` follows `__wrapped__`)."""

    @functools.wraps(run)
    def blocking(*args: _P.args, **kwargs: _P.kwargs) -> AgentResult:
        return asyncio.run(run(*args, **kwargs))

    blocking.__name__ = blocking.__qualname__ = name
    blocking.__doc__ = doc
    return blocking


run_agent_sync = _blocking(
    run_agent, "run_agent_sync",
    "`run_agent` for synchronous callers (starts its own event loop; not from async code).")
