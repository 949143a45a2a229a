from __future__ import annotations

import os
from pathlib import Path


def _tree(base: Path) -> None:
    for rel in (
        "src/b.py",
        "src/a.py",
        "src/pkg/c.py",
        "src/pkg/README.md",
        "docs/x.md",
        "docs/README.md",
    ):
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(rel)


async def test_glob_sorted_with_excludes_and_judges_the_root(make, judge, base: Path):
    _tree(base)
    result = await make().call("nika:glob", {"pattern": "./src/**/*.py"})
    assert result.structured == ["src/a.py", "src/b.py", "src/pkg/c.py"]
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.read", "src")]
    docs = await make().call("nika:glob", {"pattern": "docs/*.md", "exclude": "**/README.md"})
    assert docs.structured == ["docs/x.md"]


async def test_glob_does_not_follow_directory_symlinks(make, base: Path):
    _tree(base)
    outside = base.parent / "elsewhere"
    outside.mkdir()
    (outside / "leak.py").write_text("x")
    os.symlink(outside, base / "src" / "link")
    result = await make().call("nika:glob", {"pattern": "src/**/*.py"})
    assert "src/link/leak.py" not in result.structured


async def test_glob_refusals(make, judge, base: Path):
    _tree(base)
    malformed = (await make().call("nika:glob", {"pattern": "src/[a-"})).error
    assert malformed is not None and malformed.code == "NIKA-BUILTIN-GLOB-001"
    judge.refuse.add("docs")
    refused = (await make().call("nika:glob", {"pattern": "docs/*.md"})).error
    assert refused is not None and refused.code == "NIKA-SEC-004"
