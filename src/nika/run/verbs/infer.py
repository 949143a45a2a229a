"""`infer:` — one model call (02 §infer).

The body resolves against the task's environment, the provider comes from the run's pool
(`resolve_provider`: mock, OpenAI-compatible, Anthropic), and with `schema:` the reply must
parse as JSON and validate; a misfit is fed back to the model up to `SCHEMA_RETRIES` more
times (the engine-internal retry 02 allows) before `NIKA-INFER-002`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import jsonschema

from nika import codes
from nika.agent.seams import (
    AssistantMessage,
    Message,
    ModelRequest,
    ModelResponse,
    UserMessage,
)
from nika.errors import task_error
from nika.journal.frames import CostIncurred, VerbInvoked
from nika.prices import is_priced
from nika.run.services import RunServices
from nika.syntax.model import InferBody, Task
from nika.syntax.resolved import resolve_body

SCHEMA_RETRIES: Final = 2


async def run_infer(
    task: Task, body: InferBody, env: Mapping[str, Any], services: RunServices,
    timeout: float | None,
) -> Any:
    """Call the model once (plus schema repairs); returns the text or the validated object."""
    spec = resolve_body(task, body, env, services.model)
    model, schema, contract = spec.model, spec.schema, spec.contract
    provider = services.providers.get(model, timeout)
    messages: list[Message] = [UserMessage(spec.prompt)]
    services.bus.emit(VerbInvoked(task=task.id, verb="infer", model=model))
    for repair in range(SCHEMA_RETRIES + 1):
        request = ModelRequest(
            model=model,
            system=spec.system,
            messages=tuple(messages),
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
            response_schema=schema,
        )
        response = await provider.complete(request)
        _check_usage(task, model, response)
        services.bus.emit(CostIncurred(
            task=task.id, model=model,
            input_tokens=response.usage.input_tokens if response.usage else None,
            output_tokens=response.usage.output_tokens if response.usage else None,
            prompt=_asked(messages), system=spec.system, reply=response.text,
        ))
        if schema is None:
            return response.text
        value, problem = _validated(response.text, schema)
        if problem is None:
            return value
        if repair == SCHEMA_RETRIES:
            raise task_error(
                codes.INFER_002, task.id,
                f"the model's reply does not fit `{contract}:` after "
                f"{SCHEMA_RETRIES + 1} attempts ({problem}); simplify the schema or make the "
                "prompt state the expected JSON shape",
                model=model, problem=problem,
            )
        messages += [
            AssistantMessage(response.text),
            UserMessage(f"Your reply did not fit the required JSON schema: {problem}. "
                        "Reply again with only the JSON value."),
        ]
    raise AssertionError("unreachable: the repair loop always returns or raises")


def _asked(messages: list[Message]) -> str | None:
    """The prompt of this call: the task's, or the last schema repair's request."""
    last = messages[-1]
    return last.text if isinstance(last, UserMessage) else None


def _check_usage(task: Task, model: str, response: ModelResponse) -> None:
    if response.usage is None and is_priced(model):
        raise task_error(
            codes.INFER_003, task.id,
            f"{model} answered without reporting token usage, so the call "
            "cannot be billed honestly; use a provider endpoint that reports usage",
            model=model,
        )
    if not response.text.strip() and response.usage and response.usage.output_tokens > 0:
        raise task_error(
            codes.INFER_004, task.id,
            f"{model} spent {response.usage.output_tokens} output tokens "
            "but returned no visible answer (a thinking model ate the budget); raise "
            "`max_tokens` or use a variant without thinking",
            model=model,
        )


def _validated(text: str, schema: Mapping[str, Any]) -> tuple[Any, str | None]:
    candidate = text.strip()
    if candidate.startswith("```"):
        # Models often fence JSON; the fence is presentation, not content.
        candidate = candidate.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg} at line {exc.lineno})"
    try:
        jsonschema.validate(value, dict(schema))
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        return None, f"at {where}: {exc.message}"
    return value, None
