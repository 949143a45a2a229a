"""Rung: where each secret can go (01 §secrets · §egress · 10 §secret flow).

A taint walk over the derived graph, tasks in topological order. A `secrets.X` read is
the source; it travels through `with:` bindings and task results:

- an `exec:` capture and an `invoke:` result are tainted by every secret their inputs
  carry (a sanction clears the send, never the capture);
- an `infer:`/`agent:` result is never tainted by its prompt (the one carve-out).

Sinks: `exec:` arguments, `invoke:` payloads, `infer:`/`agent:` prompts (`NIKA-SEC-006`)
and the `outputs:` boundary (`NIKA-SEC-007`). A flow is sanctioned by an `egress:` entry
of its secret (the sink id, the literal host or `host_from_self`, or `to: outputs`).
Every finding carries the taint path, source-first, and the clause that would sanction
it. The checker never resolves a secret: only names travel, never values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nika import codes
from nika.check._flow import sources
from nika.check.context import CheckContext, Finding, Section
from nika.check.effects import is_dynamic, url_host
from nika.check.graph import Graph, derive
from nika.syntax.model import (
    AgentBody,
    ExecBody,
    InferBody,
    InvokeBody,
    KeyPath,
    Task,
    TaskId,
    Workflow,
)

if TYPE_CHECKING:
    from nika.syntax.declarations import SecretRef

Taint = Mapping[str, tuple[str, ...]]
"""secret name → the taint path (source-first) up to the value that carries it."""

_NET_SINKS = frozenset({"nika:fetch", "nika:notify"})
_URL_ARG = {"nika:fetch": "url", "nika:notify": "target"}


@dataclass(frozen=True, slots=True)
class Flow:
    """One secret reaching one sink: `sink` is the sink id (`exec`, a tool id, `infer`,
    `agent`, `outputs`), `at` the sink's label and `site` its location."""

    secret: str
    path: tuple[str, ...]
    sink: str
    at: str
    site: KeyPath
    sanctioned: bool


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Report every secret flow; refuse the unsanctioned ones."""
    flows = list(secret_flows(ctx.workflow, ctx.graph()))
    for f in flows:
        if f.sanctioned:
            continue
        code = codes.SEC_007 if f.sink == "outputs" else codes.SEC_006
        where = "the workflow boundary" if f.sink == "outputs" else f"the `{f.sink}` sink"
        witness = " → ".join((*f.path, f.at))
        clause = f'secrets: {{ {f.secret}: {{ egress: [{{ to: "{f.sink}" }}] }} }}'
        yield ctx.error(
            code,
            f"secret `{f.secret}` reaches {where} unsanctioned (taint path {witness}); "
            f"keep the secret out of it, or sanction the destination in-file: {clause}",
            f.site,
            secret=f.secret,
            taint_path=[*f.path, f.at],
            sink=f.sink,
            egress=clause,
        )
    yield Section(
        "secret_flows",
        [
            {
                "secret": f.secret,
                "path": [*f.path, f.at],
                "sink": f.sink,
                "sanctioned": f.sanctioned,
            }
            for f in flows
        ],
    )


def secret_flows(workflow: Workflow, graph: Graph | None = None) -> Iterator[Flow]:
    """Every (secret, sink) flow, in task order then outputs order; one path per pair."""
    if not workflow.secrets:
        return
    graph = graph if graph is not None else derive(workflow)
    order = [t for wave in graph.topological_waves() for t in wave] or list(workflow.tasks)
    placed = set(order)
    order += [t for t in workflow.tasks if t not in placed]
    results: dict[TaskId, Taint] = {}
    for tid in order:
        task = workflow.tasks[tid]
        carried: dict[str, tuple[str, ...]] = {}
        for label, value, site in _sink_values(task):
            taint = _taint(value, task, results, workflow.secrets)
            for secret, path in sorted(taint.items()):
                carried.setdefault(secret, path)
                sink = _sink_id(task)
                ok = _sanctioned(workflow.secrets[secret], sink, task, taint)
                yield Flow(secret, path, sink, label, site, ok)
        if isinstance(task.body, ExecBody | InvokeBody):
            results[tid] = {s: (*p, f"tasks.{tid}.output") for s, p in carried.items()}
    for name, out in workflow.outputs.items():
        taint = _taint(out.value, None, results, workflow.secrets)
        for secret, path in sorted(taint.items()):
            ok = any(e.to == "outputs" for e in workflow.secrets[secret].egress)
            yield Flow(secret, path, "outputs", f"outputs.{name}", out.path, ok)


def _taint(
    value: Any, task: Task | None, results: Mapping[TaskId, Taint], secrets: Mapping[str, SecretRef]
) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for src in sources(value, task or _NO_TASK):
        if src.namespace == "secrets":
            name = src.root.split(".", 1)[1]
            if name in secrets:
                found.setdefault(name, src.path)
        elif src.namespace == "tasks":
            producer = TaskId(src.root.split(".")[1])
            for secret, path in results.get(producer, {}).items():
                found.setdefault(secret, (*path, *src.via))
    return found


def _sink_id(task: Task) -> str:
    body = task.body
    if isinstance(body, ExecBody):
        return "exec"
    if isinstance(body, InvokeBody):
        return body.tool or f"workflow:{body.workflow}"
    return "infer" if isinstance(body, InferBody) else "agent"


def _sink_values(task: Task) -> Iterator[tuple[str, Any, KeyPath]]:
    body = task.body
    at = (*task.path, task.verb)
    fields: dict[str, Any]
    if isinstance(body, ExecBody):
        fields = {
            "command": body.command,
            "shell": body.shell,
            "cwd": body.cwd,
            "env": dict(body.env),
            "stdin": body.stdin,
        }
    elif isinstance(body, InvokeBody):
        fields = {"args": dict(body.args)}
    elif isinstance(body, InferBody | AgentBody):
        fields = {"prompt": body.prompt, "system": body.system}
    else:
        fields = {}
    for name, value in fields.items():
        if value is not None:
            yield f"{task.verb}.{name}", _plain(value), (*at, name)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _sanctioned(secret: SecretRef, sink: str, task: Task, taint: Taint) -> bool:
    """01 §egress: ① the sink id matches `to:`; ② a network sink's literal host matches
    `host:`, or `host_from_self` with the URL exactly this secret and no other secret."""
    for rule in secret.egress:
        if rule.to != sink:
            continue
        if sink not in _NET_SINKS or (rule.host is None and not rule.host_from_self):
            return True
        body = task.body
        url = body.args.get(_URL_ARG[sink]) if isinstance(body, InvokeBody) else None
        literal = url if isinstance(url, str) and not is_dynamic(url) else None
        host = (url_host(literal) or "").lower() if literal is not None else None
        if rule.host is not None and host == rule.host.lower().rstrip("."):
            return True
        if rule.host_from_self and isinstance(url, str):
            exact = url.strip() in (
                f"${{{{ secrets.{secret.name} }}}}",
                f"${{{{secrets.{secret.name}}}}}",
            )
            if exact and set(taint) == {secret.name}:
                return True
    return False


_NO_TASK = Task(id=TaskId(""), verb="infer", body=InferBody(prompt=""), path=())
