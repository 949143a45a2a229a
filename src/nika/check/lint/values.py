"""One obvious way, for how values are passed and shaped.

- /008 (spec 02 §exec): an interpolated value in a `shell:` line that needs no shell —
  the argv form is the structural fix for command injection;
- /009 (spec 04 §binding rules): a binding whose jq ends in a bare iterator emits a
  stream, but a binding resolves to exactly one value;
- /013 (spec 04 §`extract:` or `nika:jq`): one producer reshaped is a binding, not a task;
- /011 (spec 09 §One obvious way): `schema:` whose shape the type grammar can say is
  `returns:`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from nika.check.context import CheckContext
from nika.check.graph import EdgeKind
from nika.check.lint._finding import Lint, found
from nika.check.lint._read import reads_in, verb_node
from nika.check.lint._schema_fit import fits_type_grammar
from nika.errors import NikaError
from nika.syntax.model import AgentBody, ExecBody, InferBody, InvokeBody, Task
from nika.syntax.template import find_islands

_SHELL_META: Final = frozenset("|&;<>()$`*?{}")
"""Shell syntax in the literal part of a line: a genuine pipeline, redirect, expansion or
glob — what `/bin/sh -c` is for."""


def interpolated_shell(ctx: CheckContext) -> Iterator[Lint]:
    """/008 · an interpolated value lands in a `shell:` line whose literal text needs no
    shell: the value is shell-parsed, the classic injection surface."""
    for task in ctx.workflow.tasks.values():
        body = task.body
        if not isinstance(body, ExecBody) or body.shell is None or "${{" not in body.shell:
            continue
        try:
            islands = find_islands(body.shell)
        except NikaError:
            continue  # a malformed island is the variables rung's refusal
        literal, cursor = [], 0
        for island in islands:
            literal.append(body.shell[cursor : island.start])
            cursor = island.end
        literal.append(body.shell[cursor:])
        if not islands or _SHELL_META & set("".join(literal)):
            continue
        yield found(
            ctx,
            "one-obvious-way/008",
            task,
            f"an interpolated value lands in the `shell:` line of `{task.id}`, which needs no "
            "shell: the value is shell-parsed (the command-injection surface)",
            'use the argv form, `command: ["prog", "${{ … }}"]`: each element reaches the '
            "program as one argument and no shell parses it",
        )


def stream_binding(ctx: CheckContext) -> Iterator[Lint]:
    """/009 · an `extract:` binding whose jq ends in a trailing iterator `[]` with no
    collecting `[ … ]` wrapper (one lint per task: the first such binding)."""
    for task in ctx.workflow.tasks.values():
        name = next((n for n, jq in task.extract.items() if _ends_in_iterator(jq)), None)
        if name is None:
            continue
        program = task.extract[name]
        yield found(
            ctx,
            "one-obvious-way/009",
            task,
            f"the `{name}` binding's jq `{program}` ends in a trailing iterator `[]`: it "
            "emits a stream, but a binding resolves to exactly ONE value (more or fewer "
            "fails the run · NIKA-VAR-002)",
            f"collect the stream with `[ … ]` (`[{program.strip()}]` → an array), or take one "
            "with an index (`…[0]`) or `first(…)`",
        )


def _ends_in_iterator(program: str) -> bool:
    """A trailing `[]` (or `[]?`) applied to a value — not an empty-array literal."""
    text = program.rstrip()
    text = text.removesuffix("?")
    if not text.endswith("[]"):
        return False
    before = text[:-2].rstrip()
    return bool(before) and (before[-1].isalnum() or before[-1] in '_.)]"')


def jq_reshapes_one_producer(ctx: CheckContext) -> Iterator[Lint]:
    """/013 · `invoke: {tool: nika:jq}` reshaping ONE producer's output — a whole task
    node for what an `extract:` binding on that producer does at the boundary."""
    for task in ctx.workflow.tasks.values():
        producer = _sole_reshaped_producer(ctx, task)
        if producer is None:
            continue
        yield found(
            ctx,
            "one-obvious-way/013",
            task,
            f"`{task.id}` is a `nika:jq` task reshaping the output of ONE producer, "
            f"`{producer.id}`",
            f"write the jq as an `extract:` binding on `{producer.id}` and read "
            f"`tasks.{producer.id}.<binding>`; keep `nika:jq` for joining two or more "
            "producers",
        )


def _sole_reshaped_producer(ctx: CheckContext, task: Task) -> Task | None:
    body = task.body
    if not isinstance(body, InvokeBody) or body.tool != "nika:jq":
        return None
    if _needs_its_node(task):
        return None
    node = verb_node(ctx, task)
    args = node.get("args") if isinstance(node, Mapping) else None
    if not isinstance(args, Mapping) or "${{" in str(args.get("expression", "")):
        return None  # an extract: binding is pure jq: it cannot take a templated program
    used = list(reads_in(args))
    if not used or any(r.root != "with" or not r.path for r in used):
        return None
    names = {str(r.path[0]) for r in used}
    edges = ctx.graph().incoming(task.id)
    sources = {e.source for e in edges}
    values = {e.binding for e in edges if e.kind is EdgeKind.VALUE}
    if len(sources) != 1 or not names <= values:
        return None
    source = next(iter(sources))
    for name in names:
        if any(r.root != "tasks" or r.path[:1] != (source,) for r in reads_in(task.with_[name])):
            return None
    producer = ctx.workflow.tasks.get(source)
    # An extract: binding runs per iteration: a fan-out's collected array is not its input.
    return producer if producer is not None and producer.for_each is None else None


def _needs_its_node(task: Task) -> bool:
    """Does the task use what only a task has — a fan-out, a gate or an order, its own
    timeout, retry or recovery, a typed `returns:` door? Then the graph needs the node."""
    return (
        task.for_each is not None
        or task.when is not None
        or bool(task.after)
        or task.timeout is not None
        or task.retry is not None
        or task.on_error is not None
        or task.returns is not None
    )


def schema_fits_returns(ctx: CheckContext) -> Iterator[Lint]:
    """/011 · `schema:` on an `infer:`/`agent:` task whose shape fits the v1 type grammar."""
    for task in ctx.workflow.tasks.values():
        body = task.body
        if not isinstance(body, InferBody | AgentBody) or body.schema is None:
            continue
        if task.returns is not None or not fits_type_grammar(body.schema):
            continue  # both together is NIKA-TYPE-003's refusal, not a preference
        yield found(
            ctx,
            "one-obvious-way/011",
            task,
            f"the `{task.verb}.schema:` of `{task.id}` is a shape the v1 type grammar can "
            "say: the JSON Schema hatch is for out-of-core shapes",
            "declare it as `returns:` on the task (the typed door: the same structured-"
            "output contract, and every deep reference downstream checked against it)",
        )
