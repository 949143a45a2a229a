"""Workflow texts for the semantic-hash properties: one meaning, many spellings.

A workflow is held as plain data (`Spec`: envelope keys and a `tasks` map) and emitted as YAML
text — block style at the top, each task as a JSON flow mapping on one line (JSON is YAML),
with the key order, the comments and each value's spelling chosen by the caller.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from nika.journal.semantic import semantic_hash, semantic_tree
from nika.syntax.loader import load_document
from nika.syntax.model import Workflow, build_workflow

Spec = dict[str, Any]


def emit(spec: Spec, *, rng: random.Random | None = None, comments: bool = False) -> str:
    """`spec` as YAML text; `rng` shuffles every mapping's key order, `comments` adds some."""

    def order(mapping: dict[str, Any]) -> dict[str, Any]:
        keys = list(mapping)
        if rng is not None:
            rng.shuffle(keys)
        return {k: order(mapping[k]) if isinstance(mapping[k], dict) else mapping[k]
                for k in keys}

    lines = [f"nika: {spec['nika']}"]
    if comments:
        lines.append("# the envelope, then the tasks")
    for key, value in order({k: v for k, v in spec.items() if k not in ("nika", "tasks")}).items():
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("tasks:")
    for tid, task in order(spec["tasks"]).items():
        if comments:
            lines.append(f"  # task {tid}: a comment is not meaning")
        lines.append(f"  {tid}: {json.dumps(order(task), ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def build(text: str) -> Workflow:
    """The built model of `text` (a test failure when the builder refuses it)."""
    workflow, findings = build_workflow(load_document(text))
    assert workflow is not None and not findings, findings
    return workflow


def hash_of(text: str, base: Path = Path(".")) -> str:
    """The semantic hash of a workflow text."""
    return semantic_hash(build(text), base)


def task_hashes(text: str, base: Path = Path(".")) -> dict[str, str]:
    """Each task's hash in the Merkle tree of a workflow text."""
    return dict(semantic_tree(build(text), base).tasks)


BASE: Spec = {
    "nika": "demo",
    "model": "mock/echo",
    "inputs": {"topic": {"type": "string", "default": "rust"}},
    "tasks": {
        "fetch": {"exec": {"command": ["echo", "hi"]}, "group": "pool", "timeout": "30s"},
        "more": {"exec": {"command": ["echo", "more"]}, "group": "pool"},
        "plan": {
            "infer": {"prompt": "plan ${{ inputs.topic }} from ${{ with.all }}",
                      "temperature": 0.5, "max_tokens": 200},
            "with": {"all": "${{ group.pool }}", "n": 3},
            "after": {"fetch": "success"},
            "when": "${{ inputs.topic != '' }}",
            "retry": {"max_attempts": 3, "backoff_ms": 500},
            "timeout": "5m",
            "on_error": {"recover": "none", "on_codes": ["NIKA-EXEC-001"]},
            "returns": "string",
            "extract": {"first": ".[0]"},
            "lift": [{"law": "data-as-code", "because": "the plan is reviewed"}],
        },
        "each": {
            "agent": {"prompt": "work on ${{ item }}", "tools": ["nika:read"]},
            "for_each": {"items": ["a", "b"], "max_parallel": 2},
        },
        "note": {"infer": {"prompt": "a note"}},
        "sh": {"exec": {"shell": "echo hi | wc -c"}},
        "call": {"invoke": {"tool": "nika:log", "args": {"message": "done"}},
                 "after": {"plan": "terminal"}},
    },
}
"""A workflow that writes every task field at least once."""
