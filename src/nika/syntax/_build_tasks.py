"""Build the `tasks:` map (spec 02 verbs, 03 task fields, 05 retry/on_error) into the model."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.syntax._build_verbs import build_body
from nika.syntax._shape import Shape, show
from nika.syntax.keypath import KeyPath
from nika.syntax.model import (
    VERBS,
    Body,
    ExecBody,
    Task,
    TaskId,
    Verb,
)

if TYPE_CHECKING:
    from nika.syntax.durations import Duration
    from nika.syntax.task_blocks import ForEach, Lift, OnError, Retry
    from nika.syntax.types import TypeExpr

TASK_ID_RE: Final = re.compile(r"^[a-z][a-z0-9_]*$")
RESERVED_BINDINGS: Final = frozenset(
    {"output", "status", "error", "started_at", "ended_at", "duration_ms"}
)
TASK_FIELDS: Final = (
    "with",
    "group",
    "after",
    "when",
    "for_each",
    "retry",
    "on_error",
    "timeout",
    "returns",
    "extract",
    "lift",
    *VERBS,
)
_DEAD_TASK: Final = {
    "id": (codes.PARSE_023, "the map key IS the task's identity; delete the `id:` field"),
    "depends_on": (
        codes.PARSE_024,
        "consume data with a `with:` binding (`x: ${{ tasks.a.output }}`) or order with "
        "`after: { a: success }` (`after: { a: terminal }` to run whatever happened)",
    ),
    "output": (
        codes.PARSE_005,
        "the task-level extraction block is now `extract:` (same jq bindings)",
    ),
    "max_parallel": (
        codes.PARSE_005,
        "it moved into the fan-out block: `for_each: { items: …, max_parallel: N }`",
    ),
    "fail_fast": (
        codes.PARSE_005,
        "it moved into the fan-out block: `for_each: { items: …, fail_fast: false }`",
    ),
    "declassify": (
        codes.PARSE_005,
        "the authored door is `lift: [{ law: taint, from: …, because: … }]`",
    ),
    "inert": (codes.PARSE_005, "the authored door is `lift: [{ law: data-as-code, because: … }]`"),
}
_LIFT_FROM_RE: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def build_tasks(shape: Shape, raw: Mapping[Any, Any]) -> dict[TaskId, Task]:
    """Every task that could be built, in file order; refusals go to `shape`."""
    out: dict[TaskId, Task] = {}
    for key, spec in raw.items():
        at: KeyPath = ("tasks", key)
        if not isinstance(key, str) or not TASK_ID_RE.match(key):
            shape.report(
                codes.PARSE_006,
                f"task id {show(key)} violates ^[a-z][a-z0-9_]*$ (snake_case, CEL-safe); "
                f"rename it, e.g. {_snake(key)!r}",
                at,
            )
            continue
        if not shape.mapping(spec, at, f"task `{key}`"):
            continue
        task = _task(shape, TaskId(key), spec, at)
        if task is not None:
            out[task.id] = task
    return out


def _snake(key: Any) -> str:
    text = re.sub(r"[^a-z0-9_]", "_", str(key).lower())
    return text if text[:1].isalpha() else f"t_{text}"


def _task(shape: Shape, tid: TaskId, spec: Mapping[str, Any], at: KeyPath) -> Task | None:
    shape.closed(spec, TASK_FIELDS, at, f"task `{tid}`", dead=_DEAD_TASK)
    verbs = [v for v in VERBS if v in spec]
    if not verbs and shape.misspelt(at, *VERBS):
        return None  # `infr:` was reported as the typo it is
    if not verbs:
        shape.report(
            codes.PARSE_008,
            f"task `{tid}` declares no verb; add exactly one of infer:, exec:, invoke:, agent:",
            at,
        )
        return None
    if len(verbs) > 1:
        shape.report(
            codes.PARSE_009,
            f"task `{tid}` declares {len(verbs)} verbs ({', '.join(verbs)}); a task runs "
            "exactly one — "
            "split it into one task per verb",
            (*at, verbs[1]),
        )
        return None
    verb: Verb = verbs[0]
    body = build_body(shape, verb, spec[verb], (*at, verb), tid)
    with_ = _with(shape, spec.get("with"), (*at, "with"), tid)
    after = _after(shape, spec.get("after"), (*at, "after"), tid)
    when = _when(shape, spec, at, tid)
    for_each = (
        _for_each(shape, spec["for_each"], (*at, "for_each"), tid) if "for_each" in spec else None
    )
    retry: Retry | None = None
    on_error: OnError | None = None
    timeout: Duration | None = None
    if "retry" in spec or "on_error" in spec or "timeout" in spec:
        # A document's optional blocks (and their classes) load with the first one it writes.
        from nika.syntax._build_recovery import build_on_error, build_retry, build_timeout

        if "retry" in spec:
            retry = build_retry(shape, spec["retry"], (*at, "retry"), tid)
        if "on_error" in spec:
            on_error = build_on_error(shape, spec["on_error"], (*at, "on_error"), tid)
        if "timeout" in spec:
            timeout = build_timeout(shape, spec["timeout"], (*at, "timeout"), tid)
    returns = _returns(shape, spec, body, at, tid) if "returns" in spec else None
    extract = _extract(shape, spec.get("extract"), (*at, "extract"), tid)
    group = _group(shape, spec["group"], (*at, "group")) if "group" in spec else None
    lift = _lift(shape, spec["lift"], (*at, "lift"), tid) if "lift" in spec else ()
    if body is None:
        return None
    return Task(
        tid,
        verb,
        body,
        at,
        with_,
        after,
        when,
        for_each,
        retry,
        timeout,
        on_error,
        returns,
        extract,
        group,
        lift,
    )


def _with(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not shape.mapping(raw, at, f"`with:` of task `{tid}`"):
        return {}
    for key in raw:
        if key in RESERVED_BINDINGS:
            shape.report(
                codes.PARSE_013,
                f"`with:` binding `{key}` of task `{tid}` collides with a reserved "
                "task-record field "
                f"({', '.join(sorted(RESERVED_BINDINGS))}); rename it",
                (*at, key),
            )
    return dict(raw)


def _after(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> Mapping[TaskId, str]:
    if raw is None:
        return {}
    if isinstance(raw, list):
        shape.report(
            codes.PARSE_019,
            f"`after:` of task `{tid}` is a list; it is a map producer → predicate, e.g. "
            f"`after: {{ build: success }}`",
            at,
        )
        return {}
    if not shape.mapping(raw, at, f"`after:` of task `{tid}`"):
        return {}
    out: dict[TaskId, str] = {}
    for producer, predicate in raw.items():
        if not isinstance(predicate, str):
            shape.report(
                codes.DAG_005,
                f"`after: {{ {producer}: {show(predicate)} }}` — the predicate is one of "
                "success, failure, skipped, "
                "terminal (or unwind)",
                (*at, producer),
            )
            continue
        out[TaskId(str(producer))] = predicate
    return out


def _when(shape: Shape, spec: Mapping[str, Any], at: KeyPath, tid: TaskId) -> bool | str | None:
    if "when" not in spec:
        return None
    value = spec["when"]
    if isinstance(value, (bool, str)):
        return value
    shape.report(
        codes.VAR_005,
        f"`when:` of task `{tid}` is {show(value)}; write a `${{{{ … }}}}` boolean "
        "expression or true/false",
        (*at, "when"),
    )
    return None


def _for_each(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> ForEach | None:
    if not isinstance(raw, Mapping):
        shape.report(
            codes.PARSE_019,
            f"`for_each:` of task `{tid}` is {show(raw)}; it is a block: `for_each: "
            f"{{ items: ${{{{ with.xs }}}} }}`",
            at,
        )
        return None
    shape.closed(raw, ("items", "max_parallel", "fail_fast"), at, f"`for_each:` of task `{tid}`")
    if "items" not in raw:
        shape.report(
            codes.PARSE_019,
            f"`for_each:` of task `{tid}` needs `items:` (a list or a `${{{{ }}}}` expression)",
            at,
        )
        return None
    items = raw["items"]
    if not isinstance(items, (str, list)):
        shape.misfit(codes.PARSE_019, "`for_each.items`", "a list or a `${{ }}` expression",
                     items, (*at, "items"))
        return None
    cap = None
    if "max_parallel" in raw:
        cap = shape.integer(
            raw["max_parallel"],
            (*at, "max_parallel"),
            "`for_each.max_parallel`",
            codes.PARSE_019,
            1,
        )
    fail_fast = shape.boolean(
        raw.get("fail_fast", True), (*at, "fail_fast"), "`for_each.fail_fast`"
    )
    from nika.syntax.task_blocks import ForEach

    return ForEach(items, cap, True if fail_fast is None else fail_fast)


def _returns(
    shape: Shape, spec: Mapping[str, Any], body: Body | None, at: KeyPath, tid: TaskId
) -> TypeExpr | None:
    verb_body = next((spec[v] for v in VERBS if v in spec), None)
    if isinstance(verb_body, Mapping) and "schema" in verb_body:
        shape.report(
            codes.TYPE_003,
            f"task `{tid}` declares both `returns:` and a verb-level `schema:`; one "
            "contract, one spelling — "
            "keep `returns:` (or `schema:` alone for an out-of-core shape)",
            (*at, "returns"),
        )
    # The type language loads with the first type a document declares.
    from nika.syntax.typefit import decode_may_fit
    from nika.syntax.types import parse_type, render

    t = parse_type(spec["returns"], (*at, "returns"), shape.report)
    if t is not None and isinstance(body, ExecBody):
        produced = "structured" if body.capture == "structured" else (body.decode or "text")
        if not decode_may_fit(produced, t):
            shape.report(
                codes.TYPE_004,
                f"`returns: {render(t)}` of task `{tid}` cannot come out of exec decode "
                f"`{produced}`; "
                "declare the matching `decode:` in `exec:` (e.g. `decode: json`) or "
                "change the type",
                (*at, "returns"),
            )
    return t


def _extract(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> Mapping[str, str]:
    if raw is None or not shape.mapping(raw, at, f"`extract:` of task `{tid}`"):
        return {}
    out: dict[str, str] = {}
    for name, program in raw.items():
        if name in RESERVED_BINDINGS:
            shape.report(
                codes.PARSE_013,
                f"`extract:` binding `{name}` of task `{tid}` shadows a task-record "
                "field; rename it "
                "(`tasks.X.output` already holds the raw response)",
                (*at, name),
            )
            continue
        if shape.string(program, (*at, name), f"`extract.{name}` (a jq program)") is not None:
            out[name] = program
    return out


def _group(shape: Shape, raw: Any, at: KeyPath) -> str | None:
    if isinstance(raw, str) and TASK_ID_RE.match(raw):
        return raw
    shape.report(
        codes.PARSE_019, f"`group:` {show(raw)} must be a snake_case name (^[a-z][a-z0-9_]*$)", at
    )
    return None


def _lift(shape: Shape, raw: Any, at: KeyPath, tid: TaskId) -> tuple[Lift, ...]:
    if not isinstance(raw, list) or not raw:
        shape.report(
            codes.PARSE_019,
            f"`lift:` of task `{tid}` must be a non-empty list of `{{ law, because }}` entries",
            at,
        )
        return ()
    out: list[Lift] = []
    for i, entry in enumerate(raw):
        here = (*at, i)
        if not shape.mapping(entry, here, f"`lift[{i}]` of task `{tid}`"):
            continue
        if not shape.closed(
            entry, ("law", "from", "because"), here, f"`lift[{i}]` of task `{tid}`"
        ):
            continue
        law, because, frm = entry.get("law"), entry.get("because"), entry.get("from")
        if law not in ("taint", "data-as-code"):
            shape.report(
                codes.PARSE_019,
                f"`lift[{i}].law` {show(law)} is not one of taint, data-as-code",
                (*here, "law"),
            )
            continue
        if not isinstance(because, str) or not because.strip():
            shape.report(
                codes.PARSE_019,
                f"`lift[{i}].because` of task `{tid}` is empty; a lift states why, in "
                "words a reviewer can judge",
                (*here, "because"),
            )
            continue
        if law == "taint" and not (isinstance(frm, str) and _LIFT_FROM_RE.match(frm)):
            shape.report(
                codes.PARSE_019,
                "a `law: taint` lift names one binding in `from:` (e.g. inputs.p), got "
                f"{show(frm)}",
                here,
            )
            continue
        if law != "taint" and "from" in entry:
            shape.report(
                codes.PARSE_019,
                f"`from:` belongs to `law: taint` only; remove it from the {law} lift",
                (*here, "from"),
            )
            continue
        from nika.syntax.task_blocks import Lift

        out.append(Lift(law, because, frm if law == "taint" else None))
    return tuple(out)
