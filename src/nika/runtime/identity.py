"""What makes a task "the same task" across runs: the two hashes resume compares (ADR-099 §1).

- the DEFINITION hash — the task's behaviour-bearing fields as the model holds them (the verb
  body · `with:` · `after:` · `when:` · `for_each:` · `retry:` · `on_error:` · `returns:` ·
  `extract:` · `lift:`), plus the model it resolves to and the bytes of the side files it
  reads as part of its definition (agent skills, a child workflow). Locations, `timeout:` and
  `group:` are not behaviour: editing them re-keys nothing, and neither does whitespace, a
  comment or key order (the model is the parsed workflow, not its text);
- the RESOLVED-INPUT hash — the values the task's `${{ }}` references read, one entry per
  reference as written (`tasks.plan.output`, `inputs.topic`, …), so a change cascades exactly
  as far as data flows. A `for_each` iteration adds its `item` and `index`. Secrets take part
  by declared identity (name · source · key · file), NEVER by value or value hash (a hash of a
  low-entropy secret is an oracle): a rotated secret does not invalidate a record — force the
  task with `--from`.

Both are sha256 over a domain tag and canonical JSON (sorted keys, no spaces, UTF-8), so the
same workflow and inputs give the same bytes on every machine. `semantic_hash` folds the
per-task definition hashes (Merkle by task, 15 §the semantic hash) with the rest of the
envelope; it is this engine's semantic identity, not the reference engine's IR encoding.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from nika.canonical import canonical_bytes
from nika.check.skills import MAX_SKILL_BYTES
from nika.errors import NikaError
from nika.guarded_read import Unreadable, read_capped
from nika.syntax.binding import parse_sites
from nika.syntax.expr import Reference, references
from nika.syntax.model import AgentBody, InvokeBody, Task, Workflow

DEF_DOMAIN: Final = b"nika-py/task-definition/1\x00"
INPUT_DOMAIN: Final = b"nika-py/task-input/1\x00"
SEMANTIC_DOMAIN: Final = b"nika-py/semantic/1\x00"

_LOCATION_FIELDS: Final = frozenset({"path", "site", "position", "location"})
_NOT_BEHAVIOUR: Final = frozenset({"id", "path", "timeout", "group"})
_LOOP_ROOTS: Final = frozenset({"item", "index"})
_MISSING: Final = {"$missing": True}
_TASK_FIELDS: Final = tuple(f.name for f in dataclasses.fields(Task)
                            if f.name not in _NOT_BEHAVIOUR)
_CHILD_CAP: Final = 1 << 20


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


def _file_digest(path: Path, cap: int) -> str:
    data = read_capped(path, cap)
    return "unreadable" if isinstance(data, Unreadable) else hashlib.sha256(data).hexdigest()


def side_files(task: Task, workflow_dir: Path) -> dict[str, str]:
    """Digests of the files a task's definition names: its skills, its child workflow."""
    out: dict[str, str] = {}
    body = task.body
    if isinstance(body, AgentBody):
        for raw in body.skills:
            path = Path(raw) if Path(raw).is_absolute() else workflow_dir / raw
            out[f"skill:{raw}"] = _file_digest(path, MAX_SKILL_BYTES)
    if isinstance(body, InvokeBody) and body.workflow is not None and "${{" not in body.workflow:
        path = Path(body.workflow)
        out[f"workflow:{body.workflow}"] = _file_digest(
            path if path.is_absolute() else workflow_dir / path, _CHILD_CAP)
    return out


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


def semantic_hash(workflow: Workflow, definitions: Mapping[str, str]) -> str:
    """The workflow's semantic identity: its envelope and each task's definition hash."""
    envelope = {
        "workflow": workflow.name, "model": workflow.model, "inputs": dict(workflow.inputs),
        "const": dict(workflow.const), "secrets": dict(workflow.secrets),
        "permits": workflow.permits, "run": workflow.run, "outputs": dict(workflow.outputs),
        "tasks": dict(definitions),
    }
    return digest(SEMANTIC_DOMAIN, envelope)
