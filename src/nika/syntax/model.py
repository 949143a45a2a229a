"""The workflow model: frozen dataclasses for a checked Nika v1 workflow.

`build_workflow(doc)` turns a loaded `Document` into a `Workflow`, collecting every
shape finding it can (envelope · verb bodies · task fields · types). Values that
may carry `${{ … }}` islands stay raw (strings, lists, maps) — reference
resolution is the job of the check rungs, which read the model and locate their
findings through each node's `path` (a key path into `Document.root`).

A task's optional blocks live in `nika.syntax.task_blocks`, the envelope's declarations in
`nika.syntax.declarations`: a document that uses none of them never builds their classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NewType

from nika.errors import NikaError
from nika.syntax.keypath import KeyPath as KeyPath  # re-exported: the model's paths

if TYPE_CHECKING:
    from nika.syntax.declarations import (
        ConstDecl,
        InputDecl,
        OutputDecl,
        Permits,
        RunDecl,
        SecretRef,
    )
    from nika.syntax.durations import Duration
    from nika.syntax.loader import Document
    from nika.syntax.task_blocks import ForEach, Lift, OnError, Retry
    from nika.syntax.types import TypeExpr

TaskId = NewType("TaskId", str)
Verb = Literal["infer", "exec", "invoke", "agent"]
VERBS: tuple[Verb, ...] = ("infer", "exec", "invoke", "agent")


@dataclass(frozen=True, slots=True)
class InferBody:
    """`infer:` — one model call."""

    prompt: Any
    system: Any = None
    model: str | None = None
    temperature: Any = None
    max_tokens: Any = None
    schema: Mapping[str, Any] | None = None
    thinking: Mapping[str, Any] | None = None
    vision: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ExecBody:
    """`exec:` — exactly one of `command` (argv, no shell) or `shell` (one `/bin/sh -c` line)."""

    command: tuple[Any, ...] | None = None
    shell: str | None = None
    cwd: Any = None
    env: Mapping[str, Any] = field(default_factory=dict)
    stdin: Any = None
    capture: str = "stdout"
    decode: str | None = None


@dataclass(frozen=True, slots=True)
class InvokeBody:
    """`invoke:` — a tool (`nika:…` / `mcp:server/tool`) or a child `workflow:`."""

    tool: str | None = None
    workflow: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AgentBody:
    """`agent:` — a bounded loop over a tool whitelist."""

    prompt: Any
    system: Any = None
    model: str | None = None
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    max_turns: Any = None
    max_tokens_total: Any = None
    temperature: Any = None
    schema: Mapping[str, Any] | None = None


Body = InferBody | ExecBody | InvokeBody | AgentBody


@dataclass(frozen=True, slots=True)
class Task:
    """One task: the map key is its identity; `path` locates it in the document."""

    id: TaskId
    verb: Verb
    body: Body
    path: KeyPath
    with_: Mapping[str, Any] = field(default_factory=dict)
    after: Mapping[TaskId, str] = field(
        default_factory=dict
    )  # predicates as written; DAG-005 judges
    when: bool | str | None = None
    for_each: ForEach | None = None
    retry: Retry | None = None
    timeout: Duration | None = None
    on_error: OnError | None = None
    returns: TypeExpr | None = None
    extract: Mapping[str, str] = field(default_factory=dict)
    group: str | None = None
    lift: tuple[Lift, ...] = ()

    @property
    def model(self) -> str | None:
        """The model this task names itself (infer/agent), without the workflow default."""
        return self.body.model if isinstance(self.body, (InferBody, AgentBody)) else None

    @property
    def tool(self) -> str | None:
        """The invoked tool id, when this is an `invoke: tool:` task."""
        return self.body.tool if isinstance(self.body, InvokeBody) else None


@dataclass(frozen=True, slots=True)
class Workflow:
    """A workflow whose shape passed: the nine-key envelope, tasks in file order."""

    name: str
    tasks: Mapping[TaskId, Task]
    model: str | None = None
    inputs: Mapping[str, InputDecl] = field(default_factory=dict)
    const: Mapping[str, ConstDecl] = field(default_factory=dict)
    secrets: Mapping[str, SecretRef] = field(default_factory=dict)
    permits: Permits | None = None
    run: RunDecl | None = None
    outputs: Mapping[str, OutputDecl] = field(default_factory=dict)

    def task(self, task_id: str) -> Task | None:
        """The task with this id, or None."""
        return self.tasks.get(TaskId(task_id))


def build_workflow(doc: Document) -> tuple[Workflow | None, list[NikaError]]:
    """Validate the document's shape and build the model; never raises on bad input.

    Returns `(workflow, findings)`; the workflow is `None` when the envelope is too
    broken to model (no `tasks:` map, not a mapping, …) and otherwise carries every
    task that could be built, with `findings` listing everything refused.
    """
    # Imported here: the builders construct these dataclasses, so they import this module.
    from nika.syntax._build_envelope import build

    return build(doc)
