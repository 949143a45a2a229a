"""Where a task's value comes from: the sources behind its islands, and its static value.

Both authority rungs follow a value back to its roots — the permit taint (10 §the
permit-parameterization taint: `inputs.*` and task results are untrusted) and the secret
flow (01 §egress: `secrets.*` is confidential). A `with.k` read is followed into the
task's `with:` binding, so the path is the witness, source-first:
`secrets.api_key → tasks.call.with.tok`.

Resolution is static and partial: literals, `const.*` and `inputs.*` defaults resolve;
`secrets.*` NEVER resolves (the checker never reads a secret), nor does a task result.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from nika.check._islands import reads
from nika.errors import NikaError
from nika.syntax.model import Task, Workflow
from nika.syntax.template import walk_strings


@dataclass(frozen=True, slots=True)
class Source:
    """One root a value reads: `root` is the dotted read (`inputs.p`, `secrets.k`,
    `tasks.a.output`), `via` the `with:` hops between it and the value (source-first)."""

    root: str
    namespace: str
    via: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        """The taint path from the root up to (excluding) the sink."""
        return (self.root, *self.via)


def sources(value: Any, task: Task) -> Iterator[Source]:
    """Every root `value` reads, `with.*` reads followed through `task`'s bindings."""
    yield from _sources(value, task, (), frozenset())


def _sources(
    value: Any, task: Task, via: tuple[str, ...], seen: frozenset[str]
) -> Iterator[Source]:
    for _at, text in walk_strings(value):
        for ref in reads(text):
            if ref.root == "with" and ref.path:
                name = str(ref.path[0])
                if name in seen or name not in task.with_:
                    continue
                hop = f"tasks.{task.id}.with.{name}"
                yield from _sources(task.with_[name], task, (hop, *via), seen | {name})
            elif ref.root in ("inputs", "const", "secrets") and ref.path:
                yield Source(f"{ref.root}.{ref.path[0]}", ref.root, via)
            elif ref.root == "tasks" and ref.path:
                field = str(ref.path[1]) if len(ref.path) > 1 else "output"
                yield Source(f"tasks.{ref.path[0]}.{field}", "tasks", via)


def is_untrusted(source: Source) -> bool:
    """Integrity: caller-supplied inputs and task results are untrusted (10 §taint)."""
    return source.namespace in ("inputs", "tasks")


class Unresolved(Exception):
    """A value whose static form is not known at check (it defers to run time)."""


def static_env(workflow: Workflow, task: Task) -> Mapping[str, Any]:
    """The namespaces known at check: `const`, `inputs` with defaults, and the task's
    `with:` bindings that resolve from those (never `secrets`, never task results)."""
    inputs = {n: d.default for n, d in workflow.inputs.items() if d.has_default}
    consts = {n: c.value for n, c in workflow.const.items()}
    base: dict[str, Any] = {"inputs": inputs, "const": consts}
    bound: dict[str, Any] = {}
    for name, binding in task.with_.items():
        try:
            bound[name] = _resolve(binding, base)
        except Unresolved:
            continue
    return {**base, "with": bound}


def resolve(value: Any, workflow: Workflow, task: Task) -> Any:
    """The static value of `value` in `task`, or raise `Unresolved`."""
    return _resolve(value, static_env(workflow, task))


def _resolve(value: Any, env: Mapping[str, Any]) -> Any:
    from nika.syntax.binding import interpolate

    try:
        return interpolate(value, env)
    except (NikaError, KeyError, TypeError, ValueError) as err:
        raise Unresolved(str(err)) from None
