"""A built workflow lowered to its Semantic IR (spec 15 §the semantic hash; docs/semantic-hash.md).

Plain JSON data, JCS-safe by construction: sugar lowered, the normative defaults written out,
units normalized (durations in ns, backoffs in ns), types in their chapter-09 normal form,
the derived edges of chapter 03 listed on the task they enter, every string in Unicode NFC,
and no span (a model node's `path`) anywhere. Comments never reach the model.

A user's literal value (a `with:` entry, tool args, a default) is encoded so that two values
a run would tell apart never meet: an integer is a JSON integer (a string under
`{"int": …}` beyond ±2^53, where JCS would round it), a float is `{"float": repr}` (`1` and
`1.0` render differently in a prompt, so they stay apart), a mapping is `{"map": {…}}` — so
an IR object in value position is always one of those three tags and a user's own map can
never pose as one.
"""

from __future__ import annotations

import math
import posixpath
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from nika.agent.config import AgentConfig
from nika.check.graph import Edge
from nika.syntax.model import AgentBody, Body, ExecBody, InferBody, InvokeBody, Task, Workflow
from nika.syntax.subtype import is_subtype
from nika.syntax.types import (
    ArrayOf,
    Bounded,
    EnumOf,
    MapOf,
    ObjectOf,
    Prim,
    RefinedString,
    TypeExpr,
    UnionOf,
)

if TYPE_CHECKING:
    from nika.syntax.declarations import Permits

_SAFE_INT: Final = (1 << 53) - 1
_NS_PER_MS: Final = 1_000_000
DEFAULT_MAX_TURNS: Final = AgentConfig().default_max_turns
"""Spec 02's `max_turns` default (10), as the engine applies it."""
DEFAULT_DECODE: Final = "text"
"""What exec's output decodes as when `decode:` is not written (and capture is not structured)."""

SideFile = Callable[[str], Any]
"""Resolves a side-file reference (a child workflow path, a skill path) to its IR entry."""


def nfc(text: str) -> str:
    """`text` in Unicode NFC (the IR's one normalization form)."""
    return unicodedata.normalize("NFC", text)


def value(v: Any) -> Any:
    """A user's literal value as IR data (see the module docstring for the encoding)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, str):
        return nfc(v)
    if isinstance(v, int):
        return v if -_SAFE_INT <= v <= _SAFE_INT else {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v) if math.isfinite(v) else str(v)}
    if isinstance(v, Mapping):
        return {"map": {nfc(str(k)): value(item) for k, item in v.items()}}
    if isinstance(v, list | tuple):
        return [value(item) for item in v]
    raise TypeError(f"a workflow value of type {type(v).__name__} has no IR encoding")


def number(v: Any) -> Any:
    """A numeric knob (`temperature`): `1` and `1.0` mean the same, so both are a float."""
    if isinstance(v, int) and not isinstance(v, bool):
        return value(float(v))
    return value(v)


def _set(items: Any) -> list[Any]:
    """A collection whose order carries no meaning: NFC, deduplicated, sorted."""
    return sorted({nfc(str(i)) for i in items or ()})


# -- types (09 §normalization) ----------------------------------------------------------------

def _flatten(members: tuple[TypeExpr, ...]) -> list[TypeExpr]:
    out: list[TypeExpr] = []
    for member in members:
        out.extend(_flatten(member.members) if isinstance(member, UnionOf) else [_refined(member)])
    return out


def _refined(t: TypeExpr) -> TypeExpr:
    """An unbounded refinement is its primitive (09 §normalization rule 5)."""
    if isinstance(t, Bounded) and t.min is None and t.max is None:
        return Prim(t.base)
    if isinstance(t, RefinedString) and (t.pattern, t.min_len, t.max_len) == (None, None, None):
        return Prim("string")
    return t


def type_ir(t: TypeExpr | None) -> Any:
    """A type in its normal form: unions flattened, deduplicated, subsumed members dropped
    and the rest ordered canonically; one-member unions collapsed; enums as sets."""
    if t is None:
        return None
    t = _refined(t)
    if isinstance(t, Prim):
        return {"prim": t.name}
    if isinstance(t, ArrayOf):
        return {"array": type_ir(t.item)}
    if isinstance(t, MapOf):
        return {"map": type_ir(t.value)}
    if isinstance(t, ObjectOf):
        return {"object": {nfc(f.name): {"type": type_ir(f.type), "optional": f.optional}
                           for f in t.fields}, "additional": t.additional}
    if isinstance(t, EnumOf):
        return {"enum": _set(t.values)}
    if isinstance(t, Bounded):
        return {"bounded": t.base, "min": value(t.min), "max": value(t.max)}
    if isinstance(t, RefinedString):
        return {"string": {"pattern": value(t.pattern), "min_len": value(t.min_len),
                           "max_len": value(t.max_len)}}
    members = _flatten(t.members)
    kept = [m for i, m in enumerate(members)
            if not any(j != i and is_subtype(m, o) and not (is_subtype(o, m) and j > i)
                       for j, o in enumerate(members))]
    lowered: dict[str, Any] = {}
    for member in kept:
        ir = type_ir(member)
        lowered.setdefault(repr(_sort_key(ir)), ir)
    if len(lowered) == 1:
        return next(iter(lowered.values()))
    return {"union": [lowered[k] for k in sorted(lowered)]}


def _sort_key(ir: Any) -> Any:
    """A total, deterministic order over IR data (for sets of IR nodes)."""
    if isinstance(ir, Mapping):
        return tuple(sorted((k, _sort_key(v)) for k, v in ir.items()))
    if isinstance(ir, list):
        return tuple(_sort_key(v) for v in ir)
    return (type(ir).__name__, str(ir))


# -- the task -----------------------------------------------------------------------------------

def _body(body: Body, default_model: str | None, child: SideFile, skill: SideFile) -> Any:
    if isinstance(body, InferBody):
        return {"verb": "infer", "prompt": value(body.prompt), "system": value(body.system),
                "model": value(body.model or default_model),
                "temperature": number(body.temperature), "max_tokens": value(body.max_tokens),
                "schema": value(body.schema), "thinking": value(body.thinking),
                "vision": value(list(body.vision))}
    if isinstance(body, ExecBody):
        decode = body.decode or (None if body.capture == "structured" else DEFAULT_DECODE)
        return {"verb": "exec", "command": value(body.command), "shell": value(body.shell),
                "cwd": value(body.cwd), "env": value(dict(body.env)), "stdin": value(body.stdin),
                "capture": body.capture, "decode": decode}
    if isinstance(body, InvokeBody):
        target = body.workflow
        literal = target is not None and "${{" not in target
        return {"verb": "invoke", "tool": value(body.tool),
                "workflow": value(posixpath.normpath(target) if literal and target else target),
                "child": child(target) if literal and target else None,
                "args": value(dict(body.args))}
    assert isinstance(body, AgentBody)
    return {"verb": "agent", "prompt": value(body.prompt), "system": value(body.system),
            "model": value(body.model or default_model), "tools": _set(body.tools),
            "skills": {posixpath.normpath(nfc(s)): skill(s) for s in body.skills},
            "max_turns": value(DEFAULT_MAX_TURNS if body.max_turns is None else body.max_turns),
            "max_tokens_total": value(body.max_tokens_total),
            "temperature": number(body.temperature), "schema": value(body.schema)}


def _edge(edge: Edge) -> dict[str, Any]:
    return {"from": edge.source, "kind": str(edge.kind), "predicate": edge.predicate,
            "binding": None if edge.binding is None else nfc(edge.binding)}


def lower_task(task: Task, incoming: tuple[Edge, ...], *, default_model: str | None,
               child: SideFile, skill: SideFile) -> dict[str, Any]:
    """One task's IR node: every field (`timeout:` and `group:` included), its defaults
    written out, and the derived edges that enter it."""
    retry = task.retry
    on_error = task.on_error
    each = task.for_each
    return {
        "node": "task", "id": task.id, "body": _body(task.body, default_model, child, skill),
        "with": value(dict(task.with_)),
        "after": {str(k): v for k, v in task.after.items()},
        "edges": sorted((_edge(e) for e in incoming), key=_sort_key),
        "when": None if task.when is None or task.when is True else value(task.when),
        "for_each": None if each is None else {
            "items": value(each.items), "max_parallel": value(each.max_parallel),
            "fail_fast": each.fail_fast},
        # One attempt is no retry: the loop's knobs never act, so they are not meaning.
        "retry": None if retry is None or retry.max_attempts == 1 else {
            "max_attempts": value(retry.max_attempts),
            "backoff_ns": value(retry.backoff_ms * _NS_PER_MS), "strategy": retry.backoff_strategy,
            "backoff_max_ns": value(retry.backoff_max_ms * _NS_PER_MS), "jitter": retry.jitter,
            "on_codes": _set(retry.on_codes)},
        "timeout_ns": None if task.timeout is None else task.timeout.nanoseconds,
        "on_error": None if on_error is None else {
            "action": on_error.action,
            "recover": value(on_error.recover) if on_error.action == "recover" else None,
            "on_codes": _set(on_error.on_codes)},
        "returns": type_ir(task.returns),
        "extract": {nfc(k): nfc(v) for k, v in task.extract.items()},
        "group": task.group,
        "lift": sorted(({"law": lf.law, "from": lf.from_, "because": nfc(lf.because)}
                        for lf in task.lift), key=_sort_key),
    }


# -- the envelope -------------------------------------------------------------------------------

def _permits(permits: Permits | None) -> Any:
    if permits is None:
        return None  # no block: zero authority, and the check says so
    exec_grant = permits.exec
    return {"fs_read": _set(permits.fs_read), "fs_write": _set(permits.fs_write),
            "net_http": _set(permits.net_http),
            "exec": True if exec_grant is True else _set(exec_grant or ()),
            "tools": _set(permits.tools), "env": _set(permits.env)}


def lower_envelope(workflow: Workflow) -> dict[str, Any]:
    """The workflow's IR node without its tasks (the caller folds their hashes in)."""
    run = workflow.run
    return {
        "node": "workflow", "name": nfc(workflow.name), "model": value(workflow.model),
        "inputs": {nfc(n): {"type": type_ir(d.type), "required": d.required,
                            "has_default": d.has_default,
                            "default": value(d.default) if d.has_default else None,
                            "description": value(d.description)}
                   for n, d in workflow.inputs.items()},
        "const": {nfc(n): {"value": value(d.value), "type": type_ir(d.type)}
                  for n, d in workflow.const.items()},
        "secrets": {nfc(n): {"source": s.source, "key": value(s.key), "file": value(s.file),
                             "egress": sorted(({"to": nfc(e.to), "host": value(e.host),
                                                "host_from_self": e.host_from_self}
                                               for e in s.egress), key=_sort_key)}
                    for n, s in workflow.secrets.items()},
        "permits": _permits(workflow.permits),
        "run": None if run is None else {"entropy": value(run.entropy), "clock": run.clock},
        "outputs": {nfc(n): {"value": value(d.value), "type": type_ir(d.type),
                             "description": value(d.description)}
                    for n, d in workflow.outputs.items()},
    }
