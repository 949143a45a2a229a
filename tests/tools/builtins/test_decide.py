"""`nika:decide` served: inline and path bundles, the fs.read judge, and its refusal codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.decide._spec import GOLDENS, bundle, golden, snapshot

from nika.canonical import canonical_json
from nika.tools.builtins import BuiltinExecutor


async def test_inline_bundle_reads_no_file(make: Callable[..., BuiltinExecutor], judge):
    result = await make().call("nika:decide", {"bundle": bundle(),
                                               "evidence": snapshot("s1-dominant-risk")})
    assert result.error is None
    assert canonical_json(result.structured) == golden("s1-dominant-risk")
    assert result.content == golden("s1-dominant-risk")  # the receipt's canonical bytes
    assert judge.seen == []


async def test_path_bundle_is_a_judged_fs_read(make: Callable[..., BuiltinExecutor], judge,
                                               base: Path):
    (base / "rubrics").mkdir()
    (base / "rubrics" / "b.json").write_bytes((GOLDENS / "pr-triage.bundle.json").read_bytes())
    result = await make().call("nika:decide", {"bundle": "./rubrics/b.json",
                                               "evidence": snapshot("s4-conflict")})
    assert result.structured is not None and result.structured["outcome"] == "human_required"
    assert canonical_json(result.structured) == golden("s4-conflict")
    assert [(e.kind, e.target, e.task) for e in judge.seen] == [("fs.read", "rubrics/b.json",
                                                                 "t1")]


async def test_refused_read_happens_before_the_file_is_opened(make, judge):
    judge.refuse.add("b.json")
    result = await make().call("nika:decide", {"bundle": "b.json", "evidence": {}})
    assert result.error is not None and result.error.code == "NIKA-SEC-004"


async def test_bundle_file_refusals(make: Callable[..., BuiltinExecutor], base: Path):
    (base / "yaml.json").write_text("manifest: {id: x}\n")
    (base / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (base / "dir.json").mkdir()
    ex = make()
    for name, says in [("missing.json", "does not exist"), ("yaml.json", "not one JSON"),
                       ("deep.json", "not one JSON"), ("dir.json", "regular files only")]:
        result = await ex.call("nika:decide", {"bundle": name, "evidence": {}})
        assert result.error is not None and result.error.code == "NIKA-DECIDE-001", name
        assert says in result.error.detail, result.error.detail


async def test_kernel_refusals_reach_the_task(make: Callable[..., BuiltinExecutor]):
    broken = bundle()
    broken["rules"]["thresholds"][0]["recommend_gte_bp"] = 50.0
    result = await make().call("nika:decide", {"bundle": broken,
                                               "evidence": snapshot("s1-dominant-risk")})
    assert result.error is not None and result.error.code == "NIKA-DECIDE-001"
    assert result.error.details["law"] == "fixed-point"
    result = await make().call("nika:decide", {"bundle": bundle(),
                                               "evidence": {"evidence": [{"key": "nope"}]}})
    assert result.error is not None and result.error.code == "NIKA-DECIDE-002"
    assert result.error.category == "validation_error" and not result.error.transient


async def test_arg_shape_is_builtin_001(make: Callable[..., BuiltinExecutor]):
    result = await make().call("nika:decide", {"bundle": bundle()})
    assert result.error is not None and result.error.code == "NIKA-BUILTIN-001"
    result = await make().call("nika:decide", {"bundle": "", "evidence": {}})
    assert result.error is not None and result.error.code == "NIKA-INVOKE-002"


def test_decide_is_served(make: Callable[..., BuiltinExecutor]) -> None:
    described = {str(d.name): d.description for d in make().definitions()}
    assert "NOT supported" not in described["nika:decide"]
    assert json.loads(json.dumps(described["nika:decide"]))  # a plain description
