"""Where the spec's decision material lives: the goldens, and the reference evaluator (run as an
independent judge in the differential test, never copied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

SPEC: Final = next(
    (up / "shared" / "nika-spec" for up in Path(__file__).resolve().parents
     if (up / "shared" / "nika-spec").is_dir()),
    Path("/work/shared/nika-spec"),
)
"""The spec checkout beside the repository (found upward: a worktree sits one level deeper)."""
CONFORMANCE: Final = SPEC / "conformance"
GOLDENS: Final = CONFORMANCE / "decision-goldens"
CASES: Final = ("s1-dominant-risk", "s2-missing-required", "s3-straddle", "s4-conflict",
                "s5-cold")


def bundle() -> dict[str, Any]:
    """A fresh copy of the pr-triage bundle."""
    loaded: dict[str, Any] = json.loads((GOLDENS / "pr-triage.bundle.json").read_text())
    return loaded


def snapshot(case: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((GOLDENS / f"{case}.snapshot.json").read_text())
    return loaded


def golden(case: str) -> str:
    """The golden receipt's bytes (the file ends in one newline, not part of the JSON)."""
    return (GOLDENS / f"{case}.receipt.golden.json").read_text(encoding="utf-8").rstrip("\n")
