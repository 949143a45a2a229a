"""The unconditional laws over the derived graph (10-authority): order and consent.

- The order law (`NIKA-SEC-015`): no `exec:` task transitively downstream of a
  net-effecting task (`nika:fetch` · `nika:notify`) over `with:` ∪ `after:` edges; the
  witness is the path.
- The affirmative-consent law (`NIKA-SEC-014`): every route from a confirm-mode
  `nika:prompt` gate to an egress-capable task must be closed — by a `when:` that is
  FALSE under the refusal substitution, by `when: false`, or by a closer confirm gate.
  A route whose `when:` cannot be decided is an advisory hint, never a refusal.

Neither law can be declared or disabled: both bind every file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.check._islands import exprs, whole
from nika.check.context import CheckContext, Finding, Hint
from nika.check.graph import Graph
from nika.syntax.model import AgentBody, ExecBody, InvokeBody, Task, TaskId

if TYPE_CHECKING:
    from nika.syntax.expr import Expr

NET: Final = frozenset({"nika:fetch", "nika:notify"})
EGRESS_BUILTINS: Final = frozenset(
    {
        "nika:fetch",
        "nika:notify",
        "nika:write",
        "nika:edit",
        "nika:chart",
        "nika:image_fx",
        "nika:image_generate",
        "nika:tts_generate",
    }
)
_UNKNOWN: Final = object()


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Both laws, over one derived graph."""
    graph = ctx.graph()
    yield from _order(ctx, graph)
    yield from _consent(ctx, graph)


def _net_sources(
    graph: Graph, tasks: Mapping[TaskId, Task]
) -> tuple[dict[TaskId, TaskId], dict[TaskId, TaskId]]:
    """For every task downstream of a net task: the first such net task in declaration
    order (`owner`), and the BFS parent that leads back to it (`parent`).

    One forward BFS per net task, in declaration order, that stops at nodes an earlier
    net task already owns — their descendants are that task's too — so the whole pass
    is O(V + E) however many net and exec tasks there are. Each node is reached first
    from its owner along a shortest path with the same tie-breaks as a lone BFS from it
    (no shortest path from a later owner can cross an earlier owner's node).
    """
    owner: dict[TaskId, TaskId] = {}
    parent: dict[TaskId, TaskId] = {}
    for tid, task in tasks.items():
        if not (isinstance(task.body, InvokeBody) and task.tool in NET):
            continue
        queue = deque([tid])
        while queue:
            cur = queue.popleft()
            for nxt in graph.consumers(cur):
                if nxt in owner or nxt == tid:
                    continue
                owner[nxt] = tid
                parent[nxt] = cur
                queue.append(nxt)
    return owner, parent


def _path(parent: Mapping[TaskId, TaskId], start: TaskId, goal: TaskId) -> list[TaskId]:
    """The shortest `G_p` path `start → … → goal` the BFS recorded (the witness)."""
    out = [goal]
    while out[-1] != start:
        out.append(parent[out[-1]])
    out.reverse()
    return out


def _order(ctx: CheckContext, graph: Graph) -> Iterator[Finding]:
    tasks = ctx.workflow.tasks
    owner, parent = _net_sources(graph, tasks)
    for task in tasks.values():
        if not isinstance(task.body, ExecBody):
            continue
        source = owner.get(task.id)
        if source is None:
            continue
        path = _path(parent, source, task.id)
        yield ctx.error(
            codes.SEC_015,
            f"exec task `{task.id}` runs downstream of the network task `{source}` "
            f"({' → '.join(path)}): content the workflow did not author must not reach a "
            "shell; remove the dependency, or do the work without exec: (a builtin, or infer:)",
            (*task.path, "exec"),
            path=path,
        )


def _is_gate(task: Task) -> bool:
    if not isinstance(task.body, InvokeBody) or task.tool != "nika:prompt":
        return False
    return bool(task.body.args.get("mode", "confirm") == "confirm")


def may_reach(task: Task, builtins: frozenset[str]) -> bool:
    """Can `task` use one of `builtins`? An `exec:` or an MCP tool can do anything, so it
    always may; an agent may when one of its `tools:` entries (a glob) admits one."""
    body = task.body
    if isinstance(body, ExecBody):
        return True
    if isinstance(body, InvokeBody) and body.tool is not None:
        return body.tool in builtins or body.tool.startswith("mcp:")
    if isinstance(body, AgentBody):
        from nika.syntax.globs import glob_match

        return any(
            entry.startswith("mcp:") or any(glob_match(entry, b) for b in builtins)
            for entry in body.tools
        )
    return False


def egress_capable(task: Task) -> bool:
    """Can `task` send content out of the run (an `EGRESS_BUILTINS` effect)?"""
    return may_reach(task, EGRESS_BUILTINS)


def _consent(ctx: CheckContext, graph: Graph) -> Iterator[Finding]:
    tasks = ctx.workflow.tasks
    position = {tid: i for i, tid in enumerate(tasks)}
    for gate in (t for t in tasks.values() if _is_gate(t)):
        state: dict[TaskId, bool] = {}  # reached → proven open (True) or unproven (False)
        queue: deque[tuple[TaskId, bool]] = deque((c, True) for c in graph.consumers(gate.id))
        while queue:
            node, proven = queue.popleft()
            task = tasks[node]
            verdict = _closes(task, gate)
            if verdict is True:
                continue
            proven = proven and verdict is False
            if state.get(node) is True or (node in state and not proven):
                continue
            state[node] = proven
            queue.extend((c, proven) for c in graph.consumers(node))
        for node in sorted(state, key=position.__getitem__):
            if not egress_capable(tasks[node]):
                continue
            err = ctx.error(
                codes.SEC_014,
                f"the confirm gate `{gate.id}` reaches the egress task `{node}` over a route "
                "that does not consume the answer: a refused confirm settles success with "
                f"value false, so `{node}` would run anyway; bind the answer and test it — "
                f'with: {{ go: "${{{{ tasks.{gate.id}.output }}}}" }} + '
                "when: ${{ with.go == true }}",
                (*tasks[node].path,),
                gate=gate.id,
                sink=node,
            )
            yield err if state[node] else Hint(err)


def _closes(task: Task, gate: Task) -> bool | None:
    """True: this node closes the route · False: proven open · None: undecidable."""
    if _is_gate(task):
        return True  # the nearest confirm gate owns the closure
    when = task.when
    if when is None or when is True:
        return False
    if when is False:
        return True
    if not isinstance(when, str):
        return None
    subst = _substitution(task, gate.id)
    trees = exprs(when)
    if len(trees) != 1:
        return None
    reads: list[bool] = []
    value = _eval(trees[0], subst, reads)
    if not reads:
        return False  # a `when:` that never reads the answer lets the refusal through
    if value is _UNKNOWN:
        return None
    return value is False


def _substitution(task: Task, gate: TaskId) -> Mapping[str, Any]:
    """The refusal substitution: the gate's output is `false`, its status `success`."""
    refusal: dict[str, Any] = {
        f"tasks.{gate}.output": False,
        f"tasks.{gate}.status": "success",
    }
    for name, binding in task.with_.items():
        tree = whole(binding) if isinstance(binding, str) else None  # a malformed one is None
        if tree is not None:
            dotted = _dotted(tree)
            if dotted in refusal:
                refusal[f"with.{name}"] = refusal[dotted]
    return refusal


def _dotted(node: Expr) -> str | None:
    # A tree exists, so the expression language is loaded: these imports only bind names.
    from nika.syntax.expr import Ident, Index, Literal, Member

    steps: list[str] = []
    while isinstance(node, Member | Index):
        if isinstance(node, Member):
            steps.append(node.name)
        elif isinstance(node.index, Literal) and isinstance(node.index.value, str):
            steps.append(node.index.value)
        else:
            return None
        node = node.target
    if not isinstance(node, Ident):
        return None
    return ".".join([node.name, *reversed(steps)])


def _eval(node: Expr, subst: Mapping[str, Any], reads: list[bool]) -> Any:
    """Kleene-3 over the decidable fragment; anything else is unknown."""
    from nika.syntax.expr import Binary, Literal, Not, Ternary

    if isinstance(node, Literal):
        return node.value
    dotted = _dotted(node)
    if dotted is not None:
        if dotted in subst:
            reads.append(True)
            return subst[dotted]
        return _UNKNOWN
    if isinstance(node, Not):
        inner = _eval(node.operand, subst, reads)
        return (not inner) if isinstance(inner, bool) else _UNKNOWN
    if isinstance(node, Ternary):
        cond = _eval(node.cond, subst, reads)
        then, other = _eval(node.then, subst, reads), _eval(node.other, subst, reads)
        if isinstance(cond, bool):
            return then if cond else other
        return then if then is not _UNKNOWN and then == other else _UNKNOWN
    if isinstance(node, Binary):
        left, right = _eval(node.left, subst, reads), _eval(node.right, subst, reads)
        return _binary(node.op, left, right)
    return _UNKNOWN


def _binary(op: str, left: Any, right: Any) -> Any:
    if op == "&&":
        if left is False or right is False:
            return False
        return True if left is True and right is True else _UNKNOWN
    if op == "||":
        if left is True or right is True:
            return True
        return False if left is False and right is False else _UNKNOWN
    if left is _UNKNOWN or right is _UNKNOWN:
        return _UNKNOWN
    if op == "==":
        return left == right and type(left) is type(right)
    if op == "!=":
        return not (left == right and type(left) is type(right))
    if op == "in" and isinstance(right, list):
        return left in right
    return _UNKNOWN
