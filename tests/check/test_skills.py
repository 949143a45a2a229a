"""Rung `nika.check.skills`: skill paths are static, admitted, present and well-formed."""

from __future__ import annotations

from pathlib import Path

import pytest

from nika.check import skills
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def codes(tmp_path: Path, skill: str, read: str = '["skills/**"]') -> list[str]:
    src = (
        f"nika: x\npermits: {{ fs: {{ read: {read} }} }}\n"
        f"tasks:\n  r:\n    agent: {{ prompt: p, skills: ['{skill}'] }}\n"
    )
    doc = load_document(src)
    wf, errors = build_workflow(doc)
    assert wf is not None and not errors
    return [
        f.code
        for f in skills.run(CheckContext(doc, wf, None, tmp_path))
        if isinstance(f, NikaError)
    ]


def write(tmp_path: Path, text: str) -> None:
    target = tmp_path / "skills" / "s" / "SKILL.md"
    target.parent.mkdir(parents=True)
    target.write_text(text)


GOOD = "---\nname: review\ndescription: Review a change.\nlicense: MIT\n---\n\nLook closely.\n"


def test_well_formed_skill_passes(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    assert codes(tmp_path, "skills/s/SKILL.md") == []
    assert codes(tmp_path, "./skills/s/SKILL.md") == []


def test_missing_skill_refused(tmp_path: Path) -> None:
    assert codes(tmp_path, "skills/none/SKILL.md") == ["NIKA-AGENT-003"]


@pytest.mark.parametrize("skill", ["skills/${{ inputs.pack }}/SKILL.md", "skills/*/SKILL.md"])
def test_dynamic_path_refused(tmp_path: Path, skill: str) -> None:
    assert codes(tmp_path, skill) == ["NIKA-AGENT-003"]


@pytest.mark.parametrize(
    "text",
    [
        "no frontmatter\n",
        "---\nname: a\n",
        "---\n- a\n---\n",
        "---\nname: a\n---\n",
        "---\nname: ''\ndescription: d\n---\n",
        "---\nname: [unclosed\n---\n",
    ],
)
def test_invalid_skill_refused(tmp_path: Path, text: str) -> None:
    write(tmp_path, text)
    assert codes(tmp_path, "skills/s/SKILL.md") == ["NIKA-AGENT-004"]


def test_ungranted_path_is_never_read(tmp_path: Path) -> None:
    write(tmp_path, "not a skill")
    assert codes(tmp_path, "skills/s/SKILL.md", read='["docs/**"]') == []
    assert codes(tmp_path, "../etc/hosts") == []
