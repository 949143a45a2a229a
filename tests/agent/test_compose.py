"""`nika:compose`, the loop-served self-check: arguments, bounds, verdict, telemetry, fuzz."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nika.agent import INTRINSICS, AgentConfig, ComposeChecked, LoopContext, ToolResult
from nika.agent.compose import ComposeIntrinsic
from nika.agent.intrinsic import intrinsic_named, is_loop_only
from nika.agent.observe import AgentEvent
from nika.check import Verdict, check

VALID = """\
nika: hello
model: mock/echo
permits: {}
tasks:
  greet:
    infer: { prompt: "Say hello in one short sentence.", max_tokens: 64 }
outputs:
  text: ${{ tasks.greet.output }}
"""

INVALID = VALID.replace("prompt:", "promt:")


class _Sink:
    def __init__(self) -> None:
        self.events: list[tuple[type[AgentEvent], Mapping[str, Any]]] = []

    def __call__(self, event_type: type[AgentEvent], fields: Mapping[str, Any]) -> None:
        self.events.append((event_type, dict(fields)))


def _context(sink: _Sink | None = None, **config: Any) -> LoopContext:
    return LoopContext(
        config=AgentConfig(**config),
        task_id="draft",
        model="mock/scripted",
        turn=1,
        sink=sink if sink is not None else _Sink(),
    )


async def _serve(
    args: Mapping[str, Any], sink: _Sink | None = None, *, intrinsic: ComposeIntrinsic | None = None
) -> ToolResult:
    outcome = await (intrinsic or ComposeIntrinsic()).serve(args, _context(sink))
    assert isinstance(outcome, ToolResult)
    return outcome


def test_compose_is_a_registered_loop_only_builtin_taking_one_required_string() -> None:
    compose = intrinsic_named("nika:compose")
    assert isinstance(compose, ComposeIntrinsic) and compose in INTRINSICS
    assert is_loop_only("nika:compose")
    definition = compose.definition
    assert definition.source == "builtin"
    assert definition.parameters["required"] == ["workflow_yaml"]
    assert definition.parameters["additionalProperties"] is False
    assert definition.parameters["properties"]["workflow_yaml"]["type"] == "string"


async def test_a_valid_draft_returns_the_complete_verdict_with_its_certificate() -> None:
    sink = _Sink()
    result = await _serve({"workflow_yaml": VALID}, sink)
    assert not result.is_error
    verdict = json.loads(result.content)
    assert verdict == json.loads(check(VALID, lint=True).to_json()) and verdict["valid"] is True
    assert verdict["lints"] == []
    assert verdict["certificate"]["tasks"]["greet"]["model_calls"] == 1
    assert result.structured == verdict
    assert sink.events == [
        (
            ComposeChecked,
            {
                "valid": True,
                "error_codes": (),
                "draft_bytes": len(VALID.encode()),
                "escapes": 0,
                "lint_rules": (),
            },
        )
    ]


async def test_an_invalid_draft_is_a_verdict_not_a_tool_error() -> None:
    sink = _Sink()
    result = await _serve({"workflow_yaml": INVALID}, sink)
    verdict = json.loads(result.content)
    assert not result.is_error and verdict["valid"] is False
    codes = [e["code"] for e in verdict["errors"]]
    assert codes and all(e["detail"] for e in verdict["errors"])
    assert sink.events[0][1]["error_codes"] == tuple(codes)
    assert sink.events[0][1]["valid"] is False


async def test_the_check_report_counts_the_drafts_permit_escapes() -> None:
    draft = VALID.replace(
        'infer: { prompt: "Say hello in one short sentence.", max_tokens: 64 }',
        'exec: { command: ["ls"] }',
    )
    sink = _Sink()
    verdict = json.loads((await _serve({"workflow_yaml": draft}, sink)).content)
    assert verdict["effects"]["escapes"] == 1 and not verdict["valid"]
    assert sink.events[0][1]["escapes"] == 1
    assert "NIKA-SEC-004" in sink.events[0][1]["error_codes"]


async def test_the_verdict_reports_lints_so_the_agent_can_fix_them() -> None:
    draft = VALID.replace(
        'infer: { prompt: "Say hello in one short sentence.", max_tokens: 64 }',
        'exec: { command: ["curl", "-s", "https://example.com"] }',
    ).replace("permits: {}", 'permits: { exec: ["curl"] }')
    sink = _Sink()
    verdict = json.loads((await _serve({"workflow_yaml": draft}, sink)).content)
    (lint,) = verdict["lints"]
    assert (lint["rule"], lint["task"]) == ("native-first/001", "greet")
    assert "nika:fetch" in lint["fix"]
    assert sink.events[0][1]["lint_rules"] == ("native-first/001",)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "missing required arg `workflow_yaml:`"),
        ({"workflow_yaml": 42}, "`workflow_yaml: 42` is an integer"),
        ({"workflow_yaml": VALID, "run": True}, "unknown arg `run:`"),
        ({"workflow_yaml": "nika: x\ud800"}, "unpaired surrogate"),
    ],
)
async def test_malformed_arguments_are_tool_errors(args: Mapping[str, Any], needle: str) -> None:
    sink = _Sink()
    result = await _serve(args, sink)
    assert result.is_error and result.error is not None
    assert result.error.code == "NIKA-INVOKE-002" and needle in result.content
    assert sink.events == []


class _RecordingChecker:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, draft: str) -> Verdict:
        self.seen.append(draft)
        return check(draft)


async def test_an_oversized_draft_is_refused_in_utf8_bytes_before_the_checker_runs() -> None:
    checker = _RecordingChecker()
    compose = ComposeIntrinsic(checker=checker)
    draft = "# " + "é" * 60  # 62 characters, 122 bytes
    outcome = await compose.serve({"workflow_yaml": draft}, _context(compose_max_bytes=100))
    assert isinstance(outcome, ToolResult) and outcome.is_error and outcome.error is not None
    assert outcome.error.code == "NIKA-INVOKE-002"
    assert "122 bytes" in outcome.content and "at most 100 bytes" in outcome.content
    assert checker.seen == []
    at_limit = await compose.serve({"workflow_yaml": "#" * 100}, _context(compose_max_bytes=100))
    assert isinstance(at_limit, ToolResult) and not at_limit.is_error
    assert checker.seen == ["#" * 100]


async def test_a_check_that_outlives_the_timeout_is_a_tool_error_and_the_caller_goes_on() -> None:
    release = threading.Event()

    def stuck(draft: str) -> Verdict:
        release.wait(10)
        return check(draft)

    sink = _Sink()
    compose = ComposeIntrinsic(checker=stuck, timeout_s=0.05)
    try:
        result = await _serve({"workflow_yaml": VALID}, sink, intrinsic=compose)
    finally:
        release.set()
    assert result.is_error and result.error is not None
    assert result.error.code == "NIKA-TIMEOUT-001" and "0.05 s" in result.content
    assert sink.events == []
    # The abandoned worker settles into a future nobody awaits: the loop is unharmed.
    await asyncio.sleep(0.05)
    again = await _serve({"workflow_yaml": VALID})
    assert not again.is_error


async def test_a_raising_checker_reaches_the_caller_as_the_exception() -> None:
    def broken(draft: str) -> Verdict:
        raise RuntimeError("checker bug")

    with pytest.raises(RuntimeError, match="checker bug"):
        await ComposeIntrinsic(checker=broken).serve({"workflow_yaml": VALID}, _context())


async def test_the_draft_is_never_written_and_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    draft = VALID.replace(
        'infer: { prompt: "Say hello in one short sentence.", max_tokens: 64 }',
        'exec: { command: ["touch", "ran-it"] }',
    )
    result = await _serve({"workflow_yaml": draft})
    assert not result.is_error and "certificate" in json.loads(result.content)
    assert list(tmp_path.iterdir()) == []


def _bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


_DRAFTS = st.one_of(
    st.text(max_size=400),
    st.binary(max_size=400).map(lambda b: b.decode("latin-1")),
    st.integers(1, 9).map(_bomb),
    st.integers(1, 5000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: "".join(" " * i + "k:\n" for i in range(n))),
    st.integers(1, 2000).map(lambda n: "a: " + "{b: " * n + "1" + "}" * n),
    st.lists(st.sampled_from(VALID.splitlines()), max_size=12).map("\n".join),
    st.builds(
        lambda head, tail: head + tail,
        st.sampled_from([VALID, INVALID, "nika: x\ntasks:\n  t:\n"]),
        st.text(max_size=60),
    ),
)


@settings(
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(draft=_DRAFTS)
def test_fuzz_compose_never_raises_and_answers_a_verdict_or_a_tool_error(draft: str) -> None:
    result = asyncio.run(_serve({"workflow_yaml": draft}))
    if result.is_error:
        assert result.error is not None
        assert result.error.code in {"NIKA-INVOKE-002", "NIKA-TIMEOUT-001"}, result.content
        return
    verdict = json.loads(result.content)
    assert isinstance(verdict["valid"], bool)
    codes = {e["code"] for e in verdict["errors"]}
    assert "NIKA-IMPL-001" not in codes, verdict["errors"]
    assert verdict["valid"] is (not codes)


_SIDE_FILE_DRAFT = """\
nika: probe
model: mock/echo
permits: { fs: { read: ["probe/**", "/dev/**"] }, tools: ["nika:read"] }
tasks:
  look:
    agent:
      prompt: "Review."
      skills: ["probe/SKILL.md", "/dev/zero"]
      max_turns: 2
  call:
    invoke: { workflow: ./probe/child.nika.yaml }
"""


@pytest.mark.parametrize("state", ["absent", "skill", "garbage", "directory"])
async def test_a_draft_cannot_probe_host_files_through_side_file_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: str
) -> None:
    monkeypatch.chdir(tmp_path)  # where a draft's relative side files would resolve
    probe = tmp_path / "probe"
    probe.mkdir()
    skill, child = probe / "SKILL.md", probe / "child.nika.yaml"
    if state == "skill":
        skill.write_text("---\nname: r\ndescription: d\n---\nbody\n")
        child.write_text(VALID)
    elif state == "garbage":
        skill.write_text("not a skill")
        child.write_text("nika: Bad\n")
    elif state == "directory":
        skill.mkdir()
        child.mkdir()
    verdict = json.loads((await _serve({"workflow_yaml": _SIDE_FILE_DRAFT})).content)
    codes = {e["code"] for e in verdict["errors"]}
    # whatever the disk holds, the draft learns nothing about it
    blind = check(_SIDE_FILE_DRAFT, base_dir=tmp_path / "nowhere", read_side_files=False, lint=True)
    assert verdict == json.loads(blind.to_json())
    assert not codes & {"NIKA-AGENT-003", "NIKA-AGENT-004", "NIKA-COMP-001", "NIKA-COMP-004"}
    # the same draft checked as a file on disk does read them: the probe would have worked
    if state != "skill":
        on_disk = {e.code for e in check(_SIDE_FILE_DRAFT, base_dir=tmp_path).errors}
        assert on_disk & {"NIKA-AGENT-003", "NIKA-AGENT-004", "NIKA-COMP-001"}
