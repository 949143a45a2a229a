from __future__ import annotations

from pathlib import Path


async def test_grep_sorted_hits_with_line_numbers(make, judge, base: Path):
    (base / "src").mkdir()
    (base / "src" / "b.py").write_text("x = 1\n# TODO: two\n")
    (base / "src" / "a.py").write_text("# todo: one\n# TODO: one\n")
    (base / "src" / "bin.dat").write_bytes(b"\xff\xfeTODO:")
    result = await make().call("nika:grep", {"pattern": "TODO:", "path": "src"})
    assert result.structured == [
        {"path": "src/a.py", "line": 2, "match": "# TODO: one"},
        {"path": "src/b.py", "line": 2, "match": "# TODO: two"},
    ]
    assert [(e.kind, e.target) for e in judge.seen] == [("fs.read", "src")]
    loose = await make().call(
        "nika:grep", {"pattern": "todo:", "path": "src", "case_insensitive": True}
    )
    assert len(loose.structured) == 3


async def test_grep_refusals(make, judge, base: Path):
    backref = (await make().call("nika:grep", {"pattern": r"(a)\1"})).error
    broken = (await make().call("nika:grep", {"pattern": "(unclosed"})).error
    missing = (await make().call("nika:grep", {"pattern": "x", "path": "nowhere"})).error
    assert backref is not None and backref.code == "NIKA-BUILTIN-GREP-001"
    assert broken is not None and broken.code == "NIKA-BUILTIN-GREP-001"
    assert missing is not None and missing.code == "NIKA-BUILTIN-GREP-002"
    judge.refuse.add(".")
    refused = (await make().call("nika:grep", {"pattern": "x"})).error
    assert refused is not None and refused.code == "NIKA-SEC-004"
