"""Each verb's fields resolved into the spec it runs — the one place a run resolves them.

Every field goes through `nika.syntax.fields.resolve`: its `${{ }}` islands evaluated against
the task's environment, its value held to the field's one rule (the rule the builder holds a
literal to, and `AgentSpec` a library caller's input). A verb module receives a resolved spec
and never reads a raw body field itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from nika import codes
from nika.agent.spec import AgentSpec
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
class ExecSpec:
    """An `exec:` task as the process sees it: `argv` (with `shell` set, the `/bin/sh -c`
    argv of that line), the `cwd` as written (None: the base directory), the task's own
    environment entries and the `stdin` text."""

    argv: tuple[str, ...]
    shell: str | None
    cwd: str | None
    env: Mapping[str, str]
    stdin: str | None


def infer_spec(task: Task, body: InferBody, env: Env, default_model: str | None) -> InferSpec:
    """Resolve an `infer:` body (the model defaulted to the run's)."""
    return InferSpec(
        model=_model("infer", task, body.model, default_model, env),
        prompt=resolve("infer", "prompt", body.prompt, env, task.id) or "",
        system=resolve("infer", "system", body.system, env, task.id),
        temperature=resolve("infer", "temperature", body.temperature, env, task.id),
        max_tokens=resolve("infer", "max_tokens", body.max_tokens, env, task.id),
        schema=_reply_schema("infer", task, body.schema, env),
        contract="schema" if body.schema is not None else "returns",
    )


def agent_spec(task: Task, body: AgentBody, env: Env, default_model: str | None,
               extra_system: str | None) -> AgentSpec:
    """Resolve an `agent:` body into the loop's `AgentSpec` (`extra_system`: the skills the
    caller read)."""
    return AgentSpec(
        prompt=resolve("agent", "prompt", body.prompt, env, task.id) or "",
        model=_model("agent", task, body.model, default_model, env),
        task_id=task.id,
        system=resolve("agent", "system", body.system, env, task.id),
        tools=tuple(body.tools),
        max_turns=resolve("agent", "max_turns", body.max_turns, env, task.id),
        max_tokens_total=resolve("agent", "max_tokens_total", body.max_tokens_total, env,
                                 task.id),
        temperature=resolve("agent", "temperature", body.temperature, env, task.id),
        schema=_reply_schema("agent", task, body.schema, env),
        extra_system=extra_system,
    )


def exec_spec(task: Task, body: ExecBody, env: Env) -> ExecSpec:
    """Resolve an `exec:` body: argv (program first) or the shell line, cwd, env, stdin."""
    line: str | None = None
    if body.command is not None:
        program, *rest = body.command
        argv = (resolve("exec", "command[0]", program, env, task.id),
                *(resolve("exec", "command", part, env, task.id) for part in rest))
    else:
        line = resolve("exec", "shell", body.shell or "", env, task.id)
        argv = ("/bin/sh", "-c", line or "")
    return ExecSpec(
        argv=argv,
        shell=line,
        cwd=resolve("exec", "cwd", body.cwd, env, task.id),
        env={str(k): resolve("exec", "env", v, env, task.id) for k, v in body.env.items()},
        stdin=resolve("exec", "stdin", body.stdin, env, task.id),
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
