"""Build the nine-key envelope (spec 01) into the model, collecting shape findings."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.errors import NikaError
from nika.syntax._build_boundary import build_permits, build_secrets, entries
from nika.syntax._build_tasks import build_tasks
from nika.syntax._shape import Shape, show
from nika.syntax.keypath import KeyPath
from nika.syntax.model import Task, TaskId, Workflow

if TYPE_CHECKING:
    from nika.syntax.declarations import ConstDecl, InputDecl, OutputDecl, RunDecl
    from nika.syntax.loader import Document

ENVELOPE_KEYS: Final = (
    "nika",
    "model",
    "inputs",
    "const",
    "secrets",
    "permits",
    "run",
    "tasks",
    "outputs",
)
_NAME_RE: Final = re.compile(r"^[a-z][a-z0-9-]*$")
_DEAD_ENVELOPE: Final = {
    "vars": (
        codes.VALUES_001,
        "classify each entry: a typed parameter is an `inputs:` declaration, a fixed "
        "value a `const:` entry",
    ),
    "env": (
        codes.VALUES_002,
        "classify each entry: runtime configuration is an `inputs:` entry with `required: "
        "false` and a "
        "`default:`, a credential is a `secrets:` store reference",
    ),
    "workflow": (
        codes.PARSE_005,
        "the workflow's name moved onto the mark: write `nika: <kebab-id>` and delete this key",
    ),
    "description": (
        codes.PARSE_005,
        "the envelope carries no description; use a YAML `#` comment",
    ),
    "config": (
        codes.PARSE_005,
        "a deployment knob is an `inputs:` entry with `required: false` and a `default:`",
    ),
    "types": (
        codes.PARSE_005,
        "named types are retired; write each type inline where it is used (`returns:`, `type:`)",
    ),
    "policy": (
        codes.PARSE_005,
        "the `policy:` block is retired; the order law (NIKA-SEC-015) needs no declaration",
    ),
    "assert": (codes.PARSE_005, "the `assert:` envelope key was removed; delete it"),
    "yaml-language-server": (
        codes.PARSE_005,
        "this is an editor modeline that lost its comment marker: restore the `# ` prefix "
        "or delete the line",
    ),
}


def build(doc: Document) -> tuple[Workflow | None, list[NikaError]]:
    """The body of `build_workflow` (see `nika.syntax.model`)."""
    shape = Shape(doc)
    root = doc.root
    if root is None:
        shape.report(
            codes.PARSE_002,
            "the document is empty; a workflow starts with `nika: <name>` and a `tasks:` map",
            (),
        )
        return None, shape.errors
    if not isinstance(root, Mapping):
        shape.report(
            codes.PARSE_019, f"a workflow is a YAML mapping, got {type(root).__name__}", ()
        )
        return None, shape.errors
    shape.closed(root, ENVELOPE_KEYS, (), "the envelope", dead=_DEAD_ENVELOPE)
    name = _name(shape, root)
    raw_tasks = root.get("tasks")
    tasks: dict[TaskId, Task] | None = None
    if "tasks" not in root:
        if not shape.misspelt((), "tasks"):  # `taks:` is reported once, as the typo
            shape.report(
                codes.PARSE_002,
                "missing `tasks:` — a workflow needs a non-empty tasks map (without it the "
                "file reads as a "
                "project `nika.yaml`)",
                (),
            )
    elif isinstance(raw_tasks, list):
        shape.report(
            codes.PARSE_022,
            "`tasks:` is a sequence; it is a map keyed by task id — write `tasks: "
            "{ my_task: { infer: … } }` "
            "and drop each `id:` field",
            ("tasks",),
        )
    elif not isinstance(raw_tasks, Mapping) or not raw_tasks:
        shape.misfit(codes.PARSE_002, "`tasks:`", "a non-empty map of task id → task",
                     raw_tasks, ("tasks",))
    else:
        tasks = build_tasks(shape, raw_tasks)
    model = None
    if "model" in root:
        model = shape.string(root["model"], ("model",), "`model:` (a `<provider>/<name>` string)")
    inputs = _inputs(shape, root.get("inputs"))
    const = _const(shape, root.get("const"))
    secrets = build_secrets(shape, root.get("secrets"))
    permits = build_permits(shape, root["permits"]) if "permits" in root else None
    run = _run(shape, root["run"]) if "run" in root else None
    outputs = _outputs(shape, root.get("outputs"))
    if name is None or tasks is None:
        return None, shape.errors
    if run is not None and run.entropy == "none":
        _entropy_none_sources(shape, tasks)
    wf = Workflow(name, tasks, model, inputs, const, secrets, permits, run, outputs)
    return wf, shape.errors


def _name(shape: Shape, root: Mapping[str, Any]) -> str | None:
    if "nika" not in root:
        shape.report(
            codes.PARSE_002,
            "missing `nika:` — the first line names the file: `nika: my-workflow`",
            (),
        )
        return None
    value = root["nika"]
    if not isinstance(value, str) or not _NAME_RE.match(value):
        shape.report(
            codes.PARSE_003,
            f"`nika: {value}` is not a kebab-case id (^[a-z][a-z0-9-]*$); the key carries "
            "the file's name, "
            "not a version — write e.g. `nika: my-workflow`",
            ("nika",),
        )
        return None
    return value


def _inputs(shape: Shape, raw: Any) -> dict[str, InputDecl]:
    out: dict[str, InputDecl] = {}
    for name, decl in entries(shape, raw, "inputs").items():
        # The declarations' classes load with the first one a document writes.
        from nika.syntax.declarations import InputDecl

        at: KeyPath = ("inputs", name)
        if not shape.mapping(decl, at, f"input `{name}` (a typed declaration `{{ type: … }}`)"):
            continue
        shape.closed(decl, ("type", "required", "default", "description"), at, f"input `{name}`")
        if "type" not in decl:
            shape.report(
                codes.PARSE_019,
                f"input `{name}` has no `type:`; every input is typed (e.g. `type: string`)",
                at,
            )
            continue
        # The type language loads with the first type a document declares.
        from nika.syntax.typefit import conforms
        from nika.syntax.types import parse_type, render

        t = parse_type(decl["type"], (*at, "type"), shape.report)
        required = shape.boolean(
            decl.get("required", False), (*at, "required"), f"`inputs.{name}.required`"
        )
        if "description" in decl:
            shape.string(decl["description"], (*at, "description"), f"`inputs.{name}.description`")
        if t is None:
            continue
        if "default" in decl and not conforms(decl["default"], t):
            shape.report(
                codes.DEFAULT_001,
                f"default {show(decl['default'])} of input `{name}` does not conform to "
                f"its type `{render(t)}`; "
                "fix the default or the type",
                (*at, "default"),
            )
        desc = decl.get("description")
        out[name] = InputDecl(
            name,
            t,
            at,
            bool(required),
            "default" in decl,
            decl.get("default"),
            desc if isinstance(desc, str) else None,
        )
    return out


def _const(shape: Shape, raw: Any) -> dict[str, ConstDecl]:
    out: dict[str, ConstDecl] = {}
    for name, value in entries(shape, raw, "const").items():
        from nika.syntax.declarations import ConstDecl

        at: KeyPath = ("const", name)
        if not (isinstance(value, Mapping) and "type" in value and "value" in value):
            out[name] = ConstDecl(name, value, at)
            continue
        shape.closed(value, ("type", "value", "description"), at, f"typed constant `{name}`")
        from nika.syntax.typefit import conforms
        from nika.syntax.types import parse_type, render

        t = parse_type(value["type"], (*at, "type"), shape.report)
        if t is None:
            continue
        if not conforms(value["value"], t):
            shape.report(
                codes.DEFAULT_001,
                f"value {show(value['value'])} of constant `{name}` does not conform to "
                f"its type `{render(t)}`; "
                "fix the value or the type",
                (*at, "value"),
            )
        out[name] = ConstDecl(name, value["value"], at, t)
    return out


def _run(shape: Shape, raw: Any) -> RunDecl | None:
    from nika.syntax.declarations import RunDecl

    at: KeyPath = ("run",)
    if not shape.mapping(raw, at, "`run:`"):
        return None
    shape.closed(raw, ("entropy", "clock"), at, "`run:`")
    entropy: Any = raw.get("entropy")
    if isinstance(entropy, Mapping):
        seed = entropy.get("seeded")
        if (
            set(entropy) != {"seeded"}
            or not isinstance(seed, int)
            or isinstance(seed, bool)
            or seed < 0
        ):
            shape.report(
                codes.PARSE_019,
                f"`run.entropy` as a map is `{{ seeded: <u64> }}`, got {show(entropy)}",
                (*at, "entropy"),
            )
            return None
        entropy = seed
    elif entropy not in (None, "none", "ambient"):
        shape.report(
            codes.PARSE_019,
            f"`run.entropy` is none, ambient or {{ seeded: N }}, got {show(entropy)}",
            (*at, "entropy"),
        )
        return None
    clock = raw.get("clock")
    if clock not in (None, "system", "virtual"):
        shape.report(
            codes.PARSE_019, f"`run.clock` is system or virtual, got {show(clock)}", (*at, "clock")
        )
        return None
    if entropy == "ambient" and clock == "virtual":
        shape.report(
            codes.PARSE_026,
            "`entropy: ambient` with `clock: virtual` cannot be both live and reproducible; "
            "declare `clock: system`, or make entropy `none`/`{ seeded: N }`",
            at,
        )
    elif entropy is not None and entropy != "ambient" and clock == "system":
        shape.report(
            codes.PARSE_027,
            f"entropy {show(entropy)} declares a reproducible run, which cannot read the "
            "wall clock; "
            "declare `clock: virtual` (or `entropy: ambient`)",
            at,
        )
    return RunDecl(at, entropy, clock)


def _outputs(shape: Shape, raw: Any) -> dict[str, OutputDecl]:
    out: dict[str, OutputDecl] = {}
    for name, value in entries(shape, raw, "outputs").items():
        from nika.syntax.declarations import OutputDecl

        at: KeyPath = ("outputs", name)
        if not isinstance(value, Mapping):
            out[name] = OutputDecl(name, value, at)
            continue
        if "value" not in value:
            shape.report(
                codes.PARSE_019,
                f"output `{name}` is a map without `value:`; write a bare `${{{{ … }}}}` "
                "reference or "
                "`{ value: …, type: …, description: … }`",
                at,
            )
            continue
        shape.closed(value, ("value", "type", "description"), at, f"output `{name}`")
        t = None
        if "type" in value:
            from nika.syntax.types import parse_type

            t = parse_type(value["type"], (*at, "type"), shape.report)
        desc = value.get("description")
        out[name] = OutputDecl(name, value["value"], at, t, desc if isinstance(desc, str) else None)
    return out


def _entropy_none_sources(shape: Shape, tasks: Mapping[TaskId, Task]) -> None:
    for task in tasks.values():
        r = task.retry
        if r is not None and r.jitter and r.max_attempts > 1 and r.backoff_ms > 0:
            shape.report(
                codes.PARSE_028,
                f"task `{task.id}` retries with a live jitter under `entropy: none`; set "
                "`jitter: false` "
                "or declare `entropy: { seeded: N }`",
                (*task.path, "retry"),
            )
        if task.tool == "nika:uuid":
            shape.report(
                codes.PARSE_028,
                f"task `{task.id}` invokes nika:uuid under `entropy: none`; declare "
                f"`entropy: {{ seeded: N }}` "
                "or drop the random source",
                (*task.path, "invoke"),
            )
