"""The canonical projection of a checked workflow (spec 16 · spec 03 §graph projection).

ONE producer, three surfaces: `nika inspect --format json`, the language server's
`nika/semanticDocument` and the MCP `nika_inspect` tool all serve `graph_json` of the same
`Checked` (the triangle law). The projection re-derives nothing: nodes come in the waves the
DAG rung planned (`Verdict.waves`), edges are `check.graph.derive`'s, per-task permits are
the effects rung's `infer_effects`, and a cost interval is read off the certificate section.

Structure only: names, shapes and declared policy — never a resolved input or a secret
value. A graph exists only for a file with no error-severity finding (hints and lints do
not block); otherwise `reason` says why in one word (`parse` · `findings`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal

from nika.check.effects import Effect, infer_effects
from nika.check.graph import EdgeKind, Graph, derive
from nika.syntax.model import TaskId

if TYPE_CHECKING:
    from pathlib import Path

    from nika.check import Checked
    from nika.syntax.model import Task, Workflow

GRAPH_FORMAT: Final = 3
"""The graph document's version (spec 03): format 3 admits cleanup units as nodes."""

CLEANUP_TIMEOUT_MS: Final = 30_000
"""A cleanup unit's default `timeout:` (spec 03 §unwind)."""

Reason = Literal["parse", "findings"]

_PERMIT_FAMILY: Final[Mapping[str, str]] = {
    "fs.read": "fs.read",
    "fs.write": "fs.write",
    "net": "net.http",
    "exec": "exec",
    "tool": "tool",
}
"""Effect kind → the permit family a node names it by (spec 03 node fields)."""

_BINDING_KINDS: Final = frozenset(
    {
        EdgeKind.VALUE,
        EdgeKind.TERMINAL_OBSERVATION,
        EdgeKind.FAILURE_OBSERVATION,
        EdgeKind.FAN_IN,
    }
)


@dataclass(frozen=True, slots=True)
class Projection:
    """A workflow's projection: the graph document, or the one-word reason it has none."""

    checked: Checked
    graph: dict[str, Any] | None
    reason: Reason | None

    @property
    def json(self) -> str | None:
        """The canonical bytes every surface serves (None without a graph)."""
        return None if self.graph is None else graph_json(self.graph)


def inspect_source(
    text: str | bytes,
    path: str | None = None,
    *,
    base_dir: Path | None = None,
    lint: bool = False,
) -> Projection:
    """Check `text` once and project what the check derived; never raises."""
    from nika.check import check_workflow

    return project(check_workflow(text, path, base_dir=base_dir, lint=lint))


def project(checked: Checked) -> Projection:
    """The projection of a check's result: a graph when the verdict has no error."""
    workflow = checked.workflow
    if workflow is None:
        return Projection(checked, None, "parse")
    if not checked.verdict.valid:
        return Projection(checked, None, "findings")
    return Projection(checked, build_graph(workflow, checked.verdict.waves,
                                           checked.verdict.sections), None)


def graph_json(graph: Mapping[str, Any]) -> str:
    """The canonical spelling of a graph document, one line (what the CLI prints): C1
    controls and bidi overrides a task's text may hold are `\\u` escapes (same value), so the
    bytes are safe on a terminal and identical on every surface."""
    from nika._term import json_printable
    from nika.canonical import canonical_json

    return json_printable(canonical_json(graph)) + "\n"


def build_graph(
    workflow: Workflow,
    waves: Iterable[Iterable[str]],
    sections: Mapping[str, Any],
) -> dict[str, Any]:
    """The `graph_format: 3` document of a valid workflow, from the check's own products:
    its planned `waves` and its `certificate` section."""
    graph = derive(workflow)
    permits = _permits_by_task(infer_effects(workflow))
    certificate = sections.get("certificate")
    cert: Mapping[str, Any] = certificate if isinstance(certificate, Mapping) else {}
    nodes = [
        _node(workflow.tasks[TaskId(tid)], workflow, permits.get(tid, []), cert, cleanup=False)
        for tid in _wave_order(graph, waves)
    ]
    nodes += [
        _node(workflow.tasks[tid], workflow, permits.get(tid, []), cert, cleanup=True)
        for tid in graph.cleanup
    ]
    return {
        "graph_format": GRAPH_FORMAT,
        "workflow": workflow.name,
        "nodes": nodes,
        "edges": _edges(graph),
    }


def _wave_order(graph: Graph, waves: Iterable[Iterable[str]]) -> list[str]:
    """`G_p`'s nodes in the planned wave order (a node the plan left out keeps its
    declaration order after the waves: a valid verdict plans every node)."""
    order = [str(t) for wave in waves for t in wave]
    planned = set(order)
    return order + [str(t) for t in graph.nodes if t not in planned]


def _permits_by_task(effects: Iterable[Effect]) -> dict[str, list[str]]:
    """Each task's permits as `<family>:<target>`, in the effect walk's order
    (kind, then target; `env` is never inferred, a grant-free builtin needs no `tool:`)."""
    from nika.check.effects import needs_grant

    out: dict[str, list[str]] = {}
    for effect in effects:
        family = _PERMIT_FAMILY.get(effect.kind)
        if family is None or effect.task is None:
            continue
        if effect.kind == "tool" and not needs_grant(effect.target):
            continue
        entry = f"{family}:{effect.target}"
        mine = out.setdefault(effect.task, [])
        if entry not in mine:
            mine.append(entry)
    return out


def _node(
    task: Task,
    workflow: Workflow,
    permits: list[str],
    cert: Mapping[str, Any],
    *,
    cleanup: bool,
) -> dict[str, Any]:
    node: dict[str, Any] = {
        "id": str(task.id),
        "kind": "finally" if cleanup else "task",
        "verb": task.verb,
        "permits": permits,
        # A cleanup unit takes no gate, no fan-out and no priced row: present-as-null.
        "when": None if cleanup else _when(task.when),
        "fan_out": None if cleanup else _fan_out(task),
        "cost_interval": None if cleanup else _cost_interval(task, cert),
    }
    if task.tool is not None:
        node["tool"] = task.tool
    if task.verb in ("infer", "agent"):
        model = task.model or workflow.model
        if model is not None and "${{" not in model:  # a templated model resolves at run time
            node["model"] = model
    if task.retry is not None:
        node["retry_max_attempts"] = task.retry.max_attempts
    if task.timeout is not None:
        node["timeout_ms"] = _milliseconds(task.timeout.nanoseconds)
    elif cleanup:
        node["timeout_ms"] = CLEANUP_TIMEOUT_MS
    if task.on_error is not None:
        node["on_error"] = task.on_error.action
    if task.extract:
        node["outputs"] = list(task.extract)
    return node


def _when(when: bool | str | None) -> str | None:
    if when is None:
        return None
    if isinstance(when, bool):
        return "true" if when else "false"
    return when


def _fan_out(task: Task) -> dict[str, Any] | None:
    if task.for_each is None:
        return None
    items = task.for_each.items
    if isinstance(items, list):
        return {"kind": "list", "count": len(items)}
    return {"kind": "expression"}


def _milliseconds(nanoseconds: int) -> int | float:
    whole, rest = divmod(nanoseconds, 1_000_000)
    return whole if rest == 0 else nanoseconds / 1_000_000


def _cost_interval(task: Task, cert: Mapping[str, Any]) -> list[float] | None:
    """`[min_path, worst_case]` USD for a priced inference task, else None (spec 03).

    The worst case is the certificate's figure for the task; the minimal path is the
    same task with no retry firing (one attempt per iteration), rounded down.
    """
    if task.verb not in ("infer", "agent"):
        return None
    rows = cert.get("tasks")
    row = rows.get(str(task.id)) if isinstance(rows, Mapping) else None
    rates = cert.get("rates")
    if not isinstance(row, Mapping) or not isinstance(rates, Mapping):
        return None
    worst = row.get("cost_usd")
    # Unpriced, unbounded, unbilled (mock, local) or symbolic: no interval, never a made-up 0.
    if row.get("spend") != "bounded" or row.get("model") not in rates:
        return None
    if not isinstance(worst, int | float) or isinstance(worst, bool):
        return None
    attempts = task.retry.max_attempts if task.retry is not None else 1
    scaled = Fraction(str(worst)) * 10**6 / attempts
    return [math.floor(scaled) / 10**6, float(worst)]


def _edges(graph: Graph) -> list[dict[str, Any]]:
    """Every edge between declared tasks, in derivation order, exact repeats dropped (two
    reads of one task in one binding are one edge)."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str, str | None]] = set()
    for edge in graph.edges:
        entry: dict[str, Any] = {"from": str(edge.source), "to": str(edge.target),
                                 "kind": str(edge.kind)}
        extra: str | None = None
        if edge.kind in _BINDING_KINDS and edge.binding is not None:
            entry["binding"] = extra = edge.binding
        elif edge.kind is EdgeKind.CONTROL and edge.predicate is not None:
            entry["predicate"] = extra = edge.predicate
        key = (entry["from"], entry["to"], entry["kind"], extra)
        if key not in seen:
            seen.add(key)
            out.append(entry)
    return out
