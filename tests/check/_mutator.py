"""A seeded mutator of real workflows, shared by the fuzz test and `bench/fuzz_check.py`.

Seeds are the conformance sample (`../shared/conformance/tests/**`) and the spec's examples.
A case is either a structural mutation — the seed parsed, one to three of its nodes replaced
by a hostile value of another YAML type, deleted, duplicated or wrapped, then written back
as JSON (which is YAML) — or a textual one over the seed's lines and bytes. Structural
mutations are what reach the rungs: a value of the wrong type in a well-formed document.
"""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml

SHARED: Final = Path(__file__).resolve().parents[3] / "shared"
ROOTS: Final = (SHARED / "conformance" / "tests", SHARED / "nika-spec" / "examples")

HOSTILE: Final[tuple[Any, ...]] = (
    None,
    True,
    False,
    0,
    -1,
    2**63,
    1.5,
    1e308,
    "",
    " ",
    "\x00",
    "\x1b[2K\rok",
    "\u202e",
    "${{",
    "}}",
    "${{ )",
    "${{ a }}",
    '${{ "\\" }}',
    "${{ inputs.x }}",
    "${{ tasks.t.output }}",
    "${{ tasks.t.status }}",
    "${{ with.x }}",
    "${{ secrets.k }}",
    "${{ item }}",
    "${{ group.g }}",
    "*",
    "**",
    "!",
    "[",
    "../../etc/passwd",
    "/dev/zero",
    "registry:a/b@1",
    "nika:read",
    "nika:decide",
    "nika:image_generate",
    "mcp:s/t",
    "mcp:*",
    "http://169.254.169.254/",
    "mock/echo",
    "7d",
    "-1s",
    "99999999999h",
    "success",
    "unwind",
    "x" * 300,
    [],
    {},
    ["sign"],
    [None],
    [[]],
    [{}],
    {"a": []},
    {"${{ x }}": 1},
    {"type": "string"},
    {"object": {"a": "string"}},
)

KEYS: Final = (
    "nika", "model", "inputs", "const", "secrets", "permits", "outputs", "tasks", "infer",
    "exec", "invoke", "agent", "with", "after", "when", "for_each", "retry", "on_error",
    "timeout", "returns", "lift", "group", "extract", "prompt", "system", "schema", "tools",
    "max_turns", "max_tokens", "max_tokens_total", "skills", "tool", "args", "workflow",
    "command", "shell", "env", "cwd", "items", "max_parallel", "fail_fast", "recover",
    "max_attempts", "backoff", "fs", "net", "http", "read", "write", "type", "default",
    "required", "value", "egress", "to", "source", "key", "op", "path", "content", "url",
    "provider", "view", "duration", "bundle", "evidence", "law", "from", "because",
)  # fmt: skip

TOKENS: Final = (
    "${{", "}}", "${{ tasks.a.output }}", "&a", "*a", "<<:", "!!str", "!!python/object", "- ",
    ": ", "{", "}", "[", "]", "'", '"', "\t", "\n", "  ", "#", "null", "~", "1e999", ".nan",
    "\ufeff", "é", "\u0301", "\x00", "\x1b", "\r", "\u202e", "%YAML 1.1\n", "---\n", "...\n",
)  # fmt: skip


@cache
def seeds() -> tuple[tuple[str, str], ...]:
    """Every seed workflow under the roots, as `(name, text)`, sorted by name."""
    found: list[tuple[str, str]] = []
    for root in ROOTS:
        for file in sorted(root.rglob("*.yaml")):
            if file.stat().st_size <= 64_000:
                found.append((str(file.relative_to(SHARED)), file.read_text(encoding="utf-8")))
    return tuple(found)


@cache
def _tree(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _nodes(tree: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) slot of the tree, in document order."""
    out: list[tuple[Any, Any]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                out.append((node, key))
                stack.append(node[key])
        elif isinstance(node, list):
            for i in range(len(node)):
                out.append((node, i))
                stack.append(node[i])
    return out


def _hostile(rng: random.Random) -> Any:
    value = rng.choice(HOSTILE)
    return copy.deepcopy(value) if isinstance(value, list | dict) else value


def _structural(rng: random.Random, text: str) -> str | None:
    tree = copy.deepcopy(_tree(text))
    if not isinstance(tree, dict):
        return None
    for _ in range(rng.randint(1, 3)):
        slots = _nodes(tree)
        if not slots:
            break
        node, key = rng.choice(slots)
        op = rng.randrange(6)
        if op == 0:
            node[key] = _hostile(rng)
        elif op == 1 and isinstance(node, dict):
            del node[key]
        elif op == 2 and isinstance(node, dict):
            node[rng.choice(KEYS)] = _hostile(rng) if rng.random() < 0.7 else copy.deepcopy(
                node[key]
            )
        elif op == 3:
            node[key] = [node[key]] if rng.random() < 0.5 else {rng.choice(KEYS): node[key]}
        elif op == 4:
            other, at = rng.choice(slots)
            node[key] = copy.deepcopy(other[at])
        else:
            node[key] = _hostile(rng)
    return json.dumps(tree, default=str, ensure_ascii=rng.random() < 0.5)


def _textual(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(lines))
        if op == 0 and len(lines) > 1:
            del lines[i]
        elif op == 1:
            lines.insert(i, rng.choice(lines))
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            k = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice(TOKENS) + lines[i][k:]
        elif op == 4:
            lines[i] = " " * rng.randint(0, 6) + lines[i].lstrip()
        elif op == 5:
            lines = lines[: i + 1]
        else:
            key, value = rng.choice(KEYS), _hostile(rng)
            lines[i] = lines[i] + f" {key}: {json.dumps(value, default=str)}"
    return "\n".join(lines)


def case(rng: random.Random) -> tuple[str, str]:
    """One mutated workflow: `(seed name, source)`."""
    name, text = rng.choice(seeds())
    if rng.random() < 0.6:
        mutated = _structural(rng, text)
        if mutated is not None:
            return name, mutated
    return name, _textual(rng, text)

