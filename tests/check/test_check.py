"""`nika.check.check`: the ladder, the never-raise contract, and rung sections."""

from __future__ import annotations

import json
import types
from collections.abc import Iterator

import pytest

import nika.check as check_pkg
from nika.check import check
from nika.check.context import CheckContext, Finding, Hint, Section
from nika.errors import NikaError

HELLO = "nika: hello\ntasks:\n  greet:\n    infer: { prompt: hi }\n"


def test_clean_workflow_is_valid_with_a_plan() -> None:
    v = check(HELLO)
    assert v.valid and v.errors == ()
    assert v.waves == (("greet",),)


def test_loader_refusal_is_a_verdict() -> None:
    v = check("nika: x\n  bad: [indent\n")
    assert not v.valid and v.errors[0].code.startswith("NIKA-")


def test_shape_errors_stop_the_ladder() -> None:
    v = check(
        "nika: x\ntasks:\n  a: { infer: { prompt: x }, timeout: 5, after: { ghost: success } }\n"
    )
    assert [e.code for e in v.errors] == ["NIKA-PARSE-010"]


def _fake(findings: list[Finding] | Exception) -> types.ModuleType:
    mod = types.ModuleType("fake_rung")

    def run(ctx: CheckContext) -> Iterator[Finding]:
        if isinstance(findings, Exception):
            raise findings
        yield from findings

    mod.run = run  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def rungs(monkeypatch: pytest.MonkeyPatch) -> dict[str, types.ModuleType]:
    table: dict[str, types.ModuleType] = {}
    monkeypatch.setattr(check_pkg, "RUNGS", ("a", "b"))
    monkeypatch.setattr(check_pkg, "_rung", lambda name: table[name])
    return table


def test_a_crashing_rung_becomes_impl_001_and_others_still_run(
    rungs: dict[str, types.ModuleType],
) -> None:
    rungs["a"] = _fake(RuntimeError("boom"))
    rungs["b"] = _fake([NikaError("NIKA-DAG-001", "cycle a → a")])
    v = check(HELLO)
    assert sorted(e.code for e in v.errors) == ["NIKA-DAG-001", "NIKA-IMPL-001"]
    assert any("boom" in e.detail for e in v.errors)


def test_sections_merge_and_hints_never_fail(rungs: dict[str, types.ModuleType]) -> None:
    rungs["a"] = _fake(
        [Section("plan", {"waves": [["greet"]]}), Hint(NikaError("NIKA-DRIFT-001", "unused"))]
    )
    rungs["b"] = _fake(
        [Section("plan", {"critical_path": ["greet"]}), NikaError("NIKA-DRIFT-001", "also")]
    )
    v = check(HELLO)
    assert v.valid and [h.code for h in v.hints] == ["NIKA-DRIFT-001", "NIKA-DRIFT-001"]
    wire = json.loads(v.to_json())
    assert wire["plan"] == {"critical_path": ["greet"], "waves": [["greet"]]}


def test_pipeline_crash_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*a: object, **k: object) -> None:
        raise ValueError("loader exploded")

    monkeypatch.setattr("nika.syntax.loader.load_document", explode)
    v = check(HELLO)
    assert [e.code for e in v.errors] == ["NIKA-IMPL-001"]


def test_side_files_resolve_from_the_workflow_directory(tmp_path: object) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    (base / "skills").mkdir()
    (base / "skills" / "SKILL.md").write_text("no frontmatter")
    src = (
        "nika: x\npermits: { fs: { read: ['skills/**'] }, tools: ['nika:done'] }\n"
        "tasks:\n  r:\n    agent: { prompt: p, tools: ['nika:done'], skills: [skills/SKILL.md] }\n"
    )
    v = check(src, path=str(base / "wf.nika.yaml"))
    assert "NIKA-AGENT-004" in [e.code for e in v.errors]


def test_an_mcp_server_name_may_start_with_a_digit() -> None:
    src = (
        'nika: w\npermits: { tools: ["mcp:21st/*"] }\ntasks:\n'
        '  ui:\n    invoke: { tool: "mcp:21st/magic_component", args: { q: "a card" } }\n'
        '  pick:\n    agent: { prompt: p, model: mock/echo, tools: ["mcp:21st/*"] }\n'
    )
    v = check(src)
    assert v.valid, [(e.code, e.detail) for e in v.errors]


def test_a_linter_crash_is_an_internal_finding_beside_the_rungs_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import nika.check.lint as lint_pkg

    def broken(ctx: CheckContext) -> tuple[()]:
        raise RuntimeError("boom")

    monkeypatch.setattr(lint_pkg, "lint", broken)
    v = check(HELLO, lint=True)
    assert [e.code for e in v.errors] == ["NIKA-IMPL-001"] and v.lints == ()
    assert "the linter" in v.errors[0].detail
