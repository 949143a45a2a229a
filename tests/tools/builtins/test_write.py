from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nika.tools.builtins import BuiltinExecutor, Context


async def test_write_text_returns_the_path_as_written(make, judge, base: Path):
    result = await make().call("nika:write", {"path": "./out.md", "content": "# hi\n"})
    assert result.structured == "./out.md"  # as written, not canonicalised
    assert (base / "out.md").read_text() == "# hi\n"
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.write", "out.md")]


async def test_write_data_as_json_and_bytes_as_is(make: Callable[..., BuiltinExecutor], base):
    ex = make()
    await ex.call("nika:write", {"path": "d.json", "content": {"b": 1, "a": [True]}})
    await ex.call("nika:write", {"path": "b.bin", "content": b"\x00\xff"})
    assert (base / "d.json").read_text() == '{\n  "a": [\n    true\n  ],\n  "b": 1\n}\n'
    assert (base / "b.bin").read_bytes() == b"\x00\xff"


async def test_write_refused_path_is_never_written(make, judge, base: Path):
    judge.refuse.add("etc/passwd")
    result = await make().call("nika:write", {"path": "etc/passwd", "content": "x"})
    assert result.error is not None and result.error.code == "NIKA-SEC-004"
    assert not (base / "etc").exists()


async def test_write_overwrite_false_and_missing_parent(base: Path):
    ex = BuiltinExecutor(Context(base_dir=base))  # no judge: create_dirs: false is enforced
    (base / "x.txt").write_text("old")
    exists = (
        await ex.call("nika:write", {"path": "x.txt", "content": "new", "overwrite": False})
    ).error
    parent = (await ex.call("nika:write", {"path": "deep/dir/y.txt", "content": "y"})).error
    assert exists is not None and exists.code == "NIKA-BUILTIN-WRITE-002"
    assert (base / "x.txt").read_text() == "old"
    assert parent is not None and parent.code == "NIKA-BUILTIN-WRITE-001"
    assert "create_dirs" in parent.detail
    made = await ex.call(
        "nika:write", {"path": "deep/dir/y.txt", "content": "y", "create_dirs": True}
    )
    assert not made.is_error and (base / "deep/dir/y.txt").read_text() == "y"


async def test_a_covering_write_grant_creates_the_tree(make, base: Path):
    result = await make().call("nika:write", {"path": "out/a/b.txt", "content": "z"})
    assert not result.is_error and (base / "out/a/b.txt").read_text() == "z"
