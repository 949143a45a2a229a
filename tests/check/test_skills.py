"""Rung `nika.check.skills`: skill paths are static, admitted, present and well-formed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from nika.check import skills
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def findings(
    tmp_path: Path, skill: str, read: str = '["skills/**"]', *, read_side_files: bool = True
) -> list[NikaError]:
    src = (
        f"nika: x\npermits: {{ fs: {{ read: {read} }} }}\n"
        f"tasks:\n  r:\n    agent: {{ prompt: p, skills: ['{skill}'] }}\n"
    )
    doc = load_document(src)
    wf, errors = build_workflow(doc)
    assert wf is not None and not errors
    ctx = CheckContext(doc, wf, None, tmp_path, read_side_files=read_side_files)
    return [f for f in skills.run(ctx) if isinstance(f, NikaError)]


def codes(tmp_path: Path, skill: str, read: str = '["skills/**"]') -> list[str]:
    return [f.code for f in findings(tmp_path, skill, read)]


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


def test_frontmatter_is_read_as_yaml_1_2_core(tmp_path: Path) -> None:
    # `no` is text under YAML 1.2's core schema (YAML 1.1 would make it false and refuse it).
    write(tmp_path, "---\nname: 'no'\ndescription: no\nmetadata: {tags: [a, b]}\n---\nBody.\n")
    assert codes(tmp_path, "skills/s/SKILL.md") == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\n- a\n---\n", "not a mapping"),
        ("---\n---\n", "not a mapping"),
        ("---\nname: &n a\ndescription: *n\n---\n", "anchor"),
        ("---\nname: a\nname: b\ndescription: d\n---\n", "not valid YAML"),
    ],
)
def test_a_refused_frontmatter_says_why(tmp_path: Path, text: str, why: str) -> None:
    write(tmp_path, text)
    found = findings(tmp_path, "skills/s/SKILL.md")
    assert [f.code for f in found] == ["NIKA-AGENT-004"]
    assert why in found[0].detail


def test_ungranted_path_is_never_read(tmp_path: Path) -> None:
    write(tmp_path, "not a skill")
    assert codes(tmp_path, "skills/s/SKILL.md", read='["docs/**"]') == []
    assert codes(tmp_path, "../etc/hosts") == []


def test_a_device_is_refused_without_being_read(tmp_path: Path) -> None:
    # `/dev/zero` never ends: read whole, it hung the check and ate memory.
    assert codes(tmp_path, "/dev/zero", read='["/dev/**"]') == ["NIKA-AGENT-003"]


def test_a_fifo_is_refused_without_being_opened_for_a_blocking_read(tmp_path: Path) -> None:
    fifo = tmp_path / "skills" / "s" / "SKILL.md"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)  # no writer ever comes: a blocking open or read would never return
    found = findings(tmp_path, "skills/s/SKILL.md")
    assert [f.code for f in found] == ["NIKA-AGENT-003"]
    assert "named pipe" in found[0].detail and "'skills/s/SKILL.md'" in found[0].detail


def test_a_directory_is_refused_with_a_prescriptive_detail(tmp_path: Path) -> None:
    (tmp_path / "skills" / "s" / "SKILL.md").mkdir(parents=True)
    found = findings(tmp_path, "skills/s/SKILL.md")
    assert [f.code for f in found] == ["NIKA-AGENT-003"]
    assert "a directory" in found[0].detail and "point `skills:` at a SKILL.md" in found[0].detail


def test_a_symlink_is_judged_by_what_it_resolves_to(tmp_path: Path) -> None:
    link = tmp_path / "skills" / "s" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to("/dev/zero")
    found = findings(tmp_path, "skills/s/SKILL.md")
    assert [f.code for f in found] == ["NIKA-AGENT-003"]
    assert "character device" in found[0].detail and "'/dev/zero'" in found[0].detail
    link.unlink()
    (tmp_path / "real.md").write_text(GOOD)
    link.symlink_to(tmp_path / "real.md")
    assert findings(tmp_path, "skills/s/SKILL.md") == []


def test_the_size_cap_is_inclusive_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    cap = 1 << 20
    write(tmp_path, GOOD + "x" * (cap - len(GOOD)))
    assert codes(tmp_path, "skills/s/SKILL.md") == []
    (tmp_path / "skills" / "s" / "SKILL.md").write_text(GOOD + "x" * (cap + 1 - len(GOOD)))
    found = findings(tmp_path, "skills/s/SKILL.md")
    assert [f.code for f in found] == ["NIKA-AGENT-004"] and str(cap) in found[0].detail


@pytest.mark.parametrize(
    "make",
    [
        lambda p: None,
        lambda p: p.write_text(GOOD),
        lambda p: p.write_text("not a skill"),
        lambda p: p.mkdir(),
        lambda p: p.symlink_to("/dev/zero"),
    ],
)
def test_without_side_files_the_verdict_never_depends_on_the_disk(
    tmp_path: Path, make: Callable[[Path], None]
) -> None:
    target = tmp_path / "skills" / "s" / "SKILL.md"
    target.parent.mkdir(parents=True)
    make(target)
    assert findings(tmp_path, "skills/s/SKILL.md", read_side_files=False) == []
    assert findings(tmp_path, "/dev/zero", read='["/dev/**"]', read_side_files=False) == []
    # the path's shape is still judged: that needs no disk
    assert [f.code for f in findings(tmp_path, "skills/*/SKILL.md", read_side_files=False)] == [
        "NIKA-AGENT-003"
    ]
