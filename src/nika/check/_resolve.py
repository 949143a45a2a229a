"""Resolving one static reference against the scope of the surface it was written on."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from nika import codes
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.model import AgentBody, InferBody, KeyPath, Task, TaskId

if TYPE_CHECKING:
    from nika.check._walk import Invalid
    from nika.syntax.expr import Reference

RECORD_FIELDS: Final = ("output", "status", "error", "started_at", "ended_at", "duration_ms")
"""The closed projection set of a task record (spec 04 §tasks.X)."""

_DEAD: Final[Mapping[str, tuple[str, str]]] = {
    "vars": (codes.VALUES_001, "the pre-flip `vars` namespace is dead"),
    "env": (codes.VALUES_002, "the pre-flip `env` namespace is dead"),
    "config": (codes.VALUES_003, "`config` died with the envelope nuke"),
    "params": (codes.VALUES_003, "`params` is not a value authority"),
    "parameters": (codes.VALUES_003, "`parameters` is not a value authority"),
    "values": (codes.VALUES_003, "`values` is not a value authority"),
    "variables": (codes.VALUES_003, "`variables` is not a value authority"),
    "settings": (codes.VALUES_003, "`settings` is not a value authority"),
}
"""Value-namespace spellings outside the three-authority family (spec 04 §dead forms)."""

_CLASSIFY: Final = (
    "classify the value: a typed parameter is an `inputs:` entry, a fixed value a `const:` "
    "entry, a deployment knob an `inputs:` entry with `required: false` and a `default:`, a "
    "store reference a `secrets:` entry"
)

_DECLARE: Final[Mapping[str, str]] = {
    "inputs": "declare it under `inputs:`, e.g. `inputs: {{ {name}: {{ type: string }} }}`",
    "const": 'declare it under `const:`, e.g. `const: {{ {name}: "…" }}`',
    "secrets": (
        "declare it under `secrets:`, e.g. `secrets: {{ {name}: {{ source: vault, key: … }} }}`"
    ),
}

_ROOTS: Final = ("inputs", "const", "secrets", "with", "tasks", "group", "item", "index")

TasksAccess = Literal["any"] | frozenset[TaskId] | None


@dataclass(frozen=True, slots=True)
class Scope:
    """What a surface may read.

    `tasks` is None off the boundary, `"any"` on it, or the producers a cleanup task
    unwinds (the only records it may read). `loop` admits `item`/`index`; `pre_fan_out`
    marks the `for_each.items` collection, evaluated before any iteration exists.
    """

    surface: str
    task: Task | None = None
    with_: bool = False
    loop: bool = False
    pre_fan_out: bool = False
    tasks: TasksAccess = None
    group: bool = False


class Resolver:
    """Resolves references of one workflow; a class only to share the context."""

    def __init__(self, ctx: CheckContext) -> None:
        self._ctx = ctx
        workflow = ctx.workflow
        self._declared: Mapping[str, frozenset[str]] = {
            "inputs": frozenset(workflow.inputs),
            "const": frozenset(workflow.const),
            "secrets": frozenset(workflow.secrets),
        }
        self._projections: dict[TaskId, tuple[str, ...]] = {}

    def resolve(self, ref: Reference, scope: Scope, site: KeyPath) -> Iterator[NikaError]:
        """Every refusal `ref` earns on `scope` (none when it resolves)."""
        if ref.root in self._declared:
            yield from self._authority(ref, scope, site)
        elif ref.root == "with":
            yield from self._with(ref, scope, site)
        elif ref.root == "tasks":
            yield from self._tasks(ref, scope, site)
        elif ref.root == "group":
            if not scope.group:
                yield self._error(
                    codes.VAR_021,
                    f"`{ref.dotted}` is read in {scope.surface}, but a group fold has one door, "
                    f"a `with:` value; bind it (`with: {{ legs: ${{{{ {ref.dotted} }}}} }}`) "
                    "and read `${{ with.legs }}`",
                    site,
                )
        elif ref.root in ("item", "index"):
            yield from self._loop_local(ref, scope, site)
        else:
            yield from self._unknown_root(ref, scope, site)

    def _error(self, code: str, detail: str, site: KeyPath) -> NikaError:
        return self._ctx.error(code, detail, site)

    def _closest(self, name: str, candidates: Collection[str]) -> str:
        close = self._ctx.suggestions.closest(name, candidates)
        return f"did you mean `{close}`? " if close else ""

    def _listing(self, candidates: Collection[str]) -> str:
        return self._ctx.suggestions.listing(candidates) or "none"

    def _fields(self, producer: Task) -> tuple[str, ...]:
        """The record fields and `extract:` bindings of `producer`, one tuple per task (the
        suggestions sort each candidate set once)."""
        fields = self._projections.get(producer.id)
        if fields is None:
            fields = self._projections[producer.id] = (*RECORD_FIELDS, *producer.extract)
        return fields

    def _authority(self, ref: Reference, scope: Scope, site: KeyPath) -> Iterator[NikaError]:
        declared = self._declared[ref.root]
        if not ref.path:
            yield self._error(
                codes.VAR_001,
                f"`{ref.root}` in {scope.surface} is a namespace, not a value; name one entry, "
                f"e.g. `${{{{ {ref.root}.<name> }}}}`",
                site,
            )
            return
        name = str(ref.path[0])
        if name in declared:
            return
        yield self._error(
            codes.VAR_001,
            f"`{ref.dotted}` in {scope.surface} names no declared `{ref.root}:` entry "
            f"(declared: {self._listing(declared)}); {self._closest(name, declared)}"
            + _DECLARE[ref.root].format(name=name),
            site,
        )

    def _with(self, ref: Reference, scope: Scope, site: KeyPath) -> Iterator[NikaError]:
        task = scope.task
        if task is None:
            yield self._error(
                codes.VAR_001,
                f"`{ref.dotted}` in {scope.surface}: `with` is a task's own scope and exists "
                "only inside a task; read `inputs`, `const`, `secrets` or `tasks.<id>.output`",
                site,
            )
            return
        if not scope.with_:
            yield self._error(
                codes.VAR_001,
                f"`{ref.dotted}` in {scope.surface}: a `with:` binding cannot read another "
                "binding; reference the source directly (`inputs.…`, `const.…`, "
                "`tasks.<id>.output`)",
                site,
            )
            return
        name = str(ref.path[0]) if ref.path else ""
        if name and name in task.with_:
            return
        yield self._error(
            codes.VAR_001,
            f"`{ref.dotted}` in {scope.surface} names no `with:` binding of task `{task.id}` "
            f"(bindings: {self._listing(task.with_)}); {self._closest(name, task.with_)}"
            "declare it in the task's "
            f"`with:` block, e.g. `with: {{ {name or '<name>'}: ${{{{ inputs.… }}}} }}`",
            site,
        )

    def _tasks(self, ref: Reference, scope: Scope, site: KeyPath) -> Iterator[NikaError]:
        if scope.tasks is None:
            binding = "_".join(str(s) for s in ref.path[:2]) or "value"
            yield self._error(
                codes.VAR_021,
                f"`{ref.dotted}` is read in {scope.surface}, outside the reference boundary; "
                f"hoist it into `with:` (`with: {{ {binding}: ${{{{ {ref.dotted} }}}} }}`) and "
                f"read `${{{{ with.{binding} }}}}`",
                site,
            )
            return
        if len(ref.path) < 2:
            what = "the `tasks` namespace" if not ref.path else f"`{ref.dotted}`, a whole record,"
            yield self._error(
                codes.VAR_020,
                f"{what} is not a value (in {scope.surface}); pick one projection, e.g. "
                f"`${{{{ tasks.{ref.path[0] if ref.path else '<id>'}.output }}}}` (or `.status`, "
                "`.error`, `.duration_ms`) — to fold many tasks, declare a group and bind "
                "`${{ group.<name> }}`",
                site,
            )
            return
        name, projection = TaskId(str(ref.path[0])), str(ref.path[1])
        if isinstance(scope.tasks, frozenset) and name not in scope.tasks:
            owned = ", ".join(f"`{p}`" for p in sorted(scope.tasks))
            yield self._error(
                codes.VAR_021,
                f"`{ref.dotted}` is read in {scope.surface}, a cleanup task that may read only "
                f"the producer it unwinds ({owned}): `{name}` may still be running; read "
                "the producer, or make this an ordinary task with `after: {…: terminal}`",
                site,
            )
            return
        producer = self._ctx.workflow.tasks.get(name)
        if producer is None:
            if scope.task is None:
                declared = self._ctx.workflow.tasks
                yield self._error(
                    codes.VAR_001,
                    f"`{ref.dotted}` in {scope.surface} names no declared task; "
                    f"{self._closest(name, declared)}declare `{name}` under `tasks:` or read an "
                    "existing one",
                    site,
                )
            return
        if projection not in RECORD_FIELDS and projection not in producer.extract:
            fields = self._fields(producer)
            yield self._error(
                codes.VAR_001,
                f"`{ref.dotted}` in {scope.surface}: task `{name}` has no record field or "
                f"`extract:` binding `{projection}` (fields: {self._listing(fields)}); "
                f"{self._closest(projection, fields)}add `{projection}` to `extract:` of `{name}`, "
                "or read `.output`",
                site,
            )
            return
        if projection == "output" and len(ref.path) > 2:
            yield from self._walk(ref, producer, scope, site)

    def _walk(
        self, ref: Reference, producer: Task, scope: Scope, site: KeyPath
    ) -> Iterator[NikaError]:
        if producer.for_each is not None:
            return  # the output is the per-iteration array: the declaration types one element
        from nika.check._walk import walk_schema, walk_type

        steps = ref.path[2:]
        invalid: Invalid | None = None
        declared = "returns:"
        if producer.returns is not None:
            invalid = walk_type(producer.returns, steps)
        elif isinstance(producer.body, InferBody | AgentBody) and producer.body.schema:
            invalid, declared = walk_schema(producer.body.schema, steps), "schema:"
        if invalid is None:
            return
        yield self._error(
            codes.VAR_003,
            f"`{ref.dotted}` in {scope.surface} cannot exist: at step "
            f"`{steps[invalid.at]}`, {invalid.reason} in the `{declared}` of task "
            f"`{producer.id}`; fix the path, or declare the member there (an open level, "
            "`additionalProperties: true` / `additional: true`, admits undeclared members)",
            site,
        )

    def _loop_local(self, ref: Reference, scope: Scope, site: KeyPath) -> Iterator[NikaError]:
        if scope.pre_fan_out:
            yield self._error(
                codes.VAR_005,
                f"`{ref.root}` is read in {scope.surface}, which is evaluated once before any "
                "iteration exists; build the collection from `inputs`, `const` or a `with:` "
                "binding",
                site,
            )
        elif not scope.loop:
            owner = f"task `{scope.task.id}`" if scope.task is not None else "a task"
            yield self._error(
                codes.VAR_001,
                f"`{ref.root}` is read in {scope.surface}, but it exists only inside a "
                f"`for_each` task; give {owner} `for_each: {{ items: … }}`, or read a declared "
                "value instead",
                site,
            )

    def _unknown_root(self, ref: Reference, scope: Scope, site: KeyPath) -> Iterator[NikaError]:
        dead = _DEAD.get(ref.root)
        if dead is not None:
            code, why = dead
            yield self._error(
                code,
                f"`{ref.dotted}` in {scope.surface}: {why}; the value authorities are exactly "
                f"`inputs`, `const` and `secrets` — {_CLASSIFY}",
                site,
            )
        yield self._error(
            codes.VAR_001,
            f"`{ref.dotted}` in {scope.surface} reads `{ref.root}`, which is not a namespace; "
            f"{self._closest(ref.root, _ROOTS)}the namespaces are `inputs`, `const`, `secrets`, "
            "`with` and `tasks` (plus `item`/`index` inside a `for_each` task)",
            site,
        )
