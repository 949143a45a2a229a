from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nika.tools.builtins import BuiltinExecutor


async def test_edit_replaces_literally_and_judges_read_and_write(make, judge, base: Path):
    (base / "f.md").write_text("a.b a.b a.b")
    result = await make().call(
        "nika:edit", {"path": "./f.md", "find": "a.b", "replace": "X", "count": 2}
    )
    assert result.structured == "./f.md"  # the modified path as written
    assert (base / "f.md").read_text() == "X X a.b"
    assert [e.kind for e in judge.seen] == ["fs.read", "fs.write"]


async def test_edit_replaces_all_by_default(make: Callable[..., BuiltinExecutor], base: Path):
    (base / "f.md").write_text("x x x")
    await make().call("nika:edit", {"path": "f.md", "find": "x", "replace": "y"})
    assert (base / "f.md").read_text() == "y y y"


async def test_edit_refusals(make, judge, base: Path):
    (base / "f.md").write_text("abc")
    ex = make()
    nothing = (await ex.call("nika:edit", {"path": "f.md", "find": "zz", "replace": "y"})).error
    bad_count = (
        await ex.call("nika:edit", {"path": "f.md", "find": "a", "replace": "y", "count": "2"})
    ).error
    missing = (await ex.call("nika:edit", {"path": "g.md", "find": "a", "replace": "y"})).error
    assert nothing is not None and nothing.code == "NIKA-BUILTIN-EDIT-001"
    assert bad_count is not None and bad_count.code == "NIKA-BUILTIN-EDIT-001"
    assert missing is not None and missing.code == "NIKA-BUILTIN-EDIT-002"
    judge.refuse.add("f.md")
    refused = (await ex.call("nika:edit", {"path": "f.md", "find": "a", "replace": "y"})).error
    assert refused is not None and refused.code == "NIKA-SEC-004"
    assert (base / "f.md").read_text() == "abc"
