"""Effect inference: what a workflow's body needs from the world (spec 10 §effect vocabulary).

An `Effect` is one interaction a task requires — a filesystem read or write, an outbound
host, a program, a tool, an environment name. The static checker infers them from the
body; the runtime builds the same value from a resolved argument at dispatch; both hand
it to the one judge (`nika.check.judge.PermitJudge`).

Inference reads literals only. A `${{ }}` in a path, URL or program is never guessed: the
effect is marked `dynamic` and carries the template as written. Which args of a builtin are
paths, and whether it reads or writes each, is its `nika.stdlib` declaration's (`paths`):
the same statement its path rule refuses unusable paths by. A shell string is opaque
(its programs cannot be read off a leading token), so it is named by `SHELL`. Environment
passthrough is never inferred (01 §permits: a subprocess's env reads are opaque); the
`env` kind exists for the runtime's spawn-time judgement.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from nika.syntax.model import AgentBody, ExecBody, InvokeBody, KeyPath, Task, Workflow

EffectKind = Literal["fs.read", "fs.write", "net", "exec", "tool", "env"]

EFFECT_KINDS: Final[tuple[EffectKind, ...]] = ("fs.read", "fs.write", "net", "exec", "tool", "env")
"""The closed kinds, in their canonical report order."""

SHELL: Final = "<shell>"
"""The `exec` target of a shell-string command: opaque, only `permits.exec: true` admits it."""

BUILTIN_EFFECTS: Final[Mapping[str, tuple[str, ...]]] = {
    "nika:chart": ("fs",),
    "nika:edit": ("fs",),
    "nika:fetch": ("net",),
    "nika:glob": ("fs",),
    "nika:grep": ("fs",),
    "nika:image_fx": ("fs",),
    "nika:image_generate": ("fs", "tools"),
    "nika:notify": ("net",),
    "nika:read": ("fs",),
    "nika:tts_generate": ("fs", "tools"),
    "nika:write": ("fs",),
}
"""The builtins whose catalog class is `external` and the categories they carry
(canon/builtins.yaml). Every other `nika:` builtin is pure compute: no grant needed."""

PURE_READERS: Final = frozenset({"nika:decide"})
"""Pure-compute builtins (no `permits.tools` grant) whose path arg is still a declared
`fs.read`: `nika:decide`'s `bundle:` file (an inline bundle reads nothing)."""


@dataclass(frozen=True, slots=True)
class Effect:
    """One required interaction: `kind` on `target`, by `task` (None: workflow-level).

    `dynamic` marks a target that carries a `${{ }}` template (the raw template is the
    target: named, never guessed). `site` locates the argument and takes no part in
    equality or order.
    """

    kind: EffectKind
    target: str
    task: str | None
    dynamic: bool = False
    site: KeyPath = field(default=(), compare=False)

    @property
    def label(self) -> str:
        """A human spelling: `fs.read ./data/x.csv` · `exec git` · `net api.example.com`."""
        return f"{self.kind} {self.target}" + (" (dynamic)" if self.dynamic else "")


def needs_grant(tool: str) -> bool:
    """Does invoking `tool` need a `permits.tools` entry? Pure-compute builtins do not
    (01 §permits: `permits: {}` and an absent block are the same declaration)."""
    return not tool.startswith("nika:") or tool in BUILTIN_EFFECTS


_CONST: Final = re.compile(r"^\s*\$\{\{\s*const\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}\s*$")


def const_value(value: Any, const: Mapping[str, Any]) -> Any:
    """The constant a whole `${{ const.X }}` island names (None when `value` is not one, or
    names no constant)."""
    match = _CONST.match(value) if isinstance(value, str) else None
    return const.get(match.group(1)) if match is not None else None


def is_dynamic(value: Any) -> bool:
    """True when `value` is not a plain literal string (a template, or not a string)."""
    return not isinstance(value, str) or "${{" in value


def url_host(url: str) -> str | None:
    """The host of a literal URL as written (`None` when it has none)."""
    from urllib.parse import urlsplit  # loaded with the first URL a check reads

    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host or None


def infer_effects(workflow: Workflow) -> tuple[Effect, ...]:
    """Every effect the body requires, deduplicated, in deterministic order
    (by task declaration order, then kind, then target)."""
    out: list[Effect] = []
    const = {name: decl.value for name, decl in workflow.const.items()}
    for task in workflow.tasks.values():
        found = set(task_effects(task, const))
        mine = sorted(found, key=lambda e: (EFFECT_KINDS.index(e.kind), e.target))
        out.extend(mine)
    return tuple(out)


def task_effects(task: Task, const: Mapping[str, Any] | None = None) -> Iterator[Effect]:
    """The effects one task requires, from its verb and its literal arguments (`const`: the
    workflow's constants, which a pure reader's `${{ const.X }}` path arg names)."""
    body = task.body
    base: KeyPath = (*task.path, task.verb)
    if isinstance(body, ExecBody):
        yield _exec_effect(task, body, base)
    elif isinstance(body, InvokeBody) and body.tool is not None:
        yield Effect("tool", body.tool, task.id, site=(*base, "tool"))
        yield from _builtin_effects(task, body.tool, body.args, (*base, "args"), const or {})
    elif isinstance(body, AgentBody):
        for i, entry in enumerate(body.tools):
            yield Effect("tool", entry, task.id, site=(*base, "tools", i))
        for i, skill in enumerate(body.skills):
            yield _path_effect("fs.read", skill, task, (*base, "skills", i))


def _exec_effect(task: Task, body: ExecBody, base: KeyPath) -> Effect:
    if body.command is None:
        return Effect("exec", SHELL, task.id, site=(*base, "shell"))
    program = body.command[0] if body.command else ""
    site = (*base, "command", 0)
    if is_dynamic(program):
        return Effect("exec", str(program), task.id, dynamic=True, site=site)
    return Effect("exec", str(program), task.id, site=site)


def _builtin_effects(
    task: Task, tool: str, args: Mapping[str, Any], at: KeyPath, const: Mapping[str, Any]
) -> Iterator[Effect]:
    if tool == "nika:fetch":
        yield from _urls(task, args.get("url"), (*at, "url"))
    elif tool == "nika:notify":
        yield from _urls(task, args.get("target"), (*at, "target"))
    if tool in BUILTIN_EFFECTS or tool in PURE_READERS:
        yield from _file_effects(task, tool, args, at, const)


def _file_effects(
    task: Task, tool: str, args: Mapping[str, Any], at: KeyPath, const: Mapping[str, Any]
) -> Iterator[Effect]:
    """The files a builtin call reads and writes, off its declaration's path args (its family
    loads with its first lookup — the builtins rung's, for a workflow's own calls)."""
    from nika.stdlib import DECLARATIONS

    declaration = DECLARATIONS[tool]
    for path in declaration.paths:
        found = list(path.located(args))
        default = declaration.schema.get("properties", {}).get(path.arg, {}).get("default")
        if not found and default is not None:  # an absent arg is its default (grep's ".")
            found = [((path.arg,), default)]
        for suffix, value in found:
            if tool in PURE_READERS and is_dynamic(value):
                value = const_value(value, const)
                if not isinstance(value, str) or "${{" in value:
                    continue  # may resolve to the value inline: the run judges a resolved path
            # A walked directory `d` is read as `d/**` (the glob the grant must cover); a
            # bare-directory grant admits an `output_dir:`, and so does `dir/**`.
            target = _recursive(value) if path.walk else value
            for kind in path.access:
                yield from _paths(kind, task, target, (*at, *suffix), directory=path.directory)


def _recursive(value: Any) -> Any:
    """A directory walk root `d` reads `d/**` (the glob the grant must cover)."""
    if not isinstance(value, str) or "${{" in value:
        return value
    root = value.rstrip("/") or "/"
    return "**" if root in (".", "./") else posixpath.join(root, "**")


def _paths(
    kind: EffectKind, task: Task, value: Any, site: KeyPath, *, directory: bool = False
) -> Iterator[Effect]:
    from nika.stdlib._paths import unusable_as_written

    if value is None or isinstance(value, Mapping):
        return  # a map is the value inline (a bundle, rows), never a path
    if isinstance(value, str) and unusable_as_written(value, directory=directory):
        return  # a path no file system holds is no effect: the builtin rung refuses it
    yield _path_effect(kind, value, task, site)


def _path_effect(kind: EffectKind, value: Any, task: Task, site: KeyPath) -> Effect:
    text = value if isinstance(value, str) else repr(value)
    return Effect(kind, text, task.id, dynamic=is_dynamic(value), site=site)


def _urls(task: Task, value: Any, site: KeyPath) -> Iterator[Effect]:
    if value is None:
        return
    if is_dynamic(value):
        text = value if isinstance(value, str) else repr(value)
        host = _static_host(text)
        # A template after the authority leaves the host literal: it is still known.
        if host is not None:
            yield Effect("net", host, task.id, site=site)
        else:
            yield Effect("net", text, task.id, dynamic=True, site=site)
        return
    literal = url_host(value)
    yield Effect("net", literal or value, task.id, dynamic=literal is None, site=site)


def _static_host(url: str) -> str | None:
    """The host of a templated URL when the template sits after the authority."""
    scheme, sep, rest = url.partition("://")
    if not sep or "${{" in scheme:
        return None
    authority = rest.split("/", 1)[0].split("?", 1)[0]
    if "${{" in authority or not authority:
        return None
    return url_host(f"{scheme}://{authority}/")


def needed_permits(effects: Iterable[Effect]) -> dict[str, Any]:
    """The inferred `permits:` block for `effects` (literal targets only; `env` never).

    A dynamic target cannot be pasted as a bound (`NIKA-AUTH-007`): it opens its
    category with no entry (the static judge defers it, the run re-gates the resolved
    value) and `dynamic_effects` names it. A shell string needs `exec: true`, the only
    grant that admits an opaque command.
    """
    reads: set[str] = set()
    writes: set[str] = set()
    hosts: set[str] = set()
    programs: set[str] = set()
    tools: set[str] = set()
    shell = False
    opened: set[str] = set()
    for e in effects:
        if e.dynamic:
            opened.add(e.kind)
        elif e.kind == "fs.read":
            reads.add(e.target)
        elif e.kind == "fs.write":
            writes.add(e.target)
        elif e.kind == "net":
            hosts.add(e.target.lower().rstrip("."))
        elif e.kind == "exec":
            shell = shell or e.target == SHELL
            programs.add(e.target)
        elif e.kind == "tool" and needs_grant(e.target):
            tools.add(e.target)
    block: dict[str, Any] = {}
    fs = {k: sorted(v) for k, v in (("read", reads), ("write", writes)) if v or f"fs.{k}" in opened}
    if fs:
        block["fs"] = fs
    if hosts or "net" in opened:
        block["net"] = {"http": sorted(hosts)}
    if shell:
        block["exec"] = True
    elif programs or "exec" in opened:
        block["exec"] = sorted(programs)
    if tools:
        block["tools"] = sorted(tools)
    return block


def dynamic_effects(effects: Iterable[Effect]) -> tuple[Effect, ...]:
    """The effects whose target is only known at run time (re-gated at dispatch)."""
    return tuple(e for e in effects if e.dynamic)
