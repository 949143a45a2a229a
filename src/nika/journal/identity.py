"""What makes a task "the same task" across runs: the two hashes resume compares (ADR-099 §1).

- the DEFINITION hash — the task's behaviour-bearing fields as the model holds them (the verb
  body · `with:` · `after:` · `when:` · `for_each:` · `retry:` · `on_error:` · `returns:` ·
  `extract:` · `lift:`), plus the model it resolves to and its composition closure: the
  bytes of every file its definition can reach (its agent skills, its child workflow, and
  recursively the child's skills and children — `Closure`), so an edit to a grandchild
  re-runs the task that invokes the child. Locations, `timeout:` and
  `group:` are not behaviour: editing them re-keys nothing, and neither does whitespace, a
  comment or key order (the model is the parsed workflow, not its text);
- the RESOLVED-INPUT hash — the values the task's `${{ }}` references read, one entry per
  reference as written (`tasks.plan.output`, `inputs.topic`, …), so a change cascades exactly
  as far as data flows. A `for_each` iteration adds its `item` and `index`. Secrets take part
  by declared identity (name · source · key · file), NEVER by value or value hash (a hash of a
  low-entropy secret is an oracle): a rotated secret does not invalidate a record — force the
  task with `--from`.

Both are sha256 over a domain tag and canonical JSON (sorted keys, no spaces, UTF-8), so the
same workflow and inputs give the same bytes on every machine.

**What this is for, and what it is not.** These are the RESUME keys. The workflow's meaning —
what a receipt proves — is a different hash, `nika.journal.semantic` (spec 15's Semantic IR,
which counts `timeout:` and `group:`). Resume is deliberately NOT re-keyed semantically, a
departure from spec 15 (15:56-58, "cache and resume are re-keyed semantically"): a finished
task must survive an edited timeout. Do not move resume onto the semantic hash.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from nika.canonical import canonical_bytes
from nika.check.composition import build_child
from nika.check.skills import MAX_SKILL_BYTES
from nika.errors import NikaError
from nika.guarded_read import Unreadable, read_capped
from nika.syntax.binding import parse_sites
from nika.syntax.expr import Reference, references
from nika.syntax.loader import MAX_DOCUMENT_BYTES
from nika.syntax.model import AgentBody, InvokeBody, Task, Workflow

DEF_DOMAIN: Final = b"nika-py/task-definition/1\x00"
CLOSURE_DOMAIN: Final = b"nika-py/composition-closure/1\x00"
INPUT_DOMAIN: Final = b"nika-py/task-input/1\x00"

_LOCATION_FIELDS: Final = frozenset({"path", "site", "position", "location"})
_NOT_BEHAVIOUR: Final = frozenset({"id", "path", "timeout", "group"})
_LOOP_ROOTS: Final = frozenset({"item", "index"})
_MISSING: Final = {"$missing": True}
_TASK_FIELDS: Final = tuple(f.name for f in dataclasses.fields(Task)
                            if f.name not in _NOT_BEHAVIOUR)
MAX_CLOSURE_DEPTH: Final = 16
"""How deep the closure walk follows children (a run nests at most 8 levels)."""


def digest(domain: bytes, value: Any) -> str:
    """sha256 hex of `domain` ‖ the canonical JSON of `value` (any model value: dataclasses,
    bytes, sets and tuples are encoded as `hashable` says, in one C-encoder pass)."""
    try:
        data = canonical_bytes(value, default=_encode)
    except (ValueError, TypeError):  # a non-finite float, odd keys: the slow, total path
        data = canonical_bytes(hashable(value))
    return hashlib.sha256(domain + data).hexdigest()


def _encode(value: Any) -> Any:
    """The JSON encoder's hook for what it cannot encode itself (see `hashable`)."""
    if isinstance(value, bytes | bytearray | set | frozenset) or not isinstance(
            value, Mapping) and _fields_of(type(value)) is None:
        return hashable(value)
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    return {"$": type(value).__name__,
            **{name: getattr(value, name) for name in _fields_of(type(value)) or ()}}


def hashable(value: Any) -> Any:
    """`value` as plain JSON data that keeps every distinction a hash must see: bytes become
    their digest (not their size), non-finite floats their name, sets a sorted list."""
    if value is None or isinstance(value, str | int):  # bool is an int
        return value
    kind = type(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, bytes | bytearray):
        return {"$bytes": hashlib.sha256(value).hexdigest()}
    if isinstance(value, Mapping):
        return {str(k): hashable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [hashable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((hashable(v) for v in value), key=canonical_bytes)
    names = _fields_of(kind)
    if names is not None:
        out = {name: hashable(getattr(value, name)) for name in names}
        return {"$": kind.__name__, **out}
    return {"$text": str(value)}


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _fields_of(kind: type) -> tuple[str, ...] | None:
    """A dataclass type's behaviour-bearing field names (locations dropped), else None."""
    try:
        return _FIELDS[kind]
    except KeyError:
        names = None if not dataclasses.is_dataclass(kind) else tuple(
            f.name for f in dataclasses.fields(kind) if f.name not in _LOCATION_FIELDS)
        _FIELDS[kind] = names
        return names


def _templates(value: Any, out: list[str]) -> list[str]:
    """Every string nested in `value` that carries a `${{` island opener."""
    if isinstance(value, str):
        if "${{" in value:
            out.append(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _templates(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _templates(item, out)
    else:
        names = _fields_of(type(value))
        for name in names or ():
            _templates(getattr(value, name), out)
    return out


def _values(task: Task) -> dict[str, Any]:
    """The behaviour-bearing values of `task`, by field name."""
    return {name: getattr(task, name) for name in _TASK_FIELDS}


@dataclass(frozen=True, slots=True)
class Reach:
    """One file a task's definition names directly: an agent skill (`skill:<as written>`)
    or a local child workflow (`workflow:<as written>`). `data` is None when the file cannot
    be read (`why` says so); `workflow` is the child's model when it builds and its text can
    name a file at all (`_may_reach`: a leaf child is not parsed); `model` is the
    default model the child's own tasks inherit (its `model:` when parsed, else the
    caller's: a leaf child's key then moves with the caller's default, never stale)."""

    name: str
    path: Path | None
    data: bytes | None
    workflow: Workflow | None = None
    model: str | None = None
    why: str = ""


Reader = Callable[[Path, int], bytes | Unreadable]
"""Reads one side file under a cap (`guarded_read.read_capped`, or a caching wrapper)."""
Builder = Callable[[Path, bytes], Workflow | None]
"""A child's model from its bytes, or None when it does not build (`Closure` caches it)."""


def reaches(task: Task, workflow_dir: Path, default_model: str | None,
            read: Reader | None = None, build: Builder | None = None) -> tuple[Reach, ...]:
    """The files `task`'s definition names directly, in the order it names them: its skills,
    then its child workflow. `workflow_dir` is the declaring file's directory (paths resolve
    from it, as the check and the run resolve them); `default_model` is the declaring
    workflow's effective default model. A registry child and a templated child path are not
    files this engine reads (both are refused before they could run: NIKA-COMP-001).
    `read` defaults to the check's guarded reader (regular files only, capped), `build` to
    parsing and building the child's text."""
    read, build = read or read_capped, build or _build
    out: list[Reach] = []
    body = task.body
    if isinstance(body, AgentBody):
        for raw in body.skills:
            out.append(_read(read, f"skill:{raw}", workflow_dir, raw, MAX_SKILL_BYTES))
    if isinstance(body, InvokeBody) and body.workflow is not None \
            and "${{" not in body.workflow and not body.workflow.startswith("registry:"):
        found = _read(read, f"workflow:{body.workflow}", workflow_dir, body.workflow,
                      MAX_DOCUMENT_BYTES)
        child = build(found.path, found.data) if found.path is not None \
            and found.data is not None and _may_reach(found.data) else None
        out.append(dataclasses.replace(
            found, workflow=child,
            model=(child.model if child is not None else None) or default_model))
    return tuple(out)


def _read(read: Reader, name: str, base: Path, raw: str, cap: int) -> Reach:
    try:
        path = (base / raw).resolve()  # an absolute `raw` replaces `base`
    except (OSError, ValueError, RuntimeError):  # unencodable, too long, a symlink loop
        return Reach(name, None, None, why="the OS cannot name the path")
    data = read(path, cap)
    if isinstance(data, Unreadable):
        return Reach(name, path, None, why=data.why)
    return Reach(name, path, data)


def _may_reach(data: bytes) -> bool:
    """Could this child's text name a file? Only a `workflow:` or `skills:` key can, so a
    text holding neither word, no escape (a quoted key may spell a word in escapes) and no
    NUL (a UTF-16 or UTF-32 text hides ASCII words) is not parsed: it reaches nothing, and
    the run's own reading of the child stays its second, not its third."""
    return any(word in data for word in (b"workflow", b"skills", b"\\", b"\x00"))


def _build(path: Path, data: bytes) -> Workflow | None:
    # the check's reading of the same bytes: a child the check built is not parsed again
    return build_child(str(path), data)[0]


@dataclass(frozen=True, slots=True)
class Node:
    """One file of a composition closure: what reached it, its Merkle `digest` (its own
    bytes' sha256 for a skill or a child that does not build; for a child workflow, a
    digest over its bytes, the model its tasks inherit and every node below it), and the
    nodes it reaches in turn, keyed `<task>/<name>`."""

    reach: Reach
    digest: str
    below: Mapping[str, Node]


class Closure:
    """THE composition-closure walker: every file a task's definition can reach — its skills,
    its child workflow, and recursively the child's own tasks' skills and children
    (grandchildren, ...) — folded Merkle-wise, so an edit anywhere below re-keys the task
    that reaches it (resume re-runs the invoking task; the semantic hash sees the change).

    A child is keyed by its path AS WRITTEN (resolved from the declaring file's directory,
    so a moved checkout re-keys nothing) and by the bytes read from the resolved file, once
    per walker: a run shares one walker, so every identity in a run — the boot manifest's
    semantic hash, each task's definition hash — reads the same bytes, read when the run
    first identifies the task (before any task starts). A child path computed by an
    expression is never walked: the check refuses it (spec 14 law 1, a static target:
    NIKA-COMP-001), so no such child runs; an engine that admitted one would key it the same
    way, by its resolved path and the bytes it read at launch. Bounded: each distinct file is
    read and parsed once, and folded once per inherited model (a diamond costs one read), a
    cycle — which the check also refuses — ends as `cycle`, and the walk stops
    `MAX_CLOSURE_DEPTH` deep.

    `files` gives the definition hash its side-file entries; `tree` gives the nodes, for a
    caller folding its own digest over the same closure (the semantic hash)."""

    def __init__(self) -> None:
        self._nodes: dict[tuple[Path, str | None], Node] = {}
        self._bytes: dict[tuple[Path, int], bytes | Unreadable] = {}
        self._built: dict[Path, Workflow | None] = {}

    def _cached(self, path: Path, cap: int) -> bytes | Unreadable:
        found = self._bytes.get((path, cap))
        if found is None:
            found = self._bytes[(path, cap)] = read_capped(path, cap)
        return found

    def _parsed(self, path: Path, data: bytes) -> Workflow | None:
        if path not in self._built:
            self._built[path] = _build(path, data)
        return self._built[path]

    def files(self, task: Task, workflow_dir: Path, default_model: str | None) -> dict[str, str]:
        """`name -> digest` for every file `task` names, each digest covering its closure."""
        return {k: node.digest for k, node in self.tree(task, workflow_dir,
                                                        default_model).items()}

    def tree(self, task: Task, workflow_dir: Path,
             default_model: str | None) -> dict[str, Node]:
        """`name -> Node` for every file `task` names directly."""
        return {r.name: self._node(r, ())
                for r in reaches(task, workflow_dir, default_model, self._cached, self._parsed)}

    def workflow(self, node: Node) -> Workflow | None:
        """The child workflow `node` reached, built — a leaf child too, which the walk itself
        never parses (the semantic hash lowers its tasks) — or None when `node` is no child
        workflow or its bytes do not build."""
        reach = node.reach
        if reach.workflow is not None or reach.path is None or reach.data is None \
                or not reach.name.startswith("workflow:"):
            return reach.workflow
        return self._parsed(reach.path, reach.data)

    def _node(self, reach: Reach, trail: tuple[Path, ...]) -> Node:
        if reach.data is None:
            return Node(reach, "unreadable", {})
        own = hashlib.sha256(reach.data).hexdigest()
        if reach.workflow is None or reach.path is None:
            return Node(reach, own, {})
        key = (reach.path, reach.model)
        found = self._nodes.get(key)
        if found is not None:
            return found
        if reach.path in trail or len(trail) >= MAX_CLOSURE_DEPTH:
            return Node(reach, "cycle" if reach.path in trail else "too deep", {})
        below = {f"{task_id}/{r.name}": self._node(r, (*trail, reach.path))
                 for task_id, task in reach.workflow.tasks.items()
                 for r in reaches(task, reach.path.parent, reach.model, self._cached,
                                  self._parsed)}
        node = Node(reach, digest(CLOSURE_DOMAIN, {
            "sha256": own, "model": reach.model,
            "below": {k: n.digest for k, n in below.items()}}), below)
        self._nodes[key] = node
        return node


def definition_hash(task: Task, *, model: str | None,
                    files: Mapping[str, str] | None = None) -> str:
    """The task-definition hash: behaviour fields, resolved model, side-file digests."""
    return digest(DEF_DOMAIN, {"task": _values(task), "model": model,
                               "files": dict(files or {})})


def task_references(task: Task) -> tuple[Reference, ...]:
    """Every `${{ }}` read in the task's behaviour fields, deduplicated, in a stable order."""
    seen: dict[str, Reference] = {}
    for text in _templates(list(_values(task).values()), []):
        try:
            sites = parse_sites(text)
        except NikaError:  # text the check let through as literal (a jq program, …)
            continue
        for site in sites:
            for ref in references(site.expr):
                seen.setdefault(ref.dotted, ref)
    return tuple(seen[k] for k in sorted(seen))


def _walk(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        found = (isinstance(value, Mapping) and step in value) or (
            isinstance(value, list | tuple) and isinstance(step, int)
            and -len(value) <= step < len(value))
        if not found:
            return _MISSING
        value = value[step]
    return value


class InputHasher:
    """Computes resolved-input hashes for one workflow (its secrets by declared identity)."""

    def __init__(self, workflow: Workflow) -> None:
        self._secrets = {name: {"secret": name, "source": ref.source, "key": ref.key,
                                "file": ref.file}
                         for name, ref in workflow.secrets.items()}
        self._refs: dict[str, tuple[Reference, ...]] = {}

    def refs(self, task: Task) -> tuple[Reference, ...]:
        """The task's references (cached per task)."""
        found = self._refs.get(task.id)
        if found is None:
            found = self._refs[task.id] = task_references(task)
        return found

    def input_hash(self, task: Task, env: Mapping[str, Any]) -> str:
        """The hash of what `task` reads from `env`."""
        read: dict[str, Any] = {}
        for ref in self.refs(task):
            if ref.root == "with" or ref.root in _LOOP_ROOTS:
                continue  # `with:` is computed from the other reads; loop locals below
            if ref.root == "secrets":
                name = ref.path[0] if ref.path else None
                read[ref.dotted] = self._secrets.get(str(name), _MISSING)
                continue
            read[ref.dotted] = _walk(env.get(ref.root, _MISSING), ref.path)
        return digest(INPUT_DOMAIN, read)


def iteration_hash(task_input_hash: str, index: int, item: Any) -> str:
    """One `for_each` iteration's input hash: its task's reads, its index and its item (the
    task's reads enter by their hash, so a fan-out never re-hashes its collection per item)."""
    return digest(INPUT_DOMAIN, {"task": task_input_hash, "index": index, "item": item})
