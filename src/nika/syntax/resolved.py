"""A verb body resolved in one pass: the typed spec a task runs.

`resolve_body` takes a task's `infer:`, `agent:` or `exec:` body and the task's environment and
returns what the verb runs — every `${{ }}` island evaluated and every value held to its
field's one rule (`nika.syntax.fields`, the same rule the builder holds a literal to), with
that rule's code and words. The run calls it once per task and never reads a raw body field.
An agent's spec is the loop's `AgentSpec` built from `AgentFields` (the agent layer sits above
this one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, overload

from nika import codes
from nika.errors import NikaError
from nika.syntax.fields import resolve
from nika.syntax.lower import lower
from nika.syntax.model import AgentBody, ExecBody, InferBody, Task

Env = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class InferSpec:
    """An `infer:` task as the model call sees it. `contract` names where `schema` came
    from (`schema:`, or `returns:` lowered — 09 §returns), for the refusal's words."""

    model: str
    prompt: str
    system: str | None
    temperature: float | None
    max_tokens: int | None
    schema: Mapping[str, Any] | None
    contract: Literal["schema", "returns"]


@dataclass(frozen=True, slots=True)
class AgentFields:
    """An `agent:` task's resolved fields: `nika.agent.AgentSpec`'s, less what the run adds
    (the task id, the skills' system text)."""

    prompt: str
    model: str
    system: str | None
    tools: tuple[str, ...]
    max_turns: int | None
    max_tokens_total: int | None
    temperature: float | None
    schema: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class ExecSpec:
    """An `exec:` task as the process sees it: `argv` (with `shell` set, the `/bin/sh -c`
    argv of that line), the `cwd` as written (None: the base directory), the task's own
    environment entries and the `stdin` text."""

    argv: tuple[str, ...]
    shell: str | None
    cwd: str | None
    env: Mapping[str, str]
    stdin: str | None


@overload
def resolve_body(task: Task, body: InferBody, env: Env, default_model: str | None) -> InferSpec:
    ...


@overload
def resolve_body(task: Task, body: AgentBody, env: Env, default_model: str | None
                 ) -> AgentFields:
    ...


@overload
def resolve_body(task: Task, body: ExecBody, env: Env, default_model: str | None) -> ExecSpec:
    ...


def resolve_body(task: Task, body: InferBody | AgentBody | ExecBody, env: Env,
                 default_model: str | None) -> InferSpec | AgentFields | ExecSpec:
    """The body's spec, resolved against `env`; a model verb's model defaults to
    `default_model` (the run's `--model`, else the workflow's `model:`). Raises the failing
    field's code (`NIKA-VAR-006` unless its rule has its own), naming the task and field."""
    if isinstance(body, ExecBody):
        return _exec(task, body, env)
    verb = "infer" if isinstance(body, InferBody) else "agent"

    def field(name: str, raw: Any) -> Any:
        return resolve(verb, name, raw, env, task.id)

    model = _model(verb, task, body.model, default_model, env)
    prompt = field("prompt", body.prompt) or ""
    system = field("system", body.system)
    temperature = field("temperature", body.temperature)
    schema = _reply_schema(verb, task, body.schema, env)
    if isinstance(body, InferBody):
        return InferSpec(model, prompt, system, temperature, field("max_tokens", body.max_tokens),
                         schema, "schema" if body.schema is not None else "returns")
    return AgentFields(prompt, model, system, tuple(body.tools), field("max_turns", body.max_turns),
                       field("max_tokens_total", body.max_tokens_total), temperature, schema)


def _exec(task: Task, body: ExecBody, env: Env) -> ExecSpec:
    def field(name: str, raw: Any) -> Any:
        return resolve("exec", name, raw, env, task.id)

    line: str | None = None
    if body.command is not None:
        program, *rest = body.command
        argv = (field("command[0]", program), *(field("command", part) for part in rest))
    else:
        line = field("shell", body.shell or "")
        argv = ("/bin/sh", "-c", line or "")
    return ExecSpec(
        argv=argv,
        shell=line,
        cwd=field("cwd", body.cwd),
        env={str(k): field("env", v) for k, v in body.env.items()},
        stdin=field("stdin", body.stdin),
    )


def _model(verb: str, task: Task, own: str | None, default: str | None, env: Env) -> str:
    """The task's model, else the run default (`--model`, else the workflow's `model:`)."""
    model = own or default
    if not model:
        raise NikaError(
            codes.PROVIDER_001,
            f"task {task.id!r} names no model and the workflow has no `model:`; add "
            "`model: <provider>/<name>` to the task or the envelope, or pass --model",
            details={"task": task.id},
        )
    resolved: str = resolve(verb, "model", model, env, task.id)
    return resolved


def _reply_schema(verb: str, task: Task, schema: Any, env: Env) -> Mapping[str, Any] | None:
    """The structured-output contract of a model verb: its `schema:`, else its `returns:`
    lowered (09 §returns — the same enforcement lane), else None (free text)."""
    if schema is not None:
        resolved: Mapping[str, Any] = resolve(verb, "schema", schema, env, task.id)
        return resolved
    return lower(task.returns) if task.returns is not None else None
