"""One task's worst case: attempts, model calls, tool calls, output tokens and dollars.

Every task gets ONE spend class, read by every figure of the certificate (spec 07 §the
spend-honesty law): `none` (spends no tokens), `bounded` (a declared cap × a sourced rate),
`unbounded` (no provable token cap — the why names the missing field) or `unpriced` (capped,
but no sourced rate for its model). A null figure always carries its why.

Pricing follows the spec's Cost-ceiling reading: an `infer:` is charged its `max_tokens`
at the output rate (its prompt is rendered at run time); an `agent:` budget
`max_tokens_total` counts input and output alike, so it is charged at the higher rate.
Mock and local providers bill nothing, whatever the tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Final, Literal

from nika.check._bounds import Bound
from nika.check._quantities import Quantities
from nika.syntax.model import AgentBody, InferBody, InvokeBody, Task, Workflow

if TYPE_CHECKING:
    from nika.prices import Price

SpendClass = Literal["none", "bounded", "unbounded", "unpriced"]

DEFAULT_MAX_TURNS: Final = 10
"""An `agent:` without `max_turns` loops at most this many turns (spec 02 §agent)."""

LOOP_SERVED: Final = frozenset({"nika:done", "nika:compose"})
"""Whitelist entries the loop answers itself: granting only these grants no effect."""

MEDIA: Final = frozenset({"nika:image_generate", "nika:tts_generate"})
"""Builtins that call a provider and bill per asset — a unit this per-token table lacks."""

_UNBILLED_MEDIA: Final = frozenset({"mock", "local"})
_PER_MILLION: Final = Fraction(1, 1_000_000)
_ZERO: Final = Bound()


@dataclass(frozen=True, slots=True)
class TaskSpend:
    """The certificate's row for one task (figures are None when not provable)."""

    task: Task
    model: str | None
    iterations: Bound
    attempts: Bound
    model_calls: Bound | None
    tool_calls: Bound | None
    output_tokens: Bound | None
    cost_usd: Bound | None
    spend: SpendClass
    why: Mapping[str, str] = field(default_factory=dict)
    rate: Price | None = None

    @property
    def never_runs(self) -> bool:
        """A fan-out over a provably empty collection: the task is skipped, never run."""
        return self.iterations.is_zero


def assess(task: Task, workflow: Workflow, quantities: Quantities) -> TaskSpend:
    """The worst case of `task`, iterations × retries × its verb's per-attempt cost."""
    iterations = quantities.iterations(task)
    attempts = iterations * Bound.of(task.retry.max_attempts if task.retry else 1)
    body = task.body
    if isinstance(body, InferBody | AgentBody):
        return _model_task(task, body, workflow, quantities, iterations, attempts)
    if isinstance(body, InvokeBody) and body.workflow is not None:
        why = f"child workflow {body.workflow!r} is not composed into this certificate"
        reasons = dict.fromkeys(("model_calls", "tool_calls", "output_tokens", "cost_usd"), why)
        return TaskSpend(
            task, None, iterations, attempts, None, None, None, None, "unbounded", reasons
        )
    if isinstance(body, InvokeBody) and body.tool in MEDIA:
        provider = body.args.get("provider")
        model = body.args.get("model")
        unbilled = isinstance(provider, str) and provider in _UNBILLED_MEDIA
        if unbilled or (provider is None and str(model).startswith("mock")):
            return TaskSpend(
                task, None, iterations, attempts, attempts, attempts, _ZERO, _ZERO, "none"
            )
        why = f"{body.tool} bills per generated asset; the rate table is per token"
        reasons = {"cost_usd": why}
        return TaskSpend(
            task, None, iterations, attempts, attempts, attempts, _ZERO, None, "unpriced", reasons
        )
    return TaskSpend(task, None, iterations, attempts, _ZERO, attempts, _ZERO, _ZERO, "none")


def _model_task(
    task: Task,
    body: InferBody | AgentBody,
    workflow: Workflow,
    quantities: Quantities,
    iterations: Bound,
    attempts: Bound,
) -> TaskSpend:
    why: dict[str, str] = {}
    if isinstance(body, InferBody):
        calls: Bound | None = attempts
        tools: Bound | None = _ZERO
        cap_field, cap_value = "max_tokens", body.max_tokens
    else:
        turns = (
            Bound.of(DEFAULT_MAX_TURNS)
            if body.max_turns is None
            else quantities.cap(task, body.max_turns)
        )
        calls = None if turns is None else attempts * turns
        if turns is None:
            why["model_calls"] = "max_turns is not a positive integer"
        tools = _ZERO if _only_loop_served(body.tools) else None
        if tools is None:
            why["tool_calls"] = "an agent turn may call any number of its whitelisted tools"
        cap_field, cap_value = "max_tokens_total", body.max_tokens_total
    cap = None if cap_value is None else quantities.cap(task, cap_value)
    tokens = None if cap is None else attempts * cap
    if tokens is None:
        why["output_tokens"] = (
            f"no {cap_field} declared"
            if cap_value is None
            else f"{cap_field} is not a positive integer"
        )
    model = task.model or workflow.model
    rate, unpriced = _rate(model)
    cost: Bound | None = None
    if rate is not None and not rate.billed:
        cost = _ZERO
    elif rate is not None and tokens is not None:
        per_token = rate.output if isinstance(body, InferBody) else max(rate.input, rate.output)
        cost = tokens.scale(Fraction(per_token) * _PER_MILLION)
    if cost is None:
        why["cost_usd"] = why.get("output_tokens", unpriced or "")
    spend: SpendClass = "bounded"
    if tokens is None:
        spend = "unbounded"
        if unpriced is not None:
            why["output_tokens"] += f"; and {unpriced}"
    elif rate is None:
        spend = "unpriced"
    return TaskSpend(
        task, model, iterations, attempts, calls, tools, tokens, cost, spend, why, rate
    )


def _rate(model: str | None) -> tuple[Price | None, str | None]:
    """The model's rate, or None and why it has none."""
    if model is None:
        return None, "no model declared (the engine's default model applies at run time)"
    if "${{" in model:
        return None, f"the model is chosen at run time ({model})"
    # The price table loads with the first model a check prices.
    from nika.prices import price_of

    rate = price_of(model)
    if rate is None:
        return None, f"no sourced rate for {model}"
    return rate, None


def _only_loop_served(tools: tuple[str, ...]) -> bool:
    return all(entry.startswith("!") or entry in LOOP_SERVED for entry in tools)
