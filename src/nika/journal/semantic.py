"""The workflow's semantic hash, spec 15 §the semantic hash: what a receipt proves.

    H(domain, version, IR) = blake3( domain ‖ 0x00 ‖ version ‖ 0x00 ‖ JCS(IR) )

spelled `blake3:<domain>:<version>:<64 hex>` — self-describing, so a verifier tells an older
receipt (a bare sha256 hex, or another algorithm, domain or version) from a forged one. The
pre-image is the reference's (`conformance/proof_core.preimage`), its domain set closed
(`DOMAINS`), the bytes RFC 8785 JCS (the `rfc8785` library).

**What it is for.** The identity of what a workflow MEANS: a receipt's `proves` and the
journal prologue's `semantic_hash`. Two files that mean the same workflow hash equal — key
order, comments, whitespace, `"60s"` vs `"1m"`, a default written out or left implicit,
`retry: {max_attempts: 1}` or no retry; two that mean different workflows never do — every
task field counts, `timeout:` and `group:` included, and so do the bytes of the side files a
task runs (agent skills) and, for a composed child, the child's own semantic hash.

**What it ignores.** Spans, comments, key order, spellings of one value (see
docs/semantic-hash.md for the Semantic IR), and everything a run is given rather than
written: inputs' values, secrets' values, the environment.

**Merkle by task.** Each task's IR node hashes on its own; the workflow node commits to the
task hashes by id, and an `invoke: workflow:` task carries its child's root hash, so the
child folds in as a subtree (`SemanticTree`). Which files a task reaches — skills, children,
grandchildren — is `identity.Closure`'s walk, the one the definition hashes fold too: this
module folds its own digest (the children's meaning, not their bytes) over the same nodes.

**Not the resume key.** `nika.journal.identity` keys resume (ADR-099 §1) on a different hash
that deliberately ignores `timeout:` and `group:` — editing a timeout must not re-run a
finished task. Resume is therefore NOT re-keyed semantically: a deliberate departure from
spec 15 (15:56-58, "cache and resume are re-keyed semantically"). Do not move resume onto
this hash.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import blake3
import rfc8785

from nika.check.graph import derive
from nika.journal._semantic_ir import lower_envelope, lower_task
from nika.journal.identity import Closure, Node
from nika.syntax.model import InvokeBody, Task, Workflow

DOMAINS: Final = ("source", "canonical", "semantic", "plan", "trace", "artifact", "receipt")
"""The closed set of hash domains (spec 15 §domain separation)."""
ALGORITHM: Final = "blake3"
FORMAT_VERSION: Final = 1
_SPELLING: Final = re.compile(r"^([a-z0-9]+):([a-z]+):([0-9]+):([0-9a-f]{64})$")


def jcs(ir: Any) -> bytes:
    """The RFC 8785 canonical bytes of `ir` (plain JSON data)."""
    return rfc8785.dumps(ir)


def preimage(domain: str, ir: Any, version: int = FORMAT_VERSION) -> bytes:
    """`domain ‖ NUL ‖ version ‖ NUL ‖ JCS(ir)`: a domain can never bleed into the payload."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown hash domain {domain!r}; the set is closed: {DOMAINS}")
    return f"{domain}\x00{version}\x00".encode() + jcs(ir)


def spell(domain: str, hex_digest: str, version: int = FORMAT_VERSION) -> str:
    """A digest spelled with its algorithm, domain and version."""
    return f"{ALGORITHM}:{domain}:{version}:{hex_digest}"


def domain_hash(domain: str, ir: Any, version: int = FORMAT_VERSION) -> str:
    """H(domain, version, ir), spelled."""
    return spell(domain, blake3.blake3(preimage(domain, ir, version)).hexdigest(), version)


def bytes_hash(domain: str, data: bytes, version: int = FORMAT_VERSION) -> str:
    """An opaque byte string hashed in `domain` (a side file's content), spelled."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown hash domain {domain!r}; the set is closed: {DOMAINS}")
    head = f"{domain}\x00{version}\x00".encode()
    return spell(domain, blake3.blake3(head + data).hexdigest(), version)


@dataclass(frozen=True, slots=True)
class Spelling:
    """A parsed digest spelling."""

    algorithm: str
    domain: str
    version: int
    hex: str

    @property
    def current(self) -> bool:
        """Is this the spelling this engine writes?"""
        return (self.algorithm, self.version) == (ALGORITHM, FORMAT_VERSION) \
            and self.domain in DOMAINS


def parse_spelling(text: object) -> Spelling | None:
    """`text` as a self-describing digest, or None (an older bare hex, or not a digest)."""
    if not isinstance(text, str):
        return None
    found = _SPELLING.match(text)
    if found is None:
        return None
    return Spelling(found[1], found[2], int(found[3]), found[4])


@dataclass(frozen=True, slots=True)
class SemanticTree:
    """A workflow's semantic hash with its parts: each task's hash, each composed child's
    tree. `ir` is the workflow node the root hashes (it holds the task hashes)."""

    root: str
    tasks: Mapping[str, str]
    ir: Mapping[str, Any] = field(repr=False)
    children: Mapping[str, SemanticTree] = field(default_factory=dict)


class _Walk:
    """One tree build over a closure walker (`identity.Closure`, THE composition-closure
    walk: which files a task reaches, each read and parsed once, cycles and depth bounded);
    this folds its own digest over the nodes that walker yields. A child reached twice (a
    diamond) is lowered once."""

    def __init__(self, closure: Closure) -> None:
        self.closure = closure
        self._done: dict[int, tuple[Node, SemanticTree]] = {}

    def tree(self, workflow: Workflow, default_model: str | None,
             reached: Callable[[Task], Mapping[str, Node]]) -> SemanticTree:
        edges = derive(workflow).edges
        tasks: dict[str, str] = {}
        children: dict[str, SemanticTree] = {}
        for task in workflow.tasks.values():
            nodes = reached(task)
            found: dict[str, SemanticTree] = {}

            def child(target: str, nodes: Mapping[str, Node] = nodes,
                      found: dict[str, SemanticTree] = found) -> Any:
                sub = self._child(nodes.get(f"workflow:{target}"))
                if isinstance(sub, SemanticTree):
                    found["tree"] = sub
                    return sub.root
                return sub

            def skill(raw: str, nodes: Mapping[str, Node] = nodes) -> str:
                node = nodes.get(f"skill:{raw}")
                data = None if node is None else node.reach.data
                return "unreadable" if data is None else bytes_hash("artifact", data)

            node = lower_task(task, tuple(e for e in edges if e.target == task.id),
                              default_model=default_model, child=child, skill=skill)
            tasks[task.id] = domain_hash("semantic", node)
            if "tree" in found and isinstance(task.body, InvokeBody):
                children[task.id] = found["tree"]
        ir = {**lower_envelope(workflow), "tasks": dict(tasks)}
        return SemanticTree(domain_hash("semantic", ir), tasks, ir, children)

    def _child(self, node: Node | None) -> SemanticTree | dict[str, str]:
        if node is not None and node.digest in ("cycle", "too deep"):
            return {"unresolved": node.digest}
        workflow = None if node is None else self.closure.workflow(node)
        if node is None or workflow is None:  # the check refuses the parent (NIKA-COMP-001)
            return {"unresolved": "no workflow builds from this target"}
        done = self._done.get(id(node))
        if done is None:
            below = node.below  # `<task>/<name>`: the child's tasks' own reaches

            def reached(task: Task) -> Mapping[str, Node]:
                return {name: n for key, n in below.items()
                        for owner, _, name in (key.partition("/"),) if owner == task.id}

            # the child's tasks run on its own model, else on the one they inherit
            model = workflow.model or node.reach.model
            done = self._done[id(node)] = (node, self.tree(workflow, model, reached))
        return done[1]


def semantic_tree(workflow: Workflow, base: Path, *,
                  closure: Closure | None = None) -> SemanticTree:
    """The Merkle tree of `workflow`'s meaning; `base` is the directory its relative side
    files resolve from. `closure` is the walker to share (a run's, so the semantic hash and
    every definition hash read the same child bytes); by default a fresh one."""
    walk = _Walk(closure or Closure())
    return walk.tree(workflow, workflow.model,
                     lambda task: walk.closure.tree(task, base, workflow.model))


def semantic_hash(workflow: Workflow, base: Path, *, closure: Closure | None = None) -> str:
    """The workflow's semantic hash, spelled `blake3:semantic:1:<hex>`."""
    return semantic_tree(workflow, base, closure=closure).root
