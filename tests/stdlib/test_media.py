"""`nika.stdlib.media`: every provider `nika:image_generate` and `nika:tts_generate` admit is
served (issue 32) — `nika check` has no engine-capability finding for any of them and a mock
call of each runs; `call_provider` is the one inference of a provider from `model:`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nika.stdlib.media import IMAGE_PROVIDERS, INFERRED, TTS_PROVIDERS, call_provider

ROOT = Path(__file__).resolve().parents[2]
IMAGE, TTS = "nika:image_generate", "nika:tts_generate"
HEAD = """\
nika: v1
model: mock/echo
permits:
  tools: ["nika:image_generate", "nika:tts_generate"]
  fs: { write: ["out/**"] }
tasks:
"""


def _task(name: str, tool: str, args: str) -> str:
    return f"  {name}:\n    invoke:\n      tool: {tool}\n      args: {{ {args} }}\n"


def _every_call() -> str:
    """One task per provider of each builtin, plus one per inferred `model:` prefix."""
    tasks = [_task(f"img_{p}", IMAGE, f"provider: {p}, prompt: a cat, output_dir: out/i")
             for p in IMAGE_PROVIDERS]
    tasks += [_task(f"tts_{p}", TTS, f"provider: {p}, text: hello, output_dir: out/s")
              for p in TTS_PROVIDERS]
    tasks += [_task(f"img_by_{n}", IMAGE, f"model: {prefix}x, prompt: a, output_dir: out/i")
              for n, (prefix, _) in enumerate(INFERRED[IMAGE])]
    tasks += [_task(f"tts_by_{n}", TTS, f"model: {prefix}x, text: hi, output_dir: out/s")
              for n, (prefix, _) in enumerate(INFERRED[TTS])]
    return HEAD + "".join(tasks)


def _nika(base: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "nika.cli", *argv], cwd=base, env=env,
                          capture_output=True, text=True, timeout=120)


def test_check_finds_nothing_to_refuse_for_any_provider(tmp_path: Path) -> None:
    (tmp_path / "every.nika.yaml").write_text(_every_call())
    done = _nika(tmp_path, "check", "--json", "every.nika.yaml")
    verdict = json.loads(done.stdout)
    assert done.returncode == 0 and verdict["valid"] is True, done.stdout
    assert verdict["errors"] == [] and verdict["hints"] == []
    assert "IMPL-002" not in done.stdout + done.stderr
    human = _nika(tmp_path, "check", "every.nika.yaml")
    assert human.returncode == 0 and "capability" not in human.stdout + human.stderr


@pytest.mark.parametrize(("tool", "args"), [
    (IMAGE, "provider: dalle, prompt: a cat, output_dir: out/i"),
    (TTS, "provider: azure, text: hello, output_dir: out/s"),
])
def test_a_provider_outside_the_enum_is_the_builtins_own_001(
    tmp_path: Path, tool: str, args: str
) -> None:
    (tmp_path / "bad.nika.yaml").write_text(HEAD + _task("t", tool, args))
    verdict = json.loads(_nika(tmp_path, "check", "--json", "bad.nika.yaml").stdout)
    code = f"NIKA-BUILTIN-{tool.removeprefix('nika:').upper()}-001"
    assert [e["code"] for e in verdict["errors"]] == [code]


def test_a_mock_call_of_each_runs(tmp_path: Path) -> None:
    flow = (HEAD + _task("draw", IMAGE, "provider: mock, prompt: a cat, output_dir: out/i")
            + _task("say", TTS, "provider: mock, text: hello, output_dir: out/s"))
    (tmp_path / "mock.nika.yaml").write_text(flow)
    done = _nika(tmp_path, "run", "--json", "mock.nika.yaml")
    assert done.returncode == 0, done.stderr
    assert "IMPL-002" not in done.stdout + done.stderr
    assert [p.suffix for p in sorted((tmp_path / "out/i").glob("*.png"))] == [".png"]
    assert [p.suffix for p in sorted((tmp_path / "out/s").glob("*.wav"))] == [".wav"]


@pytest.mark.parametrize(("tool", "prefix", "provider"),
                         [(t, pre, p) for t, table in INFERRED.items() for pre, p in table])
def test_a_provider_left_out_is_inferred_from_the_model_prefix(
    tool: str, prefix: str, provider: str
) -> None:
    assert call_provider(tool, {"model": f"{prefix}-v9"}) == provider
    assert call_provider(tool, {"model": f"{prefix}-v9", "provider": "local"}) == "local"


@pytest.mark.parametrize("tool", [IMAGE, TTS])
def test_no_provider_is_inferred_from_an_unknown_or_absent_model(tool: str) -> None:
    assert call_provider(tool, {"model": "stablediffusion"}) is None  # local: never inferred
    assert call_provider(tool, {"model": 7}) is None
    assert call_provider(tool, {}) is None
    assert call_provider("nika:chart", {"model": "mock"}) is None


@pytest.mark.parametrize(("tool", "args"), [
    (IMAGE, "model: stablediffusion, prompt: a cat, output_dir: out/i"),
    (IMAGE, "prompt: a cat, output_dir: out/i"),
    (TTS, "model: kokoro, text: hello, output_dir: out/s"),
    (TTS, "text: hello, output_dir: out/s"),
])
def test_an_uninferable_provider_is_the_same_001_at_check_and_at_run(
    tmp_path: Path, tool: str, args: str
) -> None:
    (tmp_path / "odd.nika.yaml").write_text(HEAD + _task("t", tool, args))
    code = f"NIKA-BUILTIN-{tool.removeprefix('nika:').upper()}-001"
    checked = _nika(tmp_path, "check", "--json", "odd.nika.yaml")
    verdict = json.loads(checked.stdout)
    assert checked.returncode != 0 and [e["code"] for e in verdict["errors"]] == [code]
    assert "name a `provider:`" in json.dumps(verdict["errors"][0])
    ran = _nika(tmp_path, "run", "--json", "odd.nika.yaml")
    assert ran.returncode != 0 and code in ran.stdout + ran.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("tool", "args"), [
    (IMAGE, "model: '${{ inputs.m }}', prompt: a cat, output_dir: out/i"),
    (TTS, "model: '${{ inputs.m }}', text: hello, output_dir: out/s"),
])
def test_a_templated_model_is_the_runs_to_judge(tmp_path: Path, tool: str, args: str) -> None:
    head = HEAD.replace("tasks:\n", "inputs:\n  m: { type: string, default: mock }\ntasks:\n")
    (tmp_path / "tpl.nika.yaml").write_text(head + _task("t", tool, args))
    verdict = json.loads(_nika(tmp_path, "check", "--json", "tpl.nika.yaml").stdout)
    assert verdict["errors"] == [], verdict
