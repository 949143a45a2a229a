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
child folds in as a subtree (`SemanticTree`).

**Not the resume key.** `nika.runtime.identity` keys resume (ADR-099 §1) on a different hash
that deliberately ignores `timeout:` and `group:` — editing a timeout must not re-run a
finished task. Resume is therefore NOT re-keyed semantically: a deliberate departure from
spec 15 (15:56-58, "cache and resume are re-keyed semantically"). Do not move resume onto
this hash.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import blake3
import rfc8785

from nika.check.composition import read_child
from nika.check.graph import derive
from nika.check.side_files import Unreadable, read_capped
from nika.check.skills import MAX_SKILL_BYTES
from nika.journal._semantic_ir import lower_envelope, lower_task
from nika.syntax.model import InvokeBody, Workflow

DOMAINS: Final = ("source", "canonical", "semantic", "plan", "trace", "artifact", "receipt")
"""The closed set of hash domains (spec 15 §domain separation)."""
ALGORITHM: Final = "blake3"
FORMAT_VERSION: Final = 1
MAX_CHILD_DEPTH: Final = 16
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
    """One tree build: the chain of child files being lowered (a cycle is named, not
    followed) and the depth bound."""

    def __init__(self, chain: tuple[Path, ...]) -> None:
        self.chain = chain

    def tree(self, workflow: Workflow, base: Path) -> SemanticTree:
        edges = derive(workflow).edges
        tasks: dict[str, str] = {}
        children: dict[str, SemanticTree] = {}
        for task in workflow.tasks.values():
            found: dict[str, SemanticTree] = {}

            def child(target: str, found: dict[str, SemanticTree] = found) -> Any:
                sub = self._child(base, target)
                if isinstance(sub, SemanticTree):
                    found["tree"] = sub
                    return sub.root
                return sub

            node = lower_task(task, tuple(e for e in edges if e.target == task.id),
                              default_model=workflow.model, child=child,
                              skill=lambda raw: _skill(base, raw))
            tasks[task.id] = domain_hash("semantic", node)
            if "tree" in found and isinstance(task.body, InvokeBody):
                children[task.id] = found["tree"]
        ir = {**lower_envelope(workflow), "tasks": dict(tasks)}
        return SemanticTree(domain_hash("semantic", ir), tasks, ir, children)

    def _child(self, base: Path, target: str) -> SemanticTree | dict[str, str]:
        real = (base / target).resolve()
        if real in self.chain:
            return {"unresolved": "cycle"}
        if len(self.chain) >= MAX_CHILD_DEPTH:
            return {"unresolved": "too deep"}
        found = read_child(base, target)  # the check's reading, built once per process
        if found is None:  # the check refuses the parent for it (NIKA-COMP-001)
            return {"unresolved": "no workflow builds from this target"}
        file, child = found
        return _Walk((*self.chain, file)).tree(child, file.parent)


def _skill(base: Path, raw: str) -> str:
    path = Path(raw) if Path(raw).is_absolute() else base / raw
    data = read_capped(path, MAX_SKILL_BYTES)
    return "unreadable" if isinstance(data, Unreadable) else bytes_hash("artifact", data)


def semantic_tree(workflow: Workflow, base: Path, *, source: Path | None = None) -> SemanticTree:
    """The Merkle tree of `workflow`'s meaning; `base` is the directory its relative side
    files resolve from, `source` its own file (so a child naming it is a cycle)."""
    return _Walk(() if source is None else (source.resolve(),)).tree(workflow, base)


def semantic_hash(workflow: Workflow, base: Path, *, source: Path | None = None) -> str:
    """The workflow's semantic hash, spelled `blake3:semantic:1:<hex>`."""
    return semantic_tree(workflow, base, source=source).root
