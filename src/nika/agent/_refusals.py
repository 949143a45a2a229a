"""The loop's terminal refusals, each a `NikaError` with a stable code and a prescriptive detail,
and the `schema:` check of the final output."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from nika import codes
from nika.errors import NikaError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

_QUOTE_CHARS = 120


def _quote(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return repr(text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1] + "…")


@dataclass(frozen=True, slots=True)
class Budget:
    """A budget and who chose it (spec 05 §Blame polarity)."""

    field: Literal["max_turns", "max_tokens_total"]
    limit: int
    polarity: Literal["by-the-caller", "by-the-contract"]
    source: str

    @classmethod
    def of(
        cls,
        field: Literal["max_turns", "max_tokens_total"],
        declared: int | None,
        default: int,
        spec_default: str,
    ) -> Budget:
        if declared is not None:
            return cls(field, declared, "by-the-caller", f"the task's own `{field}:` ({declared})")
        return cls(
            field,
            default,
            "by-the-contract",
            f"spec 02-verbs.md §agent · `{field}` default {spec_default} "
            f"(AgentConfig.default_{field} = {default})",
        )


def budget_exhausted(
    task_id: str, bound: Budget, *, turns: int, tokens: int, partial_output: str
) -> NikaError:
    """`NIKA-AGENT-001` (turns) or `NIKA-AGENT-002` (tokens), with the partial output."""
    if bound.field == "max_turns":
        code = codes.AGENT_001
        what = f"used all {bound.limit} turns without a final answer or a nika:done call"
        fix = "raise max_turns, narrow the prompt, or grant nika:done so the model can finish"
    else:
        code = codes.AGENT_002
        what = f"spent {tokens} tokens, exhausting max_tokens_total {bound.limit}"
        fix = "raise max_tokens_total, or shorten the prompt and the tool outputs"
    set_by = "set by the task" if bound.polarity == "by-the-caller" else "the default"
    return NikaError(
        code,
        f"agent task {task_id!r} {what} ({bound.field} {bound.limit}, {set_by}); {fix}; "
        "the last assistant text is at details.partial_output (recover it via on_error:)",
        details={
            "partial_output": partial_output,
            "polarity": bound.polarity,
            "bound_source": bound.source,
            "bound": bound.field,
            "limit": bound.limit,
            "turns_used": turns,
            "tokens_used": tokens,
        },
    )


def usage_missing(task_id: str, model: str, turn: int) -> NikaError:
    """`NIKA-AGENT-005`: a priced model answered without usage, so budgets would read it free."""
    return NikaError(
        codes.AGENT_005,
        f"agent task {task_id!r}: the provider reported no token usage for the priced model "
        f"{model!r} at turn {turn}, so the loop cannot enforce its budgets and stopped; "
        "configure the provider adapter to return usage, or use a local or mock model",
        details={"model": model, "turn": turn},
    )


def outside_whitelist(task_id: str, names: Sequence[str], whitelist: Sequence[str]) -> NikaError:
    """`NIKA-SEC-002`: the model called tools the `tools:` whitelist does not grant."""
    first = names[0]
    return NikaError(
        codes.SEC_002,
        f"agent task {task_id!r}: the model called {first!r}, which the tools: whitelist "
        f"{list(whitelist)!r} does not grant; no call of that turn was dispatched and the task "
        f"stopped. If the agent should use it, add {first!r} (or a glob for it) to tools:",
        details={"tools": list(names), "whitelist": list(whitelist)},
    )


def output_validator(schema: Mapping[str, Any]) -> Validator:
    """The validator of the task's `schema:` (`AgentSpec` held the schema itself to the
    field's one rule, `nika.syntax.fields`)."""
    # Only a task with `schema:` pays for jsonschema (`import nika.agent` stays light).
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    return validator_for(schema, default=Draft202012Validator)(schema)


def validate_output(
    task_id: str, validator: Validator, output: Any, *, from_text: str | None
) -> Any:
    """The validated output. With `from_text`, `output` is ignored: the text is parsed as JSON.

    Any mismatch is `NIKA-INFER-002` (validation_error), naming the failing JSON path.
    """
    if from_text is not None:
        why = None
        try:
            output = json.loads(from_text)
        except json.JSONDecodeError as exc:
            why = f"{exc.msg} at char {exc.pos}"
        except RecursionError:
            why = "it nests too deeply"
        if why is not None:
            raise NikaError(
                codes.INFER_002,
                f"agent task {task_id!r}: schema: is set but the final message is not JSON "
                f"({why}): {_quote(from_text)}; have the model answer with JSON only, or pass "
                "the answer as nika:done's `result`",
                details={"path": "$", "partial_output": from_text},
            )
    from jsonschema.exceptions import best_match

    error: ValidationError | None = best_match(validator.iter_errors(output))
    if error is None:
        return output
    raise NikaError(
        codes.INFER_002,
        f"agent task {task_id!r}: the final output fails schema: at {error.json_path}: "
        f"{error.message}; make the model's answer match the schema (or relax the schema)",
        details={
            "path": error.json_path,
            "validator": str(error.validator),
            "partial_output": from_text if from_text is not None else output,
        },
    )
