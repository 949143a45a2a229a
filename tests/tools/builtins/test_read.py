from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from nika.tools.builtins import BuiltinExecutor


async def test_read_text_and_judges_the_canonical_path(make, judge, base: Path):
    (base / "data").mkdir()
    (base / "data" / "a.txt").write_text("héllo", encoding="utf-8")
    result = await make().call("nika:read", {"path": "./data/../data/a.txt"})
    assert result.structured == "héllo"
    assert [(e.kind, e.target, e.task) for e in judge.seen] == [("fs.read", "data/a.txt", "t1")]


async def test_read_binary_returns_bytes(make: Callable[..., BuiltinExecutor], base: Path):
    (base / "b.bin").write_bytes(b"\xff\x00\x01")
    result = await make().call("nika:read", {"path": "b.bin", "binary": True})
    assert result.structured == b"\xff\x00\x01" and result.content == "<3 bytes>"


async def test_read_refusal_happens_before_the_file_is_opened(make, judge, base: Path):
    judge.refuse.add("secret.txt")
    result = await make().call("nika:read", {"path": "secret.txt"})  # does not even exist
    assert result.error is not None and result.error.code == "NIKA-SEC-004"
    assert result.error.category == "security_error"


async def test_read_escape_is_judged_where_it_lands(make, judge, base: Path):
    await make().call("nika:read", {"path": "../../etc/shadow"})
    target = judge.seen[-1].target
    assert target.startswith("../") and "etc/shadow" in target


async def test_read_symlink_out_of_the_tree_is_judged_at_its_target(make, judge, base: Path):
    outside = base.parent / "outside.txt"
    outside.write_text("x")
    os.symlink(outside, base / "link.txt")
    judge.refuse_prefixes = ("../",)
    result = await make().call("nika:read", {"path": "link.txt"})
    assert result.error is not None and result.error.code == "NIKA-SEC-004"
    assert judge.seen[-1].target == "../outside.txt"


async def test_read_codes(make: Callable[..., BuiltinExecutor], base: Path):
    (base / "latin.txt").write_bytes("café".encode("latin-1"))
    (base / "dir").mkdir()
    ex = make()
    missing = (await ex.call("nika:read", {"path": "nope.txt"})).error
    bad_text = (await ex.call("nika:read", {"path": "latin.txt"})).error
    folder = (await ex.call("nika:read", {"path": "dir"})).error
    assert missing is not None and missing.code == "NIKA-BUILTIN-READ-001"
    assert "nope.txt" in missing.detail
    assert bad_text is not None and bad_text.code == "NIKA-BUILTIN-READ-003"
    assert folder is not None and folder.code == "NIKA-BUILTIN-READ-002"
    latin = await ex.call("nika:read", {"path": "latin.txt", "encoding": "latin-1"})
    assert latin.structured == "café"
