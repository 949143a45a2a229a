"""The variables rung (spec 04): every `${{ }}` island of the workflow, parsed and resolved.

Each surface carries a scope — which namespaces it may read. `with:`, `after:`,
`on_error.recover:`, workflow `outputs:` and a cleanup task reading its own producer
are the boundary where `tasks.*` may appear (`NIKA-VAR-021` elsewhere); `group.*`
has one door, a `with:` value. Undeclared names are `NIKA-VAR-001` with the closest
declared name and how to declare it; dead value namespaces are `NIKA-VALUES-*`.
Edge-level findings (undeclared producers in `with:`, unknown groups) belong to the
DAG rung and are not repeated here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.check._islands import parsed, reads
from nika.check._resolve import Resolver, Scope
from nika.check.context import CheckContext, Finding, Hint
from nika.check.graph import UNWIND
from nika.errors import NikaError
from nika.syntax.model import KeyPath, Task
from nika.syntax.template import is_whole_island, walk_strings

if TYPE_CHECKING:
    from nika.syntax.expr import Expr, Reference
    from nika.syntax.types import TypeExpr

_SKIPPED_TASK_KEYS: Final = frozenset(
    {
        "after",
        "group",
        "retry",
        "timeout",
        "returns",
        "lift",
        "with",
        "when",
        "for_each",
        "on_error",
        "extract",
    }
)
"""Task keys with no expression surface, or with a dedicated scan below."""


@dataclass(frozen=True, slots=True)
class _Island:
    expr: Expr
    site: KeyPath

    @property
    def references(self) -> tuple[Reference, ...]:
        # An island exists, so the expression language is loaded already.
        from nika.syntax.expr import references

        return references(self.expr)


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Parse and resolve every island of `ctx.workflow`; hint at inputs that may bind null."""
    yield from _null_inputs(ctx)
    resolver = Resolver(ctx)
    root = ctx.document.root if isinstance(ctx.document.root, Mapping) else {}
    envelope = Scope(surface="the envelope")
    if "model" in root:
        yield from _scan(ctx, resolver, root["model"], ("model",), envelope)
    outputs = Scope(surface="workflow `outputs:`", tasks="any")
    for decl in ctx.workflow.outputs.values():
        raw = ctx.document.node(decl.path)
        typed = isinstance(raw, Mapping) and "value" in raw and raw["value"] is decl.value
        site = (*decl.path, "value") if typed else decl.path
        yield from _scan(ctx, resolver, decl.value, site, outputs)
    for task in ctx.workflow.tasks.values():
        raw_task = ctx.document.node(task.path)
        yield from _task(ctx, resolver, task, raw_task if isinstance(raw_task, Mapping) else {})


def _null_inputs(ctx: CheckContext) -> Iterator[Hint]:
    """An input neither `required: true` nor defaulted binds null when the launch omits it
    (spec 01 §inputs): a hint when its type does not admit null, the read that follows
    would meet a value its declaration rules out."""
    for decl in ctx.workflow.inputs.values():
        if decl.required or decl.has_default or _admits_null(decl.type):
            continue
        yield Hint(ctx.error(
            codes.INPUT_004,
            f"input `{decl.name}` is neither `required: true` nor given a `default:`, so a run "
            f"without `--var {decl.name}=…` binds it to null, which its `type:` does not "
            "admit; add `required: true`, a `default:`, or admit null with "
            "`type: { union: [<type>, null] }`",
            decl.path,
        ))


def _admits_null(t: TypeExpr) -> bool:
    from nika.syntax.types import Prim, UnionOf

    if isinstance(t, UnionOf):
        return any(_admits_null(m) for m in t.members)
    return isinstance(t, Prim) and t.name == "null"


def _task(
    ctx: CheckContext, resolver: Resolver, task: Task, raw: Mapping[str, Any]
) -> Iterator[NikaError]:
    producers = frozenset(p for p, pred in task.after.items() if pred == UNWIND)
    looped = task.for_each is not None and not producers
    body = Scope(
        surface=f"the body of task `{task.id}`",
        task=task,
        with_=True,
        loop=looped,
        tasks=producers if producers else None,
    )
    at = task.path
    for binding, value in task.with_.items():
        scope = replace(
            body,
            surface=f"`with: {{ {binding}: … }}` of task `{task.id}`",
            tasks=producers or "any",
            group=True,
            with_=False,
        )
        yield from _scan(ctx, resolver, value, (*at, "with", binding), scope)
    if isinstance(task.when, str):
        yield from _when(
            ctx,
            resolver,
            task.when,
            (*at, "when"),
            # An unwind task may read its producer in `when:` too (spec 03 §unwind): settled.
            replace(body, surface=f"`when:` of task `{task.id}`", tasks=producers or None),
        )
    if task.for_each is not None and isinstance(task.for_each.items, str | list):
        yield from _for_each(ctx, resolver, task, (*at, "for_each", "items"), body)
    if task.on_error is not None and task.on_error.action == "recover":
        scope = replace(
            body, surface=f"`on_error.recover:` of task `{task.id}`", tasks=producers or "any"
        )
        yield from _scan(ctx, resolver, task.on_error.recover, (*at, "on_error", "recover"), scope)
    for name, program in task.extract.items():
        yield from _extract(ctx, program, (*at, "extract", name))
    for key, value in raw.items():
        if key not in _SKIPPED_TASK_KEYS:
            yield from _scan(ctx, resolver, value, (*at, key), body)


def _islands(ctx: CheckContext, value: Any, site: KeyPath) -> Iterator[_Island | NikaError]:
    """Every parsed island in the strings of `value`; malformed ones as located errors."""
    for at, text in walk_strings(value, site):
        result = parsed(text)
        if isinstance(result, NikaError):
            yield _located(ctx, result, at)
        else:
            yield from (_Island(expr, at) for expr in result)


def _located(ctx: CheckContext, err: NikaError, at: KeyPath) -> NikaError:
    return NikaError(err.code, err.detail, details=err.details or None, location=ctx.locate(at))


def _scan(
    ctx: CheckContext, resolver: Resolver, value: Any, site: KeyPath, scope: Scope
) -> Iterator[NikaError]:
    for item in _islands(ctx, value, site):
        if isinstance(item, NikaError):
            yield item
        else:
            for ref in item.references:
                yield from resolver.resolve(ref, scope, item.site)


def _when(
    ctx: CheckContext, resolver: Resolver, when: str, site: KeyPath, scope: Scope
) -> Iterator[NikaError]:
    whole = _whole(when)  # once: the islands below must not re-segment the string each
    if not whole:
        yield ctx.error(
            codes.VAR_005,
            f"`when: {when!r}` is neither one `${{{{ … }}}}` boolean expression nor a YAML "
            "boolean; write e.g. `when: ${{ with.count > 0 }}`, or `true`/`false` unquoted",
            site,
        )
    for item in _islands(ctx, when, site):
        if isinstance(item, NikaError):
            yield item
            continue
        if whole:
            from nika.syntax.expr import require_boolean_shape

            try:
                require_boolean_shape(item.expr)
            except NikaError as err:
                yield _located(ctx, err, site)
        for ref in item.references:
            yield from resolver.resolve(ref, scope, item.site)


def _whole(text: str) -> bool:
    try:
        return is_whole_island(text)
    except NikaError:
        return False


def _for_each(
    ctx: CheckContext, resolver: Resolver, task: Task, site: KeyPath, body: Scope
) -> Iterator[NikaError]:
    assert task.for_each is not None
    items = task.for_each.items
    if isinstance(items, str) and not _whole(items):
        yield ctx.error(
            codes.VAR_005,
            f"`for_each.items` of task `{task.id}` is the string {items!r}; the collection is a "
            "literal list or one `${{ … }}` expression, e.g. `items: ${{ with.pages }}`",
            site,
        )
    scope = replace(
        body, surface=f"`for_each.items` of task `{task.id}`", loop=False, pre_fan_out=True
    )
    looped = _loop_bindings(task)
    for item in _islands(ctx, items, site):
        if isinstance(item, NikaError):
            yield item
            continue
        for ref in item.references:
            yield from resolver.resolve(ref, scope, item.site)
            name = str(ref.path[0]) if ref.root == "with" and ref.path else None
            if name in looped:
                yield ctx.error(
                    codes.VAR_005,
                    f"`for_each.items` of task `{task.id}` reads `with.{name}`, whose binding "
                    "reads `item`/`index`: the collection is evaluated once, before any "
                    "iteration exists, so this is circular; bind the collection without the "
                    "loop locals",
                    item.site,
                )


def _loop_bindings(task: Task) -> frozenset[str]:
    """`with:` bindings that read a loop local (`item` / `index`)."""
    out: set[str] = set()
    for binding, value in task.with_.items():
        for _, text in walk_strings(value):
            if any(_is_local(r) for r in reads(text)):
                out.add(binding)
    return frozenset(out)


def _is_local(ref: Reference) -> bool:
    return ref.root in ("item", "index")


def _extract(ctx: CheckContext, program: Any, site: KeyPath) -> Iterator[NikaError]:
    """An `extract:` binding is pure jq: it must compile, read no ambient and hold no island."""
    if not isinstance(program, str):
        return
    from nika.syntax.binding import compile_jq  # jq loads with the first `extract:`

    try:
        compile_jq(program)
    except NikaError as err:
        yield _located(ctx, err, site)
