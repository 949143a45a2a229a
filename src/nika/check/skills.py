"""Rung: `agent.skills:` paths resolve to valid Agent Skills (spec 02 §Agent Skills).

A templated or globbed path can never resolve (`NIKA-AGENT-003`). A path is opened
only when the declared `permits.fs.read` boundary admits it — the boundary itself
(`NIKA-AUTH-006` absent · `NIKA-SEC-004` outside) is the authority rung's verdict,
so an ungranted path is skipped here, never read. An admitted path must exist
(`NIKA-AGENT-003`) and open with a YAML frontmatter carrying a non-empty `name`
and `description` (`NIKA-AGENT-004`).

Opening is guarded (`guarded_read.read_capped`): a path that resolves to anything but a
regular file — a directory, `/dev/zero`, a FIFO — is `NIKA-AGENT-003` without a byte
read, and a file past the 1 MiB cap is `NIKA-AGENT-004` after at most cap + 1 bytes.
When the check must not touch the disk (`ctx.read_side_files` false: a `nika:compose`
draft, which must not be able to probe which host files exist), skills are judged
statically only — the path's shape here, the boundary in the authority rung.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from nika import codes
from nika.check.context import CheckContext, Finding, StrPath
from nika.errors import NikaError
from nika.syntax.model import AgentBody

if TYPE_CHECKING:
    from nika.syntax.globs import Whitelist

_GLOB_CHARS = frozenset("*?[")
MAX_SKILL_BYTES = 1 << 20


def run(ctx: CheckContext) -> Iterator[Finding]:
    """Judge every skill path of every `agent:` task."""
    admitted = _read_boundary(ctx)
    for task in ctx.workflow.tasks.values():
        if not isinstance(task.body, AgentBody):
            continue
        for i, raw in enumerate(task.body.skills):
            at = (*task.path, "agent", "skills", i)
            if "${{" in raw or _GLOB_CHARS & set(raw):
                yield ctx.error(
                    codes.AGENT_003,
                    f"skill path {raw!r} of task `{task.id}` is not a static path (a "
                    "template or a glob can "
                    "never resolve at compose time); write the explicit SKILL.md path",
                    at,
                )
                continue
            if not ctx.read_side_files:
                continue  # judged statically: the file is never opened
            if admitted is None or not admitted.allows(_normal(raw)):
                continue
            problem = _skill_problem(ctx.base_dir, raw)
            if problem is not None:
                code, why = problem
                yield ctx.error(code, f"skill {raw!r} of task `{task.id}` {why}", at)


def _normal(path: str) -> str:
    norm = posixpath.normpath(path)
    return norm[2:] if norm.startswith("./") else norm


def _read_boundary(ctx: CheckContext) -> Whitelist | None:
    permits = ctx.workflow.permits
    if permits is None or not permits.fs_read:
        return None
    from nika.syntax.globs import Whitelist

    try:
        return Whitelist.compile_paths(permits.fs_read)
    except NikaError:
        return None  # a malformed grant is the authority rung's finding


def _skill_problem(base: StrPath, raw: str) -> tuple[str, str] | None:
    # The guarded reader (and `pathlib` under it) loads with the first skill file opened.
    from pathlib import Path

    from nika.guarded_read import Unreadable, read_capped

    data = read_capped(Path(base) / raw, MAX_SKILL_BYTES)
    if isinstance(data, Unreadable):
        if data.reason == "too_large":
            return (
                codes.AGENT_004,
                f"is not an Agent Skill: it {data.why} (a skill is a short instruction file)",
            )
        if data.reason == "not_regular":
            return (codes.AGENT_003, f"{data.why}; point `skills:` at a SKILL.md file")
        return codes.AGENT_003, f"{data.why}; fix the path or add the file"
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return (
            codes.AGENT_004,
            "is not an Agent Skill: it must open with a `---` YAML frontmatter fence",
        )
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        return (
            codes.AGENT_004,
            "is not an Agent Skill: its frontmatter is never closed by a `---` line",
        )
    from nika.syntax.loader import load_mapping  # only a workflow with skill files reads YAML

    try:
        front = load_mapping("\n".join(lines[1:end]))
    except NikaError as exc:
        if exc.code in (codes.PARSE_002, codes.PARSE_019):
            return codes.AGENT_004, "is not an Agent Skill: its frontmatter is not a mapping"
        return (
            codes.AGENT_004,
            f"is not an Agent Skill: its frontmatter is not valid YAML ({exc.detail})",
        )
    for key in ("name", "description"):
        value = front.get(key)
        if not isinstance(value, str) or not value.strip():
            return (
                codes.AGENT_004,
                f"is not an Agent Skill: its frontmatter lacks a non-empty `{key}:`",
            )
    return None
